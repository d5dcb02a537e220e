// Element types at the Python boundary: buffer-protocol formats, __cuda_array_interface__ typestrs, DLPack
// codes and NumPy dtypes, all mapped to and from gpujit's ScalarKind.
//
// NumPy is never imported here unless a NumPy object must be made (numpy_dtype(), empty arrays): `import
// gpujit` stays cheap, and NumPy arrays are read through the buffer protocol, which needs no NumPy headers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

#include "ir/record_type.h"
#include "ir/types.h"
#include "runtime/device_array.h"

namespace gpujit::py {

namespace pyb = pybind11;

/// The kind of a buffer-protocol format ("f", "<d", "Zf", "?"); nullopt if unsupported (big-endian,
/// records, pointers).
std::optional<ScalarKind> kind_from_format(const char* format);
/// The kind of an array-interface typestr ("<f4", "|b1", "<c8"); nullopt if unsupported.
std::optional<ScalarKind> kind_from_typestr(std::string_view typestr);
/// The typestr of a kind: "<f4", "|b1", "<c16".
std::string typestr_of(ScalarKind kind);
/// DLPack (code, bits) of a kind, and back.
void dlpack_type_of(ScalarKind kind, uint8_t* code, uint8_t* bits);
std::optional<ScalarKind> kind_from_dlpack(uint8_t code, uint8_t bits, uint16_t lanes);

/// The kind a dtype-like object names: a gpujit dtype, a NumPy dtype or scalar type, a numba type, a string
/// ("float32", "f4"), or Python's float/int/bool/complex. Throws TypeError naming the object.
ScalarKind kind_from_dtype_like(pyb::handle obj);
/// The record type of a NumPy structured dtype (align=True or packed, nested records, sub-array fields);
/// null if `dtype` is not a structured dtype. Throws TypeError naming the field whose type kernels cannot
/// use (objects, big-endian numbers); fixed-width string fields ('S5', 'U5') are CharSeqs (ir/charseq.h).
/// Cached per dtype.
const RecordType* record_from_numpy(pyb::handle dtype);
/// An element type: a scalar kind, or a record (then `kind` is unused).
struct ElementType {
  ScalarKind kind = ScalarKind::Float64;
  const RecordType* record = nullptr;
};
/// As kind_from_dtype_like, accepting structured dtypes and string dtypes ('S12', np.dtype('<U5')) too.
ElementType element_from_dtype_like(pyb::handle obj);
/// How many dtype-like objects element_from_dtype_like has memoized (`_core._dtype_memo_size()`, for tests).
size_t dtype_memo_size();
/// The string dtype (ir/record_type.h intern_string_dtype) of NumPy's 'S<n>' or 'U<n>' from a typestr
/// ("|S12", "<U12") or a buffer format ("12s", "12w"); null for any other element type. numpy_dtype_of()
/// knows its NumPy dtype. Throws TypeError when the process has used up its record ids.
const RecordType* string_dtype_from_typestr(std::string_view typestr);
const RecordType* string_dtype_from_format(const char* format);
/// numpy.dtype of an array view's element type: the structured dtype a record came from.
pyb::object numpy_dtype_of(const rt::ArrayView& view);
/// numpy.dtype for a kind (imports NumPy on first use).
pyb::object numpy_dtype(ScalarKind kind);
/// The numpy module, imported on first use.
pyb::module_& numpy();

}  // namespace gpujit::py
