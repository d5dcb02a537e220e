// What the ufuncs (gpujit/ufunc.py, gpujit/reduction.py) ask the core for on each call, in one C++ call each
// instead of a dozen attribute reads in Python: the key of vectorize's fast path, and device arrays of
// PyTorch tensors and CuPy arrays read the way a kernel launch reads them (foreign_arrays.h), without their
// __cuda_array_interface__ dict and without the wait for the stream it names, which a launch does not make
// either (docs/python.md). So a ufunc on those arrays costs what a launch of its kernel on them does.
#pragma once

#include <pybind11/pybind11.h>

namespace gpujit::py {

namespace pyb = pybind11;

/// Adds _elementwise_key and _foreign_device_array to the core module (called by register_arrays).
void register_ufunc_operands(pyb::module_& m);

}  // namespace gpujit::py
