// Enum classes as kernels see them: numba's EnumMember and IntEnumMember types.
//
// A member of an `enum.Enum` class is typed by its class and represented by its value, as numba does: every
// member's value must have one type (numbers, bools, tuples of them), and the member is that value at run
// time. Two members of one class are equal (and `is` each other) when their values are equal, since a class
// never holds two members with one value (a second name for a value is an alias of the first member); members
// of different classes are never equal. A member of an IntEnum (any Enum that is also an int, IntFlag too) is
// an integer besides: its type is the integer scalar tagged with its class (Type::enum_class), so it takes
// part in arithmetic, comparisons and conversions as the int it is, and only `is` and specialization tell it
// apart from a plain int. Any other member's type is Type::Kind::EnumMember, which has no operators but
// ==, !=, `is`, `is not` and the attribute `.value`.
//
// Enum classes are interned: intern_enum() returns one EnumType per distinct class object (the binding passes
// the class's address as its identity and keeps the class alive), for the life of the process, so Type
// equality is pointer equality. Each gets a small id (at most kMaxEnumTypes per process), which the launch
// path packs into its argument codes (runtime/kernel_args.h). Two class objects with the same module and name
// (a class made anew each time a function runs) are distinct types; their `key` tells them apart by the
// order they were first seen in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/type_rules.h"
#include "ir/typed_function.h"
#include "ir/types.h"

namespace gpujit {

struct EnumType {
  uint16_t id = 0;      // 1..kMaxEnumTypes
  std::string name;     // the class's __qualname__: "Color"
  std::string module;   // the class's __module__
  bool is_int = false;  // an IntEnum (or IntFlag): its members are integers too
  Type value_type;      // the type of every member's value
  /// Every member by name, aliases included, in definition order; each value is tagged with this class
  /// (ConstValue::enum_class), so that ConstValue::type() is the member type.
  std::vector<std::pair<std::string, ConstValue>> members;
  /// numba's spelling: "EnumMember(<enum 'Color'>, int64)", "IntEnumMember(<enum 'Shape'>, int64)".
  std::string spelling;
  /// What tells two classes of one spelling apart in cache keys and mangled names: "module.qualname", and
  /// "#n" after it for the n-th class object of that module and name seen by this process (n > 0).
  std::string key;

  /// The type of this class's members: its value type tagged with the class for an IntEnum, else EnumMember.
  Type member_type() const;
  /// The member named `name` (an alias finds the member it aliases), or null.
  const ConstValue* find(std::string_view name) const;
};

/// The most distinct enum classes one process may use (the id must fit the launch path's codes).
constexpr unsigned kMaxEnumTypes = 255;

/// What the binding knows of an Enum class; `identity` is the class object's address, kept alive by the
/// caller for the life of the process.
struct EnumDescription {
  std::string name;
  std::string module;
  bool is_int = false;
  std::vector<std::pair<std::string, ConstValue>> members;  // values untagged
  const void* identity = nullptr;
};

/// The interned enum class of `d`, made on first request. Returns null with *error set (a lowercase message
/// naming the class) when the class has no members, when its members' values are not all of one type, or are
/// of a type kernels do not hold (strings), or when the process has used up kMaxEnumTypes. Thread-safe.
const EnumType* intern_enum(EnumDescription d, std::string* error);
/// The enum class with this id, or null.
const EnumType* enum_by_id(unsigned id);

/// Types `lhs op rhs` where either is an Enum member, as numba and Python do:
/// - `is` and `is not`: members of one class compare their values; anything else is decided by the types
///   (`is` false, `is not` true);
/// - == and != of an EnumMember: as `is` (a member equals only itself); of two IntEnum members, or one and a
///   number, left to the numbers' rules (members compare as ints);
/// - ordering an EnumMember is an error; an IntEnum member orders as an int.
/// A comparison the types decide has the operand type void; one left to the numbers' rules returns an
/// OpTyping with no error and an invalid operand.
OpTyping type_enum_compare(CmpOpKind op, const Type& lhs, const Type& rhs);

}  // namespace gpujit
