// DLPack, the tensor-exchange ABI (dmlc/dlpack, version 0 "dltensor" capsules and the 1.3 C exchange API),
// declared by us.
//
// Out: DeviceArray.__dlpack__() hands a capsule whose DLManagedTensor keeps the DeviceArray alive.
// In: an argument or gpu.from_dlpack() object with __dlpack__ is read zero-copy; the managed tensor is
// released (its deleter called) when the DlpackImport holding it goes away. A type with DLPack's C exchange
// API (PyTorch 2.11's tensors) is read on the launch path through it, one C call per argument.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <Python.h>

#include "runtime/device_array.h"
#include "runtime/kernel_args.h"

namespace gpujit::py {

struct DLDevice {
  int32_t device_type;  // kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5, kDLBool = 6
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means C-contiguous
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

constexpr int32_t kDLCUDA = 2;
constexpr int32_t kDLCUDAManaged = 13;

/// DLPack's C exchange API (DLPack 1.3): a table of C functions a tensor library attaches to its tensor
/// type as `__dlpack_c_exchange_api__` (a capsule named "dlpack_exchange_api", or the table's address as an
/// int), so that a consumer reads a tensor without any Python call. Only the fields up to the one we call
/// are spelled out; the layout is DLPack 1.3's, checked through `version` before use.
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLPackExchangeAPI {
  DLPackVersion version;
  const DLPackExchangeAPI* prev_api;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  void* managed_tensor_to_py_object_no_sync;
  /// Fills `out` with a view of the tensor (pointers into the tensor's own metadata, valid while it is
  /// alive and unchanged) without synchronizing any stream; 0, or -1 with a Python error set.
  int (*dltensor_from_py_object_no_sync)(void* py_object, DLTensor* out);
  void* current_work_stream;
};

/// The exchange API `type` offers through `__dlpack_c_exchange_api__`, or null: none, or one of a DLPack
/// version whose layout we do not know.
const DLPackExchangeAPI* exchange_api_of(PyTypeObject* type);
/// Reads `obj` through `api` into `out` (no owner: the caller holds `obj` for the launch). False, with no
/// Python error left set, when the producer fails or the tensor is not in CUDA memory or has an unsupported
/// element type; the generic protocols then say why.
bool view_from_exchange_api(const DLPackExchangeAPI* api, PyObject* obj, rt::ArrayView* out);
/// view_from_exchange_api() for the launch path: `device` is the launch's (the current device, which the
/// tensor's must be), and the result is the view's argument code (rt::array_code_of's), kArgInvalid where
/// view_from_exchange_api() returns false. Fills the view's dtype, ndim, extents, strides and data, no more.
rt::ArgCode launch_view_from_exchange_api(const DLPackExchangeAPI* api, PyObject* obj,
                                          const rt::Device& device, rt::ArrayView* out);

/// Thrown by the readers here for a CUDA tensor (DLPack names its device) of another device than the
/// calling thread's current CUDA device: a kernel there could not read it. The launch path adds the argument.
struct ForeignDeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Calls `obj.__dlpack__()` and reads the tensor into `out`, whose owner then keeps the producer's tensor
/// alive. Returns false with *error set if `obj` has no __dlpack__ or the tensor is not in CUDA memory or
/// has an unsupported type; Python errors raised by the producer propagate.
bool view_from_dlpack(PyObject* obj, rt::ArrayView* out, std::string* error);

}  // namespace gpujit::py
