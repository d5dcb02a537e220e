// The CUDA backend: devices driven through the CUDA Driver API (runtime/cuda_driver.h).
//
// Each CudaDevice uses the device's primary context (shared with CuPy, PyTorch and numba in the same
// process), retained when the device is first used and kept for the life of the process. Kernels are PTX
// loaded with cuModuleLoadData, which JIT-compiles it for the device (for a kernel cached on disk: linked
// with cuLink* into a cubin, which the cache keeps and a later process loads without the JIT); the PTX is compiled for the device's own
// architecture, capped at the newest one LLVM's NVPTX backend knows (the driver runs older PTX on newer GPUs).
// A kernel is loaded once per device (a module in each device's context), and launched on the device it was
// loaded on. A kernel's module is unloaded when the kernel is destroyed (its dispatcher is), and at once when
// loading it fails after cuModuleLoadData succeeded, so a failure leaks no module.
//
// Graphs (runtime/graph.h) are CUDA stream capture in thread-local mode: while a thread captures, its
// launches, copies, fills and event records on the default stream go to the capture's stream, and a launch of
// a kernel with an error record (which would wait for it) is refused with rt::CaptureError.
//
// Driver failures throw rt::DriverError naming the call and what gpujit was doing (the bytes allocated or
// copied, the kernel and launch configuration); see docs/reliability.md for what each one looks like.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/cuda_api.h"
#include "runtime/device.h"

namespace gpujit::cuda {

// cuLibrary* (CUDA 12.0+), optional entry points (CudaDriver); runtime/cuda_api.h lists the required ones.
struct CUlib_st;
using CUlibrary = CUlib_st*;

class CudaDriver;
class CudaDevice;

/// A kernel function loaded on one CUDA device.
class CudaKernel final : public rt::LoadedKernel {
 public:
  explicit CudaKernel(CudaDevice& device) : device(device) {}
  /// Unloads the module; a failure is ignored (a destructor cannot report it, and the driver frees the
  /// module with its context anyway).
  ~CudaKernel() override;

  CudaDevice& device;
  CUmodule module = nullptr;
  /// The library a linked kernel was loaded as (cuLibraryLoadData; `module` is its module in the device's
  /// context); null for a kernel loaded with cuModuleLoadData. Unloaded instead of the module.
  CUlibrary library = nullptr;
  CUfunction function = nullptr;
  /// Dynamic shared memory the function was opted in for beyond the default 48 KiB (raised at launch).
  mutable uint32_t shared_optin = 0;
  /// The error record of a kernel with bounds checks or a raise (codegen/device_error.h); 0: none.
  CUdeviceptr error_record = 0;
  /// The size of its parameters laid out as PTX declares them (each aligned to its size), which a launch
  /// passes to the driver as one buffer; 0 when it has none, or for a cooperative launch (kernelParams only).
  size_t param_bytes = 0;
};

class CudaDevice final : public rt::Device {
 public:
  CudaDevice(CudaDriver& driver, int ordinal);

  rt::BackendKind backend() const override { return rt::BackendKind::Cuda; }
  void activate() override;
  void* thread_context() override;
  void set_thread_context(void* context) override;
  void check_thread_context() override;

  rt::DevicePtr allocate(size_t bytes) override;
  void deallocate(rt::DevicePtr ptr) override;
  void* allocate_pinned(size_t bytes) override;
  void deallocate_pinned(void* ptr) override;
  void* allocate_managed(size_t bytes, bool attach_global) override;
  void deallocate_managed(void* ptr) override;
  rt::DevicePtr mapped_pointer(void* host) override;
  void copy_to_device(rt::DevicePtr dst, const void* src, size_t bytes, rt::StreamHandle stream) override;
  void copy_to_host(void* dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) override;
  void copy_on_device(rt::DevicePtr dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) override;
  void fill_bytes(rt::DevicePtr dst, uint8_t value, size_t bytes, rt::StreamHandle stream) override;
  void copy_from_device(rt::DevicePtr dst, rt::Device& from, rt::DevicePtr src, size_t bytes,
                        rt::StreamHandle stream) override;
  bool can_access_peer(const rt::Device& peer) const override;
  std::pair<size_t, size_t> memory_info() override;
  rt::DevicePtr register_host(void* host, size_t bytes, bool mapped) override;
  void unregister_host(void* host) override;
  std::pair<rt::DevicePtr, size_t> address_range(rt::DevicePtr ptr) override;
  rt::IpcMemHandle ipc_handle(rt::DevicePtr ptr, rt::DevicePtr* base, size_t* bytes) override;
  rt::DevicePtr open_ipc_handle(const rt::IpcMemHandle& handle) override;
  void close_ipc_handle(rt::DevicePtr base) override;
  void set_profiling(bool on) override;

  rt::StreamHandle create_stream() override;
  void destroy_stream(rt::StreamHandle stream) override;
  void synchronize_stream(rt::StreamHandle stream) override;
  bool query_stream(rt::StreamHandle stream) override;
  rt::EventHandle create_event(bool timing) override;
  void destroy_event(rt::EventHandle event) override;
  void record_event(rt::EventHandle event, rt::StreamHandle stream) override;
  void synchronize_event(rt::EventHandle event) override;
  bool query_event(rt::EventHandle event) override;
  void stream_wait_event(rt::StreamHandle stream, rt::EventHandle event) override;
  float elapsed_ms(rt::EventHandle start, rt::EventHandle end) override;
  void synchronize() override;

  void configure_compile(CompileOptions& options) const override;
  std::shared_ptr<rt::LoadedKernel> load_kernel(const CompileResult& result, const std::string& name) override;
  std::string machine_code_tag() const override;
  std::shared_ptr<rt::LoadedKernel> load_kernel_keeping_code(const CompileResult& result, const std::string& name,
                                                             std::string* code) override;
  std::shared_ptr<rt::LoadedKernel> load_kernel_code(const CompileResult& result, const std::string& code,
                                                     const std::string& name) override;
  void launch(const rt::LoadedKernel& kernel, const rt::LaunchConfig& config, void** params,
              const rt::ParamBuffer* packed) override;
  uint64_t max_cooperative_grid_blocks(const rt::LoadedKernel& kernel, uint32_t block_threads,
                                       uint32_t dynamic_shared) override;
  std::unique_ptr<rt::Capture> begin_capture(rt::StreamHandle stream) override;
  std::unique_ptr<rt::Graph> end_capture(rt::Capture& capture) override;
  void abort_capture(rt::Capture& capture) noexcept override;

  CUcontext context() const { return context_; }
  CudaDriver& driver() const { return driver_; }
  /// Binds the context to the calling thread if another one is current there (public for ~CudaKernel).
  void bind_context() { bind(); }

 private:
  /// Binds the context to the calling thread if another one is current there.
  void bind();
  /// Looks up a loaded module's kernel function and reads its attributes.
  void finish_load(CudaKernel& kernel, const CompileResult& result);
  /// The kernel's PTX linked with its external code (runtime/kernel_link.h) into a cubin for this device:
  /// nvJitLink, or the driver's cuLink* where nvJitLink cannot be loaded (no LTO-IR then).
  /// `result` linked with its external code into a cubin; `*lto_fallback` as rt::link_kernel gives it.
  std::string link_external(const CompileResult& result, const std::string& name, std::string* lto_fallback);
  /// Loads a cubin linked from the kernel's PTX and its external code (runtime/kernel_link.h).
  std::shared_ptr<rt::LoadedKernel> load_linked(std::shared_ptr<CudaKernel> kernel, const CompileResult& result,
                                                const std::string& cubin);
  /// Rethrows a failed module load or link with the JIT's log and the kernel's name.
  [[noreturn]] void throw_load_error(CUresult r, const char* function, const std::string& name, const char* log);

  CudaDriver& driver_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

class CudaBackend final : public rt::Backend {
 public:
  rt::BackendKind kind() const override { return rt::BackendKind::Cuda; }
  const char* name() const override { return "cuda"; }
  int device_count() override;
  rt::Device& device(int ordinal) override;

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
};

/// The PTX target for a compute capability: "sm_90" for 9.0, the newest architecture LLVM's NVPTX backend
/// knows that is not newer than the device (so sm_120 for a future 13.0 device).
std::string arch_for_compute_capability(int major, int minor);

}  // namespace gpujit::cuda
