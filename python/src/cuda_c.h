// CUDA C/C++ for Python: NVRTC compiles through the disk cache, nvJitLink links (cuda_c.cpp), and the
// RawFunction type, the launch path of CUDA C kernels (raw_kernel.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace gpujit::py {

namespace pyb = pybind11;

/// _core._compile_cuda_c, _link_cuda, _set_toolkit_search_dirs, _toolkit_library, _link_input_kind.
void register_cuda_c(pyb::module_& m);
/// _core.RawFunction, the base class of gpujit.RawKernel and of SourceModule's functions.
void register_raw_kernel(pyb::module_& m);

}  // namespace gpujit::py
