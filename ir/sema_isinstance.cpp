// Semantic analysis of isinstance(x, classes): a compile-time test of x's type, as numba types it (its
// ol_isinstance overload), never a run-time check. The call is a bool constant, so an `if` on it keeps only
// the branch taken (FunctionAnalyzer::stmt prunes constant tests), and the other branch may hold code that
// would not type for x's type.
//
// numba's rules, kept here:
// - a Python class matches one type: `int` int64, `float` float64, `complex` complex128, `bool` bool (an
//   int32 is no `int`); `tuple` matches any tuple; `range` matches nothing a kernel can hold;
// - a dtype (np.float32, gpu.int16, cuda.bf16's nv_bfloat16) matches its own type; np.datetime64 and
//   np.timedelta64 match any unit;
// - a tuple of classes matches when one of them does;
// - x must be a number, a bool, a datetime, an array, a tuple, None or a unicode string; isinstance of a
//   record, a pointer, a vector, an Enum member or a bytes string is an error, as in numba (whose default
//   of False for an unknown type would hide bugs).
#include <fmt/format.h>

#include <optional>
#include <vector>

#include "ir/builtins.h"
#include "ir/sema_internal.h"

namespace gpujit {

namespace {

bool isinstance_supported(const Type& t) {
  if (t.is_enum()) return false;  // an Enum member, or an IntEnum's
  if (t.is_charseq()) return t.scalar == ScalarKind::UInt32;  // numba's UnicodeCharSeq, not bytes
  return t.is_scalar() || t.is_array() || t.is_tuple() || t.kind == Type::Kind::None;
}

// Whether `cls` (a class written in the call) matches x's type `t`; nullopt when `cls` is no class.
std::optional<bool> class_matches(const ExprResult& cls, const Type& t) {
  if (cls.what == ExprResult::What::DType) {
    if (cls.record) return false;  // records are no supported `x`
    if (!t.is_scalar()) return false;
    if (is_datetime64(cls.dtype)) return is_datetime64(t.scalar);
    if (is_timedelta64(cls.dtype)) return is_timedelta64(t.scalar);
    return t.scalar == cls.dtype;
  }
  if (cls.what != ExprResult::What::Builtin || !cls.builtin) return std::nullopt;
  switch (cls.builtin->id) {
    case BuiltinId::Int: return t == Type::scalar_of(ScalarKind::Int64);
    case BuiltinId::Float: return t == Type::scalar_of(ScalarKind::Float64);
    case BuiltinId::Complex: return t == Type::scalar_of(ScalarKind::Complex128);
    case BuiltinId::Bool: return t == Type::scalar_of(ScalarKind::Bool);
    case BuiltinId::TupleFn: return t.is_tuple();
    case BuiltinId::Range: return false;
    default: return std::nullopt;
  }
}

}  // namespace

ExprResult FunctionAnalyzer::isinstance_call(const CallExpr& e) {
  if (e.args.size() != 2 || !e.keywords.empty()) {
    error(e.range, fmt::format("isinstance() takes 2 arguments, a value and a class or a tuple of classes; "
                               "got {}{}",
                               e.args.size(), e.keywords.empty() ? "" : " and keyword arguments"));
    return ExprResult::error();
  }
  ExprResult x = value(*e.args[0]);
  if (x.what == ExprResult::What::Unknown) return ExprResult::unknown();
  if (!x.is_value()) return ExprResult::error();
  if (!isinstance_supported(x.type)) {
    error(e.args[0]->range, fmt::format("isinstance() does not support variables of type \"{}\"{}",
                                        x.type.str(), origin_of(*e.args[0])));
    return ExprResult::error();
  }
  std::vector<const Expr*> classes;
  if (const auto* t = e.args[1]->as<TupleExpr>()) {
    for (const ExprPtr& c : t->elts) classes.push_back(c.get());
  } else {
    classes.push_back(e.args[1].get());
  }
  bool matched = false;
  for (const Expr* c : classes) {
    ExprResult cls = expr(*c);
    if (cls.what == ExprResult::What::Unknown) return ExprResult::unknown();
    if (!cls.ok()) return ExprResult::error();
    std::optional<bool> m = class_matches(cls, x.type);
    if (!m) {
      std::string what = path_of(*c);
      error(c->range, fmt::format("isinstance() takes a class (int, float, complex, bool, tuple or a dtype such "
                                  "as np.float32) or a tuple of them; {} is none",
                                  what.empty() ? "this" : "'" + what + "'"));
      return ExprResult::error();
    }
    matched = matched || *m;
  }
  return record(e, ExprResult::of_const(ConstValue::of_bool(matched)));
}

}  // namespace gpujit
