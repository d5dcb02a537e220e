// External device code for Python (declare_device and jit's link=, ir/extern_function.h): the package's
// descriptions of link inputs and external functions turned into the compiler's, and the offline link of a
// kernel into a cubin (runtime/kernel_link.h).
//
// A link input is described by python/gpujit/_linking.py as (kind, name, data, options): kind "cu", "ptx",
// "cubin", "fatbin", "object", "library" or "ltoir"; data bytes or text; options NVRTC's (a .cu's -I...). An
// external function as ("extern", name, signature text, abi "numba" | "c", (link input, ...)).
#pragma once

#include <memory>
#include <vector>

#include <pybind11/pybind11.h>

#include "ir/extern_function.h"

namespace gpujit::py {

namespace pyb = pybind11;

/// The link inputs of a sequence of descriptions; ValueError for a malformed one.
std::vector<LinkFile> link_files_of(pyb::handle descriptions);
/// The same descriptions back (the order kept).
pyb::list link_files_to_py(const std::vector<LinkFile>& files);
/// ("extern", name, signature, abi, link) as the compiler's declaration; ValueError for a bad signature.
std::shared_ptr<const ExternFunction> extern_function_of(const pyb::tuple& description);

/// _core._link_kernel(ptx, name, link, arch, lto) -> cubin bytes.
void register_link_files(pyb::module_& m);

}  // namespace gpujit::py
