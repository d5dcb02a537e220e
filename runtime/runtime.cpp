// Backend registry and per-thread current device (see runtime.h), and the launch-limit checks and the copy
// between devices through the host of device.h.
#include "runtime/runtime.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/cuda_device.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_spec.h"
#include "runtime/host_backend.h"
#include "runtime/runtime_error.h"

namespace gpujit::rt {

constinit thread_local Device* Runtime::tl_current_ = nullptr;
constinit thread_local uint64_t Runtime::tl_generation_ = 0;

namespace {

/// The default backend: CUDA when its driver loads and sees a GPU, else the CPU backend, so kernels run
/// (slowly, but correctly) on machines without a GPU.
const char* default_backend() {
  if (!cuda::CudaDriver::available()) return "cpu";
  int count = 0;
  cuda::CudaDriver& driver = cuda::CudaDriver::get();
  if (driver.cuDeviceGetCount(&count) != cuda::CUDA_SUCCESS || count == 0) return "cpu";
  return "cuda";
}

/// Device `ordinal` of `b`, activated for the calling thread; std::out_of_range if `b` has no such device.
Device& open_device(Backend& b, int ordinal) {
  int count = b.device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw std::out_of_range(fmt::format("no device {}: the {} backend has {} device{}", ordinal, b.name(),
                                        count, count == 1 ? "" : "s"));
  }
  Device& device = b.device(ordinal);
  device.activate();
  return device;
}

}  // namespace

Runtime::Runtime() {
  factories_["cuda"] = [] { return std::make_unique<cuda::CudaBackend>(); };
  factories_["cpu"] = [] { return std::make_unique<host::HostBackend>(); };
}

Runtime& Runtime::get() {
  static Runtime* runtime = new Runtime();  // never destroyed, see runtime.h
  return *runtime;
}

void Runtime::register_backend(const std::string& name, BackendFactory factory) {
  std::lock_guard<std::mutex> lock(mutex_);
  factories_[name] = std::move(factory);
}

void Runtime::set_backend(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!factories_.count(name)) throw std::invalid_argument(fmt::format("unknown backend '{}'", name));
  if (name != active_) {
    active_ = name;
    default_ordinal_.store(0);
    generation_.fetch_add(1);
  }
}

std::string Runtime::backend_name() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_.empty()) return active_;
  if (std::optional<DeviceSpec> env = device_from_environment()) return env->backend;
  return default_backend();
}

Backend& Runtime::made_backend_locked(const std::string& name) {
  auto& slot = made_[name];
  if (!slot) {
    auto it = factories_.find(name);
    if (it == factories_.end()) {
      made_.erase(name);
      throw std::invalid_argument(fmt::format("unknown backend '{}'", name));
    }
    slot = it->second();
  }
  return *slot;
}

Backend& Runtime::backend() {
  std::string name = backend_name();
  std::lock_guard<std::mutex> lock(mutex_);
  Backend& b = made_backend_locked(name);
  if (active_.empty()) {
    // First use: threads start on the device GPUJIT_DEVICE names ("cuda:1"), else on device 0.
    std::optional<DeviceSpec> env = device_from_environment();
    default_ordinal_.store(env && env->backend == name ? env->ordinal : 0);
  }
  active_ = name;
  return b;
}

void Runtime::set_first_use_hook(DeviceHook hook) {
  std::lock_guard<std::mutex> lock(mutex_);
  first_use_hook_ = std::move(hook);
}

void Runtime::reset_devices() {
  std::lock_guard<std::mutex> lock(mutex_);
  used_.clear();
  generation_.fetch_add(1);
}

std::vector<Device*> Runtime::used_devices() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::vector<Device*>(used_.begin(), used_.end());
}

void Runtime::note_use(Device& device) {
  DeviceHook hook;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!used_.insert(&device).second) return;
    hook = first_use_hook_;
  }
  if (!hook) return;
  try {
    hook(device);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    used_.erase(&device);
    throw;
  }
}

Device& Runtime::select_device(int ordinal) {
  Device& device = open_device(backend(), ordinal);
  note_use(device);
  tl_current_ = &device;
  tl_generation_ = generation_.load();
  return device;
}

Device& Runtime::make_current(Device& device) {
  device.activate();
  note_use(device);
  tl_current_ = &device;
  tl_generation_ = generation_.load();
  return device;
}

Device& Runtime::select_default_device() {
  Backend& b = backend();  // on first use this also reads GPUJIT_DEVICE's ordinal
  Device& device = open_device(b, default_ordinal_.load());
  note_use(device);
  tl_current_ = &device;
  tl_generation_ = generation_.load();
  return device;
}

Device& Runtime::select(const std::string& name, int ordinal) {
  Backend* b = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    b = &made_backend_locked(name);
  }
  // Opened before switching: a backend that cannot run here (no CUDA driver) leaves the active one as it was.
  Device& device = open_device(*b, ordinal);
  note_use(device);
  set_backend(name);
  tl_current_ = &device;
  tl_generation_ = generation_.load();
  return device;
}

void Device::copy_from_device(DevicePtr dst, Device& from, DevicePtr src, size_t bytes, StreamHandle stream) {
  if (!bytes) return;
  if (&from == this) return copy_on_device(dst, src, bytes, stream);
  // Devices of two backends (or two that cannot copy directly): stage through host memory, waiting for the
  // source's earlier work first and for the copy in, since the staging buffer dies on return.
  std::vector<unsigned char> staging(bytes);
  from.copy_to_host(staging.data(), src, bytes, nullptr);
  from.synchronize_stream(nullptr);
  copy_to_device(dst, staging.data(), bytes, stream);
  synchronize_stream(stream);
}

namespace {

[[noreturn]] void no_ipc(const Device& device) {
  throw std::runtime_error(fmt::format("device {} ('{}') cannot share memory with other processes (CUDA IPC): "
                                       "its memory is this process's own; IPC needs a CUDA device",
                                       device.ordinal(), device.properties().name));
}

}  // namespace

std::pair<DevicePtr, size_t> Device::address_range(DevicePtr ptr) {
  throw std::runtime_error(fmt::format("device {} ('{}') keeps no table of allocations to find the one holding "
                                       "address 0x{:x} in; a CUDA device has one",
                                       ordinal(), properties().name, ptr));
}

IpcMemHandle Device::ipc_handle(DevicePtr ptr, DevicePtr* base, size_t* bytes) { no_ipc(*this); }

DevicePtr Device::open_ipc_handle(const IpcMemHandle& handle) { no_ipc(*this); }

void Device::close_ipc_handle(DevicePtr base) { no_ipc(*this); }

void validate_dims(const Dim3& dims, const char* what) {
  static constexpr char kAxis[] = {'x', 'y', 'z'};
  const uint32_t values[3] = {dims.x, dims.y, dims.z};
  bool block = what[0] == 'b';
  const uint64_t limits_block[3] = {1024, 1024, 64};
  const uint64_t limits_grid[3] = {2147483647, 65535, 65535};
  for (int i = 0; i < 3; ++i) {
    if (values[i] == 0) {
      throw LaunchError(fmt::format("{} dimension {} is 0; every dimension must be at least 1", what, kAxis[i]));
    }
    uint64_t limit = block ? limits_block[i] : limits_grid[i];
    if (values[i] > limit) {
      throw LaunchError(fmt::format("{} dimension {} is {}, more than the limit of {}", what, kAxis[i],
                                    values[i], limit));
    }
  }
  if (block && dims.count() > 1024) {
    throw LaunchError(fmt::format("a block of {}x{}x{} = {} threads is more than the limit of 1024", dims.x,
                                  dims.y, dims.z, dims.count()));
  }
}

void validate_launch(const LaunchConfig& config, const DeviceProperties& props, const LoadedKernel& kernel) {
  static constexpr char kAxis[] = {'x', 'y', 'z'};
  const uint32_t block[3] = {config.block.x, config.block.y, config.block.z};
  const uint32_t grid[3] = {config.grid.x, config.grid.y, config.grid.z};
  for (int i = 0; i < 3; ++i) {
    if (block[i] == 0 || grid[i] == 0) {
      throw LaunchError(fmt::format("kernel '{}': {} dimension {} is 0", kernel.name,
                                    block[i] == 0 ? "block" : "grid", kAxis[i]));
    }
    if (block[i] > uint32_t(props.max_block_dim[i])) {
      throw LaunchError(fmt::format("kernel '{}': block dimension {} is {}, more than {}'s limit of {}",
                                    kernel.name, kAxis[i], block[i], props.name, props.max_block_dim[i]));
    }
    if (grid[i] > props.max_grid_dim[i]) {
      throw LaunchError(fmt::format("kernel '{}': grid dimension {} is {}, more than {}'s limit of {}",
                                    kernel.name, kAxis[i], grid[i], props.name, props.max_grid_dim[i]));
    }
  }
  uint64_t threads = config.block.count();
  if (threads > uint64_t(kernel.max_threads_per_block)) {
    if (kernel.max_threads_per_block >= props.max_threads_per_block) {
      throw LaunchError(fmt::format("kernel '{}': a block of {} threads is more than {}'s limit of {}", kernel.name,
                                    threads, props.name, props.max_threads_per_block));
    }
    // The kernel's own limit (its launch_bounds or its register use): the driver's error, as numba reports it,
    // on every backend.
    throw DriverError("kernel launch", /*CUDA_ERROR_INVALID_VALUE*/ 1, "CUDA_ERROR_INVALID_VALUE",
                      fmt::format("kernel '{}': a block of {} threads is more than this kernel's limit of {} (set "
                                  "by its launch_bounds or its register use)",
                                  kernel.name, threads, kernel.max_threads_per_block));
  }
  uint64_t shared = uint64_t(config.shared_bytes) + kernel.static_shared_bytes;
  if (shared > props.max_shared_per_block_optin) {
    throw LaunchError(fmt::format("kernel '{}': {} bytes of shared memory ({} dynamic + {} static) is more "
                                  "than {}'s limit of {}",
                                  kernel.name, shared, config.shared_bytes, kernel.static_shared_bytes,
                                  props.name, props.max_shared_per_block_optin));
  }
}

// Device's transfer hook (runtime/device.h): one for the process, read on every host<->device copy with one
// atomic load while none is set.
namespace {
std::atomic<bool> g_hooked{false};
std::mutex g_hook_mutex;
std::shared_ptr<Device::TransferHook> g_hook;
thread_local bool t_in_hook = false;
}  // namespace

void Device::set_transfer_hook(TransferHook hook) {
  std::lock_guard<std::mutex> lock(g_hook_mutex);
  g_hook = hook ? std::make_shared<TransferHook>(std::move(hook)) : nullptr;
  g_hooked.store(g_hook != nullptr, std::memory_order_release);
}

Device::TransferHookBypass::TransferHookBypass() : before_(t_in_hook) { t_in_hook = true; }
Device::TransferHookBypass::~TransferHookBypass() { t_in_hook = before_; }

bool Device::run_transfer_hook(bool to_device, uintptr_t dst, uintptr_t src, size_t bytes, StreamHandle stream) {
  if (!g_hooked.load(std::memory_order_acquire) || t_in_hook) return false;
  std::shared_ptr<TransferHook> hook;
  {
    std::lock_guard<std::mutex> lock(g_hook_mutex);
    hook = g_hook;
  }
  if (!hook) return false;
  TransferHookBypass inside;  // the hook's own copies (the original it may call) are the device's
  (*hook)(to_device, dst, src, bytes, stream);
  return true;
}

}  // namespace gpujit::rt
