// Reshaping and flattening device array views without copying: DeviceArray.reshape and .ravel.
//
// A device array is never copied to change its shape (numba-cuda's DeviceNDArray copies neither): the result
// is a view of the same memory, or NotImplementedError when no view can hold the elements in the order asked.
// What counts as possible is NumPy's rule for a reshape without a copy: the new axes are grouped with the old
// ones whose extents multiply to the same number, and each group of old axes must be contiguous in the order
// of the reshape. So a C-contiguous array reshapes to any shape in C order, an F-contiguous one in F order,
// and a strided view where its strides allow; the elements come out in the order NumPy's reshape gives.
#pragma once

#include <vector>

#include <pybind11/pybind11.h>

#include "runtime/device_array.h"

namespace gpujit::py {

/// The view of `v` with shape `shape`, whose elements are read and placed in `order` ('C', 'F', or 'A': F for
/// an F-contiguous array, C otherwise). One entry of `shape` may be -1 (the size it must have). Throws
/// ValueError for a shape of another size, a bad order or a bad -1, and NotImplementedError when the view
/// would need a copy.
rt::ArrayView reshaped_view(const rt::ArrayView& v, std::vector<int64_t> shape, char order);

/// The 1-D view of `v`'s elements in `order` ('C', 'F', 'A' as above, or 'K': memory order); the array must
/// be contiguous in that order, or NotImplementedError (a flattened copy of a strided array is not made).
rt::ArrayView raveled_view(const rt::ArrayView& v, char order);

/// `order=` of reshape and ravel as a character; ValueError for anything else than the letters `allowed`.
char order_from_python(pybind11::handle order, const char* allowed);

/// A shape given to reshape: ints, or one tuple or list of them (-1 allowed once); TypeError for anything else.
std::vector<int64_t> reshape_args(const pybind11::args& args);

}  // namespace gpujit::py
