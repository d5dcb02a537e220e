// Fixed-width strings in kernels: numba's CharSeq ([char x n], NumPy's 'S<n>') and UnicodeCharSeq
// ([unichr x n], 'U<n>'), Type::Kind::CharSeq (ir/types.h).
//
// A CharSeq is `length` code units held by value: bytes for 'S', UTF-32 code points for 'U', as NumPy stores
// them. An element of a string array, a string field of a record and a string literal are CharSeqs (a literal
// of its own length: "XYZ" is [unichr x 3], b"XYZ" is [char x 3]). NumPy's semantics hold throughout:
// - A string converts to another of the same kind (str to 'U', bytes to 'S') by truncating or padding with
//   NUL code units: `a[i] = "XYZ"` on a 'U12' array stores XYZ and nine NULs, as NumPy and numba do. A str is
//   not stored into 'S', nor bytes into 'U' (numba has no such conversion either).
// - == and != compare two strings of one kind as NumPy does, trailing NULs ignored ('ab' == 'ab\0').
// - len(s) counts up to the last non-NUL code unit, NumPy's length; len() of a literal is Python's.
// Strings have no other operators in kernels, and no truth value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/type_rules.h"
#include "ir/typed_function.h"

namespace gpujit {

/// "str" or "bytes", for messages: the Python type a CharSeq of `t`'s kind holds.
const char* charseq_python_name(const Type& t);
/// Types `lhs op rhs` where either is a CharSeq: == and != of two of one kind, compared at the longer length.
OpTyping type_charseq_compare(CmpOpKind op, const Type& lhs, const Type& rhs);
/// The type two CharSeqs of one kind unify to (the longer); invalid for two kinds.
Type unify_charseq(const Type& a, const Type& b);
/// Why a value of type `from` cannot be stored where a CharSeq `to` is (or a CharSeq where `to` is), or ""
/// when it can.
std::string charseq_store_error(const Type& from, const Type& to);
/// The code units of a String constant: its bytes, or its UTF-8 text decoded to code points.
std::vector<uint32_t> code_units(const ConstValue& c);
/// Python's len() of a String constant.
int64_t constant_length(const ConstValue& c);

}  // namespace gpujit
