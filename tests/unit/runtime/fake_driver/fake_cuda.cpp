// A fake CUDA driver for tests on machines without a GPU (libfakecuda.so, loaded via GPUJIT_CUDA_DRIVER).
//
// It implements every entry point of GPUJIT_CUDA_FUNCTIONS (runtime/cuda_api.h) with host memory: device
// pointers are malloc'ed host addresses, copies are memcpy, streams and events are tokens, and a launch runs
// nothing but records what it was given. cuModuleLoadDataEx reads the PTX's `.entry` declarations to learn
// each kernel's parameter sizes, so cuLaunchKernel copies exactly the bytes a real driver would read; tests
// then check packing, caching and error paths through the `fakecuda_*` functions below (called with ctypes
// from Python, or directly from C++).
//
// Several devices (FAKECUDA_DEVICES=2) behave as a real multi-GPU machine does where gpujit could get them
// wrong: each device has its own primary context, and memory, streams, events and modules belong to the
// context that was current when they were made. A launch fails unless the calling thread's current context
// is the one its module was loaded in, and its stream (and an event's stream) must be of that context too;
// cuMemcpyPeer checks that each pointer lies in memory of the context named for it. fakecuda_launches_on and
// fakecuda_pointer_device tell tests which device a launch or an allocation went to.
//
// Fault injection: any entry point can be made to fail on demand, as a real driver fails.
// - fakecuda_fail_times(function, code, after, times): `function` ("*" for every entry point) lets `after`
//   calls through, then returns `code` on the next `times` calls (-1: on every later call).
// - fakecuda_fail_async(code, sticky): the next launch succeeds, but the next synchronizing call after it
//   (a synchronize, a query, a copy to the host, the next launch) returns `code`, as an error inside a
//   kernel surfaces on a GPU. With `sticky`, every call after that returns it too, as CUDA's sticky errors
//   (CUDA_ERROR_ILLEGAL_ADDRESS, ..._LAUNCH_FAILED) leave the context unusable.
// - fakecuda_sticky(code): every call from now on returns `code` (a device that disappeared).
// - fakecuda_reset_faults() clears all of them. cuGetErrorName/String, cuDriverGetVersion and
//   cuCtxGetCurrent/SetCurrent never fail this way (the real ones do not report sticky errors either).
// - FAKECUDA_FAIL="function:code[:after[:times]],..." plants faults from the environment before the first
//   call, for failures in cuInit and context creation that a test must see in a fresh process.
// fakecuda_live(kind) counts live allocations, pinned buffers, streams, events and modules, so a test can
// assert that a failure leaked nothing.
//
// Configuration by environment: FAKECUDA_DEVICES (device count, default 1), FAKECUDA_CC ("9.0"),
// FAKECUDA_MAX_THREADS (each kernel's max threads per block, default 1024), FAKECUDA_DRIVER_VERSION
// (cuDriverGetVersion, default 13000), FAKECUDA_PEER_ACCESS (what cuDeviceCanAccessPeer says for two
// distinct devices, default 1).
//
// Stream capture (cuStreamBeginCapture_v2 ... cuStreamEndCapture) records what is enqueued on a capturing
// stream instead of doing it: a launch is kept with a copy of its parameter bytes, a copy or memset with its
// addresses. cuGraphInstantiateWithFlags makes an executable graph of those nodes, and cuGraphLaunch replays
// them on its stream, each launch recorded as a launch (fakecuda_launch_count, fakecuda_last_launch), each
// copy done. As in CUDA, the legacy default stream cannot be captured (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
// and synchronizing or querying a capturing stream (or the context) fails with that error and invalidates the
// capture, whose cuStreamEndCapture then fails with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and ends it.
// fakecuda_live("graphs"), ("graph_execs") and ("captures") count them.
//
// The linker (cuLinkCreate/cuLinkAddData/cuLinkComplete) makes a fake cubin: "FAKECUBIN <version> <cc>\n"
// and the PTX it was given; cuModuleLoadData takes such a cubin (refusing one made for another compute
// capability, as a real driver refuses a cubin of another architecture) or PTX.
//
// This file has the entry points above; fake_sharing.cpp those for host-memory registration, IPC, address
// ranges and the profiler (its comment says where they differ from a real driver), fake_introspection.cpp the
// fakecuda_* functions, and fake_state.h the state, fault injection and entry macros the three share.
#include <algorithm>
#include <regex>

#include "tests/unit/runtime/fake_driver/fake_state.h"

using namespace fakecuda;

namespace {

// Reads `.visible .entry name(.param .u64 .ptr .global .align 4 a, .param .align 8 .b8 b[16], ...)`: each
// comma-separated parameter's size is its first .bN/.uN/.sN/.fN type, times the [N] count if present.
bool parse_ptx(const std::string& ptx, FakeModule* m) {
  static const std::regex entry_re(R"(\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\))");
  static const std::regex type_re(R"(\.[busf](8|16|32|64)\b)");
  static const std::regex count_re(R"(\[(\d+)\])");
  static const std::regex align_re(R"(\.align\s+(\d+))");
  static const std::regex shared_re(R"(\.shared\s+(?:\.align\s+\d+\s+)?\.[busf](8|16|32|64)\s+[\w$]+(?:\[(\d+)\])?)");
  auto size_of = [](const std::string& decl) -> unsigned {
    std::smatch t, n;
    if (!std::regex_search(decl, t, type_re)) return 0;
    unsigned size = unsigned(std::stoul(t[1])) / 8;
    if (std::regex_search(decl, n, count_re)) size *= unsigned(std::stoul(n[1]));
    return size;
  };
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), entry_re); it != std::sregex_iterator(); ++it) {
    FakeFunction f;
    f.name = (*it)[1];
    std::string params = (*it)[2];
    size_t start = 0;
    while (params.find(".param", start) != std::string::npos) {
      size_t comma = params.find(',', start);
      std::string decl = params.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      unsigned size = size_of(decl);
      if (size == 0) return false;
      unsigned align = size >= 8 ? 8 : size;
      std::smatch a;
      if (decl.find(".b8") != std::string::npos && std::regex_search(decl, a, align_re)) {
        align = unsigned(std::stoul(a[1]));
      }
      unsigned end = f.param_offsets.empty() ? 0 : f.param_offsets.back() + f.param_sizes.back();
      f.param_offsets.push_back((end + align - 1) / align * align);
      f.param_sizes.push_back(size);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    // Static shared memory: every .shared declaration in the module counts for every entry (good enough).
    for (auto s = std::sregex_iterator(ptx.begin(), ptx.end(), shared_re); s != std::sregex_iterator(); ++s) {
      unsigned size = unsigned(std::stoul((*s)[1])) / 8;
      if ((*s)[2].matched) size *= unsigned(std::stoul((*s)[2]));
      f.shared_bytes += size;
    }
    m->functions[f.name] = f;
  }
  return !m->functions.empty();
}

}  // namespace

extern "C" {

// ---- the driver entry points ----

CUresult cuInit(unsigned flags) {
  FAKE_ENTER("cuInit");
  if (flags != 0) return kInvalidValue;
  state().initialized = true;
  state().devices = env_int("FAKECUDA_DEVICES", 1);
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
  FAKE_ENTER("cuDriverGetVersion");
  *version = env_int("FAKECUDA_DRIVER_VERSION", 13000);
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  static const std::map<CUresult, const char*> names = {{0, "CUDA_SUCCESS"},
                                                        {1, "CUDA_ERROR_INVALID_VALUE"},
                                                        {2, "CUDA_ERROR_OUT_OF_MEMORY"},
                                                        {3, "CUDA_ERROR_NOT_INITIALIZED"},
                                                        {4, "CUDA_ERROR_DEINITIALIZED"},
                                                        {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
                                                        {100, "CUDA_ERROR_NO_DEVICE"},
                                                        {101, "CUDA_ERROR_INVALID_DEVICE"},
                                                        {200, "CUDA_ERROR_INVALID_IMAGE"},
                                                        {201, "CUDA_ERROR_INVALID_CONTEXT"},
                                                        {218, "CUDA_ERROR_INVALID_PTX"},
                                                        {400, "CUDA_ERROR_INVALID_HANDLE"},
                                                        {500, "CUDA_ERROR_NOT_FOUND"},
                                                        {401, "CUDA_ERROR_ILLEGAL_STATE"},
                                                        {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
                                                        {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
                                                        {600, "CUDA_ERROR_NOT_READY"},
                                                        {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
                                                        {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
                                                        {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
                                                        {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
                                                        {719, "CUDA_ERROR_LAUNCH_FAILED"},
                                                        {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
                                                        {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
                                                        {999, "CUDA_ERROR_UNKNOWN"}};
  auto it = names.find(error);
  if (it == names.end()) return kInvalidValue;
  *name = it->second;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  // The real driver's texts (CUDA 13).
  static const std::map<CUresult, const char*> texts = {
      {0, "no error"},
      {1, "invalid argument"},
      {2, "out of memory"},
      {3, "initialization error"},
      {4, "driver shutting down"},
      {46, "CUDA-capable device(s) is/are busy or unavailable"},
      {100, "no CUDA-capable device is detected"},
      {101, "invalid device ordinal"},
      {200, "device kernel image is invalid"},
      {201, "invalid device context"},
      {218, "a PTX JIT compilation failed"},
      {400, "invalid resource handle"},
      {500, "named symbol not found"},
      {401, "the operation cannot be performed in the present state"},
      {712, "part or all of the requested memory range is already mapped"},
      {713, "pointer does not correspond to a registered memory region"},
      {600, "device not ready"},
      {700, "an illegal memory access was encountered"},
      {701, "too many resources requested for launch"},
      {702, "the launch timed out and was terminated"},
      {715, "an illegal instruction was encountered"},
      {719, "unspecified launch failure"},
      {900, "operation not permitted when stream is capturing"},
      {901, "operation failed due to a previous error during capture"},
      {999, "unknown error"}};
  auto it = texts.find(error);
  if (it == texts.end()) return kInvalidValue;
  *text = it->second;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
  FAKE_ENTER("cuDeviceGetCount");
  *count = state().devices;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  FAKE_ENTER("cuDeviceGet");
  if (ordinal < 0 || ordinal >= state().devices) return kInvalidDevice;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  FAKE_ENTER("cuDeviceGetName");
  std::snprintf(name, size_t(len), "Fake CUDA Device %d", device);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attr, CUdevice device) {
  FAKE_ENTER("cuDeviceGetAttribute");
  const char* cc = std::getenv("FAKECUDA_CC");
  int major = 9, minor = 0;
  if (cc && *cc) std::sscanf(cc, "%d.%d", &major, &minor);
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 48 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = 16 + device; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = minor; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 227 * 1024; break;
    default: return kInvalidValue;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice) {
  FAKE_ENTER("cuDeviceTotalMem_v2");
  *bytes = size_t(80) << 30;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice device) {
  FAKE_ENTER("cuDevicePrimaryCtxRetain");
  *ctx = fake_context(device);
  state().primary_retained.insert(device);
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  FAKE_ENTER("cuCtxSetCurrent");
  tl_current = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
  FAKE_ENTER("cuCtxGetCurrent");
  *ctx = tl_current;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  FAKE_ENTER("cuCtxSynchronize");
  FAKE_NEEDS_CONTEXT();
  if (CUresult r = refuse_wait(nullptr, true)) return r;
  state().syncs_by_context[tl_current]++;
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  FAKE_ENTER("cuMemGetInfo_v2");
  FAKE_NEEDS_CONTEXT();
  size_t used = 0;
  for (auto& [p, n] : state().allocations) used += n;
  *total = size_t(80) << 30;
  *free = *total - used;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  FAKE_ENTER("cuMemAlloc_v2");
  FAKE_NEEDS_CONTEXT();
  if (bytes == 0) return kInvalidValue;
  void* p = std::malloc(bytes);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(p, 0xCD, bytes);  // uninitialized memory is not zero on a GPU either
  *ptr = CUdeviceptr(uintptr_t(p));
  state().allocations[*ptr] = bytes;
  state().allocation_context[*ptr] = tl_current;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  FAKE_ENTER("cuMemFree_v2");
  FAKE_NEEDS_CONTEXT();
  auto it = state().allocations.find(ptr);
  if (it == state().allocations.end()) return kInvalidValue;
  std::free(reinterpret_cast<void*>(uintptr_t(ptr)));
  state().allocations.erase(it);
  state().allocation_context.erase(ptr);
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void** ptr, size_t bytes, unsigned) {
  FAKE_ENTER("cuMemHostAlloc");
  FAKE_NEEDS_CONTEXT();
  *ptr = std::malloc(bytes ? bytes : 1);
  state().pinned.insert(*ptr);
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* dptr, void* host, unsigned) {
  FAKE_ENTER("cuMemHostGetDevicePointer_v2");
  if (!state().pinned.count(host) && !registered_mapped(host)) return kInvalidValue;
  *dptr = CUdeviceptr(reinterpret_cast<uintptr_t>(host));
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void* ptr) {
  FAKE_ENTER("cuMemFreeHost");
  FAKE_NEEDS_CONTEXT();
  if (!state().pinned.erase(ptr)) return kInvalidValue;
  std::free(ptr);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, CUstream stream) {
  FAKE_ENTER("cuMemcpyHtoDAsync_v2");
  FAKE_NEEDS_CONTEXT();
  if (capture_node(stream, [=](CUstream) {
        std::memcpy(reinterpret_cast<void*>(uintptr_t(dst)), src, n);
        return CUDA_SUCCESS;
      }))
    return CUDA_SUCCESS;
  std::memcpy(reinterpret_cast<void*>(uintptr_t(dst)), src, n);
  return CUDA_SUCCESS;
}

// Managed memory is host memory here too; freed by cuMemFree as a device allocation.
CUresult cuMemAllocManaged(CUdeviceptr* ptr, size_t bytes, unsigned) {
  FAKE_ENTER("cuMemAllocManaged");
  FAKE_NEEDS_CONTEXT();
  if (bytes == 0) return kInvalidValue;
  void* p = std::calloc(1, bytes);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = CUdeviceptr(uintptr_t(p));
  state().allocations[*ptr] = bytes;
  state().allocation_context[*ptr] = tl_current;
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream stream) {
  FAKE_ENTER("cuMemcpyDtoHAsync_v2");
  FAKE_NEEDS_CONTEXT();
  if (capture_node(stream, [=](CUstream) {
        std::memcpy(dst, reinterpret_cast<const void*>(uintptr_t(src)), n);
        return CUDA_SUCCESS;
      }))
    return CUDA_SUCCESS;
  std::memcpy(dst, reinterpret_cast<const void*>(uintptr_t(src)), n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
  FAKE_ENTER("cuMemcpyDtoDAsync_v2");
  FAKE_NEEDS_CONTEXT();
  if (capture_node(stream, [=](CUstream) {
        std::memmove(reinterpret_cast<void*>(uintptr_t(dst)), reinterpret_cast<const void*>(uintptr_t(src)), n);
        return CUDA_SUCCESS;
      }))
    return CUDA_SUCCESS;
  std::memmove(reinterpret_cast<void*>(uintptr_t(dst)), reinterpret_cast<const void*>(uintptr_t(src)), n);
  return CUDA_SUCCESS;
}

// Between contexts: each pointer must lie in memory of the context named for it (the real driver needs that
// to find the devices; with no peer access it stages through the host itself).
CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n) {
  FAKE_ENTER("cuMemcpyPeer");
  if (context_of_range(dst, n) != dst_ctx || context_of_range(src, n) != src_ctx) return kInvalidValue;
  std::memmove(reinterpret_cast<void*>(uintptr_t(dst)), reinterpret_cast<const void*>(uintptr_t(src)), n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n,
                           CUstream stream) {
  FAKE_ENTER("cuMemcpyPeerAsync");
  auto s = state().streams.find(stream);
  if (reinterpret_cast<uintptr_t>(stream) > 2 && (s == state().streams.end() || s->second != dst_ctx)) {
    return kInvalidHandle;
  }
  if (context_of_range(dst, n) != dst_ctx || context_of_range(src, n) != src_ctx) return kInvalidValue;
  std::memmove(reinterpret_cast<void*>(uintptr_t(dst)), reinterpret_cast<const void*>(uintptr_t(src)), n);
  return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int* can, CUdevice device, CUdevice peer) {
  FAKE_ENTER("cuDeviceCanAccessPeer");
  int n = state().devices;
  if (device < 0 || device >= n || peer < 0 || peer >= n) return kInvalidDevice;
  *can = device != peer && env_int("FAKECUDA_PEER_ACCESS", 1) != 0;
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream) {
  FAKE_ENTER("cuMemsetD8Async");
  FAKE_NEEDS_CONTEXT();
  if (capture_node(stream, [=](CUstream) {
        std::memset(reinterpret_cast<void*>(uintptr_t(dst)), value, n);
        return CUDA_SUCCESS;
      }))
    return CUDA_SUCCESS;
  std::memset(reinterpret_cast<void*>(uintptr_t(dst)), value, n);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned flags) {
  FAKE_ENTER("cuStreamCreate");
  FAKE_NEEDS_CONTEXT();
  if (flags > CU_STREAM_NON_BLOCKING) return kInvalidValue;
  *stream = reinterpret_cast<CUstream>(new char);
  state().streams[*stream] = tl_current;
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  FAKE_ENTER("cuStreamDestroy_v2");
  if (!state().streams.erase(stream)) return kInvalidHandle;
  state().captures.erase(stream);
  delete reinterpret_cast<char*>(stream);
  return CUDA_SUCCESS;
}

// nullptr, CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2) name the default streams, as in the driver.
static bool valid_stream(CUstream s) {
  uintptr_t v = reinterpret_cast<uintptr_t>(s);
  return v <= 2 || state().streams.count(s);
}

CUresult cuStreamSynchronize(CUstream stream) {
  FAKE_ENTER("cuStreamSynchronize");
  if (CUresult r = refuse_wait(stream, false)) return r;
  return valid_stream(stream) ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuStreamQuery(CUstream stream) {
  FAKE_ENTER("cuStreamQuery");
  if (CUresult r = refuse_wait(stream, false)) return r;
  return valid_stream(stream) ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned) {
  FAKE_ENTER("cuStreamWaitEvent");
  return valid_stream(stream) && state().events.count(event) ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuEventCreate(CUevent* event, unsigned) {
  FAKE_ENTER("cuEventCreate");
  FAKE_NEEDS_CONTEXT();
  *event = reinterpret_cast<CUevent>(new char);
  state().events[*event] = -1;
  state().event_context[*event] = tl_current;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
  FAKE_ENTER("cuEventDestroy_v2");
  if (!state().events.erase(event)) return kInvalidHandle;
  state().event_context.erase(event);
  delete reinterpret_cast<char*>(event);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  FAKE_ENTER("cuEventRecord");
  if (!state().events.count(event) || !valid_stream(stream)) return kInvalidHandle;
  // The event and the stream must be of one context; a default stream is the calling thread's context's.
  CUcontext stream_ctx = reinterpret_cast<uintptr_t>(stream) <= 2 ? tl_current : state().streams[stream];
  if (state().event_context[event] != stream_ctx) return kInvalidHandle;
  state().events[event] = now_ms();
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  FAKE_ENTER("cuEventSynchronize");
  return state().events.count(event) ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuEventQuery(CUevent event) {
  FAKE_ENTER("cuEventQuery");
  return state().events.count(event) ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  FAKE_ENTER("cuEventElapsedTime");
  auto& ev = state().events;
  if (!ev.count(start) || !ev.count(end)) return kInvalidHandle;
  if (ev[start] < 0 || ev[end] < 0) return kInvalidHandle;
  *ms = float(ev[end] - ev[start]);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned num_options, CUjit_option* options,
                            void** values) {
  FAKE_ENTER("cuModuleLoadDataEx");
  FAKE_NEEDS_CONTEXT();
  auto* m = new FakeModule();
  m->ptx = static_cast<const char*>(image);
  if (m->ptx.find("FAKECUDA_REJECT") != std::string::npos || !parse_ptx(m->ptx, m)) {
    for (unsigned i = 0; i < num_options; ++i) {
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER) {
        std::snprintf(static_cast<char*>(values[i]), 64, "ptxas fatal: fake driver rejected the PTX");
      }
    }
    delete m;
    return kInvalidPtx;
  }
  for (auto& [name, f] : m->functions) f.context = tl_current;
  *module = reinterpret_cast<CUmodule>(m);
  state().modules.insert(m);
  return CUDA_SUCCESS;
}

// What a fake cubin starts with on this machine: the driver version and the compute capability.
static std::string fake_cubin_header() {
  const char* cc = std::getenv("FAKECUDA_CC");
  return "FAKECUBIN " + std::to_string(env_int("FAKECUDA_DRIVER_VERSION", 13000)) + " " +
         std::string(cc && *cc ? cc : "9.0") + "\n";
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  FAKE_ENTER("cuModuleLoadData");
  FAKE_NEEDS_CONTEXT();
  std::string text = static_cast<const char*>(image);
  if (text.rfind("FAKECUBIN ", 0) == 0) {
    std::string header = fake_cubin_header();
    if (text.rfind(header, 0) != 0) return kInvalidImage;  // another architecture's (or driver's) cubin
    text = text.substr(header.size());
  }
  auto* m = new FakeModule();
  m->ptx = text;
  if (!parse_ptx(m->ptx, m)) {
    delete m;
    return kInvalidImage;
  }
  for (auto& [name, f] : m->functions) f.context = tl_current;
  *module = reinterpret_cast<CUmodule>(m);
  state().modules.insert(m);
  return CUDA_SUCCESS;
}

CUresult cuLinkCreate_v2(unsigned, CUjit_option*, void**, CUlinkState* link) {
  FAKE_ENTER("cuLinkCreate_v2");
  FAKE_NEEDS_CONTEXT();
  auto* l = new FakeLink();
  state().links.insert(l);
  *link = reinterpret_cast<CUlinkState>(l);
  return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState link, CUjitInputType type, void* data, size_t size, const char*, unsigned,
                          CUjit_option*, void**) {
  FAKE_ENTER("cuLinkAddData_v2");
  if (!state().links.count(link)) return kInvalidHandle;
  if (type != CU_JIT_INPUT_PTX || size == 0) return kInvalidValue;
  std::string ptx(static_cast<const char*>(data), strnlen(static_cast<const char*>(data), size));
  FakeModule probe;
  if (ptx.find("FAKECUDA_REJECT") != std::string::npos || !parse_ptx(ptx, &probe)) return kInvalidPtx;
  reinterpret_cast<FakeLink*>(link)->ptx += ptx;
  return CUDA_SUCCESS;
}

CUresult cuLinkComplete(CUlinkState link, void** cubin, size_t* size) {
  FAKE_ENTER("cuLinkComplete");
  if (!state().links.count(link)) return kInvalidHandle;
  auto* l = reinterpret_cast<FakeLink*>(link);
  if (l->ptx.empty()) return kInvalidValue;
  l->cubin = fake_cubin_header() + l->ptx;
  *cubin = l->cubin.data();
  *size = l->cubin.size() + 1;  // with its NUL, so that cuModuleLoadData can read it as text
  return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState link) {
  FAKE_ENTER("cuLinkDestroy");
  if (!state().links.erase(link)) return kInvalidHandle;
  delete reinterpret_cast<FakeLink*>(link);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  FAKE_ENTER("cuModuleUnload");
  FAKE_NEEDS_CONTEXT();
  auto* m = reinterpret_cast<FakeModule*>(module);
  if (!state().modules.erase(m)) return kInvalidHandle;
  if (state().last_global) {
    for (auto& [name, memory] : m->globals) {
      if (memory.data() == state().last_global) state().last_global = nullptr;
    }
  }
  delete m;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  FAKE_ENTER("cuModuleGetFunction");
  if (!state().modules.count(module)) return kInvalidHandle;
  auto* m = reinterpret_cast<FakeModule*>(module);
  auto it = m->functions.find(name);
  if (it == m->functions.end()) return kNotFound;
  *function = reinterpret_cast<CUfunction>(&it->second);
  return CUDA_SUCCESS;
}

// A `.global .align A .b8 NAME[BYTES]` array of the module's PTX, as zeroed memory (the GPU zero-fills it).
CUresult cuModuleGetGlobal_v2(CUdeviceptr* ptr, size_t* bytes, CUmodule module, const char* name) {
  FAKE_ENTER("cuModuleGetGlobal_v2");
  if (!state().modules.count(module)) return kInvalidHandle;
  auto* m = reinterpret_cast<FakeModule*>(module);
  auto found = m->globals.find(name);
  if (found == m->globals.end()) {
    size_t at = m->ptx.find(std::string(" ") + name + "[");
    if (at == std::string::npos || m->ptx.rfind(".global", at) == std::string::npos) return kNotFound;
    size_t size = std::strtoul(m->ptx.c_str() + at + std::strlen(name) + 2, nullptr, 10);
    found = m->globals.emplace(name, std::vector<char>(size, 0)).first;
    state().last_global = found->second.data();
  }
  *ptr = CUdeviceptr(uintptr_t(found->second.data()));
  if (bytes) *bytes = found->second.size();
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attr, CUfunction function) {
  FAKE_ENTER("cuFuncGetAttribute");
  auto* f = reinterpret_cast<FakeFunction*>(function);
  switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = env_int("FAKECUDA_MAX_THREADS", 1024); break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = int(f->shared_bytes); break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 16; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = f->max_dynamic_shared; break;
    default: return kInvalidValue;
  }
  return CUDA_SUCCESS;
}

// The offset and size of parameter `index`, as parse_ptx laid them out (CUDA 12.4's cuFuncGetParamInfo).
CUresult cuFuncGetParamInfo(CUfunction function, size_t index, size_t* offset, size_t* size) {
  FAKE_ENTER("cuFuncGetParamInfo");
  auto* f = reinterpret_cast<FakeFunction*>(function);
  if (index >= f->param_sizes.size()) return kInvalidValue;
  if (offset) *offset = f->param_offsets[index];
  if (size) *size = f->param_sizes[index];
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attr, int value) {
  FAKE_ENTER("cuFuncSetAttribute");
  if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value > 227 * 1024) return kInvalidValue;
  reinterpret_cast<FakeFunction*>(function)->max_dynamic_shared = value;
  return CUDA_SUCCESS;
}

namespace {

/// Checks and records a launch (the state's mutex held).
CUresult record_launch(CUfunction function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned shared, CUstream stream, void** params, void** extra = nullptr) {
  auto* f = reinterpret_cast<FakeFunction*>(function);
  if (!valid_stream(stream)) return kInvalidValue;
  // The kernel runs in the calling thread's context: its module must have been loaded there, and its stream
  // made there.
  if (f->context != tl_current) return kInvalidContext;
  if (reinterpret_cast<uintptr_t>(stream) > 2 && state().streams[stream] != tl_current) return kInvalidHandle;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return kInvalidValue;
  if (uint64_t(bx) * by * bz > 1024 || bz > 64) return kInvalidValue;
  int max_dynamic = f->max_dynamic_shared > 48 * 1024 ? f->max_dynamic_shared : 48 * 1024;
  if (shared + f->shared_bytes > unsigned(max_dynamic)) return 701;
  // `extra`, as the driver reads it: {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE,
  // &size, CU_LAUNCH_PARAM_END}, the buffer laid out as the kernel declares its parameters (each at an
  // offset aligned to its size) and the size exactly theirs; never together with kernelParams.
  const unsigned char* buffer = nullptr;
  if (extra != nullptr) {
    const size_t* buffer_size = nullptr;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        buffer = static_cast<const unsigned char*>(extra[i + 1]);
      } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        buffer_size = static_cast<const size_t*>(extra[i + 1]);
      } else {
        return kInvalidValue;
      }
    }
    if (params != nullptr || buffer == nullptr || buffer_size == nullptr) return kInvalidValue;
    size_t end = 0;
    for (unsigned size : f->param_sizes) end = ((end + size - 1) & ~size_t(size - 1)) + size;  // sizes: 1, 2, 4, 8
    if (*buffer_size != end) return kInvalidValue;
  } else if (!f->param_sizes.empty() && params == nullptr) {
    return kInvalidValue;
  }
  if (FakeCapture* c = capturing(stream)) {
    // Captured: the parameters are read now, as a real capture reads them, and launched on replay.
    std::vector<unsigned char> bytes;
    std::vector<void*> pointers;
    size_t from = 0;  // in the buffer
    for (size_t i = 0; i < f->param_sizes.size(); ++i) {
      unsigned size = f->param_sizes[i];
      from = (from + size - 1) & ~size_t(size - 1);
      const auto* p = buffer ? buffer + from : static_cast<const unsigned char*>(params[i]);
      bytes.insert(bytes.end(), p, p + size);
      from += size;
    }
    c->nodes.push_back([=](CUstream replay) mutable {
      pointers.clear();
      size_t at = 0;
      for (unsigned size : f->param_sizes) {
        pointers.push_back(bytes.data() + at);
        at += size;
      }
      return record_launch(function, gx, gy, gz, bx, by, bz, shared, replay, pointers.data());
    });
    return CUDA_SUCCESS;
  }
  Launch& l = state().last;
  l.function = f->name;
  unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  for (int i = 0; i < 3; ++i) l.grid[i] = g[i], l.block[i] = b[i];
  l.shared = shared;
  l.stream = stream;
  size_t n = f->param_sizes.size(), total = 0;
  l.offsets.resize(n + 1);
  for (size_t i = 0; i < n; ++i) {
    l.offsets[i] = total;
    total += f->param_sizes[i];
  }
  l.offsets[n] = total;
  l.bytes.resize(total);
  l.buffer = buffer != nullptr;
  size_t at = 0;  // in the buffer
  for (size_t i = 0; i < n; ++i) {
    unsigned size = f->param_sizes[i];
    at = (at + size - 1) & ~size_t(size - 1);
    std::memcpy(l.bytes.data() + l.offsets[i], buffer ? buffer + at : params[i], size);
    at += size;
  }
  state().launches++;
  state().launches_by_context[tl_current]++;
  return CUDA_SUCCESS;
}

/// After a successful launch, plants the error fakecuda_fail_async armed (the state's mutex held).
CUresult arm_async_error(CUresult launched) {
  State& s = state();
  if (launched == CUDA_SUCCESS && s.async_armed) {
    s.async_pending = s.async_armed;
    s.async_armed = 0;
  }
  return launched;
}

}  // namespace

CUresult cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void** params, void** extra) {
  FAKE_ENTER("cuLaunchKernel");
  return arm_async_error(record_launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra));
}

/// A cooperative launch is recorded as a plain one (the fake driver runs nothing) and counted on its own.
CUresult cuLaunchCooperativeKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, CUstream stream, void** params) {
  FAKE_ENTER("cuLaunchCooperativeKernel");
  return arm_async_error(record_launch(function, gx, gy, gz, bx, by, bz, shared, stream, params));
}

/// Occupancy as a device of 64K registers and 2048 threads per multiprocessor would give a kernel of 16
/// registers per thread (the fake's CU_FUNC_ATTRIBUTE_NUM_REGS): limited by threads alone.
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction function, int block_threads,
                                                     size_t dynamic_shared) {
  FAKE_ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  (void)dynamic_shared;
  if (!blocks || !function || block_threads <= 0) return kInvalidValue;
  *blocks = std::min(32, 2048 / block_threads);
  return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode) {
  FAKE_ENTER("cuStreamBeginCapture_v2");
  FAKE_NEEDS_CONTEXT();
  if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED) return kInvalidValue;
  if (reinterpret_cast<uintptr_t>(stream) <= 2) return kCaptureUnsupported;  // the default streams
  if (!state().streams.count(stream)) return kInvalidHandle;
  if (state().captures.count(stream)) return kIllegalState;
  state().captures[stream] = FakeCapture();
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  FAKE_ENTER("cuStreamEndCapture");
  auto it = state().captures.find(stream);
  if (it == state().captures.end()) return kIllegalState;
  FakeCapture capture = std::move(it->second);
  state().captures.erase(it);
  *graph = nullptr;
  if (capture.invalidated) return kCaptureInvalidated;
  auto* g = new FakeGraph{std::move(capture.nodes)};
  state().graphs.insert(g);
  *graph = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
}

thread_local CUstreamCaptureMode tl_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  FAKE_ENTER("cuThreadExchangeStreamCaptureMode");
  std::swap(*mode, tl_capture_mode);
  return CUDA_SUCCESS;
}

CUresult cuGraphGetNodes(CUgraph graph, CUgraphNode* nodes, size_t* count) {
  FAKE_ENTER("cuGraphGetNodes");
  if (!state().graphs.count(graph) || !count) return kInvalidValue;
  auto* g = reinterpret_cast<FakeGraph*>(graph);
  if (nodes) {
    for (size_t i = 0; i < *count && i < g->nodes.size(); ++i) nodes[i] = reinterpret_cast<CUgraphNode>(&g->nodes[i]);
  }
  *count = g->nodes.size();
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  FAKE_ENTER("cuGraphInstantiateWithFlags");
  if (!state().graphs.count(graph)) return kInvalidValue;
  if (flags != 0) return kInvalidValue;
  auto* e = new FakeGraph(*reinterpret_cast<FakeGraph*>(graph));
  state().graph_execs.insert(e);
  *exec = reinterpret_cast<CUgraphExec>(e);
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_ENTER("cuGraphLaunch");
  FAKE_NEEDS_CONTEXT();
  if (!state().graph_execs.count(exec) || !valid_stream(stream)) return kInvalidHandle;
  auto* e = reinterpret_cast<FakeGraph*>(exec);
  if (FakeCapture* c = capturing(stream)) {
    // A graph launched into a capture becomes a node of the new graph (a child graph).
    std::vector<Node> nodes = e->nodes;
    c->nodes.push_back([nodes](CUstream replay) mutable {
      for (Node& n : nodes) {
        if (CUresult r = n(replay)) return r;
      }
      return CUDA_SUCCESS;
    });
    return CUDA_SUCCESS;
  }
  for (Node& n : e->nodes) {
    if (CUresult r = n(stream)) return r;
  }
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  FAKE_ENTER("cuGraphExecDestroy");
  if (!state().graph_execs.erase(exec)) return kInvalidValue;
  delete reinterpret_cast<FakeGraph*>(exec);
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  FAKE_ENTER("cuGraphDestroy");
  if (!state().graphs.erase(graph)) return kInvalidValue;
  delete reinterpret_cast<FakeGraph*>(graph);
  return CUDA_SUCCESS;
}

}  // extern "C"
