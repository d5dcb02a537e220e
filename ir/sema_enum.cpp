// Semantic analysis of the attributes of Enum members (ir/enum_type.h): `member.value` is the member's value,
// as numba gives it; an IntEnum's member has an int's attributes besides (`.real`, `.imag`). Comparisons of
// members are typed with the other comparisons (ir/type_rules.h type_compare), `Color.red` and
// `Color['red']` with the other classes of constants (sema_expr.cpp).
#include <fmt/format.h>

#include "ir/enum_type.h"
#include "ir/sema_internal.h"

namespace gpujit {

ExprResult FunctionAnalyzer::enum_attribute(const AttributeExpr& e, const ExprResult& base) {
  const EnumType& cls = *base.type.enum_class;
  if (e.attr == "value") {
    ExprResult r = ExprResult::of_value(cls.value_type);
    if (base.value) {
      ConstValue plain = *base.value;
      plain.enum_class = nullptr;
      r = ExprResult::of_const(std::move(plain));
    }
    return record(e, r);
  }
  if (cls.is_int && e.attr != "name") {  // an int's attributes (.real, .imag, .conjugate), as a number's
    ExprResult r = member(e, base);
    if (!r.ok()) return r;
    r.type.enum_class = nullptr;  // m.real is a plain int
    if (r.value) r.value->enum_class = nullptr;
    if (checking_) {
      Symbol s;
      s.kind = Symbol::Kind::Builtin;
      s.name = path_of(e);
      s.builtin = r.builtin;
      fn_.symbols[&e] = s;
    }
    return record(e, r);
  }
  if (e.attr == "name") {
    error(e.attr_range,
          fmt::format("'.name' of an Enum member is a string, which kernels do not hold; compare "
                      "the member itself ('{} == {}.{}'){}",
                      path_of(*e.value).empty() ? "m" : path_of(*e.value), cls.name,
                      cls.members.front().first, origin_of(*e.value)));
    return ExprResult::error();
  }
  error(e.attr_range, fmt::format("'{}' has no attribute '{}'; an Enum member in a kernel has '.value'{}",
                                  base.type.str(), e.attr, origin_of(*e.value)));
  return ExprResult::error();
}

}  // namespace gpujit
