// External device functions (numba's cuda.declare_device) and the code a kernel links to reach them.
//
// A kernel may call a function it does not define: CUDA C compiled by NVRTC, PTX from nvcc, a cubin, a
// library. Semantic analysis types the call by the declared signature alone; codegen emits a call of an
// external symbol (`.extern .func` in the PTX) with the declared ABI; the compile result lists the code to link
// (LinkFile), and the runtime links the kernel's PTX with it into a cubin before loading (nvJitLink). The
// CPU backend cannot run such a kernel and says so.
//
// The two ABIs are numba's:
// - Numba: `int32 status = name(ret_type* result, args...)`: the result is written through the first
//   parameter, even for void (then an unused pointer); a status of 0 means success (gpujit ignores it:
//   external code raises no Python exceptions).
// - C: `ret_type name(args...)`, a plain C function.
// Arguments are scalars (passed by value) and pointers (numba's CPointer, passed as a generic address).
#pragma once

#include <string>
#include <vector>

#include "ir/types.h"

namespace gpujit {

/// One input of the link that makes a kernel's cubin.
struct LinkFile {
  /// "cu" (CUDA C source, compiled by NVRTC), "ptx", "cubin", "fatbin", "object", "library" or "ltoir".
  std::string kind;
  /// The name logs give it ("functions.cu"; a file's path).
  std::string name;
  /// Its contents: source text or bytes.
  std::string data;
  /// "cu" only: NVRTC options (include directories as -I...).
  std::vector<std::string> options;

  bool operator==(const LinkFile& o) const {
    return kind == o.kind && name == o.name && data == o.data && options == o.options;
  }
};

/// A function declared with declare_device: its symbol, signature, ABI and the code that defines it.
struct ExternFunction {
  std::string name;      // the symbol, as in the linked code
  Signature signature;   // ret void: returns nothing
  bool c_abi = false;    // false: numba's ABI (see above)
  std::vector<LinkFile> link;
  /// use_cooperative=True: its code needs a cooperative launch (a grid-wide sync, cluster or grid groups), so
  /// a kernel that calls it, directly or through device functions, is launched as one (uses_grid_sync).
  bool cooperative = false;
};

}  // namespace gpujit
