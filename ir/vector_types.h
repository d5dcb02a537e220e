// numba-cuda's CUDA vector types: `cuda.float32x4(x, y, z, w)`, `cuda.int2(a, b)`, `cuda.double3(v2, z)`.
//
// One type per base type numba-cuda has vectors of (int8 ... uint64, float32, float64) and per lane count 1
// to 4, named `<base>x<lanes>` ("float32x4"), and CUDA's C names as aliases of the same type ("float4",
// "int2", "uchar3", "double2", "longlong1" ...; numba-cuda maps the C type names to fixed widths the way
// NumPy does on 64-bit Linux: long is int64, char int8). In a kernel the name is a constructor: its
// arguments are numbers (converted to the base type as a C call converts them) and vectors of the same base
// type (their lanes spread in order; a 1-lane vector counts as a number), `lanes` of them in all. The value
// has read-only attributes x, y, z, w (as many as it has lanes); it can be a variable, a tuple element, a
// device function's argument or result. It has no operators, as in numba-cuda. Its type is
// Type::vector_of() (ir/types.h), lowered to an LLVM vector <lanes x base> on every target.
//
// The rows are builtins of the Kernel scope with id VectorCtor, kept here as the bf16 ones are; a row's
// `axis` is the index of its vector type (vector_type_of()). Aliases have rows of their own with the same
// type.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/builtins.h"
#include "ir/types.h"

namespace gpujit {

/// The builtin row of cuda.<name> when `name` names a vector type ("float32x4", "float4"), or nullptr.
const BuiltinInfo* find_vector_builtin(std::string_view name);
/// The vector type a VectorCtor row constructs.
Type vector_type_of(const BuiltinInfo& row);
/// Every vector type's name, numba's first ("int8x1" ... "float64x4"), then the aliases ("char1" ...).
std::vector<std::string_view> vector_type_names();
/// The name of a lane: "x", "y", "z", "w".
const char* vector_lane_name(unsigned lane);
/// The lane an attribute names ("x" is 0 ... "w" is 3), or -1.
int vector_lane_of(std::string_view attr);

/// The docs' section on vector types, in Markdown (builtins_markdown() includes it).
std::string vector_types_markdown();

}  // namespace gpujit
