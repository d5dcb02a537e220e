// The kernel dispatcher and its launch path, as raw CPython types.
//
// `_core.Dispatcher` is the base class of gpujit's Python Dispatcher (gpujit/_dispatcher.py). Everything a
// launch does is here in C++: `kernel[grid, block, stream, shared]` is the type's mp_subscript slot and
// returns a `_core.Launcher` whose vectorcall classifies the arguments (by exact type first: DeviceArray,
// numpy.ndarray, int, float, bool, complex, NumPy scalars; then __cuda_array_interface__ and __dlpack__),
// finds the specialization for their types and device, packs the parameters into a reused buffer and calls
// the device's launch. No Python code of gpujit runs on a launch once the kernel is specialized; on the first
// launch with new argument types the Python subclass's `_source_args()` is called once for the function's
// text and free names, and the compile happens in C++.
//
// The types are created with PyType_FromSpec, so a Python subclass inherits the C slots directly.
#pragma once

#include <pybind11/pybind11.h>

namespace gpujit::py {

namespace pyb = pybind11;

void register_dispatcher(pyb::module_& m);

}  // namespace gpujit::py
