// Reshape and ravel of device array views, without a copy (see array_shape.h).
#include "array_shape.h"

#include <cstring>
#include <string>

namespace gpujit::py {

namespace pyb = pybind11;

namespace {

[[noreturn]] void not_implemented(const std::string& message) {
  PyErr_SetString(PyExc_NotImplementedError, message.c_str());
  throw pyb::error_already_set();
}

std::string tuple_text(const int64_t* values, size_t n) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (n == 1 ? ",)" : ")");
}

std::string layout_text(const rt::ArrayView& v) {
  return "shape " + tuple_text(v.shape, size_t(v.ndim)) + " and strides " +
         tuple_text(v.strides, size_t(v.ndim));
}

/// Contiguous strides for `shape` in C or F order.
void contiguous_strides(const std::vector<int64_t>& shape, bool fortran, int64_t itemsize, int64_t* strides) {
  int64_t stride = itemsize;
  const size_t n = shape.size();
  for (size_t k = 0; k < n; ++k) {
    size_t i = fortran ? k : n - 1 - k;
    strides[i] = stride;
    stride *= shape[i] > 0 ? shape[i] : 1;
  }
}

/// NumPy's reshape without a copy, for a non-empty `v` and a `shape` of the same size: fills `strides` and
/// returns true, or returns false when the elements, taken in C (or F) order, are not evenly spaced within
/// each group of old axes that the new axes split or merge.
bool strides_without_copy(const rt::ArrayView& v, const std::vector<int64_t>& shape, bool fortran,
                          int64_t* strides) {
  // Axes of extent 1 belong to no group: the old ones are left out, the new ones get a stride at the end.
  std::vector<int64_t> old_dims, old_strides;
  for (int i = 0; i < v.ndim; ++i) {
    if (v.shape[i] == 1) continue;
    old_dims.push_back(v.shape[i]);
    old_strides.push_back(v.strides[i]);
  }
  std::vector<size_t> axes;  // the new axes of extent other than 1
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1) axes.push_back(i);
  }
  size_t oi = 0, ni = 0;
  while (oi < old_dims.size() && ni < axes.size()) {
    // The smallest run of old axes [oi, oj) and new ones [ni, nj) holding the same number of elements.
    size_t oj = oi + 1, nj = ni + 1;
    int64_t old_n = old_dims[oi], new_n = shape[axes[ni]];
    while (old_n != new_n) {
      if (new_n < old_n) {
        if (nj == axes.size()) return false;
        new_n *= shape[axes[nj++]];
      } else {
        if (oj == old_dims.size()) return false;
        old_n *= old_dims[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k) {
      bool even = fortran ? old_strides[k + 1] == old_dims[k] * old_strides[k]
                          : old_strides[k] == old_dims[k + 1] * old_strides[k + 1];
      if (!even) return false;
    }
    if (fortran) {
      strides[axes[ni]] = old_strides[oi];
      for (size_t k = ni + 1; k < nj; ++k) strides[axes[k]] = strides[axes[k - 1]] * shape[axes[k - 1]];
    } else {
      strides[axes[nj - 1]] = old_strides[oj - 1];
      for (size_t k = nj - 1; k > ni; --k) strides[axes[k - 1]] = strides[axes[k]] * shape[axes[k]];
    }
    oi = oj;
    ni = nj;
  }
  // An axis of extent 1 takes the stride a contiguous neighbour would give it (any stride reads the same).
  const size_t n = shape.size();
  for (size_t k = 0; k < n; ++k) {
    size_t i = fortran ? k : n - 1 - k;
    if (shape[i] != 1) continue;
    if (fortran)
      strides[i] = i > 0 ? strides[i - 1] * shape[i - 1] : v.itemsize();
    else
      strides[i] = i + 1 < n ? strides[i + 1] * shape[i + 1] : v.itemsize();
  }
  return true;
}

}  // namespace

char order_from_python(pyb::handle order, const char* allowed) {
  std::string text = pyb::isinstance<pyb::str>(order) ? order.cast<std::string>() : std::string();
  if (text.size() != 1 || !std::strchr(allowed, text[0])) {
    std::string letters;
    for (const char* c = allowed; *c; ++c) letters += std::string(letters.empty() ? "" : "|") + *c;
    throw pyb::value_error("order not " + letters + " (got " + pyb::repr(order).cast<std::string>() + ")");
  }
  return text[0];
}

std::vector<int64_t> reshape_args(const pyb::args& args) {
  pyb::object items = args;
  if (args.size() == 1 && (PyTuple_Check(args[0].ptr()) || PyList_Check(args[0].ptr()))) items = args[0];
  std::vector<int64_t> shape;
  for (pyb::handle d : items) {
    PyObject* index = PyNumber_Index(d.ptr());
    if (!index) {
      PyErr_Clear();
      throw pyb::type_error("reshape: the new shape must be integers, not " +
                            pyb::repr(d).cast<std::string>() + " (" + Py_TYPE(d.ptr())->tp_name + ")");
    }
    shape.push_back(pyb::reinterpret_steal<pyb::int_>(index).cast<int64_t>());
  }
  return shape;
}

rt::ArrayView reshaped_view(const rt::ArrayView& v, std::vector<int64_t> shape, char order) {
  if (shape.size() > size_t(rt::kMaxDims)) {
    throw pyb::value_error("arrays have at most " + std::to_string(rt::kMaxDims) + " dimensions");
  }
  const int64_t size = v.size();
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] >= 0) {
      known *= shape[i];
    } else if (shape[i] != -1) {
      throw pyb::value_error("reshape: negative dimension " + std::to_string(shape[i]) +
                             " (only -1 may stand for the extent the size requires)");
    } else if (unknown >= 0) {
      throw pyb::value_error("can only specify one unknown dimension");
    } else {
      unknown = int(i);
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size % known != 0) {
      throw pyb::value_error("cannot infer valid shape for unknown dimension: " + std::to_string(size) +
                             " elements into shape " + tuple_text(shape.data(), shape.size()));
    }
    shape[size_t(unknown)] = size / known;
  } else if (known != size) {
    throw pyb::value_error("reshape changes the size of the array: " + std::to_string(size) +
                           " elements into shape " + tuple_text(shape.data(), shape.size()));
  }
  if (order == 'A') order = v.is_f_contiguous() && !v.is_c_contiguous() ? 'F' : 'C';  // NumPy's rule
  rt::ArrayView out = v;
  out.ndim = int(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) out.shape[i] = shape[i];
  if (size == 0) {
    contiguous_strides(shape, order == 'F', v.itemsize(), out.strides);
  } else if (!strides_without_copy(v, shape, order == 'F', out.strides)) {
    not_implemented("reshape would require copy: the device array of " + layout_text(v) +
                    " has no view of shape " + tuple_text(shape.data(), shape.size()) + " in order '" +
                    order +
                    "' (its elements in that order are not evenly spaced), and device arrays are not copied "
                    "to reshape them (nor are numba-cuda's); make a contiguous copy first");
  }
  return out;
}

rt::ArrayView raveled_view(const rt::ArrayView& v, char order) {
  bool c = v.is_c_contiguous(), f = v.is_f_contiguous();
  bool view = order == 'C' ? c : order == 'F' ? f : (c || f);  // 'A' and 'K': the order of the memory
  if (!view) {
    not_implemented(std::string("ravel on non-contiguous array: the device array of ") + layout_text(v) +
                    " is not contiguous in order '" + order +
                    "', and device arrays are flattened without a "
                    "copy (as numba-cuda's are); make a contiguous copy first");
  }
  rt::ArrayView out = v;
  out.ndim = 1;
  out.shape[0] = v.size();
  out.strides[0] = v.itemsize();
  return out;
}

}  // namespace gpujit::py
