// Semantic analysis of the Python builtins numba implements over tuples and arrays, and divmod:
// divmod(a, b), tuple(t), sum(t[, start]) and sum(a), min(t) and max(t) of a tuple.
//
// Their types are numba's:
// - divmod is one overload per machine integer and float type (numba's DivMod template), which picks as
//   NumPy promotes: as `a // b`, except that a uint64 beside a signed integer gives float64 (where numba's
//   // gives int64).
// - sum is numba's loop `acc = start; for x in t: acc = acc + x`: the accumulator's type is the unification
//   of start's type (int64 when left out) with every `acc + x`, to a fixed point (a sum of float32s is a
//   float64). operand_types holds that type first, then the type each addition runs in, one per element.
// - min(t) and max(t) are numba's loop over the tuple, comparing with < (>): the first smallest (largest)
//   element, a NaN kept only when it comes first; operand_types holds the tuple converted to one element
//   type.
#include <fmt/format.h>

#include "ir/const_eval.h"
#include "ir/sema_internal.h"
#include "ir/type_rules.h"
#include "ir/ufuncs.h"

namespace gpujit {

namespace {

bool is_real(const Type& t) { return t.is_scalar() && !t.is_complex() && !t.is_bfloat16() && !t.is_fp8(); }

/// The type numba's `acc = start; for x in elements: acc = acc + x` gives acc, or invalid with *error set.
Type sum_type(const Type& start, const std::vector<Type>& elements, std::string* error) {
  Type acc = start;
  // Each round can only widen acc (int64 -> float64 -> complex128); a few rounds reach the fixed point.
  for (int round = 0; round < 4; ++round) {
    Type next = acc;
    for (const Type& x : elements) {
      OpTyping t = type_binary(BinOpKind::Add, Operand{next}, Operand{x});
      Type u = t.ok() ? unify(next, t.result) : Type::invalid();
      if (!u.is_valid()) {
        *error = t.ok() ? fmt::format("the sum's type {} and {} do not unify", next.str(), t.result.str())
                        : t.error;
        return Type::invalid();
      }
      next = u;
    }
    if (next == acc) return acc;
    acc = next;
  }
  return acc;
}

}  // namespace

ExprResult FunctionAnalyzer::python_builtin_call(const CallExpr& e, const BuiltinInfo& b,
                                                 const std::vector<ExprResult>& args) {
  const std::string name = path_of(*e.func);
  const Type i64 = Type::scalar_of(ScalarKind::Int64);
  switch (b.typing) {
    case BuiltinTyping::Divmod: {
      std::vector<Operand> ops = {operand(args[0]), operand(args[1])};
      OpTyping t = type_binary(BinOpKind::FloorDiv, ops[0], ops[1]);
      if (!t.ok()) {
        error(e.range, fmt::format("divmod(a, b) computes a // b and a % b: {}{}{}", t.error,
                                   origin_of(*e.args[0]), origin_of(*e.args[1])));
        return ExprResult::error();
      }
      const Type& x = args[0].type;
      const Type& y = args[1].type;
      auto u64_beside_signed = [](const Type& u, const Type& s) {
        return u.is_scalar(ScalarKind::UInt64) && s.is_integer() && is_signed(s.scalar);
      };
      if (u64_beside_signed(x, y) || u64_beside_signed(y, x))
        t.operand = t.result = Type::scalar_of(ScalarKind::Float64);
      if (checking_) fn_.operand_types[&e] = {t.operand, t.operand};
      if (args[0].value && args[1].value) {
        std::optional<ConstValue> a = fold_cast(*args[0].value, t.operand.scalar);
        std::optional<ConstValue> d = fold_cast(*args[1].value, t.operand.scalar);
        std::optional<ConstValue> q = a && d ? fold_binary(BinOpKind::FloorDiv, *a, *d) : std::nullopt;
        std::optional<ConstValue> r = a && d ? fold_binary(BinOpKind::Mod, *a, *d) : std::nullopt;
        if (q && r && q->type() == t.result && r->type() == t.result)
          return record(e, ExprResult::of_const(ConstValue::of_tuple({*q, *r})));
      }
      return record(e, ExprResult::of_value(Type::tuple_of({t.result, t.result})));
    }
    case BuiltinTyping::TupleFn: {
      if (args.empty()) return record(e, ExprResult::of_const(ConstValue::of_tuple({})));
      if (!args[0].type.is_tuple()) {
        error(e.args[0]->range, fmt::format("{}() in a kernel takes a tuple, got {}{}", name,
                                            args[0].type.str(), origin_of(*e.args[0])));
        return ExprResult::error();
      }
      if (checking_) fn_.operand_types[&e] = {args[0].type};
      return record(e, args[0]);
    }
    case BuiltinTyping::MinMax: {  // min(t), max(t): one argument
      const Type& t = args[0].type;
      if (!t.is_tuple() || t.elements.empty()) {
        error(e.args[0]->range,
              fmt::format("{}() of one argument takes a non-empty tuple of numbers, got {}{}{}", name,
                          t.str(), origin_of(*e.args[0]),
                          t.is_array() ? fmt::format("; for an array use np.{}(a)",
                                                     b.id == BuiltinId::Min ? "min" : "max")
                                       : ""));
        return ExprResult::error();
      }
      Type elt;
      for (const Type& x : t.elements) {
        elt = !is_real(x) ? Type::invalid() : elt.is_valid() ? unify(elt, x) : x;
        if (!elt.is_valid()) {
          error(e.args[0]->range, fmt::format("{}() takes a tuple of real numbers, got {}{}", name, t.str(),
                                              origin_of(*e.args[0])));
          return ExprResult::error();
        }
      }
      if (checking_) fn_.operand_types[&e] = {Type::tuple_of(std::vector<Type>(t.elements.size(), elt))};
      return record(e, ExprResult::of_value(elt));
    }
    case BuiltinTyping::Sum: {
      const Type& t = args[0].type;
      const Type start = args.size() > 1 ? args[1].type : i64;
      if (args.size() > 1 && !start.is_scalar()) {
        error(e.args[1]->range,
              fmt::format("{}() start must be a number, got {}{}", name, start.str(), origin_of(*e.args[1])));
        return ExprResult::error();
      }
      std::vector<Type> elements;
      if (t.is_tuple()) {
        elements = t.elements;
      } else if (t.is_array() && t.ndim == 1 && t.element().is_scalar() && args.size() == 1) {
        elements = {t.element()};
      } else {
        std::string hint = !t.is_array() ? ""
                           : t.ndim != 1 ? "; numba's sum() adds the rows of an array of more than one "
                                           "dimension, which needs an array allocation: use np.sum(a)"
                           : args.size() > 1
                               ? "; sum(a, start) of an array is not supported: write sum(a) + start"
                               : "";
        error(e.args[0]->range,
              fmt::format("{}() takes a tuple of numbers or a 1-D array of numbers, got {}{}{}", name,
                          t.str(), origin_of(*e.args[0]), hint));
        return ExprResult::error();
      }
      std::string why;
      Type acc = sum_type(start, elements, &why);
      if (!acc.is_valid()) {
        error(e.range, fmt::format("{}() of {}: {}", name, t.str(), why));
        return ExprResult::error();
      }
      if (t.is_array()) {  // a loop over the elements, as np.sum runs, in the accumulator's type
        if (checking_) {
          ReductionCall c;
          c.reduction = find_reduction("sum");
          c.array = e.args[0].get();
          c.accumulate = c.result = acc.scalar;
          fn_.reduction_calls[&e] = c;
        }
        return record(e, ExprResult::of_value(acc));
      }
      std::vector<Type> ops = {acc};
      for (const Type& x : elements)
        ops.push_back(type_binary(BinOpKind::Add, Operand{acc}, Operand{x}).operand);
      if (checking_) fn_.operand_types[&e] = ops;
      // A sum of constants folds, added in the same order and types.
      const ConstValue* tuple = args[0].constant();
      if (tuple && (args.size() == 1 || args[1].value)) {
        std::optional<ConstValue> sum = args.size() > 1 ? fold_cast(*args[1].value, acc.scalar)
                                                        : std::optional<ConstValue>(ConstValue::of_int(0));
        for (size_t k = 0; sum && k < tuple->elements.size(); ++k) {
          std::optional<ConstValue> a = fold_cast(*sum, ops[k + 1].scalar);
          std::optional<ConstValue> x = fold_cast(tuple->elements[k], ops[k + 1].scalar);
          sum = a && x ? fold_binary(BinOpKind::Add, *a, *x) : std::nullopt;
          if (sum) sum = fold_cast(*sum, acc.scalar);
        }
        if (sum) return record(e, ExprResult::of_const(*sum));
      }
      return record(e, ExprResult::of_value(acc));
    }
    default:
      throw InternalError(fmt::format("builtin '{}' reached python_builtin_call", b.qualified_name()));
  }
}

}  // namespace gpujit
