// The dispatcher's private header, shared by python/src/dispatcher.cpp (the Dispatcher type, its sources,
// compiles and specializations) and python/src/dispatcher_launch.cpp (the launch configuration object and the
// launch path): the per-kernel state and the few functions one half calls in the other. Included by those
// two files only; the rest of the binding knows the dispatcher through dispatcher.h.
#pragma once

#include <bitset>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "kernel_source.h"
#include "runtime/kernel_cache.h"
#include "runtime/disk_cache.h"
#include "runtime/runtime.h"
#include "runtime/runtime_error.h"

namespace gpujit::py {

namespace pyb = pybind11;

// ---------------------------------------------------------------------------------------------------------
// State

/// Grids of this many blocks or more never look the device up for the low-occupancy warning: no GPU has as
/// many multiprocessors, so the common launch (a big grid) pays one comparison.
inline constexpr uint64_t kMaxMultiprocessors = 1024;

struct DispatcherState {
  std::string name;
  std::vector<std::string> param_names;
  bool device = false;
  CompileOptions options;
  /// Signatures given at decoration; when non-empty the dispatcher compiles nothing else and converts
  /// scalar arguments to the closest one (numba's behaviour for explicit signatures).
  std::vector<std::vector<rt::ArgCode>> signatures;
  /// The same signatures as written, return type included ("int32(int32, int32)"; "void(...)" where none was
  /// given): calls of a device function convert to them (ir/sema_call.cpp).
  std::vector<std::string> signature_texts;
  /// A device function's specializations that kernels calling it compiled (CompileResult::device_functions),
  /// in the order first compiled: numba lists them in the device function's signatures and overloads.
  std::vector<std::vector<rt::ArgCode>> called_signatures;
  std::shared_ptr<const KernelSource> source;
  /// The source while its free names are being read (a recursive device function meets itself then).
  std::shared_ptr<KernelSource> partial;
  rt::KernelCache cache;
  /// cache=True: PTX compiles go through the on-disk cache (runtime/disk_cache.h), whose folder is chosen at
  /// the first compile (disk_cache_chosen); disk_cache stays empty when no folder can be written.
  bool cache_to_disk = false;
  bool disk_cache_chosen = false;
  std::optional<rt::DiskCache> disk_cache;
  /// On-disk cache hits and misses per signature text, for kernel.stats (numba's dispatcher.stats).
  std::map<std::string, long> disk_hits, disk_misses;
  /// Loads of the device's machine code from the disk cache, and links that made it (kernel._stats).
  long code_hits = 0, code_misses = 0;
  /// The launch warnings already issued: each at most once per kernel (and grid size), so that a loop
  /// launching small grids or NumPy arrays pays a bit test, not Python's warnings machinery, after the first.
  std::bitset<kMaxMultiprocessors> warned_grids;
  bool warned_host_copy = false;
  /// The threads the last explicit compile (jit([sig, ...]) or compile(sig)) ran on (compile_signatures), for
  /// tests.
  long eager_compile_threads = 0;
  /// numba's kernel.extensions: the Python list of objects whose prepare_args(ty, val, stream=, retr=) each
  /// launch passes every argument through; empty for almost every kernel, and then nothing runs.
  pyb::object extensions;
  /// A Python compile hook, set while the Python dispatcher has a `_compile_for_args` of its own or is
  /// launch-config sensitive (gpujit._dispatcher._LaunchConfigDispatcher): every launch calls it with
  /// (dispatcher, launcher, args) first; it compiles what the launch needs with the launch configuration set
  /// and returns the dispatcher to launch in. Unset for almost every kernel, and then nothing runs.
  pyb::object compile_hook;
};

struct DispatcherObject {
  PyObject_HEAD
  DispatcherState* state;
  // The last `kernel[...]` key and its launcher: a loop that launches with the same constant configuration
  // tuple gets the same launcher back without parsing it again.
  PyObject* last_key;
  PyObject* last_launcher;
};

/// Reads a grid or block: an int or a sequence of one to three ints, with numba's error words
/// ("griddim must be a sequence of integers, got [2.0]"), which programs written for numba-cuda look for.
rt::Dim3 parse_dims(PyObject* obj, const char* what);

/// What `kernel[grid, block(, stream(, dynamic_shared_bytes))]` says, read from its `n` (2 to 4) items: gpujit
/// kernels and CUDA C kernels (raw_kernel.cpp) take the same configuration.
struct LaunchConfigItems {
  rt::LaunchConfig config;
  std::shared_ptr<rt::Stream> stream;  // a gpujit stream named by the configuration, kept alive with it
};
LaunchConfigItems read_launch_config(PyObject* const* items, Py_ssize_t n);

struct LaunchSpec {
  rt::LaunchConfig config;
  std::shared_ptr<rt::Stream> stream;  // keeps a gpujit stream alive while the launcher exists
  /// The kernel this configuration last passed rt::validate_launch for, with what that read besides the
  /// configuration (the device's limits, the kernel's thread limit): a loop of launches validates once. The
  /// thread limit is kept too because a kernel freed (a context reset) and another made at its address
  /// would otherwise skip validation; equal, the result would be the same.
  mutable const rt::LoadedKernel* validated_kernel = nullptr;
  mutable const rt::Device* validated_device = nullptr;
  mutable int validated_max_threads = 0;
};

struct LauncherObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* dispatcher;
  LaunchSpec spec;
  /// numba's pre_launch_callbacks: a list made when first read; each callable in it is called with
  /// (dispatcher, launcher) right before every launch of this configuration.
  PyObject* callbacks;
  /// The `kernel[...]` key this configuration was made from (its stream object, for the compile hook).
  PyObject* key;
};

extern PyTypeObject* g_dispatcher_type;
extern PyTypeObject* g_launcher_type;

inline DispatcherState& state_of(PyObject* self) { return *reinterpret_cast<DispatcherObject*>(self)->state; }

/// The device compiles go to, or null when no backend can run here (compiling still works then).
inline rt::Device* compile_device() {
  try {
    return &rt::Runtime::get().current_device();
  } catch (const rt::NoDriverError&) {
    return nullptr;
  }
}

/// Finds or makes the kernel for a launch whose argument types missed the cache (dispatcher.cpp); the launch
/// path's slow path only. Sets *targets to the signature the arguments must be converted to, if any.
rt::LoadedKernel* specialize_for_launch(PyObject* self, rt::Device& device, const rt::ArgCode* codes, size_t n,
                                        const rt::ArgCode** targets);

/// `kernel[grid, block, stream, shared]`: the Dispatcher type's mp_subscript slot (dispatcher_launch.cpp).
PyObject* dispatcher_subscript(PyObject* self, PyObject* key);

/// Creates the Launcher type once (g_launcher_type; dispatcher_launch.cpp).
void make_launcher_type();

}  // namespace gpujit::py
