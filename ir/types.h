// Types of the kernel language.
//
// A Type is a small value: compare with ==, copy freely. The value types are the scalars of NumPy that
// numba-cuda supports, NumPy structured scalars (records, ir/record_type.h), arrays of either (dtype, ndim,
// layout) and tuples; Void is the return type of kernels
// and of device functions that return nothing. Names that are not values (modules, dtypes, builtins, device
// functions) are not types: semantic analysis resolves them to Symbols (ir/typed_function.h).
//
// Semantics fixed here, as in numba:
// - Python int literals are int64, float literals float64, True/False bool.
// - Integer arithmetic wraps on overflow (two's complement); there is no trap.
// - Promotion follows NumPy's rules for two array scalars (numba's): int32 + int64 -> int64, uint64 + int64 ->
//   float64, any int + float32 -> float64 except that an int64 *literal* mixed with float32 stays float32 the
//   way numba types literals. See unify() and promote_binary() in ir/type_rules.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpujit {

enum class ScalarKind : uint8_t {
  Bool,
  Int8, Int16, Int32, Int64,
  UInt8, UInt16, UInt32, UInt64,
  Float16, Float32, Float64,
  Complex64, Complex128,
  // numba-cuda's bfloat16 (numba.cuda.bf16): not a NumPy scalar; last so that the ranges above stay intact.
  BFloat16,
  // NumPy's datetime64 and timedelta64 (numba's NPDatetime and NPTimedelta): one kind per unit, from years
  // down to attoseconds, then the generic unit. An int64 count of units; NaT is INT64_MIN. The units and
  // numba's rules for them are in ir/datetime_types.h.
  DatetimeYears, DatetimeMonths, DatetimeWeeks, DatetimeDays, DatetimeHours, DatetimeMinutes, DatetimeSeconds,
  DatetimeMillis, DatetimeMicros, DatetimeNanos, DatetimePicos, DatetimeFemtos, DatetimeAttos, DatetimeGeneric,
  TimedeltaYears, TimedeltaMonths, TimedeltaWeeks, TimedeltaDays, TimedeltaHours, TimedeltaMinutes,
  TimedeltaSeconds, TimedeltaMillis, TimedeltaMicros, TimedeltaNanos, TimedeltaPicos, TimedeltaFemtos,
  TimedeltaAttos, TimedeltaGeneric,
  // numba-cuda's fp8 types (cuda_fp8.h's __nv_fp8_e4m3, __nv_fp8_e5m2, __nv_fp8_e8m0): one byte each, storage
  // only. They convert to and from numbers and bfloat16 (ir/fp8_functions.h), nothing else applies to them.
  Fp8E4M3, Fp8E5M2, Fp8E8M0,
};

/// numba's name for the scalar: "bool", "int32", "uint8", "float64", "complex64"...
const char* scalar_name(ScalarKind k);
/// Parses a dtype name, accepting numba's and NumPy's spellings and aliases ("float32", "f4", "int_",
/// "intp", "boolean", "b1", "double", "float_"...). nullopt if unknown.
std::optional<ScalarKind> parse_scalar_name(std::string_view name);
/// Size in bytes.
unsigned scalar_size(ScalarKind k);
bool is_integer(ScalarKind k);  // bool excluded
bool is_signed(ScalarKind k);   // signed integers only
bool is_unsigned(ScalarKind k); // unsigned integers only
bool is_float(ScalarKind k);    // float16/32/64
bool is_complex(ScalarKind k);
/// bfloat16 is a scalar of its own: not is_float() (it is not promoted with the other numbers, and math
/// functions and libdevice do not take it), see ir/type_rules.h for what it does.
inline bool is_bfloat16(ScalarKind k) { return k == ScalarKind::BFloat16; }
/// NumPy's datetime64 and timedelta64 of any unit. Neither is a number: only the operators of
/// ir/datetime_rules.h apply to them, and they convert to nothing but themselves implicitly.
inline bool is_datetime64(ScalarKind k) {
  return k >= ScalarKind::DatetimeYears && k <= ScalarKind::DatetimeGeneric;
}
inline bool is_timedelta64(ScalarKind k) {
  return k >= ScalarKind::TimedeltaYears && k <= ScalarKind::TimedeltaGeneric;
}
inline bool is_npdatetime(ScalarKind k) { return is_datetime64(k) || is_timedelta64(k); }
/// One of the fp8 types: not a number (no operators, no promotion), it only converts (explicitly).
inline bool is_fp8(ScalarKind k) { return k >= ScalarKind::Fp8E4M3 && k <= ScalarKind::Fp8E8M0; }

struct RecordType;  // ir/record_type.h
struct EnumType;    // ir/enum_type.h
struct NamedTupleType;  // ir/named_tuple.h
struct OpaqueType;      // ir/opaque_type.h

/// Array memory layout: C-contiguous ("float32[::1]", indexes without reading strides), any ("float32[:]"), or
/// Fortran-contiguous ("float32[::1, :]", numba's 'F': only arrays of two or more dimensions have it, a 1-D one is
/// C). An F array's element indexes without reading strides, as a C array's do (first axis fastest); its layout
/// is part of the type, so a signature that names it takes only Fortran-ordered arrays, as numba's does.
enum class Layout : uint8_t { C, Any, F };
/// numba's letter for a layout: "C", "A" or "F".
inline const char* layout_letter(Layout l) { return l == Layout::C ? "C" : l == Layout::F ? "F" : "A"; }

struct Type {
  /// GridGroup: the value cg.this_grid() returns (numba's grid_group); it has no data, only g.sync().
  /// Record: a NumPy structured scalar, held by reference (its value is the address of its bytes, as in numba).
  /// Pointer: numba's CPointer, an address of elements of `scalar` ("float32*" in a signature), indexed as
  /// p[i] with no extent; a kernel takes one as a Python int (a device address). With `void_pointee`, numba's
  /// voidptr ("void*", also "none*", numba's CPointer(void)): an address of no element type (`scalar` is uint8
  /// for the C ABI), passed on and given to carray() with a dtype, never indexed.
  /// Vector: a CUDA vector type (ir/vector_types.h), `lanes` numbers of type `scalar`, a value like a tuple;
  /// or, with `dim3` set, numba's Dim3: cuda.threadIdx, blockIdx, blockDim or gridDim read whole (three
  /// int32 lanes x, y, z).
  /// EnumMember: a member of the Enum class `enum_class` that is not an IntEnum (ir/enum_type.h), held as its
  /// value. An IntEnum's member is a Scalar with `enum_class` set.
  /// CharSeq: a fixed-width string, numba's CharSeq ([char x n], `scalar` uint8: NumPy's 'S<n>') or
  /// UnicodeCharSeq ([unichr x n], `scalar` uint32: 'U<n>'), `length` code units held by value; string
  /// literals are CharSeqs of their own length. An array of them has a string dtype as its `record`.
  /// Class: numba's NumberClass, the type of a dtype object (`np.int32`, `numba.float64`) passed as a kernel
  /// argument, spelled "class(int32)"; `scalar` is the dtype. It has no value at run time: the kernel is
  /// specialized on the dtype, and its parameter names that dtype at compile time (`cuda.local.array(n, dty)`).
  /// Opaque: a library's opaque type `opaque` (ir/opaque_type.h), spelled "opaque(name)"; like Class, it has
  /// no value at run time: overload_attribute and overload_method implementations are chosen by the type.
  enum class Kind : uint8_t { Invalid, Void, None, Scalar, Array, Tuple, GridGroup, Record, Pointer, Vector,
                              EnumMember, CharSeq, Class, Opaque };

  Kind kind = Kind::Invalid;
  ScalarKind scalar = ScalarKind::Int64;  // Scalar: the scalar; Array: the dtype unless `record` is set;
                                          // Pointer: the element type
  /// Record: its layout; Array: the dtype when it is a record. Interned (ir/record_type.h): equal layouts
  /// have one pointer, so comparing pointers compares the full dtype descriptions.
  const RecordType* record = nullptr;
  uint8_t ndim = 0;                       // Array only
  Layout layout = Layout::Any;            // Array only
  /// Array only: every in-bounds element lies within 2 GiB of the data pointer and every extent is below
  /// 2**31, so index arithmetic may be done in 32 bits (codegen/array_access.cpp). The launch path sets it
  /// from the actual array (runtime/kernel_args.h); shared, local and constant arrays always have it. It is
  /// part of the specialization (equality, key()) but not of numba's spelling (str()).
  bool index32 = false;
  uint8_t lanes = 0;                      // Vector only: 1 to 4
  bool dim3 = false;                      // Vector only: numba's Dim3 rather than int32x3
  std::vector<Type> elements;             // Tuple only
  /// Tuple only: the collections.namedtuple class of an instance of one (numba's NamedTuple and
  /// NamedUniTuple), whose fields name the elements; null for a plain tuple. Interned, compared by pointer.
  const NamedTupleType* named = nullptr;
  /// EnumMember, and Scalar for an IntEnum's member: the class. Interned, compared by pointer.
  const EnumType* enum_class = nullptr;
  /// Opaque only: the type. Interned, compared by pointer.
  const OpaqueType* opaque = nullptr;
  uint32_t length = 0;                    // CharSeq only: its number of code units
  bool void_pointee = false;              // Pointer only: "void*" (see Kind)

  static Type invalid() { return {}; }
  static Type void_() { Type t; t.kind = Kind::Void; return t; }
  static Type none() { Type t; t.kind = Kind::None; return t; }
  static Type scalar_of(ScalarKind k) { Type t; t.kind = Kind::Scalar; t.scalar = k; return t; }
  static Type array_of(ScalarKind dtype, unsigned ndim, Layout layout, bool index32 = false) {
    Type t; t.kind = Kind::Array; t.scalar = dtype; t.ndim = static_cast<uint8_t>(ndim);
    t.layout = layout == Layout::F && ndim < 2 ? Layout::C : layout;  // one axis: Fortran order is C order
    t.index32 = index32;
    return t;
  }
  /// An array whose element type is `element` (a scalar, a record or a CharSeq: its string dtype is
  /// interned, ir/record_type.h).
  static Type array_of(const Type& element, unsigned ndim, Layout layout, bool index32 = false);
  static Type record_of(const RecordType* r) { Type t; t.kind = Kind::Record; t.record = r; return t; }
  static Type tuple_of(std::vector<Type> elts) { Type t; t.kind = Kind::Tuple; t.elements = std::move(elts); return t; }
  static Type grid_group() { Type t; t.kind = Kind::GridGroup; return t; }
  static Type pointer_to(ScalarKind k) { Type t; t.kind = Kind::Pointer; t.scalar = k; return t; }
  /// numba's voidptr, "void*".
  static Type void_pointer() { Type t = pointer_to(ScalarKind::UInt8); t.void_pointee = true; return t; }
  static Type vector_of(ScalarKind k, unsigned lanes) {
    Type t; t.kind = Kind::Vector; t.scalar = k; t.lanes = static_cast<uint8_t>(lanes);
    return t;
  }
  static Type dim3_() { Type t = vector_of(ScalarKind::Int32, 3); t.dim3 = true; return t; }
  /// A fixed-width string of `length` code units `unit` (uint8 for bytes, uint32 for str).
  static Type charseq_of(ScalarKind unit, uint32_t length) {
    Type t; t.kind = Kind::CharSeq; t.scalar = unit; t.length = length;
    return t;
  }

  /// numba's NumberClass of dtype `k` (Kind::Class).
  static Type class_of(ScalarKind k) { Type t; t.kind = Kind::Class; t.scalar = k; return t; }
  /// A library's opaque type (Kind::Opaque).
  static Type opaque_of(const OpaqueType* o) { Type t; t.kind = Kind::Opaque; t.opaque = o; return t; }

  bool is_valid() const { return kind != Kind::Invalid; }
  bool is_void() const { return kind == Kind::Void; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_array() const { return kind == Kind::Array; }
  bool is_tuple() const { return kind == Kind::Tuple; }
  bool is_record() const { return kind == Kind::Record; }
  bool is_pointer() const { return kind == Kind::Pointer; }
  bool is_vector() const { return kind == Kind::Vector; }
  /// An Enum member of any class: EnumMember, or an IntEnum's member (an integer Scalar).
  bool is_enum() const { return enum_class != nullptr; }
  bool is_charseq() const { return kind == Kind::CharSeq; }
  bool is_class() const { return kind == Kind::Class; }
  bool is_opaque() const { return kind == Kind::Opaque; }
  /// Array only: the element type, a scalar, a record or a CharSeq.
  Type element() const;
  /// Array only: the size in bytes of one element.
  unsigned itemsize() const;
  /// Array only: the alignment in bytes of one element.
  unsigned element_align() const;
  bool is_scalar(ScalarKind k) const { return kind == Kind::Scalar && scalar == k; }
  bool is_bool() const { return is_scalar(ScalarKind::Bool); }
  bool is_integer() const { return kind == Kind::Scalar && gpujit::is_integer(scalar); }
  bool is_float() const { return kind == Kind::Scalar && gpujit::is_float(scalar); }
  bool is_complex() const { return kind == Kind::Scalar && gpujit::is_complex(scalar); }
  bool is_bfloat16() const { return kind == Kind::Scalar && scalar == ScalarKind::BFloat16; }
  bool is_fp8() const { return kind == Kind::Scalar && gpujit::is_fp8(scalar); }
  /// A datetime64 or timedelta64 scalar (ir/datetime_types.h).
  bool is_npdatetime() const { return kind == Kind::Scalar && gpujit::is_npdatetime(scalar); }

  /// numba's spelling: "float32", a record as "Record(a[type=int32;offset=0],b[type=float32;offset=4];8;False)", "float32[:, ::1]" (C layout marks the last axis), "UniTuple(int64, 2)" (a
  /// tuple whose elements all have one type), "Tuple(int64, float32)" (any other tuple, "Tuple()" the empty
  /// one), a namedtuple as its class's name and elements, "Point(int64 x 2)" or "Point(int64, float64)", "float32x4" (a vector), "Dim3", "EnumMember(<enum 'Color'>, int64)" and
  /// "IntEnumMember(<enum 'Shape'>, int64)", "[char x 12]" and "[unichr x 12]", "class(int32)", "void", "none"; NumPy's
  /// datetimes as "datetime64[D]" and "timedelta64[ns]" (numba's names), an array of them as
  /// "datetime64[D][::1]".
  std::string str() const;
  /// str() plus what tells specializations apart beyond numba's spelling (index32): for cache keys and
  /// mangled names, never for users.
  std::string key() const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }
};

/// A function signature: return type and parameter types, as in "void(float32[:], float32)".
struct Signature {
  Type ret = Type::void_();
  std::vector<Type> params;

  std::string str() const;  // "void(float32[:], float32)"
  std::string key() const;  // as str(), from Type::key()
  friend bool operator==(const Signature& a, const Signature& b) { return a.ret == b.ret && a.params == b.params; }
};

/// Parses a type as numba writes it: "float32", "float32[:]", "float32[:, :]", "float32[:, ::1]",
/// "float32[::1]", "float32*" (a pointer), "int64", "datetime64[D]", "timedelta64[ns][::1]", "UniTuple(int64, 2)",
/// "Tuple(int64, float32)". On failure returns an invalid
/// type and sets *error to a lowercase message.
Type parse_type(std::string_view text, std::string* error);
/// Parses "void(float32[:], float32)" or, without a return type, "float32[:], float32" (ret = void).
std::optional<Signature> parse_signature(std::string_view text, std::string* error);

}  // namespace gpujit
