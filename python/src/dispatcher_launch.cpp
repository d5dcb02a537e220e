// The launch configuration object and the launch path of the dispatcher (see dispatcher.h,
// dispatcher_internal.h): `kernel[grid, block, stream, shared]` makes a Launcher, whose vectorcall
// classifies the arguments, finds the specialization and launches. The hot path is here, whole, in one
// file; it calls dispatcher.cpp only when the argument types missed the cache (specialize_for_launch).
#include "dispatcher_internal.h"

#include <structmember.h>

#include "arguments.h"
#include "arrays.h"
#include "errors.h"
#include "graphs.h"
#include "runtime/host_executor.h"
#include "runtime/runtime_error.h"

namespace gpujit::py {

PyTypeObject* g_launcher_type = nullptr;

namespace {

// ---------------------------------------------------------------------------------------------------------
// Launch

/// numba's implicit-copy warning, once per kernel: a NumPy array (a pinned one too, as in numba) was copied
/// to a CUDA device for the launch and will be copied back after it. On the CPU backend that "copy" is a host
/// memcpy the kernel's speed does not hinge on, so it does not warn.
void warn_host_copy(DispatcherState& st, rt::Device& device) {
  if (!g_launch_warnings.implicit_copy || device.backend() != rt::BackendKind::Cuda) return;
  std::string message = "Host array used in CUDA kernel will incur copy overhead to/from device (kernel '" +
                        st.name + "'): pass device arrays (gpujit.to_device) to keep data on the GPU between launches";
  warn_performance(message.c_str());
  st.warned_host_copy = true;
}

void launch_prepared(PyObject* dispatcher, const LaunchSpec& spec, PyObject* const* args, size_t nargs);

/// A launch through the kernel's extensions: gpujit._dispatcher._prepare_args gives the arguments as the
/// hooks made them and the write-backs they asked for (retr), which run after the launch.
void launch_with_extensions(PyObject* dispatcher, const LaunchSpec& spec, PyObject* const* args, size_t nargs) {
  DispatcherState& st = state_of(dispatcher);
  pyb::tuple given(nargs);
  for (size_t i = 0; i < nargs; ++i) given[i] = pyb::reinterpret_borrow<pyb::object>(args[i]);
  pyb::object stream = pyb::int_(reinterpret_cast<uintptr_t>(spec.config.stream));
  pyb::tuple prepared = pyb::module_::import("gpujit._dispatcher").attr("_prepare_args")(st.extensions, given, stream);
  auto new_args = prepared[0].cast<pyb::tuple>();
  std::vector<PyObject*> raw;
  for (pyb::handle h : new_args) raw.push_back(h.ptr());
  launch_prepared(dispatcher, spec, raw.data(), raw.size());
  for (pyb::handle writeback : prepared[1]) writeback();
}

void launch(PyObject* dispatcher, const LaunchSpec& spec, PyObject* const* args, size_t nargs) {
  DispatcherState& st = state_of(dispatcher);
  if (st.extensions && PyList_Check(st.extensions.ptr()) && PyList_GET_SIZE(st.extensions.ptr()) > 0) {
    launch_with_extensions(dispatcher, spec, args, nargs);
    return;
  }
  launch_prepared(dispatcher, spec, args, nargs);
}

/// The TypeError for a launch with `nargs` arguments; the end is what Python's inspect.Signature.bind (and so
/// numba-cuda) says.
pyb::type_error wrong_argument_count(const DispatcherState& st, size_t nargs) {
  size_t n = st.param_names.size();
  std::string m = "kernel '" + st.name + "' takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                  " but " + std::to_string(nargs) + (nargs == 1 ? " was" : " were") + " given: ";
  if (nargs < n) return pyb::type_error(m + "missing a required argument: '" + st.param_names[nargs] + "'");
  m += "too many positional arguments (its parameters are ";
  for (size_t i = 0; i < n; ++i) m += (i ? ", " : "") + st.param_names[i];
  return pyb::type_error(m + (n ? ")" : "none)"));
}

void launch_prepared(PyObject* dispatcher, const LaunchSpec& spec, PyObject* const* args, size_t nargs) {
  DispatcherState& st = state_of(dispatcher);
  if (st.device) {
    // RuntimeError with numba-cuda's words, which its users and tests match.
    PyErr_SetString(PyExc_RuntimeError, ("Cannot compile a device function as a kernel: '" + st.name +
                                         "' is a device function (jit(device=True)); call it from a kernel")
                                            .c_str());
    throw pyb::error_already_set();
  }
  if (nargs != st.param_names.size()) throw wrong_argument_count(st, nargs);
  rt::Device& device = rt::Runtime::get().current_device();
  // The launcher (kernel[grid, block, stream]) may have been made while another device was current.
  if (spec.stream && &spec.stream->device() != &device) {
    check_stream_device(*spec.stream, device, ("the launch of kernel '" + st.name + "'").c_str());
  }
  // A launch a graph captures: the graph keeps its arguments, whose memory its replays use. Here, before
  // the arguments are read, `args` is not kept live past that loop (which cost the loop a register).
  if (rt::Capture* c = rt::capture_of(&device, spec.config.stream)) [[unlikely]]
    keep_captured_arguments(*c, args, nargs);
  ArgumentScope scope(nargs);
  Arguments& a = scope.get();
  for (size_t i = a.classify_fast_run(args, nargs, device); i < nargs; ++i) {
    a.classify(args[i], i, st.name, st.param_names[i], device, spec.stream);
  }
  if (a.copied_host_arrays() && !st.warned_host_copy) warn_host_copy(st, device);
  if (!st.signatures.empty()) a.drop_index32();
  const rt::ArgCode* targets = nullptr;
  rt::LoadedKernel* kernel = st.cache.find(a.codes(), a.code_count(), &device);
  if (!kernel) kernel = specialize_for_launch(dispatcher, device, a.codes(), a.code_count(), &targets);
  if (kernel != spec.validated_kernel || &device != spec.validated_device ||
      kernel->max_threads_per_block != spec.validated_max_threads) [[unlikely]] {
    rt::validate_launch(spec.config, device.properties(), *kernel);
    spec.validated_kernel = kernel;
    spec.validated_device = &device;
    spec.validated_max_threads = kernel->max_threads_per_block;
  }
  void** params = a.pack(targets, kernel->packed_param_bytes);
  if (device.backend() == rt::BackendKind::Host) {
    // The cpu backend runs the whole grid before it returns: other Python threads run meanwhile. Nothing
    // below touches a Python object (params points into this thread's Arguments), and Ctrl-C reaches the
    // launch through the interrupt check (install_interrupt_check), which takes the GIL to run the handlers.
    bool interrupted = false;
    {
      pyb::gil_scoped_release release;
      try {
        device.launch(*kernel, spec.config, params, a.packed());
      } catch (const HostInterrupted&) {
        interrupted = true;
      }
    }
    if (interrupted) {
      // The interrupt check raised KeyboardInterrupt already, or the SIGINT hook cancelled the launch and
      // Python's handler has yet to run.
      if (!PyErr_Occurred() && PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw pyb::error_already_set();
    }
  } else {
    device.launch(*kernel, spec.config, params, a.packed());
  }
  if (a.copied_host_arrays()) a.finish(device, spec.config.stream);  // the common launch copied nothing
}

PyObject* launcher_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  try {
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
      throw pyb::type_error("kernel '" + state_of(l->dispatcher).name + "' takes positional arguments only");
    }
    if (l->callbacks && PyList_GET_SIZE(l->callbacks) > 0) {
      pyb::list callbacks = pyb::reinterpret_borrow<pyb::list>(l->callbacks);
      for (pyb::handle cb : pyb::list(callbacks)) cb(pyb::handle(l->dispatcher), pyb::handle(self));
    }
    size_t nargs = PyVectorcall_NARGS(nargsf);
    if (const pyb::object& hook = state_of(l->dispatcher).compile_hook) [[unlikely]] {
      pyb::tuple given(nargs);
      for (size_t i = 0; i < nargs; ++i) given[i] = pyb::reinterpret_borrow<pyb::object>(args[i]);
      pyb::object target = hook(pyb::handle(l->dispatcher), pyb::handle(self), given);
      if (!PyObject_TypeCheck(target.ptr(), g_dispatcher_type)) {
        throw pyb::type_error("the compile hook returned no dispatcher");
      }
      launch(target.ptr(), l->spec, args, nargs);
    } else {
      launch(l->dispatcher, l->spec, args, nargs);
    }
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
  Py_RETURN_NONE;
}

// A launcher and its dispatcher reference each other through the dispatcher's cached launcher, so both
// types take part in garbage collection.
int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(reinterpret_cast<LauncherObject*>(self)->dispatcher);
  Py_VISIT(reinterpret_cast<LauncherObject*>(self)->callbacks);
  Py_VISIT(reinterpret_cast<LauncherObject*>(self)->key);
  return 0;
}

int launcher_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<LauncherObject*>(self)->dispatcher);
  Py_CLEAR(reinterpret_cast<LauncherObject*>(self)->callbacks);
  Py_CLEAR(reinterpret_cast<LauncherObject*>(self)->key);
  return 0;
}

void launcher_dealloc(PyObject* self) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  PyTypeObject* tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  l->spec.~LaunchSpec();
  Py_CLEAR(l->dispatcher);
  Py_CLEAR(l->callbacks);
  Py_CLEAR(l->key);
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyObject* dim3_tuple(const rt::Dim3& d) { return Py_BuildValue("(III)", d.x, d.y, d.z); }

PyObject* launcher_griddim(PyObject* self, void*) {
  return dim3_tuple(reinterpret_cast<LauncherObject*>(self)->spec.config.grid);
}
PyObject* launcher_blockdim(PyObject* self, void*) {
  return dim3_tuple(reinterpret_cast<LauncherObject*>(self)->spec.config.block);
}
PyObject* launcher_sharedmem(PyObject* self, void*) {
  return PyLong_FromUnsignedLong(reinterpret_cast<LauncherObject*>(self)->spec.config.shared_bytes);
}
PyObject* launcher_dispatcher(PyObject* self, void*) {
  return Py_NewRef(reinterpret_cast<LauncherObject*>(self)->dispatcher);
}
/// The stream given in `kernel[grid, block, stream]` as it was given (0 for none).
PyObject* launcher_stream(PyObject* self, void*) {
  PyObject* key = reinterpret_cast<LauncherObject*>(self)->key;
  if (key && PyTuple_Check(key) && PyTuple_GET_SIZE(key) > 2) return Py_NewRef(PyTuple_GET_ITEM(key, 2));
  return PyLong_FromLong(0);
}
/// numba's configured-launch `args`: the arguments of the launch whose compile runs on this thread, or None.
PyObject* launcher_args(PyObject*, void*) {
  try {
    pyb::object cfg = pyb::module_::import("gpujit.launchconfig").attr("current_launch_config")();
    pyb::object args = cfg.is_none() ? pyb::object(pyb::none()) : pyb::object(cfg.attr("args"));
    return args.release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

/// numba's launch_config.pre_launch_callbacks. A configuration with callbacks is this launcher's own: the
/// dispatcher stops handing it out for an equal `kernel[...]` key, as numba makes a configuration per
/// subscript.
PyObject* launcher_callbacks(PyObject* self, void*) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  if (!l->callbacks) {
    l->callbacks = PyList_New(0);
    if (!l->callbacks) return nullptr;
    auto* d = reinterpret_cast<DispatcherObject*>(l->dispatcher);
    if (d && d->last_launcher == self) {
      Py_CLEAR(d->last_key);
      Py_CLEAR(d->last_launcher);
    }
  }
  return Py_NewRef(l->callbacks);
}

/// Pickles as the dispatcher and the configuration, `dispatcher[griddim, blockdim, 0, sharedmem]` again when
/// loaded (numba's configured kernels pickle so). A stream is a live handle of this process: a launcher on
/// one other than the default stream does not pickle.
PyObject* launcher_reduce(PyObject* self, PyObject*) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  if (l->callbacks && PyList_GET_SIZE(l->callbacks) > 0) {
    PyObject* pickle = PyImport_ImportModule("pickle");
    PyObject* error = pickle ? PyObject_GetAttrString(pickle, "PicklingError") : nullptr;
    Py_XDECREF(pickle);
    if (error) PyErr_SetString(error, "Cannot pickle configured launches with pre-launch callbacks");
    Py_XDECREF(error);
    return nullptr;
  }
  if (l->spec.config.stream != nullptr) {
    PyErr_SetString(PyExc_TypeError,
                    "a kernel configured with a stream cannot be pickled: the stream is this process's handle; "
                    "pickle the kernel and configure it with a stream where it is loaded");
    return nullptr;
  }
  try {
    pyb::object getitem = pyb::module_::import("operator").attr("getitem");
    pyb::tuple config = pyb::make_tuple(pyb::reinterpret_steal<pyb::object>(dim3_tuple(l->spec.config.grid)),
                                        pyb::reinterpret_steal<pyb::object>(dim3_tuple(l->spec.config.block)), 0,
                                        l->spec.config.shared_bytes);
    return pyb::make_tuple(getitem, pyb::make_tuple(pyb::handle(l->dispatcher), config)).release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyGetSetDef launcher_getset[] = {
    {"griddim", launcher_griddim, nullptr, "The grid, (x, y, z) blocks.", nullptr},
    {"blockdim", launcher_blockdim, nullptr, "The block, (x, y, z) threads.", nullptr},
    {"sharedmem", launcher_sharedmem, nullptr, "Bytes of dynamic shared memory per block.", nullptr},
    {"dispatcher", launcher_dispatcher, nullptr, "The kernel this configuration launches.", nullptr},
    {"stream", launcher_stream, nullptr, "The stream as given in kernel[grid, block, stream] (0: none).", nullptr},
    {"args", launcher_args, nullptr, "The arguments of the launch whose compile runs on this thread, or None.",
     nullptr},
    {"pre_launch_callbacks", launcher_callbacks, nullptr,
     "Callables called with (dispatcher, configuration) before each launch of this configuration.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMethodDef launcher_methods[] = {
    {"__reduce__", launcher_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef launcher_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(LauncherObject, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyType_Slot launcher_slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(launcher_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(launcher_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(launcher_clear)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_members, launcher_members},
    {Py_tp_getset, launcher_getset},
    {Py_tp_methods, launcher_methods},
    {Py_tp_doc, const_cast<char*>("A kernel with its launch configuration; call it with the kernel's arguments.")},
    {0, nullptr},
};

PyType_Spec launcher_spec = {"gpujit._core.Launcher", sizeof(LauncherObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
                             launcher_slots};

/// numba's low-occupancy warning, issued where the configuration is made (`kernel[blocks, threads]`): a
/// grid with fewer blocks than the CUDA device has multiprocessors leaves some of them idle. The CPU
/// backend runs blocks on host threads and has no such notion, so it never warns.
void warn_if_low_occupancy(DispatcherState& st, const rt::Dim3& grid) {
  uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  if (blocks >= kMaxMultiprocessors || st.warned_grids[blocks] || !g_launch_warnings.low_occupancy) return;
  int multiprocessors = 0;
  try {
    rt::Device* device = compile_device();
    if (!device || device->backend() != rt::BackendKind::Cuda) return;
    multiprocessors = device->properties().multiprocessors;
  } catch (const std::exception&) {
    return;  // no usable device: the launch itself will say why
  }
  if (blocks >= uint64_t(multiprocessors)) return;
  std::string message = "Grid size " + std::to_string(blocks) +
                        " will likely result in GPU under-utilization due to low occupancy: the device has " +
                        std::to_string(multiprocessors) + " multiprocessors and each block runs on one (kernel '" +
                        st.name + "')";
  warn_performance(message.c_str());
  st.warned_grids[blocks] = true;  // not when a filter made it an error: that one raised
}

}  // namespace

/// `obj` as numba's launch errors show a configuration: a list of its dimensions ("[1, 2, 3, 4]", "[2.0]").
static std::string dims_as_list(PyObject* obj) {
  pyb::handle h(obj);
  if (PyTuple_Check(obj) || PyList_Check(obj)) return pyb::repr(pyb::list(pyb::reinterpret_borrow<pyb::object>(h)));
  return "[" + pyb::repr(h).cast<std::string>() + "]";
}

/// Reads a grid or block: an int or a sequence of one to three ints. The errors use numba's words
/// ("griddim must be a sequence of integers, got [2.0]"), which programs written for numba-cuda look for.
rt::Dim3 parse_dims(PyObject* obj, const char* what) {
  rt::Dim3 d;
  uint32_t* axes[3] = {&d.x, &d.y, &d.z};
  auto not_integers = [&] {
    return pyb::type_error(std::string(what) + "dim must be a sequence of integers, got " + dims_as_list(obj) +
                           " (" + what + " must be an int or a tuple of up to 3 ints)");
  };
  auto read = [&](PyObject* v, int axis) {
    long long x = PyLong_AsLongLong(v);
    if (x == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      throw not_integers();
    }
    if (x < 0 || x > 0xFFFFFFFFLL) {
      throw rt::LaunchError(std::string(what) + " dimension " + "xyz"[axis] + " is " + std::to_string(x) +
                            "; it must be between 1 and the device's limit");
    }
    *axes[axis] = uint32_t(x);
  };
  if (PyLong_Check(obj)) {
    read(obj, 0);
  } else if (PyTuple_Check(obj) || PyList_Check(obj)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    if (n < 1 || n > 3) {
      throw rt::LaunchError(std::string(what) + "dim must be a sequence of 1, 2 or 3 integers, got " +
                            dims_as_list(obj) + " (" + what + " must have 1 to 3 dimensions, got " +
                            std::to_string(n) + ")");
    }
    PyObject** items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < n; ++i) read(items[i], int(i));
  } else {
    throw not_integers();
  }
  rt::validate_dims(d, what);
  return d;
}

LaunchConfigItems read_launch_config(PyObject* const* items, Py_ssize_t n) {
  LaunchConfigItems out;
  out.config.grid = parse_dims(items[0], "grid");
  out.config.block = parse_dims(items[1], "block");
  if (n >= 3 && !(PyLong_CheckExact(items[2]) && PyLong_AsLong(items[2]) == 0) && items[2] != Py_None) {
    out.stream = stream_from_python(items[2], rt::Runtime::get().current_device());
    out.config.stream = out.stream ? out.stream->handle() : nullptr;
  }
  if (n == 4) {
    long long shared = PyLong_AsLongLong(items[3]);
    if (shared == -1 && PyErr_Occurred()) throw pyb::error_already_set();
    if (shared < 0 || shared > 0x7FFFFFFF) {
      throw rt::LaunchError("dynamic shared memory must be between 0 and 2^31 bytes, not " + std::to_string(shared));
    }
    out.config.shared_bytes = uint32_t(shared);
  }
  return out;
}

PyObject* dispatcher_subscript(PyObject* self, PyObject* key) {
  auto* d = reinterpret_cast<DispatcherObject*>(self);
  if (key == d->last_key) {
    Py_INCREF(d->last_launcher);
    return d->last_launcher;
  }
  try {
    PyObject* const* items = &key;
    Py_ssize_t n = 1;
    if (PyTuple_Check(key)) {
      items = &PyTuple_GET_ITEM(key, 0);
      n = PyTuple_GET_SIZE(key);
    }
    if (n < 2 || n > 4) {
      throw pyb::type_error("launch configuration must be [blocks, threads], [blocks, threads, stream] or "
                            "[blocks, threads, stream, dynamic_shared_bytes]");
    }
    LaunchConfigItems read = read_launch_config(items, n);
    LaunchSpec spec{read.config, std::move(read.stream)};
    warn_if_low_occupancy(*d->state, spec.config.grid);
    auto* l = reinterpret_cast<LauncherObject*>(PyType_GenericAlloc(g_launcher_type, 0));
    if (!l) return nullptr;
    l->vectorcall = launcher_vectorcall;
    Py_INCREF(self);
    l->dispatcher = self;
    l->key = Py_NewRef(key);
    new (&l->spec) LaunchSpec(std::move(spec));
    Py_INCREF(key);
    Py_INCREF(l);
    Py_XSETREF(d->last_key, key);
    Py_XSETREF(d->last_launcher, reinterpret_cast<PyObject*>(l));
    return reinterpret_cast<PyObject*>(l);
  } catch (const rt::LaunchError& e) {
    // numba's wording first, then the kernel.
    PyErr_SetString(launch_error_class(), (e.what() + (" (kernel '" + d->state->name + "')")).c_str());
    return nullptr;
  } catch (const pyb::type_error& e) {
    PyErr_SetString(PyExc_TypeError, (e.what() + (" (kernel '" + d->state->name + "')")).c_str());
    return nullptr;
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

void make_launcher_type() {
  g_launcher_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&launcher_spec));
  if (!g_launcher_type) throw pyb::error_already_set();
}

}  // namespace gpujit::py
