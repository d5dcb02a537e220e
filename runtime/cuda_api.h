// The slice of the CUDA Driver API that gpujit uses, declared by us.
//
// gpujit never includes <cuda.h>: the core library and the Python binding build on machines with no CUDA
// toolkit, and the driver (libcuda.so.1) is opened with dlopen at first use (runtime/cuda_driver.h). This
// header declares the handful of opaque handle types, enum values and entry points we call, with the ABI of
// the driver's C interface. Values are copied from the CUDA 12/13 driver API and are stable across driver
// versions; where the driver exports a versioned symbol (`cuMemAlloc_v2`) the list names that symbol, since
// the unversioned one is the old 32-bit-size ABI.
//
// GPUJIT_CUDA_FUNCTIONS is the one list of entry points: each X(name, symbol, parameter list) becomes a
// function-pointer member of CudaDriver, resolved from `symbol`. The fake driver the tests build
// (tests/unit/runtime/fake_driver) implements exactly this list.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpujit::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;

struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
struct CUlinkState_st;
using CUlinkState = CUlinkState_st*;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;
using CUgraph = CUgraph_st*;
using CUgraphExec = CUgraphExec_st*;
using CUgraphNode = CUgraphNode_st*;

// CUipcMemHandle: an allocation's handle another process opens (cuIpcGetMemHandle/cuIpcOpenMemHandle), 64
// opaque bytes passed by value.
constexpr size_t CU_IPC_HANDLE_SIZE = 64;
struct CUipcMemHandle {
  char reserved[CU_IPC_HANDLE_SIZE];
};

// CUjitInputType: what cuLinkAddData is given.
enum CUjitInputType : int {
  CU_JIT_INPUT_CUBIN = 0,
  CU_JIT_INPUT_PTX = 1,
  CU_JIT_INPUT_FATBINARY = 2,
  CU_JIT_INPUT_OBJECT = 3,
  CU_JIT_INPUT_LIBRARY = 4,
};

constexpr CUresult CUDA_SUCCESS = 0;

// cuLaunchKernel's `extra`: the parameters as one buffer laid out as the kernel declares them.
inline void* const CU_LAUNCH_PARAM_END = reinterpret_cast<void*>(0x00);
inline void* const CU_LAUNCH_PARAM_BUFFER_POINTER = reinterpret_cast<void*>(0x01);
inline void* const CU_LAUNCH_PARAM_BUFFER_SIZE = reinterpret_cast<void*>(0x02);
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// CUdevice_attribute values we read.
enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

// CUfunction_attribute values we read or set.
enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

// CUjit_option values for cuModuleLoadDataEx: where to put the PTX JIT's error log.
enum CUjit_option : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
constexpr unsigned CU_STREAM_DEFAULT = 0;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;  // does not synchronize with the legacy default stream
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 1;
constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 2;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 1;  // cuMemAllocManaged: any stream may use the memory
constexpr unsigned CU_MEM_ATTACH_HOST = 2;    // cuMemAllocManaged: attached to the host until a stream attaches it
constexpr unsigned CU_MEMHOSTREGISTER_PORTABLE = 1;   // cuMemHostRegister: pinned for every context
constexpr unsigned CU_MEMHOSTREGISTER_DEVICEMAP = 2;  // and mapped into the device's address space
constexpr unsigned CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1;  // cuIpcOpenMemHandle: peers map it when they use it

// CUstreamCaptureMode: which calls a stream capture forbids while it lasts (graph.h says which we use).
enum CUstreamCaptureMode : int {
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};

// X(member name, exported symbol, parameter list). Keep in sync with the fake driver.
#define GPUJIT_CUDA_FUNCTIONS(X)                                                                            \
  X(cuInit, "cuInit", (unsigned flags))                                                                     \
  X(cuDriverGetVersion, "cuDriverGetVersion", (int* version))                                               \
  X(cuGetErrorName, "cuGetErrorName", (CUresult error, const char** name))                                  \
  X(cuGetErrorString, "cuGetErrorString", (CUresult error, const char** text))                              \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int* count))                                                     \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice * device, int ordinal))                                           \
  X(cuDeviceGetName, "cuDeviceGetName", (char* name, int len, CUdevice device))                             \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int* value, CUdevice_attribute attr, CUdevice device))   \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t * bytes, CUdevice device))                             \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext * ctx, CUdevice device))               \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx))                                                    \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", (CUcontext * ctx))                                                  \
  X(cuCtxGetDevice, "cuCtxGetDevice", (CUdevice * device))                                                  \
  X(cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState", (CUdevice device, unsigned* flags, int* active)) \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice device))                           \
  X(cuCtxSynchronize, "cuCtxSynchronize", ())                                                               \
  X(cuMemGetInfo, "cuMemGetInfo_v2", (size_t * free, size_t * total))                                       \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr * ptr, size_t bytes))                                         \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr ptr))                                                           \
  X(cuMemHostAlloc, "cuMemHostAlloc", (void** ptr, size_t bytes, unsigned flags))                           \
  X(cuMemFreeHost, "cuMemFreeHost", (void* ptr))                                                            \
  X(cuMemAllocManaged, "cuMemAllocManaged", (CUdeviceptr * ptr, size_t bytes, unsigned flags))              \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2",                                              \
    (CUdeviceptr * dptr, void* host, unsigned flags))                                                       \
  X(cuMemHostRegister, "cuMemHostRegister_v2", (void* host, size_t bytes, unsigned flags))                  \
  X(cuMemHostUnregister, "cuMemHostUnregister", (void* host))                                               \
  X(cuMemGetAddressRange, "cuMemGetAddressRange_v2", (CUdeviceptr * base, size_t * bytes, CUdeviceptr ptr))  \
  X(cuIpcGetMemHandle, "cuIpcGetMemHandle", (CUipcMemHandle * handle, CUdeviceptr ptr))                      \
  X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2", (CUdeviceptr * ptr, CUipcMemHandle handle, unsigned flags)) \
  X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", (CUdeviceptr ptr))                                          \
  X(cuProfilerStart, "cuProfilerStart", ())                                                                 \
  X(cuProfilerStop, "cuProfilerStop", ())                                                                   \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr dst, const void* src, size_t n, CUstream s))    \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void* dst, CUdeviceptr src, size_t n, CUstream s))          \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s))    \
  X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr dst, unsigned char value, size_t n, CUstream s))       \
  X(cuMemcpyPeer, "cuMemcpyPeer",                                                                           \
    (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n))                     \
  X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync",                                                                 \
    (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n, CUstream s))         \
  X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", (int* can, CUdevice device, CUdevice peer))             \
  X(cuStreamCreate, "cuStreamCreate", (CUstream * stream, unsigned flags))                                  \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream stream))                                               \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream stream))                                          \
  X(cuStreamQuery, "cuStreamQuery", (CUstream stream))                                                      \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", (CUstream stream, CUevent event, unsigned flags))               \
  X(cuEventCreate, "cuEventCreate", (CUevent * event, unsigned flags))                                      \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent event))                                                   \
  X(cuEventRecord, "cuEventRecord", (CUevent event, CUstream stream))                                       \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent event))                                              \
  X(cuEventQuery, "cuEventQuery", (CUevent event))                                                          \
  X(cuEventElapsedTime, "cuEventElapsedTime", (float* ms, CUevent start, CUevent end))                      \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                                               \
    (CUmodule * module, const void* image, unsigned num_options, CUjit_option* options, void** values))     \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule * module, const void* image))                           \
  X(cuLinkCreate, "cuLinkCreate_v2",                                                                        \
    (unsigned num_options, CUjit_option* options, void** values, CUlinkState* state))                       \
  X(cuLinkAddData, "cuLinkAddData_v2",                                                                      \
    (CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name, unsigned num_options, \
     CUjit_option* options, void** values))                                                                 \
  X(cuLinkComplete, "cuLinkComplete", (CUlinkState state, void** cubin, size_t* size))                      \
  X(cuLinkDestroy, "cuLinkDestroy", (CUlinkState state))                                                    \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule module))                                                    \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction * function, CUmodule module, const char* name)) \
  X(cuModuleGetGlobal, "cuModuleGetGlobal_v2",                                                              \
    (CUdeviceptr * dptr, size_t * bytes, CUmodule module, const char* name))                                \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", (int* value, CUfunction_attribute attr, CUfunction function)) \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction function, CUfunction_attribute attr, int value))  \
  X(cuLaunchKernel, "cuLaunchKernel",                                                                       \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,            \
     unsigned shared_bytes, CUstream stream, void** params, void** extra))                                  \
  X(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel",                                                 \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,            \
     unsigned shared_bytes, CUstream stream, void** params))                                                \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",             \
    (int* blocks, CUfunction f, int block_threads, size_t dynamic_shared_bytes))                            \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream stream, CUstreamCaptureMode mode))           \
  X(cuStreamEndCapture, "cuStreamEndCapture", (CUstream stream, CUgraph * graph))                           \
  X(cuThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode", (CUstreamCaptureMode * mode))   \
  X(cuGraphGetNodes, "cuGraphGetNodes", (CUgraph graph, CUgraphNode * nodes, size_t * count))               \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags",                                                      \
    (CUgraphExec * exec, CUgraph graph, unsigned long long flags))                                          \
  X(cuGraphLaunch, "cuGraphLaunch", (CUgraphExec exec, CUstream stream))                                    \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec exec))                                           \
  X(cuGraphDestroy, "cuGraphDestroy", (CUgraph graph))

}  // namespace gpujit::cuda
