// Interning of enum classes (see enum_type.h).
#include "ir/enum_type.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <mutex>

namespace gpujit {

namespace {

struct Registry {
  std::mutex mutex;
  std::deque<EnumType> enums;  // a deque never moves its elements: the pointers handed out stay valid
  std::map<const void*, const EnumType*> by_identity;
  /// How many class objects of each module and name were seen: the next one's ordinal.
  std::map<std::string, unsigned> seen;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: enum types outlive every compile, even at exit
  return *r;
}

/// Whether a member value of type `t` can be held in a kernel: numbers, bools and tuples of them.
bool holdable(const Type& t) {
  if (t.is_tuple()) {
    for (const Type& e : t.elements)
      if (!holdable(e)) return false;
    return true;
  }
  return t.is_scalar();
}

}  // namespace

Type EnumType::member_type() const {
  Type t = is_int ? value_type : Type::invalid();
  if (!is_int) t.kind = Type::Kind::EnumMember;
  t.enum_class = this;
  return t;
}

const ConstValue* EnumType::find(std::string_view member) const {
  for (const auto& [n, v] : members) {
    if (n == member) return &v;
  }
  return nullptr;
}

const EnumType* intern_enum(EnumDescription d, std::string* error) {
  auto fail = [&](std::string message) -> const EnumType* {
    if (error) *error = std::move(message);
    return nullptr;
  };
  if (d.members.empty()) return fail(fmt::format("Enum '{}' has no members", d.name));
  Type value_type;
  std::string first;
  for (const auto& [member, value] : d.members) {
    Type t = value.type();
    if (value.kind == ConstValue::Kind::String || !holdable(t)) {
      return fail(
          fmt::format("the value {} of member '{}' of Enum '{}' is not a number, a bool or a tuple of "
                      "them; kernels hold an Enum member as its value",
                      value.str(), member, d.name));
    }
    if (!value_type.is_valid()) {
      value_type = t;
      first = member;
    } else if (t != value_type) {
      return fail(
          fmt::format("the members of Enum '{}' have values of different types ({} for '{}', {} for "
                      "'{}'); kernels, as numba, need one type for all of them",
                      d.name, value_type.str(), first, t.str(), member));
    }
    if (d.is_int && !t.is_integer())
      return fail(fmt::format("IntEnum '{}' has the value {} of type {}", d.name, value.str(), t.str()));
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (auto it = r.by_identity.find(d.identity); it != r.by_identity.end()) return it->second;
  if (r.enums.size() >= kMaxEnumTypes)
    return fail(fmt::format("too many distinct Enum classes in one process (at most {})", kMaxEnumTypes));
  EnumType& e = r.enums.emplace_back();
  e.id = uint16_t(r.enums.size());
  e.name = std::move(d.name);
  e.module = std::move(d.module);
  e.is_int = d.is_int;
  e.value_type = value_type;
  e.members = std::move(d.members);
  for (auto& [member, value] : e.members) value.enum_class = &e;
  e.spelling = fmt::format("{}EnumMember(<enum '{}'>, {})", e.is_int ? "Int" : "", e.name, value_type.str());
  std::string qualified = fmt::format("{}.{}", e.module, e.name);
  unsigned ordinal = r.seen[qualified]++;
  e.key = ordinal ? fmt::format("{}#{}", qualified, ordinal) : qualified;
  r.by_identity.emplace(d.identity, &e);
  return &e;
}

OpTyping type_enum_compare(CmpOpKind op, const Type& lhs, const Type& rhs) {
  const bool opaque = lhs.kind == Type::Kind::EnumMember || rhs.kind == Type::Kind::EnumMember;
  OpTyping t;
  t.result = Type::scalar_of(ScalarKind::Bool);
  switch (op) {
    case CmpOpKind::Is:
    case CmpOpKind::IsNot:
      t.operand = lhs == rhs ? lhs : Type::void_();
      return t;
    case CmpOpKind::Eq:
    case CmpOpKind::NotEq:
      if (!opaque) return OpTyping{};  // IntEnum members are ints
      t.operand = lhs == rhs ? lhs : Type::void_();
      return t;
    case CmpOpKind::In:
    case CmpOpKind::NotIn:
      return OpTyping{};
    default:
      break;
  }
  if (!opaque) return OpTyping{};
  auto name = [](const Type& x) { return x.enum_class ? x.enum_class->name : x.str(); };
  t = OpTyping{};
  t.error = fmt::format(
      "'{}' not supported between instances of '{}' and '{}'; Enum members compare with == "
      "and != only (or order their .value)",
      to_string(op), name(lhs), name(rhs));
  return t;
}

const EnumType* enum_by_id(unsigned id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return id >= 1 && id <= r.enums.size() ? &r.enums[id - 1] : nullptr;
}

}  // namespace gpujit
