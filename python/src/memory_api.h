// The runtime's memory and device services beyond arrays, for the Python package's numba-cuda API
// (python/gpujit/_memory_manager.py, _ipc.py, _runtime_api.py): the hook that hands a device's allocations to
// an External Memory Management plugin, IPC handles, host memory registered in place (cuda.pinned and
// cuda.mapped), the profiler, deferred cleanup and the devices' reset.
#pragma once

#include <pybind11/pybind11.h>

namespace gpujit::py {

/// Adds the functions (module-private, `_`-prefixed: the package wraps them) and Device methods.
void register_memory_api(pybind11::module_& m);

}  // namespace gpujit::py
