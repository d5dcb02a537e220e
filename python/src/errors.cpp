// Error translation between the runtime/compiler and Python (see errors.h).
#include "errors.h"

#include <stdexcept>

#include "runtime/cuda_toolkit.h"
#include "runtime/graph.h"
#include "runtime/runtime_error.h"

namespace gpujit::py {
namespace {

// The package's exception classes; RuntimeError until the package registers its own.
PyObject* g_compile_error = nullptr;
PyObject* g_support_error = nullptr;
PyObject* g_api_error = nullptr;
PyObject* g_launch_error = nullptr;
PyObject* g_capture_error = nullptr;
PyObject* g_performance_warning = nullptr;

PyObject* or_default(PyObject* cls, PyObject* fallback) { return cls ? cls : fallback; }

// NVRTC's and nvJitLink's errors where a kernel links external code (declare_device): gpujit.errors' class
// `cls` with the logs as attributes; RuntimeError if the package's class cannot be imported.
// The tools' logs may hold bytes that are not UTF-8 (a cubin's name, a mangled symbol): replaced, not fatal.
pyb::object text_of(const std::string& s) {
  return pyb::reinterpret_steal<pyb::object>(PyUnicode_DecodeUTF8(s.data(), Py_ssize_t(s.size()), "replace"));
}

void set_toolkit_error(const char* cls, const std::string& message,
                       std::initializer_list<std::pair<const char*, std::string>> attrs) {
  try {
    pyb::object type = pyb::module_::import("gpujit.errors").attr(cls);
    pyb::object err = type(text_of(message));
    for (const auto& [name, value] : attrs) err.attr(name) = text_of(value);
    PyErr_SetObject(type.ptr(), err.ptr());
  } catch (pyb::error_already_set&) {
    PyErr_SetObject(PyExc_RuntimeError, text_of(message).ptr());
  }
}

}  // namespace

void set_error_from_current_exception() {
  try {
    throw;
  } catch (pyb::error_already_set& e) {
    e.restore();
  } catch (const pyb::builtin_exception& e) {
    e.set_error();
  } catch (const rt::ForkedProcessError& e) {
    // gpujit.errors.CudaDriverError, or the numba shim's class derived from it and numba's.
    try {
      pyb::object type = pyb::module_::import("gpujit.errors").attr("_class_for")("CudaDriverError");
      PyErr_SetObject(type.ptr(), type(e.what()).ptr());
    } catch (pyb::error_already_set&) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  } catch (const rt::NoDriverError& e) {
    PyErr_SetString(or_default(g_support_error, PyExc_RuntimeError), e.what());
  } catch (const rt::DriverError& e) {
    PyObject* cls = or_default(g_api_error, PyExc_RuntimeError);
    PyObject* err = PyObject_CallFunction(cls, "s", e.what());
    if (!err) return;
    PyObject_SetAttrString(err, "function", pyb::str(e.function()).ptr());
    PyObject_SetAttrString(err, "code", pyb::int_(e.code()).ptr());
    PyObject_SetAttrString(err, "name", pyb::str(e.error_name()).ptr());
    PyObject_SetAttrString(err, "recoverable", e.recoverable() ? Py_True : Py_False);
    PyErr_SetObject(cls, err);
    Py_DECREF(err);
  } catch (const rt::LaunchError& e) {
    PyErr_SetString(or_default(g_launch_error, PyExc_ValueError), e.what());
  } catch (const rt::CaptureError& e) {
    PyErr_SetString(or_default(g_capture_error, PyExc_RuntimeError), e.what());
  } catch (const rt::KernelIndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const rt::KernelRaise& e) {
    // gpujit._exceptions builds the exception the kernel raised from its description.
    try {
      pyb::object exc = pyb::module_::import("gpujit._exceptions").attr("from_kernel")(e.what());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
    } catch (pyb::error_already_set& err) {
      err.restore();
    }
  } catch (const rt::CudaCCompileError& e) {
    set_toolkit_error("NvrtcCompilationError", e.what(), {{"log", e.log()}});
  } catch (const rt::CudaLinkError& e) {
    set_toolkit_error("LinkerError", e.what(), {{"error_log", e.error_log()}, {"info_log", e.info_log()}});
  } catch (const rt::ToolkitMissingError& e) {
    set_toolkit_error("CudaSupportError", e.what(), {});
  } catch (const InternalError& e) {
    PyErr_SetString(PyExc_RuntimeError, (std::string("internal gpujit error (please report it): ") + e.what()).c_str());
  } catch (const std::out_of_range& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::invalid_argument& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

void raise_compile_error(const Diagnostics& diags) {
  const Diagnostic* first = diags.first_error();
  std::string text = diags.render();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  pyb::object filename = pyb::none(), lineno = pyb::none(), col = pyb::none();
  if (first && first->file) filename = pyb::str(first->file->name());
  if (first && first->range.valid()) {
    lineno = pyb::int_(first->range.begin.line);
    col = pyb::int_(first->range.begin.col);
  }
  PyObject* cls = or_default(g_compile_error, PyExc_RuntimeError);
  pyb::object err = pyb::reinterpret_steal<pyb::object>(
      PyObject_CallFunctionObjArgs(cls, pyb::str(text).ptr(), filename.ptr(), lineno.ptr(), col.ptr(), nullptr));
  if (!err) throw pyb::error_already_set();
  PyErr_SetObject(cls, err.ptr());
  throw pyb::error_already_set();
}

void issue_compile_warnings(const Diagnostics& diags) {
  for (const Diagnostic& d : diags.all()) {
    if (d.severity != Severity::Warning) continue;
    pyb::str message(d.message);
    pyb::str filename(d.file ? d.file->name() : std::string("<gpujit>"));
    int line = d.range.valid() ? static_cast<int>(d.range.begin.line) : 0;
    PyObject* cls = or_default(g_performance_warning, PyExc_UserWarning);
    if (PyErr_WarnExplicitObject(cls, message.ptr(), filename.ptr(), line, nullptr, nullptr) < 0)
      throw pyb::error_already_set();
  }
}

LaunchWarnings g_launch_warnings;

void warn_performance(const char* message) {
  if (PyErr_WarnEx(or_default(g_performance_warning, PyExc_UserWarning), message, 1) < 0)
    throw pyb::error_already_set();
}

PyObject* launch_error_class() { return or_default(g_launch_error, PyExc_ValueError); }

void strip_traceback() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value) PyException_SetTraceback(value, Py_None);
  Py_XDECREF(tb);
  PyErr_Restore(type, value, nullptr);
}

void register_errors(pyb::module_& m) {
  m.def("_set_error_classes", [](pyb::object compile, pyb::object support, pyb::object api, pyb::object launch) {
    g_compile_error = compile.release().ptr();
    g_support_error = support.release().ptr();
    g_api_error = api.release().ptr();
    g_launch_error = launch.release().ptr();
  });
  m.def("_set_capture_error_class", [](pyb::object capture) { g_capture_error = capture.release().ptr(); });
  m.def("_set_warning_class", [](pyb::object performance) { g_performance_warning = performance.release().ptr(); });
  m.def(
      "_set_launch_warnings",
      [](bool low_occupancy, bool implicit_copy) { g_launch_warnings = {low_occupancy, implicit_copy}; },
      pyb::arg("low_occupancy"), pyb::arg("implicit_copy"));
  m.def("_launch_warnings", [] { return pyb::make_tuple(g_launch_warnings.low_occupancy, g_launch_warnings.implicit_copy); });
  // Module-local: pybind11 shares its global translators with every module built against the same ABI
  // (PyTorch's among them), and this one must not turn their std::out_of_range into our errors.
  pyb::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const rt::NoDriverError&) {
      set_error_from_current_exception();
    } catch (const rt::ForkedProcessError&) {
      set_error_from_current_exception();
    } catch (const rt::DriverError&) {
      set_error_from_current_exception();
    } catch (const rt::LaunchError&) {
      set_error_from_current_exception();
    } catch (const rt::KernelIndexError&) {
      set_error_from_current_exception();
    } catch (const rt::CaptureError&) {
      set_error_from_current_exception();
    } catch (const rt::KernelRaise&) {
      set_error_from_current_exception();
    } catch (const InternalError&) {
      set_error_from_current_exception();
    } catch (const std::out_of_range&) {
      // A device ordinal or similar argument out of range: a ValueError, as numba raises.
      set_error_from_current_exception();
    }
  });
}

}  // namespace gpujit::py
