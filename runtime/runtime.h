// The process-wide runtime: which backend runs kernels and which of its devices each thread uses.
//
// Backends register a factory under a name ("cuda" and "cpu" are built in). The active backend is chosen
// once, at first use: set_backend() if it was called, else the environment variable GPUJIT_BACKEND, else
// "cuda" when the CUDA driver loads and sees a GPU and "cpu" otherwise. Each thread has a current device of
// that backend (device 0 until select_device()), activated for the thread on first use, so the launch path
// only reads a thread-local.
//
// The runtime object is never destroyed: kernels, arrays and streams held by Python objects may be released
// during interpreter shutdown, after static destructors would have run.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/device.h"

namespace gpujit::rt {

class Runtime {
 public:
  using BackendFactory = std::function<std::unique_ptr<Backend>()>;

  static Runtime& get();

  /// Adds a backend under `name`; a later registration of the same name replaces the factory.
  void register_backend(const std::string& name, BackendFactory factory);
  /// Chooses the backend by name. Throws std::invalid_argument for an unknown name, std::logic_error if a
  /// different backend is already in use.
  void set_backend(const std::string& name);
  /// The active backend, created on first use.
  Backend& backend();
  /// Name of the backend that is or will be active.
  std::string backend_name();

  /// The calling thread's current device, activated for it.
  Device& current_device() {
    if (Device* d = tl_current_) return *d;
    return select_device(0);
  }
  /// Makes device `ordinal` of the active backend current for the calling thread.
  Device& select_device(int ordinal);

 private:
  Runtime();

  std::mutex mutex_;
  std::map<std::string, BackendFactory> factories_;
  std::string chosen_;
  std::unique_ptr<Backend> backend_;
  static thread_local Device* tl_current_;
};

}  // namespace gpujit::rt
