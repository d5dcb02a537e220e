// The process-wide runtime: which backend runs kernels and which of its devices each thread uses.
//
// Backends register a factory under a name ("cuda" and "cpu" are built in). The active backend is, at first
// use, the one set_backend() named, else the one the environment variable GPUJIT_DEVICE names ("cpu", "cuda",
// "cuda:1"; GPUJIT_BACKEND is its older name, see device_spec.h), else "cuda" when the CUDA driver loads and
// sees a GPU and "cpu" otherwise. set_backend() and select() may switch later: every backend made stays
// alive, so arrays and kernels of the previous one keep working (they hold their Device), and each thread's
// current device is reset. Each thread has a current device of the active backend (device 0, or the
// GPUJIT_DEVICE one, until select_device()), activated for the thread on first use, so the launch path only
// reads a thread-local and one counter.
//
// The first time a device becomes some thread's current device (numba: when its context is made), the runtime
// calls the first-use hook the binding may set, which binds an External Memory Management plugin to the device
// there (python/src/memory_api.cpp). reset_devices() forgets those uses (numba's cuda.close()).
//
// The runtime object is never destroyed: kernels, arrays and streams held by Python objects may be released
// during interpreter shutdown, after static destructors would have run.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace gpujit::rt {

class Runtime {
 public:
  using BackendFactory = std::function<std::unique_ptr<Backend>()>;

  static Runtime& get();

  /// Adds a backend under `name`; a later registration of the same name replaces the factory.
  void register_backend(const std::string& name, BackendFactory factory);
  /// Makes `name` the active backend (for every thread). Throws std::invalid_argument for an unknown name.
  void set_backend(const std::string& name);
  /// The active backend, created on first use.
  Backend& backend();
  /// Name of the backend that is or will be active.
  std::string backend_name();

  /// The calling thread's current device, activated for it.
  Device& current_device() {
    if (tl_current_ && tl_generation_ == generation_.load(std::memory_order_relaxed)) return *tl_current_;
    return select_default_device();
  }
  /// Makes device `ordinal` of the active backend current for the calling thread.
  Device& select_device(int ordinal);
  /// Makes `device` (a device of any backend made so far, e.g. the one a `with gpu.gpus[i]:` block left)
  /// current for the calling thread, activated for it.
  Device& make_current(Device& device);
  /// Makes backend `name` active (as set_backend()) and its device `ordinal` current for the calling thread.
  /// The device is opened first: if that throws (no CUDA driver, no such device), nothing changes.
  Device& select(const std::string& name, int ordinal);

  using DeviceHook = std::function<void(Device&)>;
  /// Sets the function called, outside the runtime's lock, the first time each device becomes a thread's
  /// current device (again after reset_devices()). If it throws, the device counts as unused (its next use
  /// calls it again) and the exception propagates from the call that made the device current.
  void set_first_use_hook(DeviceHook hook);
  /// Forgets which devices were used, so that each one's next use calls the first-use hook again, and makes
  /// every thread choose its current device anew at its next use (its default device: device 0, or the
  /// GPUJIT_DEVICE one). numba's cuda.close() in the main thread. Devices, arrays and kernels stay valid.
  void reset_devices();
  /// The devices used so far (since the last reset_devices()), in no particular order.
  std::vector<Device*> used_devices();
  /// The calling thread chooses its current device anew at its next use (cuda.close() in another thread).
  void forget_current_device() { tl_current_ = nullptr; }

 private:
  Runtime();
  /// The backend `name`, created on first request; mutex_ must be held. std::invalid_argument if unknown.
  Backend& made_backend_locked(const std::string& name);
  /// Makes the device a thread starts on current for it (device 0, or the one GPUJIT_DEVICE names).
  Device& select_default_device();
  /// Records that `device` is used, calling the first-use hook if it was not.
  void note_use(Device& device);

  std::mutex mutex_;
  std::map<std::string, BackendFactory> factories_;
  std::map<std::string, std::unique_ptr<Backend>> made_;  // every backend created, kept alive
  std::string active_;                                    // empty until chosen
  std::atomic<uint64_t> generation_{1};                   // bumped when the active backend changes
  std::atomic<int> default_ordinal_{0};                   // a thread's device until it selects one
  std::set<Device*> used_;                                // devices that were some thread's current one
  DeviceHook first_use_hook_;
  // Read by every launch (current_device(), inline in the binding): constinit tells the including code that
  // there is no dynamic initialization, so it reads them directly instead of through a TLS wrapper call,
  // and initial-exec makes that read one %fs-relative load instead of a __tls_get_addr call. The library's
  // TLS is in the static TLS block already (host_guard.cpp's t_guard is initial-exec), so this costs no
  // static TLS it did not take.
  __attribute__((tls_model("initial-exec"))) static constinit thread_local Device* tl_current_;
  __attribute__((tls_model("initial-exec"))) static constinit thread_local uint64_t tl_generation_;
};

}  // namespace gpujit::rt
