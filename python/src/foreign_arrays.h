// Fast paths for the two device-array libraries users pass most: PyTorch tensors and CuPy arrays.
//
// __cuda_array_interface__ works for both but builds a dict per access (PyTorch's property is Python code),
// which costs microseconds per argument. Here their types are recognized once (isinstance against
// torch.Tensor / cupy.ndarray, for libraries already imported) and the few attributes a launch needs are
// read directly: PyTorch's data_ptr(), shape, stride() and dtype; CuPy's data.ptr, shape, strides and dtype.
// Anything else, or a tensor these paths cannot take (a CPU tensor, an unsupported dtype), returns false
// and goes through the generic protocols.
#pragma once

#include <Python.h>

#include "runtime/device_array.h"

namespace gpujit::py {

/// Whether `type` is a torch.Tensor or cupy.ndarray type fast_foreign_view() has seen (no lookup of new types):
/// the launch path's early test for arguments of those types.
bool is_fast_foreign_type(PyTypeObject* type);
/// Reads `obj` into `out` if it is a CUDA torch.Tensor or a cupy.ndarray of a supported dtype.
bool fast_foreign_view(PyObject* obj, rt::ArrayView* out);

/// How PyTorch tensors were read so far: {"hits": from the tensor cache, "misses": read in full,
/// "uncacheable": read in full because the tensor has no `_version` or takes no weak reference}.
struct TensorCacheCounts {
  uint64_t hits = 0, misses = 0, uncacheable = 0;
};
TensorCacheCounts tensor_cache_counts();

}  // namespace gpujit::py
