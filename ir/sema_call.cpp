// Semantic analysis, part three: calls. A call's callee is a dtype (a cast), a builtin from the builtins
// table (typed by the row's BuiltinTyping), or a device function (specialized for the argument types at the
// call). operand_types[call] records what each argument converts to, so codegen converts without deciding.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "ir/const_eval.h"
#include "ir/bf16_functions.h"
#include "ir/fp8_functions.h"
#include "ir/fp16_functions.h"
#include "ir/libdevice_functions.h"
#include "ir/sema_internal.h"
#include "ir/type_rules.h"

namespace gpujit {

namespace {

std::string arguments_word(int n) { return n == 1 ? "argument" : "arguments"; }

// "takes 1 argument", "takes 1 to 3 arguments", "takes at least 2 arguments", "takes no arguments".
std::string arity_text(int min_args, int max_args) {
  if (max_args < 0) return fmt::format("takes at least {} {}", min_args, arguments_word(min_args));
  if (min_args == max_args) {
    return min_args == 0 ? "takes no arguments"
                         : fmt::format("takes {} {}", min_args, arguments_word(min_args));
  }
  return fmt::format("takes {} to {} arguments", min_args, max_args);
}

// bfloat16 is not among them: it has its own operators and functions (numba.cuda.bf16) and converts only
// explicitly, see ir/type_rules.h.
bool is_number(const Type& t) {
  return t.is_scalar() && !t.is_complex() && !t.is_bfloat16() && !t.is_npdatetime() && !t.is_fp8();
}

// The value of float(text) as Python reads it: a decimal number, or nan/inf/infinity in any case, with an
// optional sign and surrounding whitespace.
std::optional<double> parse_float_string(std::string text) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!text.empty() && space(text.back())) text.pop_back();
  size_t start = 0;
  while (start < text.size() && space(text[start])) ++start;
  text = text.substr(start);
  if (text.empty()) return std::nullopt;
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool negative = lower[0] == '-';
  std::string body = lower[0] == '-' || lower[0] == '+' ? lower.substr(1) : lower;
  if (body == "nan") return negative ? -std::nan("") : std::nan("");
  if (body == "inf" || body == "infinity")
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (body.empty() || body.find_first_not_of("0123456789.e+-_") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

ExprResult FunctionAnalyzer::call(const CallExpr& e) {
  ExprResult callee = expr(*e.func);
  std::string name = path_of(*e.func);
  if (name.empty()) name = "this function";
  // f(*t): a tuple unpacked into positional arguments. A device function takes it as it is
  // (ir/sema_device_call.cpp); any other call is rewritten to pass t[0], t[1], ... (ir/sema_rewrite.cpp), and
  // the analysis of this copy of the function stops short of it.
  if (!e.starred.empty() && callee.what != ExprResult::What::Device) {
    if (callee.what == ExprResult::What::Unknown) return ExprResult::unknown();
    if (!callee.ok() || !defer_star_call(e, name)) return ExprResult::error();
    return checking_ ? ExprResult::error() : ExprResult::unknown();
  }
  if (callee.what == ExprResult::What::Builtin && callee.builtin->typing == BuiltinTyping::ArrayAlloc) {
    return array_alloc(e, *callee.builtin);
  }
  if (callee.what == ExprResult::What::ArrayMethod) return array_method_call(e, callee.array_method);
  if (callee.what == ExprResult::What::Overload) return overload_call(e, callee);  // sema_overload.cpp
  if (callee.what == ExprResult::What::Builtin && callee.builtin->typing == BuiltinTyping::PointerArray) {
    return pointer_array_call(e, *callee.builtin);
  }
  if (callee.what == ExprResult::What::Builtin && callee.builtin->typing == BuiltinTyping::Print) {
    return print_call(e, *callee.builtin);
  }
  if (callee.what == ExprResult::What::Builtin && callee.builtin->typing == BuiltinTyping::IsInstance) {
    return isinstance_call(e);  // ir/sema_isinstance.cpp
  }
  if (callee.what == ExprResult::What::Builtin && callee.builtin->typing == BuiltinTyping::Range) {
    for (const ExprPtr& a : e.args) value(*a);
    error(e.range, "range() can only be used as the iterable of a for loop");
    return ExprResult::error();
  }
  // float("nan"), float("inf"), float("-inf") ...: the float constant, as numba folds them.
  if (callee.what == ExprResult::What::Builtin && callee.builtin->typing == BuiltinTyping::ToFloat &&
      e.args.size() == 1 && e.keywords.empty() && e.args[0]->kind == ExprKind::StringLit) {
    if (std::optional<double> v = parse_float_string(e.args[0]->as<StringLitExpr>()->value)) {
      if (checking_) fn_.operand_types[&e] = {Type::scalar_of(ScalarKind::Float64)};
      return record(e, ExprResult::of_const(ConstValue::of_float(*v)));
    }
    error(e.args[0]->range, "float() of a string takes a number, 'nan', 'inf' or 'infinity' (with a sign)");
    return ExprResult::error();
  }
  std::vector<ExprResult> args;
  bool unknown = callee.what == ExprResult::What::Unknown, failed = !callee.ok();
  for (size_t ai = 0; ai < e.args.size(); ++ai) {
    const ExprPtr& a = e.args[ai];
    if (e.is_starred(ai)) {
      ExprResult r = value(*a);
      if (r.what == ExprResult::What::Unknown) {
        unknown = true;
      } else if (!r.is_value()) {
        failed = true;
      } else if (!r.type.is_tuple()) {
        error(a->range, fmt::format("'*' unpacks a tuple into the arguments, got {}{}", r.type.str(),
                                    origin_of(*a)));
        failed = true;
      } else {
        for (const Type& t : r.type.elements) args.push_back(ExprResult::of_value(t));
      }
      continue;
    }
    // A device function may take functions and dtypes too: they become part of its specialization.
    bool static_ok = false;
    if (callee.what == ExprResult::What::Device) {
      ExprResult r = expr(*a);
      static_ok = r.what == ExprResult::What::Builtin || r.what == ExprResult::What::DType ||
                  r.what == ExprResult::What::Device;
      if (static_ok) args.push_back(r);
      else if (!r.ok() || (r.is_value() && !r.type.is_void())) args.push_back(r);
      else args.push_back(value(*a));  // says why this is not a value
    } else {
      args.push_back(value(*a));
    }
    if (static_ok) continue;
    if (args.back().what == ExprResult::What::Unknown)
      unknown = true;
    else if (!args.back().is_value())
      failed = true;
  }
  // Keywords: only syncwarp(mask=...) and a NumPy ufunc's out= among the value-taking builtins accept one.
  bool mask_keyword = callee.what == ExprResult::What::Builtin && callee.builtin->id == BuiltinId::SyncWarp;
  bool out_keyword = false;
  for (const Keyword& k : e.keywords) {
    ExprResult r = value(*k.value);
    if (callee.what == ExprResult::What::Builtin && callee.ufunc && k.name == "out" && !out_keyword) {
      out_keyword = true;
      args.push_back(r);
      if (r.what == ExprResult::What::Unknown)
        unknown = true;
      else if (!r.is_value())
        failed = true;
    } else if (mask_keyword && k.name == "mask" && e.args.empty()) {
      args.push_back(r);
      if (r.what == ExprResult::What::Unknown)
        unknown = true;
      else if (!r.is_value())
        failed = true;
    } else if (callee.what == ExprResult::What::Device) {
      // Placed by name after the positional ones are all in (place_keywords, ir/sema_closure.cpp).
      if (r.what == ExprResult::What::Unknown)
        unknown = true;
      else if (!r.is_value())
        failed = true;
    } else if (callee.ok()) {
      error(k.name_range, fmt::format("{}() got an unexpected keyword argument '{}'", name, k.name));
      failed = true;
    }
  }
  if (unknown) return ExprResult::unknown();
  if (failed) return ExprResult::error();

  // A ufunc with an array operand or an output array is a loop over arrays; on scalars alone it is the
  // scalar function of the builtins table.
  if (callee.what == ExprResult::What::Builtin && callee.ufunc) {
    bool over_arrays = out_keyword || args.size() > callee.ufunc->nin ||
                       std::any_of(args.begin(), args.end(), [](const ExprResult& a) { return a.type.is_array(); });
    if (over_arrays) return ufunc_call(e, *callee.ufunc, args, out_keyword);
  }

  switch (callee.what) {
    case ExprResult::What::DType:
      if (callee.record) {
        error(e.func->range, fmt::format("a record dtype cannot be called; records are made as elements of "
                                         "arrays (local.array(n, dtype), arguments)"));
        return ExprResult::error();
      }
      return cast_call(e, callee.dtype, args);
    case ExprResult::What::Builtin: {
      const BuiltinInfo& b = *callee.builtin;
      int n = static_cast<int>(args.size());
      if (n < b.min_args || (b.max_args >= 0 && n > b.max_args)) {
        error(e.range, fmt::format("{}() {}, got {}", name, arity_text(b.min_args, b.max_args), n));
        return ExprResult::error();
      }
      return builtin_call(e, b, args);
    }
    case ExprResult::What::Device:
      if (!e.keywords.empty() && !place_keywords(e, *callee.function, args)) return ExprResult::error();
      return device_call(e, *callee.function, args, callee.signatures, callee.closure);
    case ExprResult::What::Extern:
      return extern_call(e, *callee.extern_fn, args);
    case ExprResult::What::Reduction:
      return reduction_call(e, *callee.reduction, args, callee.method);
    case ExprResult::What::Module:
      error(e.func->range, fmt::format("module '{}' is not callable", callee.module));
      return ExprResult::error();
    case ExprResult::What::Namespace:
      error(e.func->range, fmt::format("'{}' is not callable", name));
      return ExprResult::error();
    default:
      error(e.func->range, fmt::format("'{}' is not callable (it is a value of type {}){}", name,
                                       callee.type.str(), origin_of(*e.func)));
      return ExprResult::error();
  }
}

ExprResult FunctionAnalyzer::cast_call(const CallExpr& e, ScalarKind dtype,
                                       const std::vector<ExprResult>& args) {
  std::string name = path_of(*e.func);
  if (args.size() != 1) {
    error(e.range, fmt::format("{}() takes 1 argument, got {}", name, args.size()));
    return ExprResult::error();
  }
  // complex64(x) converts any number; a complex number converts to no real type. bfloat16(x) converts a
  // real number or bool, and float32(b) ... a bfloat16 (numba-cuda's __nv_bfloat16 constructors and casts).
  const Type& from = args[0].type;
  bool convertible = is_number(from) || (is_complex(dtype) && from.is_complex()) ||
                     (from.is_bfloat16() && !is_complex(dtype));
  // fp8_e4m3(x) converts a real number or a bfloat16, and float32(f) ... an fp8 value (cuda_fp8.h's
  // constructors and conversion operators; ir/fp8_functions.h); an fp8 type converts to another through float32.
  if (is_fp8(dtype)) convertible = (is_number(from) && !from.is_bool()) || from.is_bfloat16() || from.is_fp8();
  else if (from.is_fp8()) convertible = !is_complex(dtype);
  if (from.is_npdatetime() || is_npdatetime(dtype)) {
    // numba: np.int64(t) of a datetime64 or timedelta64 is its count of units; no other cast of them.
    if (!from.is_npdatetime() || !(dtype == ScalarKind::Int64 || dtype == ScalarKind::UInt64)) {
      error(e.args[0]->range, fmt::format("{}() cannot convert {}{}; a datetime64 or timedelta64 converts only to "
                                          "int64 or uint64 (its count of units)",
                                          name, from.str(), origin_of(*e.args[0])));
      return ExprResult::error();
    }
    convertible = true;
  }
  if (!convertible) {
    error(e.args[0]->range,
          fmt::format("{}() converts a number, got {}{}", name, args[0].type.str(), origin_of(*e.args[0])));
    return ExprResult::error();
  }
  Type t = Type::scalar_of(dtype);
  if (checking_) fn_.operand_types[&e] = {t};
  if (args[0].value) {
    if (std::optional<ConstValue> c = fold_cast(*args[0].value, dtype))
      return record(e, ExprResult::of_const(*c));
  }
  return record(e, ExprResult::of_value(t));
}

ExprResult FunctionAnalyzer::builtin_call(const CallExpr& e, const BuiltinInfo& b,
                                          const std::vector<ExprResult>& args) {
  std::string name = path_of(*e.func);
  const Type i64 = Type::scalar_of(ScalarKind::Int64);
  // Every argument must be a number for the numeric builtins; the message names the argument and its origin.
  auto require_numbers = [&]() {
    for (size_t i = 0; i < args.size(); ++i) {
      if (!is_number(args[i].type)) {
        const Expr& a = i < e.args.size() ? *e.args[i] : *e.keywords[0].value;
        error(a.range, fmt::format("{}() argument {} must be a number, got {}{}", name, i + 1,
                                   args[i].type.str(), origin_of(a)));
        return false;
      }
    }
    return true;
  };
  auto done = [&](std::vector<Type> operands, Type result) {
    if (checking_) fn_.operand_types[&e] = std::move(operands);
    return record(e, ExprResult::of_value(std::move(result)));
  };
  std::vector<Operand> ops;
  for (const ExprResult& a : args) ops.push_back(operand(a));

  switch (b.typing) {
    case BuiltinTyping::GridFn: {
      const ConstValue* c = args[0].constant();
      if (!c) {
        // numba-cuda raises its RequireLiteralValue here; naming it helps a user who searches for it.
        std::string why = why_not_constant(*e.args[0]);
        error(e.args[0]->range,
              fmt::format(
                  "{}() needs a literal number of dimensions, the constant 1, 2 or 3 (RequireLiteralValue "
                  "in numba-cuda){}",
                  name, why.empty() ? "" : "; " + why));
        return ExprResult::error();
      }
      if (c->kind != ConstValue::Kind::Int || c->i < 1 || c->i > 3) {
        error(e.args[0]->range,
              fmt::format("{}() takes the number of dimensions as the constant 1, 2 or 3, got {}", name,
                          c->str()));
        return ExprResult::error();
      }
      Type result = c->i == 1 ? i64 : Type::tuple_of(std::vector<Type>(static_cast<size_t>(c->i), i64));
      return done({i64}, result);
    }
    case BuiltinTyping::VoidFn:
      return done({}, Type::void_());
    case BuiltinTyping::SyncPredicate:
      if (!has_truth_value(args[0].type)) {
        error(e.args[0]->range, fmt::format("{}() takes a predicate (a number or bool), got {}{}", name,
                                            args[0].type.str(), origin_of(*e.args[0])));
        return ExprResult::error();
      }
      return done({Type::scalar_of(ScalarKind::Bool)}, Type::scalar_of(ScalarKind::Int32));
    case BuiltinTyping::SyncWarp:
      if (!args.empty() && !args[0].type.is_integer()) {
        const Expr& a = e.args.empty() ? *e.keywords[0].value : *e.args[0];
        error(a.range, fmt::format("{}() takes an integer lane mask, got {}{}", name, args[0].type.str(),
                                   origin_of(a)));
        return ExprResult::error();
      }
      return done(args.empty() ? std::vector<Type>{} : std::vector<Type>{Type::scalar_of(ScalarKind::UInt32)},
                  Type::void_());
    case BuiltinTyping::AtomicRmw:
      return atomic_call(e, b, args);
    case BuiltinTyping::AtomicCas:
      return atomic_cas_call(e, b, args);
    case BuiltinTyping::ArrayLike:
      return array_like_call(e, b, args);
    case BuiltinTyping::Intrinsic:
      return intrinsic_call(e, b, args);
    case BuiltinTyping::CacheHint:
      return cache_hint_call(e, b, args);
    case BuiltinTyping::Warp:
      return warp_call(e, b, args);
    case BuiltinTyping::Complex:
      return complex_call(e, b, args);
    case BuiltinTyping::Random:
      return random_call(e, b, args);
    case BuiltinTyping::GridGroup:
      return grid_group_call(e, b, args);
    case BuiltinTyping::Fp16: {
      if (!require_numbers()) return ExprResult::error();
      const Type half = Type::scalar_of(ScalarKind::Float16);
      return done(std::vector<Type>(args.size(), half),
                  fp16_is_comparison(b.name) ? Type::scalar_of(ScalarKind::Bool) : half);
    }
    case BuiltinTyping::Bf16: {
      // Arguments convert to the parameter type as in a C call: any real number or bool, or a bfloat16.
      const Bf16Function& f = bf16_function(b);
      const Type param = Type::scalar_of(f.param);
      for (size_t i = 0; i < args.size(); ++i) {
        if (!can_convert(args[i].type, param)) {
          error(e.args[i]->range, fmt::format("{}() argument {} must be a {}, got {}{}", name, i + 1,
                                              param.is_bfloat16() ? "bfloat16 (or a real number)" : "number",
                                              args[i].type.str(), origin_of(*e.args[i])));
          return ExprResult::error();
        }
      }
      return done(std::vector<Type>(args.size(), param), Type::scalar_of(f.result));
    }
    case BuiltinTyping::Fp8: {
      // The value converts to its parameter type as in a C call (a vector must be the very type); the mode
      // arguments are integers (saturation_t, fp8_interpretation_t and cudaRoundMode members are IntEnums).
      const Fp8Function& f = fp8_function(b);
      const Type value = fp8_value_type(f.value, f.value_lanes);
      std::vector<Type> params(args.size(), Type::scalar_of(ScalarKind::Int32));
      params[0] = value;
      for (size_t i = 0; i < args.size(); ++i) {
        bool ok = i == 0 ? (f.value_lanes ? args[i].type == value : can_convert(args[i].type, value))
                         : args[i].type.is_integer();
        if (!ok) {
          std::string want = i > 0 ? "an integer (a saturation_t, fp8_interpretation_t or cudaRoundMode member)"
                             : f.value_lanes == 1 ? "a bfloat16_raw (what cvt_e8m0_to_bf16raw returns)"
                                                  : "a " + value.str();
          error(e.args[i]->range, fmt::format("{}() argument {} must be {}, got {}{}", name, i + 1, want,
                                              args[i].type.str(), origin_of(*e.args[i])));
          return ExprResult::error();
        }
      }
      return done(params, fp8_value_type(f.result, f.result_lanes));
    }
    case BuiltinTyping::OperatorBinary: {
      OpTyping t = type_binary(static_cast<BinOpKind>(b.axis), ops[0], ops[1]);
      if (!t.ok()) {
        error(e.range, t.error + origin_of(*e.args[0]) + origin_of(*e.args[1]));
        return ExprResult::error();
      }
      if (args[0].value && args[1].value) {
        if (auto c = fold_binary(static_cast<BinOpKind>(b.axis), *args[0].value, *args[1].value)) {
          if (checking_) fn_.operand_types[&e] = {t.operand};
          return record(e, ExprResult::of_const(*c));
        }
      }
      return done(t.operand_types(), t.result);  // operator.sub(d, t): two types (ir/datetime_rules.h)
    }
    case BuiltinTyping::OperatorCompare: {
      OpTyping t = type_compare(static_cast<CmpOpKind>(b.axis), ops[0], ops[1]);
      if (!t.ok()) {
        error(e.range, t.error + origin_of(*e.args[0]) + origin_of(*e.args[1]));
        return ExprResult::error();
      }
      return done({t.operand}, t.result);
    }
    case BuiltinTyping::LogicalBinary: {
      if (!require_numbers()) return ExprResult::error();
      const Type b1 = Type::scalar_of(ScalarKind::Bool);
      return done({b1, b1}, b1);
    }
    case BuiltinTyping::OperatorUnary: {
      OpTyping t = type_unary(static_cast<UnaryOpKind>(b.axis), args[0].type);
      if (!t.ok()) {
        error(e.range, t.error + origin_of(*e.args[0]));
        return ExprResult::error();
      }
      return done({t.operand}, t.result);
    }
    case BuiltinTyping::LibdeviceFn: {
      // The C prototype's types; arguments convert to them as in a C call (numba-cuda does the same).
      if (!require_numbers()) return ExprResult::error();
      const LibdeviceSignature& sig = libdevice_signature(b);
      return done(sig.inputs, libdevice_call_type(sig));
    }
    case BuiltinTyping::MathUnary:
    case BuiltinTyping::MathBinary: {
      if (!args.empty() && args[0].type.is_bfloat16()) return bfloat16_math_call(e, b, args);
      if (!require_numbers()) return ExprResult::error();
      ScalarKind k = math_float_kind(ops);
      if (k == ScalarKind::Float16 && !b.fp16) k = ScalarKind::Float32;
      Type f = Type::scalar_of(k);
      return done(std::vector<Type>(args.size(), f), f);
    }
    case BuiltinTyping::MathLdexp: {
      if (!require_numbers()) return ExprResult::error();
      if (!args[1].type.is_integer() && !args[1].type.is_bool()) {
        error(e.args[1]->range, fmt::format("{}() argument 2 must be an integer, got {}{}", name,
                                            args[1].type.str(), origin_of(*e.args[1])));
        return ExprResult::error();
      }
      ScalarKind k = math_float_kind({ops[0]});
      if (k == ScalarKind::Float16) k = ScalarKind::Float32;
      return done({Type::scalar_of(k), Type::scalar_of(ScalarKind::Int32)}, Type::scalar_of(k));
    }
    case BuiltinTyping::MathLibdevice: {
      // libdevice's function for the argument's float kind; the call lowers as that libdevice row, so the
      // callee's symbol becomes it.
      if (!require_numbers()) return ExprResult::error();
      ScalarKind k = math_float_kind(ops);
      std::string_view symbol = k == ScalarKind::Float64 ? b.f64 : b.f32;
      const BuiltinInfo* row = find_libdevice_builtin(symbol.substr(std::string_view("__nv_").size()));
      if (!row) throw InternalError(fmt::format("{}: libdevice has no {}", name, symbol));
      if (checking_) {
        Symbol s;
        s.kind = Symbol::Kind::Builtin;
        s.name = name;
        s.builtin = row;
        fn_.symbols[e.func.get()] = s;
      }
      const LibdeviceSignature& sig = libdevice_signature(*row);
      return done(sig.inputs, libdevice_call_type(sig));
    }
    case BuiltinTyping::MathPredicate: {
      if (!require_numbers()) return ExprResult::error();
      ScalarKind k = math_float_kind(ops);
      if (k == ScalarKind::Float16) k = ScalarKind::Float32;
      return done({Type::scalar_of(k)}, Type::scalar_of(ScalarKind::Bool));
    }
    case BuiltinTyping::MinMax: {
      if (args.size() == 1) return python_builtin_call(e, b, args);  // min(t) of a tuple
      if (args[0].type.is_npdatetime()) {
        // numba's min/max of datetime64 or timedelta64 values, which unify only with their own type; a
        // comparison with NaT is false, so NaT is kept only where it comes first.
        for (size_t i = 1; i < args.size(); ++i) {
          if (args[i].type != args[0].type) {
            error(e.args[i]->range, fmt::format("{}() of {} and {}: datetime64 and timedelta64 arguments must "
                                                "have one type{}",
                                                name, args[0].type.str(), args[i].type.str(), origin_of(*e.args[i])));
            return ExprResult::error();
          }
        }
        return done(std::vector<Type>(args.size(), args[0].type), args[0].type);
      }
      if (!require_numbers()) return ExprResult::error();
      Type t = common_numeric_type(ops);
      return done(std::vector<Type>(args.size(), t), t);
    }
    case BuiltinTyping::Abs: {
      if (args[0].type.is_complex()) return complex_call(e, b, args);  // the modulus, a float
      if (args[0].type.is_npdatetime() && is_timedelta64(args[0].type.scalar))
        return done({args[0].type}, args[0].type);  // numba's abs of a timedelta64: NaT stays NaT
      if (!require_numbers()) return ExprResult::error();
      Type t = args[0].type.is_bool() ? i64 : args[0].type;
      return done({t}, t);
    }
    case BuiltinTyping::ToInt:
    case BuiltinTyping::ToFloat:
    case BuiltinTyping::ToBool: {
      // bool(t) of a tuple: whether it has elements (numba's operator.truth of a tuple), a constant.
      if (b.typing == BuiltinTyping::ToBool && args[0].type.is_tuple())
        return record(e, ExprResult::of_const(ConstValue::of_bool(!args[0].type.elements.empty())));
      // int(t) of a timedelta64 or a datetime64[ns] is its count of units (numba's Int template).
      if (b.typing == BuiltinTyping::ToInt && args[0].type.is_npdatetime() &&
          (is_timedelta64(args[0].type.scalar) || args[0].type.scalar == ScalarKind::DatetimeNanos)) {
        if (checking_) fn_.operand_types[&e] = {i64};
        return record(e, ExprResult::of_value(i64));
      }
      // int(b) and float(b) of a bfloat16 convert as int64(b) and float64(b) do.
      if (b.typing == BuiltinTyping::ToBool ? !has_truth_value(args[0].type)
                                            : !is_number(args[0].type) && !args[0].type.is_bfloat16()) {
        error(e.args[0]->range, fmt::format("{}() converts a number, got {}{}", name, args[0].type.str(),
                                            origin_of(*e.args[0])));
        return ExprResult::error();
      }
      // float() of a float keeps its width, as numba types it (float(x) of a float32 is a float32).
      bool keeps_float = b.typing == BuiltinTyping::ToFloat && args[0].type.is_float();
      ScalarKind k = b.typing == BuiltinTyping::ToInt     ? ScalarKind::Int64
                     : keeps_float                        ? args[0].type.scalar
                     : b.typing == BuiltinTyping::ToFloat ? ScalarKind::Float64
                                                          : ScalarKind::Bool;
      if (checking_) fn_.operand_types[&e] = {Type::scalar_of(k)};
      if (args[0].value) {
        if (std::optional<ConstValue> c = fold_cast(*args[0].value, k))
          return record(e, ExprResult::of_const(*c));
      }
      return record(e, ExprResult::of_value(Type::scalar_of(k)));
    }
    case BuiltinTyping::Round: {
      if (!require_numbers()) return ExprResult::error();
      if (args.size() == 2) {
        // round(x, ndigits): a float of x's type, as numba-cuda (which has it for float32 and float64 only).
        if (!args[0].type.is_float() || !args[1].type.is_integer()) {
          error(e.range, fmt::format("round(x, ndigits) takes a float x and an integer ndigits, got {} and {}",
                                     args[0].type.str(), args[1].type.str()));
          return ExprResult::error();
        }
        Type x = args[0].type.is_scalar(ScalarKind::Float16) ? Type::scalar_of(ScalarKind::Float32) : args[0].type;
        return done({x, i64}, x);
      }
      Type operand_type = args[0].type.is_float() ? args[0].type : i64;
      return done({operand_type}, i64);
    }
    case BuiltinTyping::Divmod:
    case BuiltinTyping::TupleFn:
    case BuiltinTyping::Sum:
      return python_builtin_call(e, b, args);
    case BuiltinTyping::VectorCtor:
      return vector_call(e, b, args);
    case BuiltinTyping::LiteralUnroll: {
      // The loop the parser makes over a tuple indexes it with the loop counter, which needs one element
      // type; numba versions the loop body per element instead.
      const Type& t = args[0].type;
      if (!t.is_tuple()) {
        error(e.args[0]->range, fmt::format("{}() takes a tuple, got {}{}", name, t.str(), origin_of(*e.args[0])));
        return ExprResult::error();
      }
      // The iterable of a loop of its own (`for x in literal_unroll(t)`) may mix types: the loop is unrolled.
      for (const Type& element : t.elements) {
        if (!(element == t.elements[0]) && !unroll_iterables_.count(&e)) {
          error(e.args[0]->range,
                fmt::format("{}() over a tuple whose elements differ in type ({} and {}) is supported only as "
                            "the iterable of a for loop (`for x in {}(t)`), whose body is compiled per element{}",
                            name, t.elements[0].str(), element.str(), name, origin_of(*e.args[0])));
          return ExprResult::error();
        }
      }
      return done({t}, t);
    }
    case BuiltinTyping::Len: {
      const Type& t = args[0].type;
      if (t.is_tuple()) {
        if (checking_) fn_.operand_types[&e] = {t};
        return record(e, ExprResult::of_const(ConstValue::of_int(static_cast<int64_t>(t.elements.size()))));
      }
      if (t.is_charseq() && args[0].value) {  // a literal's: Python's len
        if (checking_) fn_.operand_types[&e] = {t};
        return record(e, ExprResult::of_const(ConstValue::of_int(constant_length(*args[0].value))));
      }
      if (!t.is_array() && !t.is_charseq()) {  // a string's is NumPy's (ir/charseq.h)
        error(e.args[0]->range,
              fmt::format("object of type '{}' has no len(){}", t.str(), origin_of(*e.args[0])));
        return ExprResult::error();
      }
      return done({t}, i64);
    }
    default:
      throw InternalError(fmt::format("builtin '{}' reached builtin_call with typing {}", b.qualified_name(),
                                      static_cast<int>(b.typing)));
  }
}

ExprResult FunctionAnalyzer::bfloat16_math_call(const CallExpr& e, const BuiltinInfo& b,
                                                const std::vector<ExprResult>& args) {
  // numba-cuda overloads these math functions for bfloat16 with cuda.bf16's (math.sqrt is hsqrt): the
  // call lowers as that row, so the callee's symbol becomes it.
  const BuiltinInfo* row = args.size() == 1 ? bf16_math_builtin(b.id) : nullptr;
  if (!row) {
    error(e.range, fmt::format("{}() does not take a bfloat16 argument (numba-cuda has math.trunc, ceil, floor, "
                               "sqrt, log, log10, cos, sin, tanh, exp and exp2 for bfloat16); convert it with "
                               "float32(x){}",
                               path_of(*e.func), origin_of(*e.args[0])));
    return ExprResult::error();
  }
  if (checking_) {
    Symbol s;
    s.kind = Symbol::Kind::Builtin;
    s.name = path_of(*e.func);
    s.builtin = row;
    fn_.symbols[e.func.get()] = s;
    fn_.operand_types[&e] = {args[0].type};
  }
  return record(e, ExprResult::of_value(args[0].type));
}

ExprResult FunctionAnalyzer::array_alloc(const CallExpr& e, const BuiltinInfo& b) {
  const char* what = b.scope == BuiltinScope::Shared ? "shared.array" : "local.array";
  const Expr* shape_expr = e.args.size() > 0 ? e.args[0].get() : nullptr;
  const Expr* dtype_expr = e.args.size() > 1 ? e.args[1].get() : nullptr;
  const Expr* alignment_expr = e.args.size() > 2 ? e.args[2].get() : nullptr;
  if (e.args.size() > 3) {
    error(e.range,
          fmt::format("{}() takes 2 or 3 arguments (shape, dtype, alignment), got {}", what, e.args.size()));
    return ExprResult::error();
  }
  for (const Keyword& k : e.keywords) {
    const Expr** slot = k.name == "shape"       ? &shape_expr
                        : k.name == "dtype"     ? &dtype_expr
                        : k.name == "alignment" ? &alignment_expr
                                                : nullptr;
    if (!slot) {
      error(k.name_range, fmt::format("{}() got an unexpected keyword argument '{}'", what, k.name));
      return ExprResult::error();
    }
    if (*slot) {
      error(k.name_range, fmt::format("{}() got multiple values for argument '{}'", what, k.name));
      return ExprResult::error();
    }
    *slot = k.value.get();
  }
  if (!shape_expr || !dtype_expr) {
    error(e.range, fmt::format("{}() needs a shape and a dtype: {}(shape, dtype)", what, what));
    return ExprResult::error();
  }
  ExprResult shape = expr(*shape_expr);
  if (const auto* n = shape_expr->as<NameExpr>(); n && !(shape.ok() && shape.value)) {
    auto once = assigned_once_.find(n->id);
    if (once != assigned_once_.end()) {
      ExprResult bound = expr(*once->second);
      if (bound.ok() && bound.value) shape = bound;
    }
  }
  if (shape.ok() && !shape.value) {
    std::string why = why_not_constant(*shape_expr);
    error(shape_expr->range,
          fmt::format("{} shape must be a compile-time constant{}", what, why.empty() ? "" : "; " + why));
    note_array_alloc_signature(e, what, *shape_expr, *dtype_expr);
    return ExprResult::error();
  }
  if (!shape.ok()) {
    // A local variable with no type yet (still inferring) is not a constant either.
    if (checking_ && shape.what == ExprResult::What::Error) return shape;
    std::string why = why_not_constant(*shape_expr);
    if (!why.empty()) {
      error(shape_expr->range, fmt::format("{} shape must be a compile-time constant; {}", what, why));
      note_array_alloc_signature(e, what, *shape_expr, *dtype_expr);
      return ExprResult::error();
    }
    return shape;
  }
  std::vector<int64_t> dims;
  const ConstValue& c = *shape.value;
  std::vector<ConstValue> items = c.kind == ConstValue::Kind::Tuple ? c.elements : std::vector<ConstValue>{c};
  for (const ConstValue& d : items) {
    if (d.kind != ConstValue::Kind::Int) {
      error(shape_expr->range,
            fmt::format("{} shape must be an integer or a tuple of integers, got {}", what, c.str()));
      return ExprResult::error();
    }
    // shared.array(0, dtype) is the block's dynamic shared memory, sized by the launch (1-D only, as numba).
    bool dynamic = d.i == 0 && b.scope == BuiltinScope::Shared && items.size() == 1;
    if ((d.i <= 0 && !dynamic) || (is_unsigned(d.scalar) && d.i < 0)) {
      error(shape_expr->range,
            d.i == 0 && b.scope == BuiltinScope::Shared
                ? fmt::format("shared.array shape {} has a zero extent; only a 1-D shape of 0 (dynamic shared "
                              "memory, sized by the launch) may be 0",
                              c.str())
                : fmt::format("{} shape must be positive, got {}", what, c.str()));
      return ExprResult::error();
    }
    dims.push_back(d.i);
  }
  if (dims.empty() || dims.size() > 32) {
    error(shape_expr->range, fmt::format("{} needs 1 to 32 dimensions, got {}", what, c.str()));
    return ExprResult::error();
  }
  ScalarKind dtype = ScalarKind::Float64;
  const RecordType* record_dtype = nullptr;
  const auto* dtype_name = dtype_expr->as<StringLitExpr>();  // numba also takes the name: dtype='float32'
  ExprResult dt = dtype_name ? ExprResult::error() : expr(*dtype_expr);
  if (dtype_name) {
    std::optional<ScalarKind> k = parse_scalar_name(dtype_name->value);
    if (!k) {
      error(dtype_expr->range, fmt::format("{}: Invalid NumPy dtype specified: '{}' (numba's words); name a dtype "
                                       "such as 'float32' or 'int64'",
                                       what, dtype_name->value));
      return ExprResult::error();
    }
    dtype = *k;
  } else if (dt.what == ExprResult::What::DType) {
    dtype = dt.dtype;
    record_dtype = dt.record;
  } else {
    if (dt.ok()) {
      error(dtype_expr->range, fmt::format("{} dtype must be a dtype such as np.float32, got {}", what,
                                           dt.is_value() ? dt.type.str() : path_of(*dtype_expr)));
    }
    return dt.what == ExprResult::What::Unknown ? dt : ExprResult::error();
  }
  unsigned alignment = 0;
  if (alignment_expr && !array_alignment(*alignment_expr, what, &alignment)) return ExprResult::error();
  if (checking_) fn_.array_shapes[&e] = dims;
  if (checking_ && alignment) fn_.array_alignments[&e] = alignment;
  // Shared and local memory are far below 2 GiB, but a shape is only checked against that at PTX assembly.
  bool index32 = true;
  Type element = record_dtype ? Type::record_of(record_dtype) : Type::scalar_of(dtype);
  for (int64_t bytes = Type::array_of(element, 1, Layout::C).itemsize(); int64_t d : dims) {
    index32 = index32 && d < (int64_t{1} << 31) / bytes;
    bytes = index32 ? bytes * std::max<int64_t>(d, 1) : bytes;
  }
  return record(e, ExprResult::of_value(
                       Type::array_of(element, static_cast<unsigned>(dims.size()), Layout::C, index32)));
}

void FunctionAnalyzer::note_array_alloc_signature(const CallExpr& e, const char* what, const Expr& shape,
                                                   const Expr& dtype) {
  if (!checking_) return;
  // numba-cuda users (and its tests) recognise a failed shared.array typing by these words.
  spec_.diags.note(file_, e.range,
                   fmt::format("numba-cuda says: No implementation of function Function(<function {}>) found "
                               "for signature:\n \n >>> array(shape={}, dtype={})",
                               what, numba_spelling(shape, false), numba_spelling(dtype, false)));
}

std::string FunctionAnalyzer::numba_spelling(const Expr& e, bool in_tuple) {
  if (const auto* t = e.as<TupleExpr>()) {
    std::vector<std::string> parts;
    for (const ExprPtr& elt : t->elts) parts.push_back(numba_spelling(*elt, true));
    bool uniform = !parts.empty() && std::all_of(parts.begin(), parts.end(),
                                                  [&](const std::string& p) { return p == parts[0]; });
    if (uniform) return fmt::format("UniTuple({} x {})", parts[0], parts.size());
    return fmt::format("Tuple({})", fmt::join(parts, ", "));
  }
  if (const auto* s = e.as<StringLitExpr>()) return fmt::format("Literal[str]({})", s->value);
  ExprResult r = expr(e);
  if (r.what == ExprResult::What::DType) {
    return fmt::format("class({})", r.record ? Type::record_of(r.record).str() : scalar_name(r.dtype));
  }
  if (!r.is_value()) return path_of(e).empty() ? "<unknown>" : path_of(e);
  const Type& t = r.type;
  if (in_tuple && r.value && r.value->kind == ConstValue::Kind::Int) return fmt::format("Literal[int]({})", r.value->i);
  if (t.is_array() && !t.record) {
    return fmt::format("array({}, {}d, {})", scalar_name(t.scalar), t.ndim, layout_letter(t.layout));
  }
  if (t.is_tuple()) {
    std::vector<std::string> parts;
    for (const Type& elt : t.elements) parts.push_back(elt.str());
    return fmt::format("Tuple({})", fmt::join(parts, ", "));
  }
  return t.str();
}

bool FunctionAnalyzer::array_alignment(const Expr& arg, const char* what, unsigned* alignment) {
  *alignment = 0;
  ExprResult r = expr(arg);
  if (r.what == ExprResult::What::Unknown && !checking_) return true;  // a local still being inferred
  if (r.what == ExprResult::What::Error) return false;                 // reported where it happened
  if (!r.is_value() || !r.value) {
    std::string why = why_not_constant(arg);
    error(arg.range, fmt::format("{} alignment must be a compile-time constant{}", what,
                                 why.empty() ? "" : "; " + why));
    return false;
  }
  const ConstValue& c = *r.value;
  if (c.kind == ConstValue::Kind::None) return true;  // alignment=None: the default
  bool power_of_two = c.kind == ConstValue::Kind::Int && c.i > 0 && (c.i & (c.i - 1)) == 0 &&
                      !(is_unsigned(c.scalar) && c.i < 0);
  if (!power_of_two) {
    error(arg.range,
          fmt::format("{} alignment must be a power of two (a constant integer such as 16), got {}", what,
                      c.str()));
    return false;
  }
  if (c.i > kMaxArrayAlignment) {
    error(arg.range,
          fmt::format("{} alignment must be at most {} bytes, got {}", what, kMaxArrayAlignment, c.i));
    return false;
  }
  *alignment = static_cast<unsigned>(c.i);
  return true;
}

std::string FunctionAnalyzer::why_not_constant(const Expr& e) {
  if (const auto* n = e.as<NameExpr>()) {
    if (is_local_name(n->id)) {
      auto it = vars_.find(n->id);
      if (it != vars_.end() && it->second.is_param) return fmt::format("'{}' is an argument", n->id);
      return fmt::format("'{}' is a local variable", n->id);
    }
    return "";
  }
  if (e.kind == ExprKind::Call) return "a function call's result is not a constant";
  std::vector<const Expr*> kids;
  if (const auto* a = e.as<AttributeExpr>()) kids = {a->value.get()};
  if (const auto* s = e.as<SubscriptExpr>()) kids = {s->value.get(), s->index.get()};
  if (const auto* b = e.as<BinOpExpr>()) kids = {b->lhs.get(), b->rhs.get()};
  if (const auto* u = e.as<UnaryOpExpr>()) kids = {u->operand.get()};
  if (const auto* t = e.as<TupleExpr>()) {
    for (const ExprPtr& x : t->elts) kids.push_back(x.get());
  }
  for (const Expr* k : kids) {
    std::string why = why_not_constant(*k);
    if (!why.empty()) return why;
  }
  return "";
}

ExprResult FunctionAnalyzer::range_call(const CallExpr& e) {
  if (!e.keywords.empty()) {
    error(e.keywords[0].name_range, "range() takes no keyword arguments");
    return ExprResult::error();
  }
  std::vector<ExprResult> args;
  bool unknown = false, failed = false;
  for (const ExprPtr& a : e.args) {
    args.push_back(value(*a));
    if (args.back().what == ExprResult::What::Unknown)
      unknown = true;
    else if (!args.back().is_value())
      failed = true;
  }
  if (e.args.empty() || e.args.size() > 3) {
    error(e.range, fmt::format("range() takes 1 to 3 arguments, got {}", e.args.size()));
    return ExprResult::error();
  }
  if (unknown) return ExprResult::unknown();
  if (failed) return ExprResult::error();
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].type.is_integer() && !args[i].type.is_bool()) {
      error(e.args[i]->range, fmt::format("range() argument {} must be an integer, got {}{}", i + 1,
                                          args[i].type.str(), origin_of(*e.args[i])));
      return ExprResult::error();
    }
  }
  if (args.size() == 3 && args[2].value && args[2].value->i == 0) {
    error(e.args[2]->range, "range() step must not be zero");
    return ExprResult::error();
  }
  const Type i64 = Type::scalar_of(ScalarKind::Int64);
  if (checking_) fn_.operand_types[&e] = std::vector<Type>(args.size(), i64);
  return record(e, ExprResult::of_value(i64));
}

}  // namespace gpujit
