// numba-cuda's deallocation queue and host memory as a buffer, for the Python package
// (python/gpujit/_deallocations.py, _memory_pointers.py): the caching allocator's pending frees (their count,
// bytes and limits, and the flush), and a buffer object over host memory at an address, which numba's mapped,
// pinned and managed memory pointers are (numpy.frombuffer, numpy.ndarray(buffer=...)).
#pragma once

#include <pybind11/pybind11.h>

namespace gpujit::py {

/// Adds the module-private functions and the `_HostMemory` buffer type (the package wraps them).
void register_deallocation_api(pybind11::module_& m);

}  // namespace gpujit::py
