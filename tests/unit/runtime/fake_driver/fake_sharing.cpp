// The fake CUDA driver's entry points for memory shared beyond one context: host memory page-locked in place
// (cuMemHostRegister, numba's cuda.pinned and cuda.mapped), IPC handles (cuIpcGetMemHandle and friends), the
// allocation holding an address (cuMemGetAddressRange) and the profiler's switches (cuProfilerStart/Stop).
//
// Where the fake differs from a real driver, on purpose:
// - Registering host memory pins nothing; a mapped registration's device address is the host address, as the
//   fake's device memory is host memory. Overlapping registrations and unregistering what was not registered
//   fail with CUDA's errors (..._HOST_MEMORY_ALREADY_REGISTERED, ..._NOT_REGISTERED).
// - An IPC handle holds "FAKEIPC", the process id and the allocation's address and size. The fake can open a
//   handle only in the process that made it (its memory is that process's heap), which a real driver refuses;
//   so tests open a handle in-process through a pickled copy, and a handle from another process is refused
//   with CUDA_ERROR_INVALID_HANDLE. Opening gives the allocation's own address, counted until closed.
// - The profiler records nothing; fakecuda_live("profiling") says whether collection is on.
// - Contexts another library creates (cuCtxCreate_v2, for tests that play that library through ctypes) are
//   handles of their own, numbered from 0x100000, that only cuCtxGetDevice, cuCtxSetCurrent and
//   cuCtxDestroy_v2 know; each device's primary context (0x1000 + device) is active once retained.
#include <unistd.h>

#include <cstdint>
#include <iterator>

#include "tests/unit/runtime/fake_driver/fake_state.h"

using namespace fakecuda;

namespace {

constexpr char kIpcMagic[8] = {'F', 'A', 'K', 'E', 'I', 'P', 'C', '\0'};

/// What the fake writes into a CUipcMemHandle.
struct FakeIpc {
  char magic[8];
  int64_t pid;
  uint64_t base;
  uint64_t bytes;
};
static_assert(sizeof(FakeIpc) <= CU_IPC_HANDLE_SIZE, "a fake IPC handle must fit CUDA's 64 bytes");

}  // namespace

extern "C" {

CUresult cuMemHostRegister_v2(void* host, size_t bytes, unsigned flags) {
  FAKE_ENTER("cuMemHostRegister_v2");
  FAKE_NEEDS_CONTEXT();
  if (!host || bytes == 0) return kInvalidValue;
  auto& r = state().registered;
  const char* start = static_cast<const char*>(host);
  // The registration starting at or before `host` must end before it, and the next one must start after.
  auto next = r.upper_bound(host);
  if (next != r.end() && static_cast<const char*>(next->first) < start + bytes)
    return kHostMemoryAlreadyRegistered;
  if (next != r.begin()) {
    auto before = std::prev(next);
    if (static_cast<const char*>(before->first) + before->second.first > start)
      return kHostMemoryAlreadyRegistered;
  }
  r[host] = {bytes, flags};
  return CUDA_SUCCESS;
}

CUresult cuMemHostUnregister(void* host) {
  FAKE_ENTER("cuMemHostUnregister");
  FAKE_NEEDS_CONTEXT();
  if (!state().registered.erase(host)) return kHostMemoryNotRegistered;
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* bytes, CUdeviceptr ptr) {
  FAKE_ENTER("cuMemGetAddressRange_v2");
  FAKE_NEEDS_CONTEXT();
  auto& a = state().allocations;
  auto it = a.upper_bound(ptr);
  if (it == a.begin()) return kNotFound;
  --it;
  if (ptr >= it->first + it->second) return kNotFound;
  if (base) *base = it->first;
  if (bytes) *bytes = it->second;
  return CUDA_SUCCESS;
}

CUresult cuIpcGetMemHandle(CUipcMemHandle* handle, CUdeviceptr ptr) {
  FAKE_ENTER("cuIpcGetMemHandle");
  FAKE_NEEDS_CONTEXT();
  auto it = state().allocations.find(ptr);  // the base of an allocation, as CUDA requires
  if (!handle || it == state().allocations.end()) return kInvalidValue;
  FakeIpc ipc{};
  std::memcpy(ipc.magic, kIpcMagic, sizeof(kIpcMagic));
  ipc.pid = int64_t(getpid());
  ipc.base = ptr;
  ipc.bytes = it->second;
  std::memset(handle->reserved, 0, sizeof(handle->reserved));
  std::memcpy(handle->reserved, &ipc, sizeof(ipc));
  return CUDA_SUCCESS;
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr* ptr, CUipcMemHandle handle, unsigned flags) {
  FAKE_ENTER("cuIpcOpenMemHandle_v2");
  FAKE_NEEDS_CONTEXT();
  if (!ptr || flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) return kInvalidValue;
  FakeIpc ipc;
  std::memcpy(&ipc, handle.reserved, sizeof(ipc));
  if (std::memcmp(ipc.magic, kIpcMagic, sizeof(kIpcMagic)) != 0 || ipc.pid != int64_t(getpid()))
    return kInvalidHandle;
  auto it = state().allocations.find(ipc.base);
  if (it == state().allocations.end() || it->second != ipc.bytes) return kInvalidHandle;  // freed since
  state().ipc_opened[ipc.base]++;
  *ptr = ipc.base;
  return CUDA_SUCCESS;
}

CUresult cuIpcCloseMemHandle(CUdeviceptr ptr) {
  FAKE_ENTER("cuIpcCloseMemHandle");
  FAKE_NEEDS_CONTEXT();
  auto it = state().ipc_opened.find(ptr);
  if (it == state().ipc_opened.end()) return kInvalidValue;
  if (--it->second == 0) state().ipc_opened.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuProfilerStart() {
  FAKE_ENTER("cuProfilerStart");
  FAKE_NEEDS_CONTEXT();
  state().profiling = true;
  return CUDA_SUCCESS;
}

CUresult cuProfilerStop() {
  FAKE_ENTER("cuProfilerStop");
  FAKE_NEEDS_CONTEXT();
  state().profiling = false;
  return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned, CUdevice device) {
  FAKE_ENTER("cuCtxCreate_v2");
  static uintptr_t next = 0x100000;
  *ctx = reinterpret_cast<CUcontext>(next++);
  state().created_contexts[*ctx] = device;
  tl_current = *ctx;  // as the real cuCtxCreate, the new context becomes current
  return CUDA_SUCCESS;
}

CUresult cuCtxDestroy_v2(CUcontext ctx) {
  FAKE_ENTER("cuCtxDestroy_v2");
  if (state().created_contexts.erase(ctx) == 0) return kInvalidContext;
  if (tl_current == ctx) tl_current = nullptr;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  FAKE_ENTER("cuCtxGetDevice");
  FAKE_NEEDS_CONTEXT();
  auto created = state().created_contexts.find(tl_current);
  *device = created != state().created_contexts.end() ? created->second : device_of_context(tl_current);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
  FAKE_ENTER("cuDevicePrimaryCtxGetState");
  *flags = 0;
  *active = state().primary_retained.count(device) ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) {
  FAKE_ENTER("cuDevicePrimaryCtxRelease_v2");
  return CUDA_SUCCESS;  // the fake's primary contexts stay, as gpujit's own retain is never released
}

}  // extern "C"
