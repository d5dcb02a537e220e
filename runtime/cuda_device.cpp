// CUDA devices, memory, streams, events, module loading and launch (see cuda_device.h).
#include "runtime/cuda_device.h"

#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "runtime/cuda_driver.h"
#include "runtime/kernel_args.h"
#include "codegen/device_error.h"
#include "runtime/graph.h"
#include "runtime/cuda_toolkit.h"
#include "runtime/kernel_link.h"
#include "runtime/runtime_error.h"

namespace gpujit::cuda {
namespace {

CUstream as_stream(rt::StreamHandle s) { return static_cast<CUstream>(s); }
CUevent as_event(rt::EventHandle e) { return static_cast<CUevent>(e); }

/// The stream that work of `device` addressed to `s` goes to: the capture stream when the calling thread
/// captures a graph of this device and `s` is the default stream (graph.h), else `s`.
CUstream routed(const rt::Device* device, rt::StreamHandle s) {
  rt::Capture* c = rt::active_capture();
  return as_stream(c && c->device == device ? c->route(s) : s);
}

/// While the calling thread captures, allocating or freeing device memory is "potentially unsafe" to CUDA
/// (it is not captured), and thread-local capture mode refuses it. gpujit's allocations are made when the
/// graph is captured and kept by the graph's arguments, as PyTorch's allocator does under capture: relax the
/// mode around them.
class RelaxedCaptureMode {
 public:
  explicit RelaxedCaptureMode(CudaDriver& driver) : driver_(driver) {
    if (!rt::active_capture()) return;
    mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
    active_ = driver_.cuThreadExchangeStreamCaptureMode(&mode_) == CUDA_SUCCESS;
  }
  ~RelaxedCaptureMode() {
    if (active_) driver_.cuThreadExchangeStreamCaptureMode(&mode_);
  }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  CudaDriver& driver_;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool active_ = false;
};

rt::DeviceProperties read_properties(CudaDriver& d, CUdevice dev, int ordinal) {
  rt::DeviceProperties p;
  p.ordinal = ordinal;
  char name[256] = {};
  GPUJIT_CU(d, cuDeviceGetName, name, sizeof(name) - 1, dev);
  p.name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    GPUJIT_CU(d, cuDeviceGetAttribute, &v, a, dev);
    return v;
  };
  p.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  p.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p.max_block_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  p.max_block_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  p.max_block_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  p.max_grid_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  p.max_grid_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  p.max_grid_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  p.max_shared_per_block = uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  p.max_shared_per_block_optin = uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  if (p.max_shared_per_block_optin < p.max_shared_per_block) p.max_shared_per_block_optin = p.max_shared_per_block;
  p.pci_bus_id = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  p.pci_domain_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  p.pci_device_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  size_t total = 0;
  GPUJIT_CU(d, cuDeviceTotalMem, &total, dev);
  p.total_memory = total;
  return p;
}

}  // namespace

std::string arch_for_compute_capability(int major, int minor) {
  // The architectures LLVM 22's NVPTX backend accepts, oldest first (llc -march=nvptx64 -mcpu=help).
  static constexpr int kKnown[] = {75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
  int cc = major * 10 + minor;
  int chosen = kKnown[0];
  for (int sm : kKnown) {
    if (sm <= cc) chosen = sm;
  }
  return fmt::format("sm_{}", chosen);
}

CudaDevice::CudaDevice(CudaDriver& driver, int ordinal) : rt::Device({}), driver_(driver) {
  GPUJIT_CU(driver_, cuDeviceGet, &device_, ordinal);
  props_ = read_properties(driver_, device_, ordinal);
  CUresult r = driver_.cuDevicePrimaryCtxRetain(&context_, device_);
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuDevicePrimaryCtxRetain",
                        fmt::format("creating the context of CUDA device {} ({})", ordinal, props_.name));
  }
}

// A CUDA context is current per thread, and a thread starts with none: every call that works in a context
// makes this device's current first (one cuCtxGetCurrent when it already is), so arrays, streams and copies
// work from any thread, as numba-cuda's do.
void CudaDevice::bind() {
  CudaDriver::check_not_forked();
  CUcontext current = nullptr;
  GPUJIT_CU(driver_, cuCtxGetCurrent, &current);
  if (current != context_) GPUJIT_CU(driver_, cuCtxSetCurrent, context_);
}

void CudaDevice::activate() {
  check_thread_context();
  bind();
}

void* CudaDevice::thread_context() {
  CUcontext current = nullptr;
  GPUJIT_CU(driver_, cuCtxGetCurrent, &current);
  return current;
}

void CudaDevice::set_thread_context(void* context) {
  GPUJIT_CU(driver_, cuCtxSetCurrent, static_cast<CUcontext>(context));
}

void CudaDevice::check_thread_context() {
  CUcontext current = nullptr;
  GPUJIT_CU(driver_, cuCtxGetCurrent, &current);
  if (current == nullptr || current == context_) return;
  // The current context's device. A context the driver no longer knows (destroyed by its owner) is no one's
  // to defend: gpujit binds its own over it, as before.
  CUdevice owner = 0;
  unsigned flags = 0;
  int active = 0;
  if (driver_.cuCtxGetDevice(&owner) != CUDA_SUCCESS ||
      driver_.cuDevicePrimaryCtxGetState(owner, &flags, &active) != CUDA_SUCCESS)
    return;
  if (active) {  // an active primary context: retaining it once more only reads its handle
    CUcontext primary = nullptr;
    GPUJIT_CU(driver_, cuDevicePrimaryCtxRetain, &primary, owner);
    GPUJIT_CU(driver_, cuDevicePrimaryCtxRelease, owner);
    if (current == primary) return;  // another device's primary context, or ours retained by someone else
  }
  throw std::runtime_error(fmt::format(
      "Numba cannot operate on non-primary CUDA context {:x}, and neither can gpujit: it works in each "
      "device's primary context (the one CuPy, PyTorch and numba share), and the context current on this "
      "thread was made by another library (cuCtxCreate); pop it (cuCtxPopCurrent) or make a device's primary "
      "context current before using gpujit on this thread",
      uintptr_t(current)));
}

rt::DevicePtr CudaDevice::allocate(size_t bytes) {
  if (bytes == 0) return 0;
  bind();
  RelaxedCaptureMode relaxed(driver_);
  CUdeviceptr ptr = 0;
  CUresult r = driver_.cuMemAlloc(&ptr, bytes);
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuMemAlloc", fmt::format("allocating {} bytes on {}", bytes, props_.name));
  }
  return ptr;
}

void CudaDevice::deallocate(rt::DevicePtr ptr) {
  if (!ptr || CudaDriver::forked()) return;  // a forked child's memory is its parent's
  bind();
  RelaxedCaptureMode relaxed(driver_);
  GPUJIT_CU(driver_, cuMemFree, ptr);
}

void* CudaDevice::allocate_pinned(size_t bytes) {
  void* ptr = nullptr;
  bind();
  // Mapped as well, so that the same buffer can back a mapped array (numba's mapped_array) with no copy.
  GPUJIT_CU(driver_, cuMemHostAlloc, &ptr, bytes == 0 ? 1 : bytes,
            CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  return ptr;
}

rt::DevicePtr CudaDevice::mapped_pointer(void* host) {
  CUdeviceptr ptr = 0;
  GPUJIT_CU(driver_, cuMemHostGetDevicePointer, &ptr, host, 0);
  return rt::DevicePtr(ptr);
}

void* CudaDevice::allocate_managed(size_t bytes, bool attach_global) {
  CUdeviceptr ptr = 0;
  bind();
  GPUJIT_CU(driver_, cuMemAllocManaged, &ptr, bytes == 0 ? 1 : bytes,
            attach_global ? CU_MEM_ATTACH_GLOBAL : CU_MEM_ATTACH_HOST);
  return reinterpret_cast<void*>(uintptr_t(ptr));
}

void CudaDevice::deallocate_managed(void* ptr) {
  if (!ptr || CudaDriver::forked()) return;
  bind();
  GPUJIT_CU(driver_, cuMemFree, CUdeviceptr(uintptr_t(ptr)));
}

void CudaDevice::deallocate_pinned(void* ptr) {
  if (!ptr || CudaDriver::forked()) return;
  bind();
  GPUJIT_CU(driver_, cuMemFreeHost, ptr);
}

rt::DevicePtr CudaDevice::register_host(void* host, size_t bytes, bool mapped) {
  bind();
  unsigned flags = CU_MEMHOSTREGISTER_PORTABLE | (mapped ? CU_MEMHOSTREGISTER_DEVICEMAP : 0);
  CUresult r = driver_.cuMemHostRegister(host, bytes, flags);
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuMemHostRegister",
                        fmt::format("page-locking {} bytes of host memory at {}{}", bytes, host,
                                    mapped ? " and mapping them into " + props_.name : std::string()));
  }
  if (!mapped) return 0;
  CUdeviceptr ptr = 0;
  r = driver_.cuMemHostGetDevicePointer(&ptr, host, 0);
  if (r != CUDA_SUCCESS) {
    driver_.cuMemHostUnregister(host);  // not left registered by a failed call
    driver_.throw_error(r, "cuMemHostGetDevicePointer", "reading the device address of registered host memory");
  }
  return rt::DevicePtr(ptr);
}

void CudaDevice::unregister_host(void* host) {
  if (CudaDriver::forked()) return;
  bind();
  GPUJIT_CU(driver_, cuMemHostUnregister, host);
}

std::pair<rt::DevicePtr, size_t> CudaDevice::address_range(rt::DevicePtr ptr) {
  bind();
  CUdeviceptr start = 0;
  size_t size = 0;
  CUresult r = driver_.cuMemGetAddressRange(&start, &size, CUdeviceptr(ptr));
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuMemGetAddressRange",
                        fmt::format("finding the allocation of {} that holds address 0x{:x}", props_.name, ptr));
  }
  return {rt::DevicePtr(start), size};
}

rt::IpcMemHandle CudaDevice::ipc_handle(rt::DevicePtr ptr, rt::DevicePtr* base, size_t* bytes) {
  auto [start, size] = address_range(ptr);
  CUipcMemHandle handle{};
  CUresult r = driver_.cuIpcGetMemHandle(&handle, CUdeviceptr(start));
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuIpcGetMemHandle",
                        fmt::format("making an IPC handle for the {} bytes at 0x{:x} on {}", size, start, props_.name));
  }
  rt::IpcMemHandle out;
  static_assert(sizeof(out.bytes) == sizeof(handle.reserved), "CUDA's IPC handles are 64 bytes");
  std::memcpy(out.bytes, handle.reserved, sizeof(out.bytes));
  if (base) *base = rt::DevicePtr(start);
  if (bytes) *bytes = size;
  return out;
}

rt::DevicePtr CudaDevice::open_ipc_handle(const rt::IpcMemHandle& handle) {
  bind();
  CUipcMemHandle h;
  std::memcpy(h.reserved, handle.bytes, sizeof(h.reserved));
  CUdeviceptr ptr = 0;
  CUresult r = driver_.cuIpcOpenMemHandle(&ptr, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuIpcOpenMemHandle",
                        fmt::format("opening an IPC handle on {} (a handle opens only in a process other than "
                                    "the one that made it, and only while that process keeps the memory)",
                                    props_.name));
  }
  return rt::DevicePtr(ptr);
}

void CudaDevice::close_ipc_handle(rt::DevicePtr base) {
  if (CudaDriver::forked()) return;
  bind();
  GPUJIT_CU(driver_, cuIpcCloseMemHandle, CUdeviceptr(base));
}

void CudaDevice::set_profiling(bool on) {
  bind();
  if (on) {
    GPUJIT_CU(driver_, cuProfilerStart);
  } else {
    GPUJIT_CU(driver_, cuProfilerStop);
  }
}

void CudaDevice::copy_to_device(rt::DevicePtr dst, const void* src, size_t bytes, rt::StreamHandle stream) {
  if (!bytes || run_transfer_hook(true, dst, reinterpret_cast<uintptr_t>(src), bytes, stream)) return;
  bind();
  CUresult r = driver_.cuMemcpyHtoDAsync(dst, src, bytes, routed(this, stream));
  if (r != CUDA_SUCCESS)
    driver_.throw_error(r, "cuMemcpyHtoDAsync",
                        fmt::format("copying {} bytes from the host to {}", bytes, props_.name));
}

void CudaDevice::copy_to_host(void* dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) {
  if (!bytes || run_transfer_hook(false, reinterpret_cast<uintptr_t>(dst), src, bytes, stream)) return;
  bind();
  CUresult r = driver_.cuMemcpyDtoHAsync(dst, src, bytes, routed(this, stream));
  if (r != CUDA_SUCCESS)
    driver_.throw_error(r, "cuMemcpyDtoHAsync",
                        fmt::format("copying {} bytes from {} to the host", bytes, props_.name));
}

void CudaDevice::copy_on_device(rt::DevicePtr dst, rt::DevicePtr src, size_t bytes, rt::StreamHandle stream) {
  if (!bytes) return;
  bind();
  CUresult r = driver_.cuMemcpyDtoDAsync(dst, src, bytes, routed(this, stream));
  if (r != CUDA_SUCCESS)
    driver_.throw_error(r, "cuMemcpyDtoDAsync",
                        fmt::format("copying {} bytes within {}", bytes, props_.name));
}

void CudaDevice::fill_bytes(rt::DevicePtr dst, uint8_t value, size_t bytes, rt::StreamHandle stream) {
  if (!bytes) return;
  bind();
  GPUJIT_CU(driver_, cuMemsetD8Async, dst, value, bytes, routed(this, stream));
}

// Between two CUDA devices the driver copies directly (over NVLink or PCIe where peer access is possible) or
// stages through the host itself; gpujit never needs peer access enabled for it. On the default stream the
// synchronous cuMemcpyPeer is used: it is ordered after all work on both devices, as a default-stream copy
// within one device is; an explicit stream gets cuMemcpyPeerAsync, ordered in that stream only.
void CudaDevice::copy_from_device(rt::DevicePtr dst, rt::Device& from, rt::DevicePtr src, size_t bytes,
                                  rt::StreamHandle stream) {
  if (!bytes) return;
  if (&from == this) return copy_on_device(dst, src, bytes, stream);
  if (from.backend() != rt::BackendKind::Cuda) return rt::Device::copy_from_device(dst, from, src, bytes, stream);
  CUcontext source = static_cast<CudaDevice&>(from).context_;
  bind();
  if (stream) {
    GPUJIT_CU(driver_, cuMemcpyPeerAsync, dst, context_, src, source, bytes, as_stream(stream));
  } else {
    GPUJIT_CU(driver_, cuMemcpyPeer, dst, context_, src, source, bytes);
  }
}

bool CudaDevice::can_access_peer(const rt::Device& peer) const {
  if (&peer == this) return true;
  if (peer.backend() != rt::BackendKind::Cuda) return false;
  int can = 0;
  GPUJIT_CU(driver_, cuDeviceCanAccessPeer, &can, device_, static_cast<const CudaDevice&>(peer).device_);
  return can != 0;
}

std::pair<size_t, size_t> CudaDevice::memory_info() {
  size_t free = 0, total = 0;
  bind();
  GPUJIT_CU(driver_, cuMemGetInfo, &free, &total);
  return {free, total};
}

rt::StreamHandle CudaDevice::create_stream() {
  CUstream s = nullptr;
  bind();
  CUresult r = driver_.cuStreamCreate(&s, CU_STREAM_DEFAULT);
  if (r != CUDA_SUCCESS)
    driver_.throw_error(r, "cuStreamCreate", fmt::format("creating a stream on {}", props_.name));
  return s;
}

void CudaDevice::destroy_stream(rt::StreamHandle stream) {
  if (stream && !CudaDriver::forked()) GPUJIT_CU(driver_, cuStreamDestroy, as_stream(stream));
}

void CudaDevice::synchronize_stream(rt::StreamHandle stream) {
  rt::check_not_capturing(this, stream, false, "synchronizing a captured stream");
  GPUJIT_CU(driver_, cuStreamSynchronize, as_stream(stream));
}

bool CudaDevice::query_stream(rt::StreamHandle stream) {
  rt::check_not_capturing(this, stream, false, "querying a captured stream");
  CUresult r = driver_.cuStreamQuery(as_stream(stream));
  if (r == CUDA_ERROR_NOT_READY) return false;
  driver_.check(r, "cuStreamQuery");
  return true;
}

rt::EventHandle CudaDevice::create_event(bool timing) {
  CUevent e = nullptr;
  bind();
  GPUJIT_CU(driver_, cuEventCreate, &e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
  return e;
}

void CudaDevice::destroy_event(rt::EventHandle event) {
  if (event && !CudaDriver::forked()) GPUJIT_CU(driver_, cuEventDestroy, as_event(event));
}

void CudaDevice::record_event(rt::EventHandle event, rt::StreamHandle stream) {
  bind();  // a default stream is the current context's: this device's
  GPUJIT_CU(driver_, cuEventRecord, as_event(event), routed(this, stream));
}

void CudaDevice::synchronize_event(rt::EventHandle event) {
  GPUJIT_CU(driver_, cuEventSynchronize, as_event(event));
}

bool CudaDevice::query_event(rt::EventHandle event) {
  CUresult r = driver_.cuEventQuery(as_event(event));
  if (r == CUDA_ERROR_NOT_READY) return false;
  driver_.check(r, "cuEventQuery");
  return true;
}

void CudaDevice::stream_wait_event(rt::StreamHandle stream, rt::EventHandle event) {
  bind();
  GPUJIT_CU(driver_, cuStreamWaitEvent, routed(this, stream), as_event(event), 0);
}

float CudaDevice::elapsed_ms(rt::EventHandle start, rt::EventHandle end) {
  float ms = 0;
  GPUJIT_CU(driver_, cuEventElapsedTime, &ms, as_event(start), as_event(end));
  return ms;
}

void CudaDevice::synchronize() {
  rt::check_not_capturing(this, nullptr, true, "synchronizing the device");
  bind();  // cuCtxSynchronize waits for the calling thread's current context: make it this device's
  CUresult r = driver_.cuCtxSynchronize();
  if (r != CUDA_SUCCESS)
    driver_.throw_error(r, "cuCtxSynchronize", fmt::format("synchronizing {}", props_.name));
}

void CudaDevice::configure_compile(CompileOptions& options) const {
  options.arch = arch_for_compute_capability(props_.cc_major, props_.cc_minor);
}

void CudaDevice::throw_load_error(CUresult r, const char* function, const std::string& name, const char* log) {
  // The JIT's log says which PTX line it rejected; without it the error is hard to act on.
  driver_.throw_error(r, function,
                      fmt::format("loading kernel '{}' for {}{}{}", name, props_.name, log[0] ? ": " : "", log));
}

void CudaDevice::finish_load(CudaKernel& kernel, const CompileResult& result) {
  try {
    GPUJIT_CU(driver_, cuModuleGetFunction, &kernel.function, kernel.module, result.entry_name.c_str());
    int value = 0;
    GPUJIT_CU(driver_, cuFuncGetAttribute, &value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel.function);
    kernel.max_threads_per_block = value;
    GPUJIT_CU(driver_, cuFuncGetAttribute, &value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel.function);
    kernel.static_shared_bytes = uint32_t(value);
    kernel.cooperative = result.uses_grid_sync;
    // The driver copies kernelParams one parameter at a time and a buffer at once: 0.77 us less per launch
    // of 256 doubles on an H100, 0.16 us for 48 8-byte parameters (benchmarks/launch_param_forms.cpp). A
    // cooperative launch takes kernelParams only.
    std::vector<unsigned> sizes;
    for (const ParamLayout& p : result.params) rt::append_param_sizes(p.type, &sizes);
    size_t end = 0;
    for (unsigned size : sizes) end = ((end + size - 1) & ~size_t(size - 1)) + size;
    kernel.param_bytes = kernel.cooperative ? 0 : end;
    kernel.packed_param_bytes = kernel.param_bytes;  // launch() takes such a buffer through `extra` alone
    if (result.ptx.find(kDeviceErrorSymbol) != std::string::npos) {
      size_t bytes = 0;
      GPUJIT_CU(driver_, cuModuleGetGlobal, &kernel.error_record, &bytes, kernel.module, kDeviceErrorSymbol);
    }
  } catch (const rt::DriverError& e) {
    throw e.with_context(fmt::format("loading kernel '{}' for {}", kernel.name, props_.name));
  }
}

CudaKernel::~CudaKernel() {
  CudaDriver& driver = device.driver();
  driver.forget_kernel(this);
  if (!module && !library) return;
  try {
    device.bind_context();
    if (library) {
      driver.cuLibraryUnload(library);
    } else {
      driver.cuModuleUnload(module);
    }
  } catch (const std::exception&) {
  }
}

std::shared_ptr<rt::LoadedKernel> CudaDevice::load_kernel(const CompileResult& result, const std::string& name) {
  bind();
  // Owns the module from here on: a failure below unloads it with the kernel.
  auto kernel = std::make_shared<CudaKernel>(*this);
  kernel->name = name;
  if (result.needs_link()) {  // external code (declare_device, link=): linked into a cubin first
    std::string cubin = link_external(result, name, &kernel->lto_fallback);
    return load_linked(std::move(kernel), result, cubin);
  }
  char error_log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(uintptr_t(sizeof(error_log) - 1))};
  CUresult r = driver_.cuModuleLoadDataEx(&kernel->module, result.ptx.c_str(), 2, options, values);
  if (r != CUDA_SUCCESS) {
    kernel->module = nullptr;
    throw_load_error(r, "cuModuleLoadData", name, error_log);
  }
  finish_load(*kernel, result);
  return kernel;
}

std::string CudaDevice::link_external(const CompileResult& result, const std::string& name,
                                      std::string* lto_fallback) {
  std::string arch = fmt::format("sm_{}{}", props_.cc_major, props_.cc_minor);
  if (rt::nvjitlink_available()) return rt::link_kernel(result, arch, lto_fallback);
  // Without nvJitLink, the driver's own linker (cuLink*): CUDA C compiled to a cubin by NVRTC first, and no
  // LTO-IR, which only nvJitLink links.
  bind();
  char error_log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(uintptr_t(sizeof(error_log) - 1))};
  CUlinkState link = nullptr;
  CUresult r = driver_.cuLinkCreate(2, options, values, &link);
  if (r != CUDA_SUCCESS) throw_load_error(r, "cuLinkCreate", name, error_log);
  struct Destroy {
    CudaDriver& d;
    CUlinkState s;
    ~Destroy() { d.cuLinkDestroy(s); }
  } destroy{driver_, link};
  auto add = [&](CUjitInputType type, const std::string& data, const std::string& input_name) {
    // PTX is read as text up to its NUL; the others by their size.
    std::string bytes = type == CU_JIT_INPUT_PTX ? std::string(data.c_str()) + '\0' : data;
    CUresult added = driver_.cuLinkAddData(link, type, bytes.data(), bytes.size(), input_name.c_str(), 0, nullptr,
                                           nullptr);
    if (added != CUDA_SUCCESS) throw_load_error(added, "cuLinkAddData", name + " (" + input_name + ")", error_log);
  };
  add(CU_JIT_INPUT_PTX, result.ptx, name);
  for (const LinkFile& f : result.link) {
    if (f.kind == "cu") {
      rt::CudaCProgram program;
      program.source = f.data;
      program.name = f.name;
      program.options = f.options;
      program.options.push_back("-rdc=true");
      add(CU_JIT_INPUT_CUBIN, rt::compile_cuda_c(program, arch, rt::CudaCOutput::cubin).code, f.name);
    } else if (f.kind == "ltoir") {
      std::string why;
      try {
        rt::nvjitlink_library();
      } catch (const rt::ToolkitMissingError& e) {
        why = e.what();
      }
      throw rt::ToolkitMissingError("linking LTO-IR ('" + f.name + "', kernel '" + name + "') needs nvJitLink: " + why);
    } else {
      static const std::map<std::string, CUjitInputType> kinds = {{"ptx", CU_JIT_INPUT_PTX},
                                                                  {"cubin", CU_JIT_INPUT_CUBIN},
                                                                  {"fatbin", CU_JIT_INPUT_FATBINARY},
                                                                  {"object", CU_JIT_INPUT_OBJECT},
                                                                  {"library", CU_JIT_INPUT_LIBRARY}};
      auto kind = kinds.find(f.kind);
      if (kind == kinds.end()) throw std::invalid_argument("unknown link input kind '" + f.kind + "'");
      add(kind->second, f.data, f.name);
    }
  }
  void* cubin = nullptr;
  size_t size = 0;
  r = driver_.cuLinkComplete(link, &cubin, &size);
  if (r != CUDA_SUCCESS) throw_load_error(r, "cuLinkComplete", name, error_log);
  return std::string(static_cast<const char*>(cubin), size);  // the link state owns it: a copy
}

std::shared_ptr<rt::LoadedKernel> CudaDevice::load_linked(std::shared_ptr<CudaKernel> kernel,
                                                          const CompileResult& result, const std::string& cubin) {
  if (driver_.cuLibraryLoadData) {
    // As a library, as numba-cuda loads every kernel: the handle module callbacks get is a CUlibrary.
    CUresult r = driver_.cuLibraryLoadData(&kernel->library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (r != CUDA_SUCCESS) {
      kernel->library = nullptr;
      throw_load_error(r, "cuLibraryLoadData", kernel->name, "");
    }
    r = driver_.cuLibraryGetModule(&kernel->module, kernel->library);
    if (r != CUDA_SUCCESS) {
      kernel->module = nullptr;
      throw_load_error(r, "cuLibraryGetModule", kernel->name, "");
    }
    finish_load(*kernel, result);
    return kernel;
  }
  CUresult r = driver_.cuModuleLoadData(&kernel->module, cubin.data());
  if (r != CUDA_SUCCESS) {
    kernel->module = nullptr;
    throw_load_error(r, "cuModuleLoadData", kernel->name, "");
  }
  finish_load(*kernel, result);
  return kernel;
}

std::string CudaDevice::machine_code_tag() const {
  // The cubin is the driver's translation of the PTX for this exact device: another driver (another
  // ptxas inside it) or another compute capability needs its own.
  return fmt::format("cuda{}.sm_{}{}", driver_.version(), props_.cc_major, props_.cc_minor);
}

std::shared_ptr<rt::LoadedKernel> CudaDevice::load_kernel_keeping_code(const CompileResult& result,
                                                                       const std::string& name, std::string* code) {
  bind();
  if (result.needs_link()) {
    auto kernel = std::make_shared<CudaKernel>(*this);
    kernel->name = name;
    *code = link_external(result, name, &kernel->lto_fallback);
    return load_linked(std::move(kernel), result, *code);
  }
  char error_log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(uintptr_t(sizeof(error_log) - 1))};
  CUlinkState link = nullptr;
  CUresult r = driver_.cuLinkCreate(2, options, values, &link);
  if (r != CUDA_SUCCESS) throw_load_error(r, "cuLinkCreate", name, error_log);
  struct Destroy {
    CudaDriver& d;
    CUlinkState s;
    ~Destroy() { d.cuLinkDestroy(s); }
  } destroy{driver_, link};
  // The size counts the terminating NUL, as the driver's PTX reader expects.
  r = driver_.cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(result.ptx.c_str()), result.ptx.size() + 1,
                            name.c_str(), 0, nullptr, nullptr);
  if (r != CUDA_SUCCESS) throw_load_error(r, "cuLinkAddData", name, error_log);
  void* cubin = nullptr;
  size_t size = 0;
  r = driver_.cuLinkComplete(link, &cubin, &size);
  if (r != CUDA_SUCCESS) throw_load_error(r, "cuLinkComplete", name, error_log);
  // The cubin belongs to the link state, which is destroyed on return: keep a copy.
  code->assign(static_cast<const char*>(cubin), size);
  auto kernel = std::make_shared<CudaKernel>(*this);  // owns the module: a failure below unloads it
  kernel->name = name;
  r = driver_.cuModuleLoadData(&kernel->module, code->data());
  if (r != CUDA_SUCCESS) {
    kernel->module = nullptr;
    throw_load_error(r, "cuModuleLoadData", name, "");
  }
  finish_load(*kernel, result);
  return kernel;
}

std::shared_ptr<rt::LoadedKernel> CudaDevice::load_kernel_code(const CompileResult& result, const std::string& code,
                                                               const std::string& name) {
  bind();
  auto kernel = std::make_shared<CudaKernel>(*this);
  kernel->name = name;
  // A cubin this driver refuses (CUDA_ERROR_INVALID_IMAGE, NO_BINARY_FOR_GPU...) is the caller's cue to load
  // the PTX instead; the tag should have kept such a file away, so this is a rare path.
  if (driver_.cuModuleLoadData(&kernel->module, code.data()) != CUDA_SUCCESS) {
    kernel->module = nullptr;
    return nullptr;
  }
  finish_load(*kernel, result);
  return kernel;
}

namespace {

/// After the launch of a kernel with an error record (bounds checks, raise): waits for it, as numba-cuda waits
/// for a debug kernel, and throws what its first failing thread recorded (codegen/device_error.h), clearing
/// the record for the next launch.
void raise_recorded_error(CudaDriver& driver, const CudaKernel& k, CUstream stream) {
  uint64_t record[kErrSlots] = {};
  GPUJIT_CU(driver, cuMemcpyDtoHAsync, record, k.error_record, sizeof(record), stream);
  GPUJIT_CU(driver, cuStreamSynchronize, stream);
  if (record[kErrFlag] == 0) return;
  std::string where(size_t(record[kErrTextLen]), '\0');
  if (!where.empty()) {
    GPUJIT_CU(driver, cuMemcpyDtoHAsync, where.data(), CUdeviceptr(record[kErrText]), where.size(), stream);
  }
  GPUJIT_CU(driver, cuMemsetD8Async, k.error_record, 0, sizeof(record), stream);
  GPUJIT_CU(driver, cuStreamSynchronize, stream);
  if (record[kErrKind] == kErrRaise) {
    throw rt::KernelRaise(fmt::format("{}\ntid=[{}, {}, {}] ctaid=[{}, {}, {}]", where, record[kErrThread],
                                      record[kErrThread + 1], record[kErrThread + 2], record[kErrBlock],
                                      record[kErrBlock + 1], record[kErrBlock + 2]));
  }
  throw rt::KernelIndexError(index_error_message(record[kErrKind] == kErrTupleIndex, int64_t(record[kErrIndex]),
                                                 int64_t(record[kErrExtent]), record[kErrAxis], where,
                                                 &record[kErrThread], &record[kErrBlock]));
}

/// What a failed launch was doing, for its error.
[[noreturn]] void throw_launch_error(CudaDriver& driver, CUresult r, const char* function,
                                     const CudaKernel& k, const rt::LaunchConfig& c) {
  driver.throw_error(
      r, function,
      fmt::format("launching kernel '{}' with grid ({}, {}, {}), block ({}, {}, {}) and {} bytes of "
                  "dynamic shared memory",
                  k.name, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, c.shared_bytes));
}

}  // namespace

void CudaDevice::launch(const rt::LoadedKernel& kernel, const rt::LaunchConfig& config, void** params,
                        const rt::ParamBuffer* packed) {
  auto& k = static_cast<const CudaKernel&>(kernel);
  CUstream stream = as_stream(config.stream);
  rt::Capture* c = rt::capture_of(this, config.stream);
  if (c) {
    if (k.error_record) {
      throw rt::CaptureError(fmt::format(
          "kernel '{}' cannot be captured into a graph: it checks bounds or raises (debug=True, or a raise "
          "statement), and such a launch waits for the kernel to read its error record back, which a graph "
          "cannot do; capture it compiled without debug and raise",
          k.name));
    }
    stream = as_stream(c->route(config.stream));
  }
  // The thread's current context may be another device's since this one was selected: a copy of another
  // device's array binds that device's (and so may another library). The kernel's module lives here.
  bind();
  if (config.shared_bytes > k.shared_optin &&
      config.shared_bytes + k.static_shared_bytes > props_.max_shared_per_block) {
    // More than 48 KiB of shared memory needs the kernel's opt-in, once per size increase.
    CUresult r = driver_.cuFuncSetAttribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            int(config.shared_bytes));
    if (r != CUDA_SUCCESS) throw_launch_error(driver_, r, "cuFuncSetAttribute", k, config);
    k.shared_optin = config.shared_bytes;
  }
  if (k.cooperative) {
    // cg.this_grid().sync() needs every block resident; the driver refuses a grid too large for that
    // (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) instead of letting it hang.
    CUresult r = driver_.cuLaunchCooperativeKernel(k.function, config.grid.x, config.grid.y, config.grid.z,
                                                   config.block.x, config.block.y, config.block.z,
                                                   config.shared_bytes, stream, params);
    if (r != CUDA_SUCCESS) throw_launch_error(driver_, r, "cuLaunchCooperativeKernel", k, config);
  } else if (packed && k.param_bytes && packed->size_bytes() == k.param_bytes) {
    size_t bytes = k.param_bytes;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<void*>(packed->data()), CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &bytes, CU_LAUNCH_PARAM_END};
    CUresult r = driver_.cuLaunchKernel(k.function, config.grid.x, config.grid.y, config.grid.z,
                                        config.block.x, config.block.y, config.block.z, config.shared_bytes,
                                        stream, nullptr, extra);
    if (r != CUDA_SUCCESS) throw_launch_error(driver_, r, "cuLaunchKernel", k, config);
  } else {
    CUresult r = driver_.cuLaunchKernel(k.function, config.grid.x, config.grid.y, config.grid.z,
                                        config.block.x, config.block.y, config.block.z, config.shared_bytes,
                                        stream, params, nullptr);
    if (r != CUDA_SUCCESS) throw_launch_error(driver_, r, "cuLaunchKernel", k, config);
  }
  driver_.note_launch(&k, k.name);
  if (c) {
    ++c->kernels;
    return;
  }
  // A kernel with checks or a raise is synchronous, as numba-cuda's debug kernels are: its errors raise here.
  if (k.error_record) raise_recorded_error(driver_, k, as_stream(config.stream));
}

uint64_t CudaDevice::max_cooperative_grid_blocks(const rt::LoadedKernel& kernel, uint32_t block_threads,
                                                 uint32_t dynamic_shared) {
  auto& k = static_cast<const CudaKernel&>(kernel);
  bind();
  int per_sm = 0;
  GPUJIT_CU(driver_, cuOccupancyMaxActiveBlocksPerMultiprocessor, &per_sm, k.function, int(block_threads),
            size_t(dynamic_shared));
  return uint64_t(per_sm) * uint64_t(props_.multiprocessors);
}

// ---------------------------------------------------------------------------------------------------------
// Graphs: stream capture in thread-local mode (runtime/graph.h).

namespace {

struct CudaCapture final : rt::Capture {};

class CudaGraph final : public rt::Graph {
 public:
  CudaGraph(CudaDevice& device, CUgraphExec exec, size_t kernels, size_t nodes)
      : rt::Graph(device, kernels, nodes), cuda_(device), exec_(exec) {}
  /// Frees the executable graph; a failure is ignored, as a destructor cannot report it.
  ~CudaGraph() override {
    try {
      cuda_.bind_context();
      cuda_.driver().cuGraphExecDestroy(exec_);
    } catch (const std::exception&) {
    }
  }

  void launch(rt::StreamHandle stream) override {
    CudaDriver& d = cuda_.driver();
    // A replay inside another capture is captured as well (a child graph node).
    if (rt::Capture* c = rt::capture_of(&cuda_, stream)) {
      stream = c->route(stream);
      c->kernels += kernel_count();
    }
    cuda_.bind_context();
    CUresult r = d.cuGraphLaunch(exec_, as_stream(stream));
    if (r != CUDA_SUCCESS) {
      d.throw_error(r, "cuGraphLaunch",
                    fmt::format("launching a graph of {} kernels on {}", kernel_count(), cuda_.properties().name));
    }
  }

 private:
  CudaDevice& cuda_;
  CUgraphExec exec_;
};

/// Ends the capture of `c` on the driver's side, giving its graph (null if none), and destroys a stream
/// made for it. Never throws; returns the driver's result of cuStreamEndCapture.
CUresult finish_capture(CudaDriver& d, CudaCapture& c, CUgraph* graph) {
  rt::set_thread_capture(nullptr);
  *graph = nullptr;
  CUresult r = d.cuStreamEndCapture(as_stream(c.stream), graph);
  if (r != CUDA_SUCCESS) {
    // Most failures end the capture (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED does); where one did not, a
    // second call ends it, so that the stream is usable again. Where it had ended, this one fails harmlessly.
    CUgraph again = nullptr;
    if (d.cuStreamEndCapture(as_stream(c.stream), &again) == CUDA_SUCCESS && again) d.cuGraphDestroy(again);
  }
  c.own_stream.reset();
  c.stream = nullptr;
  return r;
}

}  // namespace

std::unique_ptr<rt::Capture> CudaDevice::begin_capture(rt::StreamHandle stream) {
  rt::require_no_capture();
  bind();
  auto c = std::make_unique<CudaCapture>();
  c->device = this;
  if (!stream) {
    // CUDA cannot capture the legacy default stream: the capture gets a stream of its own, non-blocking so
    // that the thread's work on other streams and the legacy one (which is not captured) does not join it.
    CUstream s = nullptr;
    CUresult r = driver_.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS)
      driver_.throw_error(r, "cuStreamCreate", fmt::format("creating the capture stream of a graph on {}", props_.name));
    c->own_stream = rt::Stream::adopt(*this, s);
    stream = s;
  }
  c->stream = stream;
  CUresult r = driver_.cuStreamBeginCapture(as_stream(stream), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuStreamBeginCapture", fmt::format("starting the capture of a graph on {}", props_.name));
  }
  rt::set_thread_capture(c.get());
  return c;
}

std::unique_ptr<rt::Graph> CudaDevice::end_capture(rt::Capture& capture) {
  auto& c = static_cast<CudaCapture&>(capture);
  bind();
  size_t kernels = c.kernels;
  CUgraph graph = nullptr;
  CUresult r = finish_capture(driver_, c, &graph);
  if (r != CUDA_SUCCESS) {
    if (graph) driver_.cuGraphDestroy(graph);
    driver_.throw_error(r, "cuStreamEndCapture", fmt::format("ending the capture of a graph on {}", props_.name));
  }
  // The executable graph is independent of the graph it was made from, which is freed here.
  struct DestroyGraph {
    CudaDriver& d;
    CUgraph g;
    ~DestroyGraph() { d.cuGraphDestroy(g); }
  } destroy{driver_, graph};
  size_t nodes = 0;
  GPUJIT_CU(driver_, cuGraphGetNodes, graph, nullptr, &nodes);
  CUgraphExec exec = nullptr;
  r = driver_.cuGraphInstantiate(&exec, graph, 0);
  if (r != CUDA_SUCCESS) {
    driver_.throw_error(r, "cuGraphInstantiate",
                        fmt::format("instantiating a graph of {} kernels ({} nodes) on {}", kernels, nodes, props_.name));
  }
  return std::make_unique<CudaGraph>(*this, exec, kernels, nodes);
}

void CudaDevice::abort_capture(rt::Capture& capture) noexcept {
  try {
    bind();
  } catch (const std::exception&) {
  }
  CUgraph graph = nullptr;
  finish_capture(driver_, static_cast<CudaCapture&>(capture), &graph);
  if (graph) driver_.cuGraphDestroy(graph);
}

int CudaBackend::device_count() {
  CudaDriver& d = CudaDriver::get();
  int count = 0;
  GPUJIT_CU(d, cuDeviceGetCount, &count);
  return count;
}

rt::Device& CudaBackend::device(int ordinal) {
  std::lock_guard<std::mutex> lock(mutex_);
  CudaDriver& d = CudaDriver::get();
  if (devices_.empty()) {
    int count = 0;
    GPUJIT_CU(d, cuDeviceGetCount, &count);
    devices_.resize(size_t(count));
  }
  if (ordinal < 0 || size_t(ordinal) >= devices_.size()) {
    throw std::out_of_range(fmt::format("no CUDA device {}: there are {}", ordinal, devices_.size()));
  }
  auto& slot = devices_[size_t(ordinal)];
  if (!slot) slot = std::make_unique<CudaDevice>(d, ordinal);
  return *slot;
}

}  // namespace gpujit::cuda
