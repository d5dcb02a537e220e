// libdevice: NVIDIA's bitcode library of math functions (__nv_expf, __nv_erf...), linked into kernels that
// use math builtins.
//
// The file is found and parsed once per process; each function a kernel calls is cut out of it once, with
// the helpers and tables it needs, into a small bitcode blob that later compiles parse and link in
// microseconds. A kernel pays for the few functions it calls, and a kernel without math pays nothing.
#pragma once

#include <string>

namespace llvm {
class Module;
}

namespace gpujit {

/// The libdevice file this process uses, searched in order: $GPUJIT_LIBDEVICE (a file or a folder),
/// $CUDA_HOME/nvvm/libdevice, $CUDA_PATH/nvvm/libdevice, /usr/local/cuda/nvvm/libdevice, and next to the
/// gpujit core library (its folder, then ../nvvm/libdevice). Empty if none exists; *searched lists the
/// places looked at, for the error message.
std::string find_libdevice(std::string* searched);

/// Links the libdevice functions `module` declares into it. Returns false with a message naming the places
/// searched when libdevice is missing or unreadable.
bool link_libdevice(llvm::Module& module, std::string* error);

}  // namespace gpujit
