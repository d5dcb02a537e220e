// Fast paths for the device-array libraries users pass most: PyTorch tensors and CuPy arrays.
//
// __cuda_array_interface__ works for both but builds a dict per access (PyTorch's property is Python code),
// which costs microseconds per argument. Here their types are recognized once and read without it:
// - a type with DLPack's C exchange API (`__dlpack_c_exchange_api__`, PyTorch 2.11 and later) through its C
//   function, one call and no Python object per argument (dlpack.h);
// - older PyTorch (isinstance torch.Tensor) through data_ptr(), shape, stride() and dtype, with a cache of
//   tensors launched before;
// - CuPy (isinstance cupy.ndarray) through data.ptr, shape, dtype and, unless it is C-contiguous, strides.
// Anything else, or a tensor these paths cannot take (a CPU tensor, an unsupported dtype), returns false
// and goes through the generic protocols.
#pragma once

#include <Python.h>

#include "runtime/device_array.h"
#include "runtime/kernel_args.h"

namespace gpujit::py {

struct ForeignType;
/// `type`, if fast_foreign_view() has seen it and has a fast path for it (no lookup of new types): the
/// launch path's early test for arguments of those types. Null otherwise.
const ForeignType* known_fast_foreign_type(PyTypeObject* type);
/// The launch path's one search for an argument's type: its entry if fast_foreign_view() has a fast path
/// for it, or if a launch read an object of it through __cuda_array_interface__ after every other test
/// (mark_interface_type); null otherwise.
const ForeignType* known_launch_foreign_type(PyTypeObject* type);
/// Whether `known` (from known_launch_foreign_type) is a type launches read through its
/// __cuda_array_interface__ rather than a fast path.
bool is_interface_type(const ForeignType* known);
/// Marks `type`, one fast_foreign_view() has seen and has no fast path for, as read through its
/// __cuda_array_interface__: the launch path then goes to that read first, skipping the tests of the other
/// kinds of argument. Only for a type for which each of those tests depends on the type alone (the caller's
/// rule, arguments.cpp); forgotten with the other types by use_exchange_api().
void mark_interface_type(PyTypeObject* type);

/// Reads `obj` into `out` if it is a CUDA tensor of a type with a fast path and of a supported dtype.
/// `known`, if given, is known_fast_foreign_type(Py_TYPE(obj)), which spares a second search.
bool fast_foreign_view(PyObject* obj, rt::ArrayView* out, const ForeignType* known = nullptr);

/// fast_foreign_view() for the launch path, of `obj` of a type with a fast path (`known`, from
/// known_launch_foreign_type(), not an interface type) for a launch on `device` (the current device): the
/// view's argument code (rt::array_code_of's), or kArgInvalid where fast_foreign_view() returns false. A
/// type read through DLPack's C exchange API has its view and code made in one pass (dlpack.h).
rt::ArgCode launch_foreign_view(PyObject* obj, const ForeignType* known, const rt::Device& device,
                                rt::ArrayView* out);

/// Only the library's own calls that fast_foreign_view() makes for `obj`, their results dropped; false if
/// `obj` has no fast path (or a call failed). For benchmarks: it separates the library's part of a read
/// from gpujit's. `known` as for fast_foreign_view().
bool foreign_library_calls(PyObject* obj, const ForeignType* known = nullptr);

/// How PyTorch tensors were read so far: {"hits": from the tensor cache, "misses": read in full,
/// "uncacheable": read in full because the tensor has no `_version` or takes no weak reference}.
struct TensorCacheCounts {
  uint64_t hits = 0, misses = 0, uncacheable = 0;
};
TensorCacheCounts tensor_cache_counts();

/// Whether types offering DLPack's C exchange API are read through it (the default) or as if they did not
/// offer it; for benchmarks comparing the two. Forgets the types seen so far.
void use_exchange_api(bool enabled);

}  // namespace gpujit::py
