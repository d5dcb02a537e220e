// A library's opaque types as kernels see them: numba's Opaque (and Dummy) subclasses that an extension
// defines with typeof_impl and register_model (numba-cuda's tests make them with make_dummy_type).
//
// Such a value carries no data gpujit can read: its type is what matters, since overload_attribute and
// overload_method implementations are chosen by it. So a kernel or device function takes one as a
// compile-time argument, as it takes a dtype (Type::Kind::Class): the code is specialized on the type, the
// value lowers to an empty struct, and the launch path passes no parameter for it. numba-cuda cannot launch
// a kernel with such an argument either (its launch has no way to convert the Python object); what both
// do is compile one from an explicit signature.
//
// Types are interned by their spelling, which the binding makes unique per numba type object
// (gpujit._signature): intern_opaque() returns one OpaqueType per spelling for the life of the process, so
// Type equality is pointer equality. Each gets a small id (at most kMaxOpaqueTypes per process), which
// explicit signatures' keys hold (runtime/kernel_args.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpujit {

struct OpaqueType {
  uint16_t id = 0;       // 1..kMaxOpaqueTypes
  std::string spelling;  // "my_dummy": numba's str() of the type, made unique by the binding
};

/// The most distinct opaque types one process may use (the id must fit an argument code).
constexpr unsigned kMaxOpaqueTypes = 255;

/// The interned type spelled `spelling`, made on first request; null with *error set (a lowercase message)
/// when the process has used up kMaxOpaqueTypes or the spelling is empty. Thread-safe.
const OpaqueType* intern_opaque(std::string_view spelling, std::string* error);
/// The opaque type with this id, or null.
const OpaqueType* opaque_by_id(unsigned id);

}  // namespace gpujit
