// Python's Enum classes at the binding: the interned EnumType of a class (ir/enum_type.h), for the globals a
// kernel names (kernel_source.cpp) and for members passed as arguments (arguments.cpp).
//
// The `enum` module is never imported here: if it is not loaded, no object can be an Enum member.
#pragma once

#include <optional>

#include <pybind11/pybind11.h>

#include "ir/enum_type.h"

namespace gpujit::py {

namespace pyb = pybind11;

/// The enum class of the Python Enum class `cls`, made on first use and cached per class object (which is
/// kept alive for the life of the process). Throws TypeError naming the class when kernels cannot hold its
/// members (their values are not numbers, bools or tuples of them, or not all of one type).
const EnumType& enum_type_of(pyb::handle cls);
/// Whether `obj` is a member of an Enum class. Slow (an isinstance check): for the launch path's rare
/// cases only.
bool is_enum_member(PyObject* obj);
/// A Python value as a compile-time constant: a bool, an int (int64, or uint64 above it), a float, a str,
/// a NumPy bool, integer or float, or a tuple of them; nullopt for anything else.
std::optional<ConstValue> constant_from_python(pyb::handle value);

}  // namespace gpujit::py
