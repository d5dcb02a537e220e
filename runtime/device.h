// The backend interface: what the runtime needs from a device, whatever runs the kernels.
//
// A Backend (CUDA today, the host CPU later) enumerates Devices. A Device owns memory, streams, events and
// loaded kernels and launches them; everything above it (the caching allocator, device arrays, the Python
// launch path) is written against this interface alone, so a backend that runs kernels on host threads plugs
// in by implementing Backend and Device and registering itself with the Runtime (runtime/runtime.h).
//
// Conventions:
// - DevicePtr is an address in the device's space (a CUdeviceptr on CUDA, a host address on the CPU).
// - StreamHandle/EventHandle are the backend's own handles; a null StreamHandle is the device's default
//   stream (CUDA's legacy default stream, which orders itself with every other blocking stream).
// - Copies are enqueued on the given stream; a caller that needs the data on the host synchronizes.
// - Every failure throws (rt::DriverError, rt::LaunchError, rt::NoDriverError); nothing returns codes.
// - The raw allocate()/deallocate() go to the backend every time; code allocates through allocator(), which
//   caches freed blocks per stream (runtime/caching_allocator.h). A device given an ExternalAllocator (numba's
//   External Memory Management plugins, through the binding) has its arrays' memory made by that instead
//   (DeviceBuffer, runtime/device_array.h); the caching allocator then serves nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "codegen/artifact.h"
#include "runtime/caching_allocator.h"

namespace gpujit::rt {

class ParamBuffer;  // runtime/kernel_args.h
class Graph;
struct Capture;

using DevicePtr = uint64_t;
using StreamHandle = void*;
using EventHandle = void*;

enum class BackendKind : uint8_t { Cuda, Host };

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

/// A launch's shape: grid and block dimensions, dynamic shared memory and the stream it goes to.
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint32_t shared_bytes = 0;
  StreamHandle stream = nullptr;
};

/// What a device is and its launch limits, read once when the device is first used.
struct DeviceProperties {
  std::string name;
  int ordinal = 0;
  int cc_major = 0, cc_minor = 0;  // compute capability; 0.0 on the host backend
  int multiprocessors = 0;
  uint64_t total_memory = 0;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_block_dim[3] = {1024, 1024, 64};
  int64_t max_grid_dim[3] = {2147483647, 65535, 65535};
  uint32_t max_shared_per_block = 48 * 1024;        // without opting in
  uint32_t max_shared_per_block_optin = 48 * 1024;  // with cuFuncSetAttribute
  int pci_bus_id = 0;
  int pci_domain_id = 0;
  int pci_device_id = 0;
};

/// Device memory another library allocates for gpujit's arrays: numba's External Memory Management plugin
/// interface, which the binding implements with a Python callable (python/src/memory_api.cpp). Called with
/// the number of bytes (never 0) each time an array needs memory; what it returns keeps the memory alive, and
/// releasing it gives the memory back to its allocator.
class ExternalAllocator {
 public:
  struct Allocation {
    DevicePtr ptr = 0;
    std::shared_ptr<void> owner;  // never null; the memory lives as long as it does
  };
  virtual ~ExternalAllocator() = default;
  virtual Allocation allocate(size_t bytes) = 0;
};

/// A CUDA IPC memory handle: 64 opaque bytes another process opens to use an allocation of this one.
struct IpcMemHandle {
  unsigned char bytes[64] = {};
};

/// A kernel loaded on one device, ready to launch. Backends subclass it with their handles.
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  /// The kernel's Python name, for messages.
  std::string name;
  /// The largest block this kernel can be launched with (its register use may lower the device's limit).
  int max_threads_per_block = 1024;
  /// Static shared memory the kernel declares, in bytes.
  uint32_t static_shared_bytes = 0;
  /// The kernel uses a grid-wide barrier (CompileResult::uses_grid_sync): launch every block at once.
  bool cooperative = false;
  /// The size of the parameter buffer (ParamBuffer::data()) this device's launch takes on its own, with no
  /// kernelParams pointers: a launch whose packed parameters come to exactly this many bytes may skip building
  /// the pointers. 0: the launch reads the pointers (a cooperative CUDA launch, the CPU backend).
  size_t packed_param_bytes = 0;
  /// jit(lto=True) with external code, linked with the kernel as PTX after all: why (libNVVM missing or refusing
  /// the kernel's NVVM IR), so that the binding can warn; empty when the kernel took part as LTO-IR, or LTO was
  /// not asked for.
  std::string lto_fallback;
};

class Device {
 public:
  explicit Device(DeviceProperties props) : props_(std::move(props)), allocator_(*this) {}
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  virtual BackendKind backend() const = 0;
  const DeviceProperties& properties() const { return props_; }
  int ordinal() const { return props_.ordinal; }
  /// The caching allocator every device allocation should go through.
  CachingAllocator& allocator() { return allocator_; }
  /// The allocator arrays' memory comes from instead of allocator(); null (the default) for gpujit's own.
  ExternalAllocator* external_allocator() const { return external_.get(); }
  /// Sets it (null: back to gpujit's own). Arrays made before keep the memory they have.
  void set_external_allocator(std::shared_ptr<ExternalAllocator> allocator) { external_ = std::move(allocator); }

  /// Makes the device current for the calling thread (CUDA: binds its primary context).
  virtual void activate() = 0;
  /// The CUDA context bound to the calling thread, whoever bound it (null: none), and binding one back, so that
  /// `with gpus[i]:` leaves the thread's context as it found it (numba's). The host backend has none.
  virtual void* thread_context() { return nullptr; }
  virtual void set_thread_context(void*) {}
  /// Throws std::runtime_error when the CUDA context current on the calling thread is no device's primary
  /// context (another library's cuCtxCreate made it current): gpujit works in primary contexts only, and
  /// numba-cuda refuses such a context too. activate() checks this first.
  virtual void check_thread_context() {}

  // Memory. allocate() returns 0 only for 0 bytes.
  virtual DevicePtr allocate(size_t bytes) = 0;
  virtual void deallocate(DevicePtr ptr) = 0;
  /// Page-locked host memory, for fast and asynchronous copies.
  virtual void* allocate_pinned(size_t bytes) = 0;
  virtual void deallocate_pinned(void* ptr) = 0;
  /// The address kernels use for host memory from allocate_pinned(), which is mapped into the device's address
  /// space (numba's mapped arrays): CUDA's cuMemHostGetDevicePointer; the host backend's own pointer.
  virtual DevicePtr mapped_pointer(void* host) = 0;
  /// Managed (unified) memory, numba's managed_array: one address that the host and kernels both use, the
  /// driver migrating pages on demand. CUDA's cuMemAllocManaged, attached globally (any stream may use it) or,
  /// with `attach_global` false, to the host (numba's attach_global=False); host memory on the host backend.
  virtual void* allocate_managed(size_t bytes, bool attach_global) = 0;
  virtual void deallocate_managed(void* ptr) = 0;
  virtual void copy_to_device(DevicePtr dst, const void* src, size_t bytes, StreamHandle stream) = 0;
  virtual void copy_to_host(void* dst, DevicePtr src, size_t bytes, StreamHandle stream) = 0;
  virtual void copy_on_device(DevicePtr dst, DevicePtr src, size_t bytes, StreamHandle stream) = 0;
  virtual void fill_bytes(DevicePtr dst, uint8_t value, size_t bytes, StreamHandle stream) = 0;
  /// Copies `bytes` from `src` on device `from` (another device of this backend or of another one) to `dst`
  /// on this device, in the order of this device's `stream`. With the default stream the copy is ordered
  /// after the work already enqueued on both devices. This version goes through the host and returns when
  /// the copy is done; CUDA copies between its devices with cuMemcpyPeer (runtime/cuda_device.h).
  virtual void copy_from_device(DevicePtr dst, Device& from, DevicePtr src, size_t bytes, StreamHandle stream);
  /// Whether kernels on this device could read memory of `peer` directly (CUDA's cuDeviceCanAccessPeer).
  /// gpujit does not enable peer access: an array is always launched on its own device.
  virtual bool can_access_peer(const Device& peer) const { return &peer == this; }
  /// Free and total device memory in bytes.
  virtual std::pair<size_t, size_t> memory_info() = 0;

  // Memory shared beyond this process or with the host, and the profiler. The defaults are the CPU
  // backend's: no IPC (a std::runtime_error saying so), nothing to register, no profiler.
  /// Page-locks `bytes` of host memory at `host` until unregister_host(host) (numba's cuda.pinned); with
  /// `mapped` also maps it into the device's address space and returns the address kernels use (cuda.mapped),
  /// else 0. CUDA's cuMemHostRegister; the host backend needs neither and returns `host` when mapped.
  virtual DevicePtr register_host(void* host, size_t bytes, bool mapped) {
    return mapped ? DevicePtr(reinterpret_cast<uintptr_t>(host)) : 0;
  }
  virtual void unregister_host(void* host) {}
  /// The base and size of the driver allocation holding `ptr` (CUDA: cuMemGetAddressRange; numba's
  /// device_extents). The host backend tracks no allocations and throws.
  virtual std::pair<DevicePtr, size_t> address_range(DevicePtr ptr);
  /// The IPC handle of the allocation holding `ptr`, and in *base and *bytes that allocation (CUDA:
  /// address_range(), then cuIpcGetMemHandle of its base).
  virtual IpcMemHandle ipc_handle(DevicePtr ptr, DevicePtr* base, size_t* bytes);
  /// Maps an allocation of another process into this one; returns its base (cuIpcOpenMemHandle).
  virtual DevicePtr open_ipc_handle(const IpcMemHandle& handle);
  /// Unmaps what open_ipc_handle() gave (cuIpcCloseMemHandle).
  virtual void close_ipc_handle(DevicePtr base);
  /// Starts or stops the profiler's collection for this device (cuProfilerStart/cuProfilerStop).
  virtual void set_profiling(bool on) {}

  // Streams and events.
  virtual StreamHandle create_stream() = 0;
  virtual void destroy_stream(StreamHandle stream) = 0;
  virtual void synchronize_stream(StreamHandle stream) = 0;
  /// True if all work on the stream has finished.
  virtual bool query_stream(StreamHandle stream) = 0;
  virtual EventHandle create_event(bool timing) = 0;
  virtual void destroy_event(EventHandle event) = 0;
  virtual void record_event(EventHandle event, StreamHandle stream) = 0;
  virtual void synchronize_event(EventHandle event) = 0;
  virtual bool query_event(EventHandle event) = 0;
  /// Makes later work on `stream` wait until `event` has happened.
  virtual void stream_wait_event(StreamHandle stream, EventHandle event) = 0;
  /// Milliseconds between two recorded, completed timing events.
  virtual float elapsed_ms(EventHandle start, EventHandle end) = 0;
  /// Waits for all work on the device.
  virtual void synchronize() = 0;

  // Code.
  /// Points a compile at this device (CUDA: options.arch = the device's sm_XY, capped at what LLVM knows).
  virtual void configure_compile(CompileOptions& options) const = 0;
  /// Loads a compiled kernel onto the device. `result.ok` must be true.
  virtual std::shared_ptr<LoadedKernel> load_kernel(const CompileResult& result, const std::string& name) = 0;
  /// Machine code for the disk cache (runtime/disk_cache.h). machine_code_tag() names what the code depends
  /// on beyond the PTX (CUDA: the driver's version and the compute capability, "cuda13000.sm_90"); empty
  /// when the backend keeps none, and then the two calls below are never made.
  virtual std::string machine_code_tag() const { return {}; }
  /// load_kernel, which also gives the machine code it loaded in *code (CUDA: the cubin of the driver's
  /// linker, cuLinkCreate/cuLinkAddData/cuLinkComplete).
  virtual std::shared_ptr<LoadedKernel> load_kernel_keeping_code(const CompileResult& result,
                                                                 const std::string& name, std::string* code) {
    return load_kernel(result, name);
  }
  /// Loads machine code that load_kernel_keeping_code gave on a device of the same tag (CUDA:
  /// cuModuleLoadData of the cubin); `result` (its PTX included) describes the kernel. Null when the
  /// device refuses the code, and the caller loads the PTX instead.
  virtual std::shared_ptr<LoadedKernel> load_kernel_code(const CompileResult& result, const std::string& code,
                                                         const std::string& name) {
    return nullptr;
  }
  /// Launches; `params` is cuLaunchKernel's kernelParams (one pointer per flattened parameter). `packed`, when
  /// not null, is the ParamBuffer `params` points into, laid out as the kernel's parameters, which a backend
  /// may pass whole instead. The config must have passed validate_launch() for this kernel.
  virtual void launch(const LoadedKernel& kernel, const LaunchConfig& config, void** params,
                      const ParamBuffer* packed) = 0;
  // Graphs (runtime/graph.h).
  /// Starts capturing the calling thread's work on `stream` into a graph; null: on a stream made for the
  /// capture. Either way the thread's work on the default stream is captured too. The caller owns the
  /// capture and hands it to end_capture() or abort_capture() on the same thread. Throws CaptureError if
  /// the thread already captures, or (this default) if the backend has no graphs.
  virtual std::unique_ptr<Capture> begin_capture(StreamHandle stream);
  /// Ends the capture and instantiates what it recorded. The capture has ended even when this throws.
  virtual std::unique_ptr<Graph> end_capture(Capture& capture);
  /// Ends the capture and drops what it recorded (after an error in the captured code); never throws.
  virtual void abort_capture(Capture& capture) noexcept;

  /// The most blocks of `block_threads` threads (and `dynamic_shared` bytes of dynamic shared memory each)
  /// that can be resident at once, which bounds the grid of a cooperative launch (numba's
  /// max_cooperative_grid_blocks): CUDA's occupancy per multiprocessor times the multiprocessors; on the host
  /// backend, the executor's limit on a cooperative grid.
  virtual uint64_t max_cooperative_grid_blocks(const LoadedKernel& kernel, uint32_t block_threads,
                                               uint32_t dynamic_shared) = 0;

  /// A program's own host<->device copy, called instead of every device's copy_to_device (`to_device`) and
  /// copy_to_host: numba's `driver.cuMemcpyHtoD`/`cuMemcpyDtoH` replaced by the program (python/src). It does
  /// the copy or throws; an empty hook goes back to the devices' own copies. Copies made while a hook runs on
  /// the thread, or under a TransferHookBypass, are the device's own (the hook may call the original copy).
  using TransferHook =
      std::function<void(bool to_device, uintptr_t dst, uintptr_t src, size_t bytes, StreamHandle stream)>;
  /// (Defined in runtime/runtime.cpp, so that the Python module and the core library share one hook.)
  static void set_transfer_hook(TransferHook hook);
  class TransferHookBypass {
   public:
    TransferHookBypass();
    ~TransferHookBypass();
    TransferHookBypass(const TransferHookBypass&) = delete;
    TransferHookBypass& operator=(const TransferHookBypass&) = delete;

   private:
    bool before_;
  };

 protected:
  /// Runs the transfer hook in place of the copy, if one is set and this thread is not in it: true if it ran.
  static bool run_transfer_hook(bool to_device, uintptr_t dst, uintptr_t src, size_t bytes, StreamHandle stream);

  DeviceProperties props_;

 private:
  CachingAllocator allocator_;
  std::shared_ptr<ExternalAllocator> external_;
};

/// A family of devices that run kernels the same way.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  /// "cuda" or "cpu".
  virtual const char* name() const = 0;
  /// Number of devices; throws NoDriverError when the backend cannot run here at all.
  virtual int device_count() = 0;
  /// The device with this ordinal, created on first use; throws std::out_of_range for a bad ordinal.
  virtual Device& device(int ordinal) = 0;
};

/// Checks a launch against the device's and the kernel's limits before any driver call; throws LaunchError
/// naming the kernel, the offending dimension and the limit.
void validate_launch(const LaunchConfig& config, const DeviceProperties& props, const LoadedKernel& kernel);

/// Checks a grid or block dimension tuple for zeros and the limits every CUDA device shares (1024 threads
/// per block, blocks of at most 1024 x 1024 x 64, grids of at most 2^31-1 x 65535 x 65535); `what` is
/// "grid" or "block". Throws LaunchError.
void validate_dims(const Dim3& dims, const char* what);

}  // namespace gpujit::rt
