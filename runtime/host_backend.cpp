// The CPU backend (see host_backend.h).
#include "runtime/host_backend.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "codegen/host_jit.h"
#include "runtime/host_executor.h"
#include "runtime/runtime_error.h"

namespace gpujit::host {
namespace {

/// Device allocations are aligned like cudaMalloc's, so vectorized kernel code and NumPy views see the
/// alignment they would on a GPU.
constexpr size_t kAllocationAlign = 256;

void* as_pointer(rt::DevicePtr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

/// A stream is only a distinct handle; an event the time it was recorded.
struct HostStream {};
struct HostEvent {
  std::chrono::steady_clock::time_point recorded;
};

rt::DeviceProperties host_properties() {
  rt::DeviceProperties p;
  p.name = "cpu";
  p.ordinal = 0;
  p.multiprocessors = static_cast<int>(HostExecutor::instance().num_threads());
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  p.total_memory = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
  p.warp_size = int(kHostWarpSize);
  p.max_threads_per_block = int(kHostMaxThreadsPerBlock);
  // The limits of a recent GPU, so that a kernel that runs here also launches on one.
  p.max_shared_per_block = 48 * 1024;
  p.max_shared_per_block_optin = 227 * 1024;
  return p;
}

}  // namespace

HostDevice::HostDevice() : rt::Device(host_properties()) {}

rt::DevicePtr HostDevice::allocate(size_t bytes) {
  if (bytes == 0) return 0;
  size_t rounded = (bytes + kAllocationAlign - 1) / kAllocationAlign * kAllocationAlign;
  void* p = std::aligned_alloc(kAllocationAlign, rounded);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return reinterpret_cast<uintptr_t>(p);
}

void HostDevice::deallocate(rt::DevicePtr ptr) { std::free(as_pointer(ptr)); }

void* HostDevice::allocate_pinned(size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void HostDevice::deallocate_pinned(void* ptr) { std::free(ptr); }

rt::DevicePtr HostDevice::mapped_pointer(void* host) { return rt::DevicePtr(reinterpret_cast<uintptr_t>(host)); }

void HostDevice::copy_to_device(rt::DevicePtr dst, const void* src, size_t bytes, rt::StreamHandle) {
  if (bytes != 0) std::memcpy(as_pointer(dst), src, bytes);
}

void HostDevice::copy_to_host(void* dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle) {
  if (bytes != 0) std::memcpy(dst, as_pointer(src), bytes);
}

void HostDevice::copy_on_device(rt::DevicePtr dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle) {
  // memmove: views of one buffer may overlap.
  if (bytes != 0) std::memmove(as_pointer(dst), as_pointer(src), bytes);
}

void HostDevice::fill_bytes(rt::DevicePtr dst, uint8_t value, size_t bytes, rt::StreamHandle) {
  if (bytes != 0) std::memset(as_pointer(dst), value, bytes);
}

std::pair<size_t, size_t> HostDevice::memory_info() {
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t free = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
  return {free, size_t(props_.total_memory)};
}

rt::StreamHandle HostDevice::create_stream() { return new HostStream(); }

void HostDevice::destroy_stream(rt::StreamHandle stream) { delete static_cast<HostStream*>(stream); }

rt::EventHandle HostDevice::create_event(bool) { return new HostEvent(); }

void HostDevice::destroy_event(rt::EventHandle event) { delete static_cast<HostEvent*>(event); }

void HostDevice::record_event(rt::EventHandle event, rt::StreamHandle) {
  // Work is synchronous: everything enqueued before the record has finished by now.
  static_cast<HostEvent*>(event)->recorded = std::chrono::steady_clock::now();
}

float HostDevice::elapsed_ms(rt::EventHandle start, rt::EventHandle end) {
  auto d = static_cast<HostEvent*>(end)->recorded - static_cast<HostEvent*>(start)->recorded;
  return std::chrono::duration<float, std::milli>(d).count();
}

void HostDevice::configure_compile(CompileOptions& options) const { options.target = TargetKind::Host; }

std::shared_ptr<rt::LoadedKernel> HostDevice::load_kernel(const CompileResult& result,
                                                          const std::string& name) {
  if (!result.host) {
    throw rt::LaunchError(fmt::format(
        "kernel '{}' was compiled for the GPU, not for the cpu backend; compile it with the device's "
        "configure_compile()",
        name));
  }
  auto kernel = std::make_shared<HostKernel>();
  kernel->name = name;
  kernel->code = result.host;
  kernel->max_threads_per_block = int(kHostMaxThreadsPerBlock);
  if (result.max_threads > 0 && result.max_threads < kernel->max_threads_per_block)
    kernel->max_threads_per_block = result.max_threads;  // launch_bounds, as the driver enforces .maxntid
  kernel->static_shared_bytes = uint32_t(result.host->static_shared_bytes);
  kernel->cooperative = result.uses_grid_sync;
  return kernel;
}

uint64_t HostDevice::max_cooperative_grid_blocks(const rt::LoadedKernel&, uint32_t block_threads, uint32_t) {
  if (block_threads == 0) return 0;
  return std::min<uint64_t>(kHostMaxCooperativeBlocks, kHostMaxCooperativeThreads / block_threads);
}

void HostDevice::launch(const rt::LoadedKernel& kernel, const rt::LaunchConfig& config, void** params,
                        const rt::ParamBuffer* /*packed*/) {
  const HostCode& code = *static_cast<const HostKernel&>(kernel).code;
  HostLaunch l;
  l.entry = code.entry;
  l.block_entry = code.block_entry;
  l.kernel_name = kernel.name;
  l.grid[0] = config.grid.x;
  l.grid[1] = config.grid.y;
  l.grid[2] = config.grid.z;
  l.block[0] = config.block.x;
  l.block[1] = config.block.y;
  l.block[2] = config.block.z;
  l.params = params;
  l.static_shared_bytes = code.static_shared_bytes;
  l.dynamic_shared_bytes = config.shared_bytes;
  l.uses_barrier = code.uses_barrier;
  l.uses_grid_sync = kernel.cooperative;
  HostExecutor::instance().launch(l);
}

rt::Device& HostBackend::device(int ordinal) {
  if (ordinal != 0)
    throw std::out_of_range(fmt::format("no device {}: the cpu backend has 1 device", ordinal));
  std::lock_guard<std::mutex> lock(mutex_);
  if (!device_) device_ = std::make_unique<HostDevice>();
  return *device_;
}

}  // namespace gpujit::host
