// Semantic analysis of NumPy's array functions in kernels (ir/ufuncs.h): ufuncs over arrays, np.sin(a, out)
// and np.add(a, b, out=c), and whole-array reductions, np.sum(a) and a.max().
#include <fmt/format.h>

#include "ir/sema_internal.h"

namespace gpujit {

ExprResult FunctionAnalyzer::ufunc_call(const CallExpr& e, const UfuncInfo& u, const std::vector<ExprResult>& args,
                                        bool out_keyword) {
  const std::string name = fmt::format("np.{}", u.name);
  const size_t nin = u.nin;
  auto arg_expr = [&](size_t i) -> const Expr& {
    return out_keyword && i + 1 == args.size() ? *e.keywords.back().value : *e.args[i];
  };
  // numba's ufunc loops over datetime64 and timedelta64 arrays are not here: say so rather than convert them.
  auto datetimes = [&](const Expr& where, const Type& t) {
    error(where.range, fmt::format("{}() over arrays of {} is not supported in kernels; compute the elements in a "
                                   "loop with the datetime operators{}",
                                   name, (t.is_array() ? t.element() : t).str(), origin_of(where)));
    return ExprResult::error();
  };
  for (const Keyword& k : e.keywords) {
    if (k.name != "out") {
      error(k.name_range, fmt::format("{}() got an unexpected keyword argument '{}'; in a kernel a ufunc takes "
                                      "its inputs and an output array (out=)",
                                      name, k.name));
      return ExprResult::error();
    }
  }
  if (args.size() != nin + 1 || (out_keyword && e.args.size() != nin)) {
    if (args.size() == nin) {
      error(e.range, fmt::format("{}() of an array needs an output array in a kernel, which cannot allocate "
                                 "one: write {}({}, out)",
                                 name, name, nin == 1 ? "x" : "x, y"));
    } else {
      error(e.range, fmt::format("{}() takes {} input{} and an output array, got {} argument{}", name, nin,
                                 nin == 1 ? "" : "s", args.size(), args.size() == 1 ? "" : "s"));
    }
    return ExprResult::error();
  }

  const ExprResult& out = args[nin];
  const Expr& out_expr = arg_expr(nin);
  if (!out.type.is_array() || !out.type.element().is_scalar()) {
    error(out_expr.range, fmt::format("{}() writes its result into an array of numbers; the output argument "
                                      "is {}{}",
                                      name, out.type.str(), origin_of(out_expr)));
    return ExprResult::error();
  }
  if (reject_const_array_write(out_expr, fmt::format("{}()", name).c_str())) return ExprResult::error();
  if (out.type.element().is_npdatetime()) return datetimes(out_expr, out.type);

  std::vector<ScalarKind> kinds;
  for (size_t i = 0; i < nin; ++i) {
    const Type& t = args[i].type;
    const Type element = t.is_array() ? t.element() : t;
    if (element.is_npdatetime()) return datetimes(arg_expr(i), t);
    if (!element.is_scalar()) {
      error(arg_expr(i).range, fmt::format("{}() input {} must be a number or an array of numbers, got {}{}",
                                           name, i + 1, t.str(), origin_of(arg_expr(i))));
      return ExprResult::error();
    }
    if (t.is_array() && t.ndim > out.type.ndim) {
      error(arg_expr(i).range,
            fmt::format("{}() input {} has {} dimensions, more than the output array's {}: NumPy cannot "
                        "broadcast it into the output",
                        name, i + 1, t.ndim, out.type.ndim));
      return ExprResult::error();
    }
    kinds.push_back(element.scalar);
  }

  UfuncLoop loop = resolve_ufunc(u, kinds);
  if (!loop.ok()) {
    error(e.range, loop.error);
    return ExprResult::error();
  }
  ScalarKind to = out.type.element().scalar;
  if (!same_kind_cast(loop.result, to)) {
    error(out_expr.range, fmt::format("{}() cannot write its {} result into the {} output array under NumPy's "
                                      "casting rule 'same_kind'{}",
                                      name, scalar_name(loop.result), scalar_name(to), origin_of(out_expr)));
    return ExprResult::error();
  }
  if (checking_) {
    UfuncCall c;
    c.ufunc = &u;
    for (size_t i = 0; i < nin; ++i) c.inputs.push_back(&arg_expr(i));
    c.out = &out_expr;
    c.operand = loop.operand;
    c.result = loop.result;
    c.mixed_sign_compare = loop.mixed_sign_compare;
    fn_.ufunc_calls[&e] = std::move(c);
  }
  // NumPy returns the output array.
  return record(e, ExprResult::of_value(out.type));
}

ExprResult FunctionAnalyzer::reduction_call(const CallExpr& e, const ArrayReduction& r,
                                            const std::vector<ExprResult>& args, bool method) {
  const std::string name = method ? fmt::format("a.{}", r.name) : fmt::format("np.{}", r.name);
  if (!e.keywords.empty()) {
    error(e.keywords[0].name_range,
          fmt::format("{}() takes no keyword arguments in a kernel ('{}'): it reduces the whole array, as "
                      "numba-cuda does; reduce along an axis with a loop",
                      name, e.keywords[0].name));
    return ExprResult::error();
  }
  const Expr* array = nullptr;
  ExprResult a;
  if (method) {
    if (!args.empty()) {
      error(e.range, fmt::format("{}() takes no arguments in a kernel, got {}", name, args.size()));
      return ExprResult::error();
    }
    array = e.func->as<AttributeExpr>()->value.get();
    a = value(*array);
    if (!a.is_value()) return a;
  } else {
    if (args.size() != 1) {
      error(e.range, fmt::format("{}() takes one array in a kernel, got {} arguments (an axis, dtype or out "
                                 "would need an array the kernel cannot allocate)",
                                 name, args.size()));
      return ExprResult::error();
    }
    array = e.args[0].get();
    a = args[0];
  }
  const Type& t = a.type;
  if (!t.is_array() || !t.element().is_scalar()) {
    error(array->range, fmt::format("{}() reduces an array of numbers, got {}{}", name, t.str(), origin_of(*array)));
    return ExprResult::error();
  }
  if (t.element().is_npdatetime()) {
    error(array->range, fmt::format("{}() of an array of {} is not supported in kernels; reduce its elements in a "
                                    "loop, with the datetime operators{}",
                                    name, t.element().str(), origin_of(*array)));
    return ExprResult::error();
  }
  ReductionLoop loop = resolve_reduction(r, t.scalar);
  if (!loop.ok()) {
    error(e.range, loop.error);
    return ExprResult::error();
  }
  if (checking_) {
    ReductionCall c;
    c.reduction = &r;
    c.array = array;
    c.accumulate = loop.accumulate;
    c.result = loop.result;
    fn_.reduction_calls[&e] = c;
  }
  return record(e, ExprResult::of_value(Type::scalar_of(loop.result)));
}

}  // namespace gpujit
