// The launch path of CUDA C kernels: `_core.RawFunction`, the base of gpujit.RawKernel and of SourceModule's
// functions (see cuda_c.h).
//
// `k[grid, block(, stream(, shared))]` is the type's mp_subscript slot, as a gpujit kernel's is, and returns a
// `_core.RawLauncher` whose vectorcall launches. The first launch on a device asks the Python subclass for
// machine code (`self._code(cc_major, cc_minor, "cubin")`, NVRTC through the disk cache), loads it, and reads
// each parameter's offset and size from the driver (cuFuncGetParamInfo, CUDA 12.4+); a driver that refuses the
// cubin gets the PTX (`"ptx"`) to compile itself. Every later launch classifies its arguments with the gpujit
// kernels' Arguments (gpujit, CuPy and torch arrays, NumPy arrays copied in and back, NumPy and Python
// numbers) and packs them by that layout:
//   - an array is its device pointer (an 8-byte parameter);
//   - a Python int or bool fills a parameter of 1, 2, 4 or 8 bytes if its value fits (signed or unsigned);
//   - a Python float fills a 4-byte (float) or 8-byte (double) parameter;
//   - a NumPy scalar must be exactly the parameter's size (np.float32 for float, np.int64 for long long);
//   - a struct or vector parameter (any size but 1, 2, 4 or 8 bytes: a float3, a double2, a struct) takes the
//     bytes of a NumPy structured scalar (np.void) or of a bytes-like object of exactly its size, as does a
//     parameter of another size given such an object.
// Parameters are passed through kernelParams, each from its own pointer, so the driver places them at its
// offsets; when those are the natural ones (each aligned to its size) the launch passes one buffer instead,
// as gpujit kernels' launches do; a struct's bytes are kept for the launch and passed by their pointer.
// Anything else, a struct's value of the wrong size or a wrong argument count is a TypeError naming the kernel
// and argument. No Python code of gpujit runs on a launch once the kernel is loaded.
#include "cuda_c.h"

#include <cstring>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <structmember.h>

#include "arguments.h"
#include "arrays.h"
#include "dispatcher_internal.h"
#include "errors.h"
#include "graphs.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_driver.h"
#include "runtime/graph.h"
#include "runtime/runtime.h"
#include "runtime/runtime_error.h"

namespace gpujit::py {
namespace {

/// A parameter as the driver lays it out.
struct RawParam {
  unsigned offset = 0;
  unsigned size = 0;
};

/// A parameter no number fills: a struct or vector type, passed as bytes (struct_bytes).
bool is_struct_size(unsigned size) { return size != 1 && size != 2 && size != 4 && size != 8; }

/// The kernel loaded on one device, and its parameters.
struct RawLoaded {
  rt::Device* device = nullptr;
  std::shared_ptr<rt::LoadedKernel> kernel;
  std::vector<RawParam> params;
  bool has_structs = false;  // a parameter of a size but 1, 2, 4 or 8 bytes (is_struct_size)
  std::vector<std::string> param_names;  // "argument 0", ... for the classifier's messages
};

struct RawState {
  std::string name;  // the kernel's symbol in the module (a C++ kernel's mangled name)
  /// CuPy's enable_cooperative_groups: every launch is cooperative (cuLaunchCooperativeKernel), so that the
  /// kernel may synchronize its whole grid (cooperative_groups::this_grid().sync()).
  bool cooperative = false;
  /// Per device; pointers stay valid as it grows (a load calls Python, and another thread may load meanwhile).
  std::vector<std::unique_ptr<RawLoaded>> loaded;
};

struct RawFunctionObject {
  PyObject_HEAD
  RawState* state;
  PyObject* last_key;
  PyObject* last_launcher;
};

struct RawLaunchSpec {
  rt::LaunchConfig config;
  std::shared_ptr<rt::Stream> stream;
};

struct RawLauncherObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* function;
  RawLaunchSpec spec;
};

PyTypeObject* g_raw_function_type = nullptr;
PyTypeObject* g_raw_launcher_type = nullptr;

RawState& state_of(PyObject* self) { return *reinterpret_cast<RawFunctionObject*>(self)->state; }

// ---------------------------------------------------------------------------------------------------------
// Loading

std::string cuda_c_needs_gpu(const std::string& name) {
  return "CUDA C kernel '" + name +
         "' needs a CUDA GPU: the current device is the CPU backend, which runs gpujit kernels only "
         "(gpujit.compile_cuda_c still compiles CUDA C to PTX or a cubin without a GPU)";
}

RawLoaded& load(PyObject* self, rt::Device& device) {
  RawState& st = state_of(self);
  if (device.backend() != rt::BackendKind::Cuda) throw rt::NoDriverError(cuda_c_needs_gpu(st.name));
  const rt::DeviceProperties& props = device.properties();
  cuda::CudaDriver& driver = cuda::CudaDriver::get();
  if (!driver.cuFuncGetParamInfo) {
    throw rt::NoDriverError("CUDA C kernel '" + st.name +
                            "' needs a CUDA driver of version 12.4 or newer (cuFuncGetParamInfo, which says how "
                            "to pass its parameters); this one is " + std::to_string(driver.version()));
  }
  pyb::handle h(self);
  CompileResult description;
  description.ok = true;
  description.entry_name = st.name;
  description.uses_grid_sync = st.cooperative;  // the device launches it with cuLaunchCooperativeKernel
  std::shared_ptr<rt::LoadedKernel> kernel;
  try {
    std::string cubin = h.attr("_code")(props.cc_major, props.cc_minor, "cubin").cast<std::string>();
    kernel = device.load_kernel_code(description, cubin, st.name);
    if (!kernel) {
      // The driver refused NVRTC's cubin (an older driver's format): it compiles the PTX itself.
      description.ptx = h.attr("_code")(props.cc_major, props.cc_minor, "ptx").cast<std::string>();
      kernel = device.load_kernel(description, st.name);
    }
  } catch (const rt::DriverError& e) {
    if (e.code() != 500) throw;  // CUDA_ERROR_NOT_FOUND: cuModuleGetFunction found no such kernel
    throw pyb::value_error("the CUDA C source has no kernel named '" + st.name +
                           "' (a __global__ function of C++ linkage has a mangled name: declare it extern \"C\", "
                           "or give its mangled name)");
  }
  auto& ck = static_cast<cuda::CudaKernel&>(*kernel);
  auto loaded = std::make_unique<RawLoaded>();
  loaded->device = &device;
  size_t natural_end = 0;  // where ParamBuffer puts the next parameter: each aligned to its size
  bool natural = true;
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    cuda::CUresult r = driver.cuFuncGetParamInfo(ck.function, i, &offset, &size);
    if (r == 1) break;  // CUDA_ERROR_INVALID_VALUE: no parameter i
    if (r != cuda::CUDA_SUCCESS) driver.throw_error(r, "cuFuncGetParamInfo", "reading the parameters of '" + st.name + "'");
    loaded->params.push_back({unsigned(offset), unsigned(size)});
    loaded->param_names.push_back("argument " + std::to_string(i));
    unsigned align = unsigned(size);
    if (is_struct_size(unsigned(size))) {
      loaded->has_structs = true;
      natural = false;
      continue;
    }
    natural_end = (natural_end + align - 1) / align * align;
    if (natural_end != offset) natural = false;
    natural_end += size;
  }
  // The one-buffer launch (runtime/cuda_device.cpp) when the packed layout is the driver's; a cooperative
  // launch takes kernelParams only.
  ck.param_bytes = natural && !loaded->params.empty() && !st.cooperative ? natural_end : 0;
  loaded->kernel = std::move(kernel);
  st.loaded.push_back(std::move(loaded));
  return *st.loaded.back();
}

// ---------------------------------------------------------------------------------------------------------
// Packing

[[noreturn]] void bad_argument(const std::string& kernel, size_t index, const std::string& why) {
  throw pyb::type_error("argument " + std::to_string(index) + " of CUDA C kernel '" + kernel + "': " + why);
}

std::string type_name(PyObject* obj) { return Py_TYPE(obj)->tp_name; }

/// Writes an integer value into a parameter of `size` bytes if it fits as signed or unsigned.
void put_integer(rt::ParamBuffer::Writer& w, bool negative, uint64_t bits, unsigned size, const std::string& kernel,
                 size_t index, PyObject* obj) {
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    bad_argument(kernel, index, "an int cannot fill its " + std::to_string(size) + "-byte parameter");
  }
  if (size < 8) {
    int64_t v = int64_t(bits);
    int64_t lo = -(int64_t(1) << (8 * size - 1));
    int64_t hi = (int64_t(1) << (8 * size)) - 1;
    if ((negative && v < lo) || (!negative && bits > uint64_t(hi))) {
      bad_argument(kernel, index,
                   pyb::repr(obj).cast<std::string>() + " does not fit its " + std::to_string(size) +
                       "-byte parameter");
    }
  }
  w.bytes(&bits, size);
}

/// Whether `obj` is a bytes-like object, passed as a struct's bytes: bytes, a bytearray or a memoryview.
bool is_bytes_like(PyObject* obj) {
  return PyBytes_CheckExact(obj) || PyByteArray_CheckExact(obj) || PyMemoryView_Check(obj);
}

/// Whether `obj` is passed as a struct's bytes: a bytes-like object or a NumPy structured scalar.
bool is_struct_value(PyObject* obj) {
  return is_bytes_like(obj) || std::strcmp(Py_TYPE(obj)->tp_name, "numpy.void") == 0;
}

/// Appends the bytes of `obj` (a struct value, or for a struct parameter any C-contiguous buffer: a NumPy
/// scalar such as a complex128 for a double2) to `out`, which must have exactly the parameter's size.
void struct_bytes(PyObject* obj, unsigned size, const std::string& kernel, size_t index, std::string* out) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    bad_argument(kernel, index,
                 "its parameter is a " + std::to_string(size) + "-byte struct or vector; pass a NumPy structured "
                 "scalar (np.void) or a bytes-like object of " + std::to_string(size) + " bytes, not a " +
                     type_name(obj));
  }
  size_t got = size_t(view.len);
  if (got == size) out->append(static_cast<const char*>(view.buf), size);
  PyBuffer_Release(&view);
  if (got != size) {
    bad_argument(kernel, index,
                 "a " + type_name(obj) + " of " + std::to_string(got) + " bytes cannot fill its " +
                     std::to_string(size) + "-byte parameter; a struct's value must have exactly its size");
  }
}

/// The struct values of one launch: the bytes of each struct parameter's argument and of each bytes-like
/// argument, read before the arguments are classified, and the arguments with each of those objects replaced
/// by 0 (the classifier knows no struct; pack() writes a placeholder, and point() aims the parameter at the
/// bytes). A NumPy structured scalar for a parameter of 1, 2, 4 or 8 bytes needs none of this: the classifier
/// takes it as a record, and pack() copies its bytes.
struct StructArguments {
  std::vector<PyObject*> args;
  std::string bytes;
  std::vector<size_t> starts;  // per parameter; SIZE_MAX for a parameter that is no struct

  StructArguments(const RawLoaded& k, const std::string& kernel, PyObject* const* in, size_t nargs)
      : args(in, in + nargs), starts(nargs, SIZE_MAX) {
    for (size_t i = 0; i < nargs; ++i) {
      unsigned size = k.params[i].size;
      if (!is_struct_size(size) && !is_bytes_like(in[i])) continue;
      starts[i] = bytes.size();
      struct_bytes(in[i], size, kernel, i, &bytes);
      args[i] = zero();
    }
  }
  /// Points the struct parameters at their bytes (after pack()); `bytes` no longer grows.
  void point(const RawLoaded& k, void** pointers) {
    for (size_t i = 0; i < starts.size(); ++i) {
      if (starts[i] != SIZE_MAX && is_struct_size(k.params[i].size)) pointers[i] = bytes.data() + starts[i];
    }
  }
  static PyObject* zero() {
    static PyObject* z = PyLong_FromLong(0);
    return z;
  }
};


void pack(Arguments& a, const RawLoaded& k, const std::string& kernel, PyObject* const* args, size_t nargs,
          const StructArguments* structs) {
  rt::ParamBuffer::Writer w = a.param_buffer().start(nargs * 2);
  const rt::ArgCode* codes = a.codes();
  for (size_t i = 0; i < nargs; ++i) {
    const RawParam& p = k.params[i];
    PyObject* obj = args[i];
    rt::ArgCode code = codes[i];
    if (structs && structs->starts[i] != SIZE_MAX) {
      if (is_struct_size(p.size)) {
        w.u64(0);  // a placeholder: point() aims the parameter at the bytes (no one-buffer launch here)
      } else {
        w.bytes(structs->bytes.data() + structs->starts[i], p.size);  // in place, for the one-buffer launch
      }
      continue;
    }
    if (rt::is_record_code(code) && is_struct_value(obj)) {  // a structured scalar for a 1-8 byte struct
      std::string bytes;
      struct_bytes(obj, p.size, kernel, i, &bytes);
      w.bytes(bytes.data(), p.size);
      continue;
    }
    if (rt::is_header_code(code) || rt::is_record_code(code) || rt::is_class_code(code)) {
      bad_argument(kernel, i, "a " + type_name(obj) + " cannot be passed to CUDA C; pass arrays and numbers");
    }
    if ((code & 3u) == 2u || rt::is_pointer_code(code)) {
      if (p.size != 8) bad_argument(kernel, i, "an array is a pointer, but its parameter has " + std::to_string(p.size) + " bytes");
      uint64_t ptr = (code & 3u) == 2u ? a.array_at(i)->data : 0;
      if ((code & 3u) != 2u) std::memcpy(&ptr, a.bytes_at(i), 8);
      w.u64(ptr);
      continue;
    }
    ScalarKind kind = rt::kind_of_code(code);
    const unsigned char* bytes = a.bytes_at(i);
    PyTypeObject* type = Py_TYPE(obj);
    if (type == &PyLong_Type || type == &PyBool_Type) {
      uint64_t bits = 0;
      std::memcpy(&bits, bytes, type == &PyBool_Type ? 1 : 8);
      bool negative = kind != ScalarKind::UInt64 && type == &PyLong_Type && int64_t(bits) < 0;
      put_integer(w, negative, bits, p.size, kernel, i, obj);
    } else if (type == &PyFloat_Type) {
      double d;
      std::memcpy(&d, bytes, 8);
      if (p.size == 8) {
        w.bytes(&d, 8);
      } else if (p.size == 4) {
        float f = float(d);
        w.bytes(&f, 4);
      } else {
        bad_argument(kernel, i, "a float fills a float or double parameter, not one of " + std::to_string(p.size) + " bytes");
      }
    } else {
      unsigned size = scalar_size(kind);
      if (size != p.size) {
        bad_argument(kernel, i, "a " + type_name(obj) + " has " + std::to_string(size) + " bytes but its parameter has " +
                                    std::to_string(p.size) + " (pass the NumPy scalar of the parameter's C type)");
      }
      w.bytes(bytes, size);
    }
  }
  a.param_buffer().finish(w);
}

// ---------------------------------------------------------------------------------------------------------
// Launch


void launch(PyObject* self, const RawLaunchSpec& spec, PyObject* const* args, size_t nargs) {
  RawState& st = state_of(self);
  rt::Device& device = rt::Runtime::get().current_device();
  RawLoaded* k = nullptr;
  for (const auto& l : st.loaded) {
    if (l->device == &device) {
      k = l.get();
      break;
    }
  }
  if (!k) k = &load(self, device);
  if (nargs != k->params.size()) {
    throw pyb::type_error("CUDA C kernel '" + st.name + "' takes " + std::to_string(k->params.size()) +
                          " argument" + (k->params.size() == 1 ? "" : "s") + " but " + std::to_string(nargs) +
                          (nargs == 1 ? " was" : " were") + " given");
  }
  if (spec.stream && &spec.stream->device() != &device) {
    check_stream_device(*spec.stream, device, ("the launch of CUDA C kernel '" + st.name + "'").c_str());
  }
  if (rt::Capture* c = rt::capture_of(&device, spec.config.stream)) [[unlikely]]
    keep_captured_arguments(*c, args, nargs);
  std::optional<StructArguments> structs;
  bool bytes_like = false;
  for (size_t i = 0; i < nargs && !k->has_structs && !bytes_like; ++i) bytes_like = is_bytes_like(args[i]);
  if (k->has_structs || bytes_like) {
    structs.emplace(*k, st.name, args, nargs);
    args = structs->args.data();
  }
  ArgumentScope scope(nargs);
  Arguments& a = scope.get();
  for (size_t i = 0; i < nargs; ++i) a.classify(args[i], i, st.name, k->param_names[i], device, spec.stream);
  if (a.code_count() != nargs) {
    for (size_t i = 0; i < nargs; ++i) {
      if (rt::is_header_code(a.codes()[i]))
        bad_argument(st.name, i, "a " + type_name(args[i]) + " cannot be passed to CUDA C; pass arrays and numbers");
    }
  }
  pack(a, *k, st.name, args, nargs, structs ? &*structs : nullptr);
  rt::validate_launch(spec.config, device.properties(), *k->kernel);
  rt::ParamBuffer& params = a.param_buffer();
  if (structs) structs->point(*k, params.pointers());
  device.launch(*k->kernel, spec.config, params.pointers(), &params);
  a.finish(device, spec.config.stream);
}

PyObject* launcher_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* l = reinterpret_cast<RawLauncherObject*>(self);
  try {
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
      throw pyb::type_error("CUDA C kernel '" + state_of(l->function).name + "' takes positional arguments only");
    }
    launch(l->function, l->spec, args, PyVectorcall_NARGS(nargsf));
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
  Py_RETURN_NONE;
}

int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(reinterpret_cast<RawLauncherObject*>(self)->function);
  return 0;
}

int launcher_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<RawLauncherObject*>(self)->function);
  return 0;
}

void launcher_dealloc(PyObject* self) {
  auto* l = reinterpret_cast<RawLauncherObject*>(self);
  PyTypeObject* tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  l->spec.~RawLaunchSpec();
  Py_CLEAR(l->function);
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyMemberDef launcher_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(RawLauncherObject, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyType_Slot launcher_slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(launcher_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(launcher_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(launcher_clear)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_members, launcher_members},
    {Py_tp_doc, const_cast<char*>("A CUDA C kernel with its launch configuration; call it with the arguments.")},
    {0, nullptr},
};

PyType_Spec launcher_spec = {"gpujit._core.RawLauncher", sizeof(RawLauncherObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC, launcher_slots};

PyObject* function_subscript(PyObject* self, PyObject* key) {
  auto* f = reinterpret_cast<RawFunctionObject*>(self);
  if (key == f->last_key) {
    Py_INCREF(f->last_launcher);
    return f->last_launcher;
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
                            "[blocks, threads, stream, dynamic_shared_bytes] (CUDA C kernel '" +
                            f->state->name + "')");
    }
    LaunchConfigItems read = read_launch_config(items, n);
    RawLaunchSpec spec{read.config, std::move(read.stream)};
    auto* l = reinterpret_cast<RawLauncherObject*>(PyType_GenericAlloc(g_raw_launcher_type, 0));
    if (!l) return nullptr;
    l->vectorcall = launcher_vectorcall;
    Py_INCREF(self);
    l->function = self;
    new (&l->spec) RawLaunchSpec(std::move(spec));
    Py_INCREF(key);
    Py_INCREF(l);
    Py_XSETREF(f->last_key, key);
    Py_XSETREF(f->last_launcher, reinterpret_cast<PyObject*>(l));
    return reinterpret_cast<PyObject*>(l);
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------------------
// RawFunction type

PyObject* function_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (!self) return nullptr;
  reinterpret_cast<RawFunctionObject*>(self)->state = new RawState();
  return self;
}

int function_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"name", "cooperative", nullptr};
  const char* name = nullptr;
  int cooperative = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|$p", const_cast<char**>(keywords), &name, &cooperative))
    return -1;
  state_of(self).name = name;
  state_of(self).cooperative = cooperative != 0;
  state_of(self).loaded.clear();
  return 0;
}

int function_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* f = reinterpret_cast<RawFunctionObject*>(self);
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(f->last_key);
  Py_VISIT(f->last_launcher);
  return 0;
}

int function_clear(PyObject* self) {
  auto* f = reinterpret_cast<RawFunctionObject*>(self);
  Py_CLEAR(f->last_key);
  Py_CLEAR(f->last_launcher);
  return 0;
}

void function_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  auto* f = reinterpret_cast<RawFunctionObject*>(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(f->last_key);
  Py_CLEAR(f->last_launcher);
  delete f->state;
  tp->tp_free(self);
  Py_DECREF(tp);
}

/// `_param_layout()`: [(offset, size)] of the kernel loaded on the current device (loading it), for tests.
PyObject* function_param_layout(PyObject* self, PyObject*) {
  try {
    rt::Device& device = rt::Runtime::get().current_device();
    RawLoaded* k = nullptr;
    for (const auto& l : state_of(self).loaded) {
      if (l->device == &device) k = l.get();
    }
    if (!k) k = &load(self, device);
    pyb::list out;
    for (const RawParam& p : k->params) out.append(pyb::make_tuple(p.offset, p.size));
    return out.release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyMethodDef function_methods[] = {
    {"_param_layout", function_param_layout, METH_NOARGS,
     "[(offset, size)] of each parameter, as the driver reports them for the current device (loads the kernel)."},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot function_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(function_new)},
    {Py_tp_init, reinterpret_cast<void*>(function_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(function_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(function_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(function_clear)},
    {Py_mp_subscript, reinterpret_cast<void*>(function_subscript)},
    {Py_tp_methods, function_methods},
    {Py_tp_doc, const_cast<char*>("The C++ half of a CUDA C kernel: its loaded code per device and its launch path.")},
    {0, nullptr},
};

PyType_Spec function_spec = {"gpujit._core.RawFunction", sizeof(RawFunctionObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, function_slots};

}  // namespace

void register_raw_kernel(pyb::module_& m) {
  g_raw_function_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&function_spec));
  if (!g_raw_function_type) throw pyb::error_already_set();
  g_raw_launcher_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&launcher_spec));
  if (!g_raw_launcher_type) throw pyb::error_already_set();
  m.attr("RawFunction") = pyb::handle(reinterpret_cast<PyObject*>(g_raw_function_type));
  m.attr("RawLauncher") = pyb::handle(reinterpret_cast<PyObject*>(g_raw_launcher_type));
}

}  // namespace gpujit::py
