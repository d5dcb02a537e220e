// DLPack, the tensor-exchange ABI (dmlc/dlpack, version 0 "dltensor" capsules), declared by us.
//
// Out: DeviceArray.__dlpack__() hands a capsule whose DLManagedTensor keeps the DeviceArray alive.
// In: an argument or gpu.from_dlpack() object with __dlpack__ is read zero-copy; the managed tensor is
// released (its deleter called) when the DlpackImport holding it goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <Python.h>

#include "runtime/device_array.h"

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

/// Calls `obj.__dlpack__()` and reads the tensor into `out`, whose owner then keeps the producer's tensor
/// alive. Returns false with *error set if `obj` has no __dlpack__ or the tensor is not in CUDA memory or
/// has an unsupported type; Python errors raised by the producer propagate.
bool view_from_dlpack(PyObject* obj, rt::ArrayView* out, std::string* error);

}  // namespace gpujit::py
