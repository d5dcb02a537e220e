// collections.namedtuple classes at the binding: the interned NamedTupleType of a class (ir/named_tuple.h),
// for instances passed as arguments (arguments.cpp).
//
// A namedtuple class is recognized as numba recognizes one: a subclass of tuple with a `_fields` attribute
// (a tuple of str). typing.NamedTuple classes are such subclasses too.
#pragma once

#include <pybind11/pybind11.h>

#include "ir/named_tuple.h"

namespace gpujit::py {

namespace pyb = pybind11;

/// Whether `obj` is an instance of a namedtuple class (not a plain tuple). Cheap for a plain tuple.
bool is_named_tuple_instance(PyObject* obj);
/// The namedtuple class of the Python class `cls`, made on first use and cached per class object (which is
/// kept alive for the life of the process). Throws TypeError when the process has used up the classes it
/// may pass.
const NamedTupleType& named_tuple_type_of(pyb::handle cls);

}  // namespace gpujit::py
