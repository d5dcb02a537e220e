// How C++ errors reach Python.
//
// The exception classes live in the Python package (gpujit/errors.py) and are handed to the module at
// import (_core._set_error_classes). Runtime errors map as: rt::NoDriverError -> gpujit.CudaSupportError,
// rt::DriverError -> gpujit.CudaAPIError (with .function, .code, .name), rt::LaunchError ->
// gpujit.LaunchError (a ValueError), rt::CaptureError -> gpujit.CaptureError (a RuntimeError), rt::KernelIndexError (debug=True bounds checks) -> IndexError,
// std::invalid_argument/out_of_range -> ValueError, InternalError ->
// RuntimeError naming it a gpujit bug. A compile's diagnostics become gpujit.CompileError with .filename,
// .lineno, .col of the first error and the rendered clang-style text as its message. Errors are raised from
// C++ directly, so a user's traceback holds no frames from inside gpujit.
#pragma once

#include <pybind11/pybind11.h>

#include "frontend/diagnostics.h"

namespace gpujit::py {

namespace pyb = pybind11;

/// Sets the Python error for the C++ exception being handled; call only inside a catch block.
void set_error_from_current_exception();
/// Raises gpujit.CompileError for the diagnostics (throws pyb::error_already_set).
[[noreturn]] void raise_compile_error(const Diagnostics& diags);
/// Issues the diagnostics of severity Warning as Python warnings of class gpujit.PerformanceWarning, each
/// at its file and line (so warnings filters and `python -W error` apply); throws pyb::error_already_set
/// when a filter turns one into an error.
void issue_compile_warnings(const Diagnostics& diags);
/// Which launch-time performance warnings are on: a grid with fewer blocks than the device has
/// multiprocessors, and a NumPy array copied to a CUDA device for a launch. The package sets them at import
/// from GPUJIT_LOW_OCCUPANCY_WARNINGS and GPUJIT_WARN_ON_IMPLICIT_COPY (numba's NUMBA_CUDA_* names too).
struct LaunchWarnings {
  bool low_occupancy = true;
  bool implicit_copy = true;
};
extern LaunchWarnings g_launch_warnings;
/// Issues `message` as a gpujit.PerformanceWarning at the calling Python frame's line (PyErr_WarnEx), so
/// warnings filters apply and the default filter shows it once per call site; throws pyb::error_already_set
/// when a filter turns it into an error.
void warn_performance(const char* message);
/// gpujit.LaunchError (ValueError until the package registers it).
PyObject* launch_error_class();
/// Drops the traceback of the pending Python error so it reads as raised from the caller's frame.
void strip_traceback();

void register_errors(pyb::module_& m);

}  // namespace gpujit::py
