// The CPU backend (see host_backend.h).
#include "runtime/host_backend.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include <fmt/format.h>

#include "codegen/host_jit.h"
#include "runtime/graph.h"
#include "runtime/host_executor.h"
#include "runtime/kernel_args.h"
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

/// One operation of a host graph: a launch (kernel set), else a copy (memmove; src set) or a fill.
struct HostNode {
  std::shared_ptr<const HostKernel> kernel;
  rt::LaunchConfig config;
  std::vector<uint64_t> params;  // the launch's parameter slots, as they were at capture
  rt::DevicePtr dst = 0, src = 0;
  size_t bytes = 0;
  uint8_t value = 0;
  bool copy = false;
};

struct HostCapture final : rt::Capture {
  std::vector<HostNode> nodes;
};

class HostGraph final : public rt::Graph {
 public:
  HostGraph(HostDevice& device, std::vector<HostNode> nodes, size_t kernels)
      : rt::Graph(device, kernels, nodes.size()), host_(device), nodes_(std::move(nodes)) {
    for (HostNode& n : nodes_) {
      std::vector<void*> pointers(n.params.size());
      for (size_t i = 0; i < pointers.size(); ++i) pointers[i] = &n.params[i];
      pointers_.push_back(std::move(pointers));
    }
  }

  /// Runs every node in order on the calling thread, through the device, so that a replay inside another
  /// capture is recorded there. Parameters are read, never written, so threads may replay one graph at once.
  void launch(rt::StreamHandle stream) override {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const HostNode& n = nodes_[i];
      if (n.kernel) {
        rt::LaunchConfig config = n.config;
        config.stream = stream;
        host_.launch(*n.kernel, config, pointers_[i].data(), nullptr);
      } else if (n.copy) {
        host_.copy_on_device(n.dst, n.src, n.bytes, stream);
      } else {
        host_.fill_bytes(n.dst, n.value, n.bytes, stream);
      }
    }
  }

 private:
  HostDevice& host_;
  std::vector<HostNode> nodes_;
  std::vector<std::vector<void*>> pointers_;  // kernelParams of each launch node
};

/// The capture that records work of `device` on `stream`, or null.
HostCapture* recording(const rt::Device* device, rt::StreamHandle stream) {
  return static_cast<HostCapture*>(rt::capture_of(device, stream));
}

/// Records a copy (memmove of raw addresses: on this backend device and host memory are one space).
bool record_copy(const rt::Device* device, rt::StreamHandle stream, rt::DevicePtr dst, rt::DevicePtr src,
                 size_t bytes) {
  HostCapture* c = recording(device, stream);
  if (!c) return false;
  HostNode n;
  n.copy = true;
  n.dst = dst;
  n.src = src;
  n.bytes = bytes;
  c->nodes.push_back(std::move(n));
  return true;
}

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

void HostDevice::copy_to_device(rt::DevicePtr dst, const void* src, size_t bytes, rt::StreamHandle stream) {
  if (bytes == 0 || run_transfer_hook(true, dst, reinterpret_cast<uintptr_t>(src), bytes, stream)) return;
  if (record_copy(this, stream, dst, reinterpret_cast<uintptr_t>(src), bytes)) return;
  std::memcpy(as_pointer(dst), src, bytes);
}

void HostDevice::copy_to_host(void* dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) {
  if (bytes == 0 || run_transfer_hook(false, reinterpret_cast<uintptr_t>(dst), src, bytes, stream)) return;
  if (record_copy(this, stream, reinterpret_cast<uintptr_t>(dst), src, bytes)) return;
  std::memcpy(dst, as_pointer(src), bytes);
}

void HostDevice::copy_on_device(rt::DevicePtr dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) {
  // memmove: views of one buffer may overlap.
  if (bytes == 0 || record_copy(this, stream, dst, src, bytes)) return;
  std::memmove(as_pointer(dst), as_pointer(src), bytes);
}

void HostDevice::fill_bytes(rt::DevicePtr dst, uint8_t value, size_t bytes, rt::StreamHandle stream) {
  if (bytes == 0) return;
  if (HostCapture* c = recording(this, stream)) {
    HostNode n;
    n.dst = dst;
    n.bytes = bytes;
    n.value = value;
    c->nodes.push_back(std::move(n));
    return;
  }
  std::memset(as_pointer(dst), value, bytes);
}

void HostDevice::synchronize_stream(rt::StreamHandle stream) {
  rt::check_not_capturing(this, stream, false, "synchronizing a captured stream");
}

bool HostDevice::query_stream(rt::StreamHandle stream) {
  rt::check_not_capturing(this, stream, false, "querying a captured stream");
  return true;
}

void HostDevice::synchronize() { rt::check_not_capturing(this, nullptr, true, "synchronizing the device"); }

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
  for (const ParamLayout& p : result.params) rt::append_param_sizes(p.type, &kernel->param_sizes);
  return kernel;
}

uint64_t HostDevice::max_cooperative_grid_blocks(const rt::LoadedKernel&, uint32_t block_threads, uint32_t) {
  if (block_threads == 0) return 0;
  return std::min<uint64_t>(kHostMaxCooperativeBlocks, kHostMaxCooperativeThreads / block_threads);
}

void HostDevice::launch(const rt::LoadedKernel& kernel, const rt::LaunchConfig& config, void** params,
                        const rt::ParamBuffer* /*packed*/) {
  if (HostCapture* c = recording(this, config.stream)) {
    auto& k = static_cast<const HostKernel&>(kernel);
    HostNode n;
    n.kernel = std::make_shared<const HostKernel>(k);  // keeps the code loaded for the graph's life
    n.config = config;
    // Each parameter's own bytes, in the low bytes of a zeroed slot (the kernel reads its size, no more).
    n.params.assign(k.param_sizes.size(), 0);
    for (size_t i = 0; i < k.param_sizes.size(); ++i) std::memcpy(&n.params[i], params[i], k.param_sizes[i]);
    c->nodes.push_back(std::move(n));
    ++c->kernels;
    return;
  }
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

std::unique_ptr<rt::Capture> HostDevice::begin_capture(rt::StreamHandle stream) {
  rt::require_no_capture();
  auto c = std::make_unique<HostCapture>();
  c->device = this;
  if (!stream) {
    // A distinct handle, so that the graph's stream is not the default one.
    c->own_stream = rt::Stream::adopt(*this, create_stream());
    stream = c->own_stream->handle();
  }
  c->stream = stream;
  rt::set_thread_capture(c.get());
  return c;
}

std::unique_ptr<rt::Graph> HostDevice::end_capture(rt::Capture& capture) {
  auto& c = static_cast<HostCapture&>(capture);
  abort_capture(c);  // ends the capture; the nodes stay
  return std::make_unique<HostGraph>(*this, std::move(c.nodes), c.kernels);
}

void HostDevice::abort_capture(rt::Capture& capture) noexcept {
  auto& c = static_cast<HostCapture&>(capture);
  rt::set_thread_capture(nullptr);
  c.own_stream.reset();
  c.stream = nullptr;
}

rt::Device& HostBackend::device(int ordinal) {
  if (ordinal != 0)
    throw std::out_of_range(fmt::format("no device {}: the cpu backend has 1 device", ordinal));
  std::lock_guard<std::mutex> lock(mutex_);
  if (!device_) device_ = std::make_unique<HostDevice>();
  return *device_;
}

}  // namespace gpujit::host
