// The CPU backend: one device, "cpu", that keeps device arrays in host memory and runs kernels compiled for
// the host (codegen/host_jit.h) over their grid with the host executor (runtime/host_executor.h).
//
// It is what the runtime uses on a machine with no CUDA driver, and what GPUJIT_BACKEND=cpu asks for. Device
// pointers are host addresses (so a DevicePtr can be handed to NumPy as is), copies are memcpy, and all work
// runs synchronously on the launching thread and the executor's pool: a launch returns when the grid is done.
// Streams and events therefore need no ordering of their own; they are distinct handles so that the code
// above can create, record and destroy them as on CUDA, and timing events read a steady clock.
//
// Graphs (runtime/graph.h): while the calling thread captures, a launch, copy or fill of a captured stream is
// recorded instead of run (a launch keeps its kernel, a copy of its parameter slots and its configuration),
// and the graph's launch() runs them in order on the launching thread.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/device.h"

namespace gpujit {
struct HostCode;
}

namespace gpujit::host {

/// A kernel compiled for the host; holding it keeps the JIT code loaded.
class HostKernel final : public rt::LoadedKernel {
 public:
  std::shared_ptr<const HostCode> code;
  /// The byte size of each flattened parameter (rt::append_param_sizes): what a graph copies of a launch.
  std::vector<unsigned> param_sizes;
};

class HostDevice final : public rt::Device {
 public:
  HostDevice();

  rt::BackendKind backend() const override { return rt::BackendKind::Host; }
  void activate() override {}

  rt::DevicePtr allocate(size_t bytes) override;
  void deallocate(rt::DevicePtr ptr) override;
  void* allocate_pinned(size_t bytes) override;
  void deallocate_pinned(void* ptr) override;
  void* allocate_managed(size_t bytes, bool) override { return allocate_pinned(bytes); }
  void deallocate_managed(void* ptr) override { deallocate_pinned(ptr); }
  rt::DevicePtr mapped_pointer(void* host) override;
  void copy_to_device(rt::DevicePtr dst, const void* src, size_t bytes, rt::StreamHandle stream) override;
  void copy_to_host(void* dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) override;
  void copy_on_device(rt::DevicePtr dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) override;
  void fill_bytes(rt::DevicePtr dst, uint8_t value, size_t bytes, rt::StreamHandle stream) override;
  std::pair<size_t, size_t> memory_info() override;

  rt::StreamHandle create_stream() override;
  void destroy_stream(rt::StreamHandle stream) override;
  /// Nothing to wait for; throws CaptureError while the calling thread captures the stream (graph.h).
  void synchronize_stream(rt::StreamHandle stream) override;
  bool query_stream(rt::StreamHandle stream) override;
  rt::EventHandle create_event(bool timing) override;
  void destroy_event(rt::EventHandle event) override;
  void record_event(rt::EventHandle event, rt::StreamHandle stream) override;
  void synchronize_event(rt::EventHandle) override {}
  bool query_event(rt::EventHandle) override { return true; }
  void stream_wait_event(rt::StreamHandle, rt::EventHandle) override {}
  float elapsed_ms(rt::EventHandle start, rt::EventHandle end) override;
  void synchronize() override;

  /// Sets options.target to TargetKind::Host.
  void configure_compile(CompileOptions& options) const override;
  /// Wraps result.host; throws LaunchError if the result was compiled for another target.
  std::shared_ptr<rt::LoadedKernel> load_kernel(const CompileResult& result,
                                                const std::string& name) override;
  /// Runs the whole grid before returning. A kernel that deadlocks at a barrier throws HostExecutionError
  /// (a std::runtime_error) naming the kernel and the block; one compiled with debug=True that indexes out of
  /// bounds throws rt::KernelIndexError.
  void launch(const rt::LoadedKernel& kernel, const rt::LaunchConfig& config, void** params,
              const rt::ParamBuffer* packed) override;
  /// kHostMaxCooperativeBlocks, fewer for blocks large enough to reach kHostMaxCooperativeThreads.
  uint64_t max_cooperative_grid_blocks(const rt::LoadedKernel& kernel, uint32_t block_threads,
                                       uint32_t dynamic_shared) override;
  std::unique_ptr<rt::Capture> begin_capture(rt::StreamHandle stream) override;
  std::unique_ptr<rt::Graph> end_capture(rt::Capture& capture) override;
  void abort_capture(rt::Capture& capture) noexcept override;
};

class HostBackend final : public rt::Backend {
 public:
  rt::BackendKind kind() const override { return rt::BackendKind::Host; }
  const char* name() const override { return "cpu"; }
  int device_count() override { return 1; }
  rt::Device& device(int ordinal) override;

 private:
  std::mutex mutex_;
  std::unique_ptr<HostDevice> device_;
};

}  // namespace gpujit::host
