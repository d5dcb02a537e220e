// collections.namedtuple classes as kernels see them: numba's NamedTuple and NamedUniTuple types.
//
// An instance of a namedtuple class is a tuple (Type::Kind::Tuple) tagged with its class (Type::named): it
// indexes, unpacks, iterates and takes len() as the tuple it is, and reads its elements by field name as
// well (`p.x` is `p[0]` for fields ("x", "y")). The class is part of the type, as in numba, so two classes
// with the same element types but different names, or different fields, specialize apart; numba spells the
// type with the class's name, "Point(int64 x 2)" when every element has one type, "Point(int64, float64)"
// otherwise.
//
// Classes are interned as enum classes are (ir/enum_type.h): intern_named_tuple() returns one
// NamedTupleType per class object (the binding passes its address as the identity and keeps the class
// alive) for the life of the process, so Type equality is pointer equality. Each gets a small id (at most
// kMaxNamedTupleTypes per process) that the launch path packs into its argument codes
// (runtime/kernel_args.h), and a `key` that tells apart two class objects of one module and name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/types.h"

namespace gpujit {

struct NamedTupleType {
  uint16_t id = 0;                  // 1..kMaxNamedTupleTypes
  std::string name;                 // the class's __name__, numba's spelling: "Point"
  std::string module;               // the class's __module__
  std::vector<std::string> fields;  // _fields, in order
  /// "module.qualname", and "#n" after it for the n-th class object of that module and name seen by this
  /// process (n > 0): for cache keys and mangled names.
  std::string key;

  /// The position of the field `field`, or nullopt.
  std::optional<size_t> find(std::string_view field) const;
  /// "'x', 'y'": the fields for messages.
  std::string field_list() const;
};

/// The most distinct namedtuple classes one process may use (the id must fit the launch path's codes).
constexpr unsigned kMaxNamedTupleTypes = 4095;

/// What the binding knows of a namedtuple class; `identity` is the class object's address, kept alive by
/// the caller for the life of the process.
struct NamedTupleDescription {
  std::string name;
  std::string qualname;
  std::string module;
  std::vector<std::string> fields;
  const void* identity = nullptr;
};

/// The interned class of `d`, made on first request. Returns null with *error set (a lowercase message
/// naming the class) when the process has used up kMaxNamedTupleTypes. Thread-safe.
const NamedTupleType* intern_named_tuple(NamedTupleDescription d, std::string* error);
/// The namedtuple class with this id, or null.
const NamedTupleType* named_tuple_by_id(unsigned id);
/// An instance of `cls` holding `elements`: a tuple type tagged with the class.
Type named_tuple_of(const NamedTupleType* cls, std::vector<Type> elements);

}  // namespace gpujit
