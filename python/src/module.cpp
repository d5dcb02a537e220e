// gpujit._core: the binding module. Devices, the pieces of the other binding files, and the few queries the
// Python package makes of the compiler (the kernel builtins, for gpujit's namespace objects).
//
// Importing it loads the core library but touches neither the CUDA driver nor NumPy; both load on first use.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "arguments.h"
#include "compiler/warm_up.h"
#include "cuda_c.h"
#include "arrays.h"
#include "runtime/system_info.h"
#include "dispatcher.h"
#include "graphs.h"
#include "memory_api.h"
#include "deallocation_api.h"
#include "dtypes.h"
#include "errors.h"
#include "foreign_arrays.h"
#include "link_files.h"
#include "module_callbacks.h"
#include "ir/builtins.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_spec.h"
#include "runtime/host_executor.h"
#include "runtime/runtime.h"
#include "runtime/xoroshiro128p.h"

namespace gpujit::py {
namespace {

// numba spells device attributes in upper case (dev.MULTIPROCESSOR_COUNT); these are the ones we read.
pyb::object device_attribute(const PyDevice& d, const std::string& name) {
  const rt::DeviceProperties& p = d.device->properties();
  if (name == "MULTIPROCESSOR_COUNT") return pyb::int_(p.multiprocessors);
  if (name == "MAX_THREADS_PER_BLOCK") return pyb::int_(p.max_threads_per_block);
  if (name == "MAX_BLOCK_DIM_X") return pyb::int_(p.max_block_dim[0]);
  if (name == "MAX_BLOCK_DIM_Y") return pyb::int_(p.max_block_dim[1]);
  if (name == "MAX_BLOCK_DIM_Z") return pyb::int_(p.max_block_dim[2]);
  if (name == "MAX_GRID_DIM_X") return pyb::int_(p.max_grid_dim[0]);
  if (name == "MAX_GRID_DIM_Y") return pyb::int_(p.max_grid_dim[1]);
  if (name == "MAX_GRID_DIM_Z") return pyb::int_(p.max_grid_dim[2]);
  if (name == "MAX_SHARED_MEMORY_PER_BLOCK") return pyb::int_(p.max_shared_per_block);
  if (name == "WARP_SIZE") return pyb::int_(p.warp_size);
  if (name == "COMPUTE_CAPABILITY_MAJOR") return pyb::int_(p.cc_major);
  if (name == "COMPUTE_CAPABILITY_MINOR") return pyb::int_(p.cc_minor);
  if (name == "PCI_BUS_ID") return pyb::int_(p.pci_bus_id);
  if (name == "PCI_DOMAIN_ID") return pyb::int_(p.pci_domain_id);
  if (name == "PCI_DEVICE_ID") return pyb::int_(p.pci_device_id);
  throw pyb::attribute_error("device has no attribute '" + name + "'");
}

/// The devices `with gpu.gpus[i]:` blocks of the calling thread left, innermost last: each block's exit makes
/// the device before it current again. Per thread, as the current device is.
thread_local std::vector<rt::Device*> tl_left_devices;
// The CUDA context bound to the thread when each `with device:` block began (null: none), bound again at its
// end through the CUDA device kept beside it, so that the block leaves no context behind on a thread that had
// none (numba's gpus[i]); no device where neither device of the block is a CUDA one.
thread_local std::vector<std::pair<rt::Device*, void*>> tl_left_contexts;

/// A device array's, stream's or event's device as Python sees it; None for an array whose device is not known
/// (one made from a foreign array's memory before any launch).
pyb::object device_object(rt::Device* device) { return device ? pyb::cast(PyDevice{device}) : pyb::none(); }

/// Host memory for a pinned array; NumPy views it through the buffer protocol and keeps it alive.
struct PinnedBuffer {
  PinnedBuffer(rt::Device& d, size_t n) : device(&d), data(d.allocate_pinned(n)), bytes(n) {}
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  rt::Device* device;
  void* data;
  size_t bytes;
  ~PinnedBuffer() {
    try {
      device->deallocate_pinned(data);
    } catch (const std::exception&) {
    }
  }
};

/// Managed (unified) memory, numba's managed_array: gpujit.managed_array wraps it in a NumPy array; the host and
/// kernels use the same address.
struct ManagedBuffer {
  ManagedBuffer(rt::Device& d, size_t n, bool attach_global)
      : device(&d), data(d.allocate_managed(n, attach_global)), bytes(n) {}
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;
  rt::Device* device;
  void* data;
  size_t bytes;
  ~ManagedBuffer() {
    try {
      device->deallocate_managed(data);
    } catch (const std::exception&) {
    }
  }
};

/// The cpu backend's interrupt check (runtime/host_executor.h): runs Python's signal handlers, so Ctrl-C
/// during a launch raises KeyboardInterrupt in the launching thread once the launch has stopped. Called
/// without the GIL by a thread that released it; returns true when a handler raised (the error stays set for
/// that thread). While the interpreter shuts down it checks nothing.
bool python_interrupted() {
#if PY_VERSION_HEX >= 0x030D0000
  if (!Py_IsInitialized() || Py_IsFinalizing()) return false;
#else
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return false;
#endif
  PyGILState_STATE gil = PyGILState_Ensure();
  bool raised = PyErr_CheckSignals() != 0;
  PyGILState_Release(gil);
  return raised;
}

/// The items of a tuple, borrowed, and their count.
std::pair<PyObject* const*, size_t> tuple_items(const pyb::tuple& args) {
  size_t count = size_t(args.size());
  return {count ? &PyTuple_GET_ITEM(args.ptr(), 0) : nullptr, count};
}

/// Nanoseconds per call of `body`, over `n` calls (the read benchmarks below).
template <typename Body>
double ns_per_round(size_t n, Body body) {
  auto start = std::chrono::steady_clock::now();
  for (size_t r = 0; r < n; ++r) body();
  std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
  return n ? took.count() / double(n) : 0.0;
}

/// One launch's classification of `items`, as the launch path does it (without lookup, packing or launch).
void classify_all(PyObject* const* items, size_t count, rt::Device& device) {
  static const std::string kernel = "_argument_read_ns", param = "arg";
  ArgumentScope scope(count);
  for (size_t i = 0; i < count; ++i) scope.get().classify(items[i], i, kernel, param, device, nullptr);
}

/// The fast-path reader of each item; TypeError naming `who` if one is not a foreign array with one.
std::vector<const ForeignType*> fast_foreign_types(PyObject* const* items, size_t count, const char* who) {
  std::vector<const ForeignType*> types(count);
  for (size_t i = 0; i < count; ++i) {
    // Our own arrays are never a foreign type: kept out of the foreign types' table, which holds its
    // types to the end of the process (holding DeviceArray's there made LeakSanitizer report its
    // properties' records at exit).
    if (Py_TYPE(items[i]) == g_device_array_type || !foreign_library_calls(items[i]) ||
        !(types[i] = known_fast_foreign_type(Py_TYPE(items[i])))) {
      throw pyb::type_error(std::string(who) + ": argument " + std::to_string(i) +
                            " is not a CUDA tensor or array with a fast path (PyTorch, CuPy)");
    }
  }
  return types;
}

}  // namespace

}  // namespace gpujit::py

PYBIND11_MODULE(_core, m) {
  using namespace gpujit;
  using namespace gpujit::py;
  m.doc() = "gpujit's C++ core: devices, memory, the dispatcher and the launch path.";

  register_errors(m);
  register_arrays(m);
  register_dispatcher(m);
  register_graphs(m);
  register_cuda_c(m);
  register_raw_kernel(m);
  register_link_files(m);
  register_module_callbacks(m);
  set_host_interrupt_check(&python_interrupted);

  pyb::class_<PyDevice>(m, "Device")
      .def_property_readonly("id", [](const PyDevice& d) { return d.device->ordinal(); })
      .def_property_readonly("name", [](const PyDevice& d) { return d.device->properties().name; })
      .def_property_readonly("compute_capability", [](const PyDevice& d) {
        return pyb::make_tuple(d.device->properties().cc_major, d.device->properties().cc_minor);
      })
      .def_property_readonly("total_memory", [](const PyDevice& d) { return d.device->properties().total_memory; })
      .def_property_readonly("backend", [](const PyDevice& d) {
        return d.device->backend() == rt::BackendKind::Cuda ? "cuda" : "cpu";
      })
      .def("get_memory_info", [](const PyDevice& d) {
        auto [free, total] = d.device->memory_info();
        return pyb::make_tuple(free, total);
      }, "Free and total device memory in bytes.")
      .def("synchronize", [](const PyDevice& d) {
        pyb::gil_scoped_release release;
        d.device->synchronize();
      })
      .def("__enter__", [](const PyDevice& d) {
        // numba's `with cuda.gpus[i]:` makes device i current for the block, for the calling thread only.
        rt::Runtime& r = rt::Runtime::get();
        rt::Device* cuda = d.device->backend() == rt::BackendKind::Cuda ? d.device : nullptr;
        void* context = cuda ? cuda->thread_context() : nullptr;  // before current_device() may bind one
        rt::Device& before = r.current_device();
        if (!cuda && before.backend() == rt::BackendKind::Cuda) {
          cuda = &before;
          context = cuda->thread_context();
        }
        r.make_current(*d.device);
        tl_left_devices.push_back(&before);
        tl_left_contexts.emplace_back(cuda, context);
        return d;
      })
      .def("__exit__", [](const PyDevice&, pyb::args) {
        if (tl_left_devices.empty()) return false;
        rt::Device* before = tl_left_devices.back();
        auto [cuda, context] = tl_left_contexts.back();
        tl_left_devices.pop_back();
        tl_left_contexts.pop_back();
        rt::Runtime::get().make_current(*before);
        if (cuda) cuda->set_thread_context(context);
        return false;
      })
      .def("can_access_peer", [](const PyDevice& d, const PyDevice& peer) { return d.device->can_access_peer(*peer.device); },
           pyb::arg("peer"),
           "Whether this device could read `peer`'s memory directly (cuDeviceCanAccessPeer). gpujit does not "
           "enable peer access: copies between devices use it where the driver can, kernels never do.")
      .def("__getattr__", &device_attribute)
      .def("__eq__", [](const PyDevice& a, const PyDevice& b) { return a.device == b.device; })
      .def("__hash__", [](const PyDevice& d) { return reinterpret_cast<uintptr_t>(d.device); })
      .def("__repr__", [](const PyDevice& d) {
        const auto& p = d.device->properties();
        std::string what = d.device->backend() == rt::BackendKind::Host
                               ? "cpu backend"
                               : "cuda, compute capability " + std::to_string(p.cc_major) + "." +
                                     std::to_string(p.cc_minor);
        return "<gpujit device " + std::to_string(p.ordinal) + " '" + p.name + "' (" + what + ")>";
      });

  register_memory_api(m);  // after Device, whose methods it adds
  register_deallocation_api(m);

  m.def("select_device", [](int ordinal) { return PyDevice{&rt::Runtime::get().select_device(ordinal)}; },
        pyb::arg("device_id"),
        "Makes device `device_id` of the active backend current for the calling thread and returns it.");
  m.def("select_device", [](const std::string& name) {
    rt::DeviceSpec spec = rt::parse_device_spec(name, "select_device()");
    return PyDevice{&rt::Runtime::get().select(spec.backend, spec.ordinal)};
  }, pyb::arg("device_id"),
        "select_device('cpu'), select_device('cuda') or select_device('cuda:N'): switches every thread to that "
        "backend and makes the device current for the calling thread.");
  // Where arrays, streams and events live (registered in arrays.cpp; PyDevice is this file's).
  pyb::reinterpret_borrow<pyb::class_<PyDeviceArray>>(m.attr("DeviceArray"))
      .def_property_readonly("device", [](const PyDeviceArray& a) { return device_object(a.view.device); },
                             "The device whose memory holds the array.");
  pyb::reinterpret_borrow<pyb::class_<PyStream>>(m.attr("Stream"))
      .def_property_readonly("device", [](const PyStream& s) { return device_object(&s.stream->device()); },
                             "The device the stream belongs to (the one current when it was made).");
  pyb::reinterpret_borrow<pyb::class_<PyEvent>>(m.attr("Event"))
      .def_property_readonly("device", [](const PyEvent& e) { return device_object(&e.event->device()); },
                             "The device the event belongs to (the one current when it was made).");
  m.def("_make_current", [](const PyDevice& d) { return PyDevice{&rt::Runtime::get().make_current(*d.device)}; },
        pyb::arg("device"), "Makes `device` (of any backend) current for the calling thread (tests restore one).");
  m.def("get_current_device", [] { return PyDevice{&rt::Runtime::get().current_device()}; },
        "The calling thread's current device (device 0 unless select_device chose another).");
  m.def("device_count", [] { return rt::Runtime::get().backend().device_count(); });
  m.def("list_devices", [] {
    pyb::list out;
    rt::Backend& b = rt::Runtime::get().backend();
    for (int i = 0, n = b.device_count(); i < n; ++i) out.append(PyDevice{&b.device(i)});
    return out;
  });
  m.def("synchronize", [] {
    rt::Device& d = rt::Runtime::get().current_device();
    pyb::gil_scoped_release release;
    d.synchronize();
  }, "Waits for all work on the current device.");
  m.def("is_available", [] {
    try {
      return rt::Runtime::get().backend().device_count() > 0;
    } catch (const std::exception&) {
      return false;
    }
  }, "True if a device can run kernels here.");
  m.def("driver_info", [] {
    pyb::dict d;
    d["backend"] = rt::Runtime::get().backend_name();
    if (cuda::CudaDriver::available()) {
      d["cuda_driver"] = cuda::CudaDriver::get().path();
      d["cuda_version"] = cuda::CudaDriver::get().version();
    } else {
      d["cuda_error"] = cuda::CudaDriver::load_error();
    }
    return d;
  });
  m.def("_start_warm_up", &start_warm_up,
        "Starts the compiler's one-time initialisation on a background thread (compiler/warm_up.h).");
  m.def("_wait_warm_up", &wait_warm_up, pyb::call_guard<pyb::gil_scoped_release>(),
        "Waits for the warm-up thread (at exit, so that no compile runs while the process ends).");
  m.def("_system_info", [] {
    gpujit::SystemInfo info = gpujit::collect_system_info(toolchain());
    pyb::dict d;
    d["gpujit_version"] = info.gpujit_version;
    d["llvm_version"] = info.llvm_version;
    d["core_library"] = info.core_library;
    d["libdevice"] = info.libdevice.empty() ? pyb::object(pyb::none()) : pyb::str(info.libdevice);
    d["driver"] = info.driver_loaded ? pyb::object(pyb::str(info.driver_path)) : pyb::object(pyb::none());
    d["driver_version"] = info.driver_version;
    d["driver_error"] = info.driver_error;
    pyb::list devices;
    for (const auto& dev : info.devices) {
      pyb::dict e;
      e["id"] = dev.ordinal;
      e["name"] = dev.name;
      e["compute_capability"] = pyb::make_tuple(dev.cc_major, dev.cc_minor);
      e["total_memory"] = dev.total_memory;
      devices.append(e);
    }
    d["devices"] = devices;
    d["backend"] = info.backend;
    d["backend_reason"] = info.backend_reason;
    d["cache_directory"] = info.cache_directory.empty() ? pyb::object(pyb::none()) : pyb::str(info.cache_directory);
    d["cache_files"] = info.cache_files;
    d["cache_bytes"] = info.cache_bytes;
    d["text"] = gpujit::render_system_info(info);
    return d;
  }, "What `gpujit info` reports (runtime/system_info.h), as a dict; 'text' is the report as printed.");
  m.def("_driver_loaded", [] { return cuda::CudaDriver::load_attempted(); },
        "Whether this process has tried to load the CUDA driver yet (tests check imports do not).");
  m.def("_set_backend", [](const std::string& name) { rt::Runtime::get().set_backend(name); },
        "Makes 'cuda' or 'cpu' the active backend; arrays and kernels of the previous one keep working.");
  m.def("_tensor_cache_counts", [] {
    TensorCacheCounts c = tensor_cache_counts();
    pybind11::dict d;
    d["hits"] = c.hits;
    d["misses"] = c.misses;
    d["uncacheable"] = c.uncacheable;
    return d;
  }, "How PyTorch tensor arguments were read (python/src/foreign_arrays.cpp), for tests and benchmarks.");
  m.def("_interface_type_known", [](pyb::type type) {
    const ForeignType* k = known_launch_foreign_type(reinterpret_cast<PyTypeObject*>(type.ptr()));
    return k && is_interface_type(k);
  }, pyb::arg("type"),
        "Whether launches read objects of `type` through __cuda_array_interface__ straight away, skipping the "
        "tests of other kinds of argument (python/src/foreign_arrays.cpp), for tests.");
  m.def("_argument_read_ns", [](pyb::tuple args, size_t n) {
    // The launch path's argument reading alone (classification of every argument, as a launch of a kernel
    // with these arguments does it), without the lookup, packing and launch: separates what reading
    // foreign arrays costs from the driver's time, which drifts between processes.
    auto [items, count] = tuple_items(args);
    rt::Device& device = rt::Runtime::get().current_device();
    return ns_per_round(n, [&] { classify_all(items, count, device); });
  }, pyb::arg("args"), pyb::arg("n"),
        "Nanoseconds per launch that classifying `args` takes (python/src/arguments.cpp), for benchmarks.");
  m.def("_library_read_ns", [](pyb::tuple args, size_t n) {
    // The foreign libraries' own part of _argument_read_ns: only the calls into PyTorch or CuPy that reading
    // `args` makes (foreign_arrays.h), results dropped. What _argument_read_ns takes beyond it is gpujit's.
    auto [items, count] = tuple_items(args);
    std::vector<const ForeignType*> types = fast_foreign_types(items, count, "_library_read_ns");
    return ns_per_round(n, [&] {
      for (size_t i = 0; i < count; ++i) foreign_library_calls(items[i], types[i]);
    });
  }, pyb::arg("args"), pyb::arg("n"),
        "Nanoseconds per launch that the libraries' own calls take when gpujit reads the foreign arrays "
        "`args` (PyTorch tensors, CuPy arrays), for benchmarks.");
  m.def("_foreign_read_breakdown_ns", [](pyb::tuple args, size_t n) {
    // Where _argument_read_ns's time goes for foreign arrays, in ns per launch of all of `args`: the whole
    // classification ("classify"), the argument scope alone ("scope"), the readers alone into a local view
    // ("view": fast_foreign_view, which holds "library", the library's own calls), and the key code of
    // each view ("code"). classify - scope - view - code is the classification's own dispatch.
    auto [items, count] = tuple_items(args);
    std::vector<const ForeignType*> types = fast_foreign_types(items, count, "_foreign_read_breakdown_ns");
    rt::Device& device = rt::Runtime::get().current_device();
    std::vector<rt::ArrayView> views(count);
    rt::ArgCode sink = 0;
    pyb::dict out;
    out["classify"] = ns_per_round(n, [&] { classify_all(items, count, device); });
    out["scope"] = ns_per_round(n, [&] { ArgumentScope scope(count); });
    out["view"] = ns_per_round(n, [&] {
      for (size_t i = 0; i < count; ++i) fast_foreign_view(items[i], &views[i], types[i]);
    });
    out["library"] = ns_per_round(n, [&] {
      for (size_t i = 0; i < count; ++i) foreign_library_calls(items[i], types[i]);
    });
    out["code"] = ns_per_round(n, [&] {
      for (size_t i = 0; i < count; ++i) sink = rt::ArgCode(sink + rt::array_code_of(views[i]));
    });
    out["sink"] = int(sink);  // keeps the codes' computation
    return out;
  }, pyb::arg("args"), pyb::arg("n"),
        "_argument_read_ns split into its parts for foreign arrays (ns per launch), for benchmarks.");
  m.def("_use_exchange_api", &use_exchange_api, pyb::arg("enabled"),
        "Whether tensors are read through DLPack's C exchange API where their type offers it (default True); "
        "False reads them through their attributes, for benchmarks comparing the two.");
  m.def("backend_name", [] { return rt::Runtime::get().backend_name(); }, "The active backend: 'cuda' or 'cpu'.");

  pyb::class_<PinnedBuffer>(m, "PinnedBuffer", pyb::buffer_protocol())
      .def_buffer([](PinnedBuffer& b) {
        return pyb::buffer_info(b.data, 1, "B", 1, {pyb::ssize_t(b.bytes)}, {pyb::ssize_t(1)});
      })
      .def_property_readonly("device_pointer", [](PinnedBuffer& b) { return b.device->mapped_pointer(b.data); },
                             "The address kernels use for this memory (gpujit.mapped_array).");
  m.def("_pinned_buffer", [](size_t bytes) {
    return std::make_unique<PinnedBuffer>(rt::Runtime::get().current_device(), bytes);
  }, "Page-locked host memory of `bytes` bytes (gpujit.pinned_array wraps it in a NumPy array).");

  pyb::class_<ManagedBuffer>(m, "ManagedBuffer", pyb::buffer_protocol())
      .def_buffer([](ManagedBuffer& b) {
        return pyb::buffer_info(b.data, 1, "B", 1, {pyb::ssize_t(b.bytes)}, {pyb::ssize_t(1)});
      })
      .def_property_readonly("device_pointer", [](ManagedBuffer& b) { return uintptr_t(b.data); },
                             "The address kernels use for this memory: the host's own (gpujit.managed_array).");
  m.def("_managed_buffer", [](size_t bytes, bool attach_global) {
    return std::make_unique<ManagedBuffer>(rt::Runtime::get().current_device(), bytes, attach_global);
  }, pyb::arg("bytes"), pyb::arg("attach_global") = true,
     "Managed (unified) memory of `bytes` bytes, attached globally or to the host (gpujit.managed_array wraps "
     "it in a NumPy array).");

  m.def("kernel_builtins", [] {
    // (namespace, name, callable): the rows of the compiler's builtins table reachable through `gpujit.`.
    pyb::list out;
    for (const BuiltinInfo& b : all_builtins()) {
      const char* scope = nullptr;
      switch (b.scope) {
        case BuiltinScope::Kernel: scope = ""; break;
        case BuiltinScope::ThreadIdx: scope = "threadIdx"; break;
        case BuiltinScope::BlockIdx: scope = "blockIdx"; break;
        case BuiltinScope::BlockDim: scope = "blockDim"; break;
        case BuiltinScope::GridDim: scope = "gridDim"; break;
        case BuiltinScope::Shared: scope = "shared"; break;
        case BuiltinScope::Local: scope = "local"; break;
        case BuiltinScope::Const: scope = "const"; break;
        case BuiltinScope::Atomic: scope = "atomic"; break;
        case BuiltinScope::Random: scope = "random"; break;
        case BuiltinScope::Cg: scope = "cg"; break;
        default: break;
      }
      if (scope) out.append(pyb::make_tuple(scope, b.name, b.callable, b.supported));
    }
    return out;
  }, "The kernel-side names (gpujit.grid, gpujit.threadIdx.x, ...) from the compiler's builtins table.");

  m.def("_xoroshiro128p_states", [](size_t n, uint64_t seed, uint64_t subsequence_start) {
    std::string bytes(n * 2 * sizeof(uint64_t), '\0');
    {
      pyb::gil_scoped_release release;
      rt::init_xoroshiro128p_states(reinterpret_cast<uint64_t*>(bytes.data()), n, seed, subsequence_start);
    }
    return pyb::bytes(bytes);
  }, "The initial states of n xoroshiro128+ generators as numba.cuda.random makes them: 2n uint64 (s0, s1).");
}
