// NumPy's ufuncs over arrays in kernels: the table and NumPy's type resolution (ir/ufuncs.h).
#include "ir/ufuncs.h"

#include <fmt/format.h>

#include "frontend/ast.h"
#include "ir/type_rules.h"

namespace gpujit {

namespace {

using K = UfuncKind;
using Id = BuiltinId;

constexpr uint8_t bin(BinOpKind op) { return static_cast<uint8_t>(op); }
constexpr uint8_t cmp(CmpOpKind op) { return static_cast<uint8_t>(op); }
constexpr uint8_t ext(Extremum e) { return static_cast<uint8_t>(e); }

const UfuncInfo kUfuncs[] = {
    // Math: the math row's libdevice functions; the cmath row for complex operands.
    {"sin", 1, K::Math, 0, Id::Sin, Id::CmathSin},
    {"cos", 1, K::Math, 0, Id::Cos, Id::CmathCos},
    {"tan", 1, K::Math, 0, Id::Tan, Id::CmathTan},
    {"arcsin", 1, K::Math, 0, Id::Asin, Id::CmathAsin},
    {"arccos", 1, K::Math, 0, Id::Acos, Id::CmathAcos},
    {"arctan", 1, K::Math, 0, Id::Atan, Id::CmathAtan},
    {"sinh", 1, K::Math, 0, Id::Sinh, Id::CmathSinh},
    {"cosh", 1, K::Math, 0, Id::Cosh, Id::CmathCosh},
    {"tanh", 1, K::Math, 0, Id::Tanh, Id::CmathTanh},
    {"arcsinh", 1, K::Math, 0, Id::Asinh, Id::CmathAsinh},
    {"arccosh", 1, K::Math, 0, Id::Acosh, Id::CmathAcosh},
    {"arctanh", 1, K::Math, 0, Id::Atanh, Id::CmathAtanh},
    {"exp", 1, K::Math, 0, Id::Exp, Id::CmathExp},
    {"exp2", 1, K::Math, 0, Id::Exp2},
    {"expm1", 1, K::Math, 0, Id::Expm1},
    {"log", 1, K::Math, 0, Id::Log, Id::CmathLog},
    {"log2", 1, K::Math, 0, Id::Log2, Id::CmathLog},  // complex: log(z) / ln 2
    {"log10", 1, K::Math, 0, Id::Log10, Id::CmathLog10},
    {"log1p", 1, K::Math, 0, Id::Log1p},
    {"sqrt", 1, K::Math, 0, Id::Sqrt, Id::CmathSqrt},
    {"floor", 1, K::Math, 0, Id::Floor},
    {"ceil", 1, K::Math, 0, Id::Ceil},
    {"trunc", 1, K::Math, 0, Id::Trunc},
    {"arctan2", 2, K::Math, 0, Id::Atan2},
    {"hypot", 2, K::Math, 0, Id::Hypot},
    {"copysign", 2, K::Math, 0, Id::Copysign},
    {"fmod", 2, K::Math, 0, Id::Fmod},
    {"nextafter", 2, K::Math, 0, Id::Nextafter},
    {"deg2rad", 1, K::Angle, 0},
    {"radians", 1, K::Angle, 0},
    {"rad2deg", 1, K::Angle, 1},
    {"degrees", 1, K::Angle, 1},
    // Arithmetic in the promoted type, with Python's (and NumPy's) floor division and modulo.
    {"add", 2, K::Arithmetic, bin(BinOpKind::Add)},
    {"subtract", 2, K::Arithmetic, bin(BinOpKind::Sub)},
    {"multiply", 2, K::Arithmetic, bin(BinOpKind::Mul)},
    {"true_divide", 2, K::Arithmetic, bin(BinOpKind::Div)},
    {"divide", 2, K::Arithmetic, bin(BinOpKind::Div)},
    {"floor_divide", 2, K::Arithmetic, bin(BinOpKind::FloorDiv)},
    {"remainder", 2, K::Arithmetic, bin(BinOpKind::Mod)},
    {"mod", 2, K::Arithmetic, bin(BinOpKind::Mod)},
    {"power", 2, K::Arithmetic, bin(BinOpKind::Pow)},
    {"negative", 1, K::Negate, static_cast<uint8_t>(UnaryOpKind::Neg)},
    {"positive", 1, K::Negate, static_cast<uint8_t>(UnaryOpKind::Pos)},
    {"absolute", 1, K::Absolute},
    {"abs", 1, K::Absolute},
    {"fabs", 1, K::Absolute},
    // Comparisons and logic: bool results.
    {"equal", 2, K::Compare, cmp(CmpOpKind::Eq)},
    {"not_equal", 2, K::Compare, cmp(CmpOpKind::NotEq)},
    {"less", 2, K::Compare, cmp(CmpOpKind::Lt)},
    {"less_equal", 2, K::Compare, cmp(CmpOpKind::LtE)},
    {"greater", 2, K::Compare, cmp(CmpOpKind::Gt)},
    {"greater_equal", 2, K::Compare, cmp(CmpOpKind::GtE)},
    {"logical_and", 2, K::Logical, bin(BinOpKind::BitAnd)},
    {"logical_or", 2, K::Logical, bin(BinOpKind::BitOr)},
    {"logical_xor", 2, K::Logical, bin(BinOpKind::BitXor)},
    {"logical_not", 1, K::LogicalNot},
    {"isnan", 1, K::Predicate, 0},
    {"isinf", 1, K::Predicate, 1},
    {"isfinite", 1, K::Predicate, 2},
    // Bits.
    {"bitwise_and", 2, K::Bitwise, bin(BinOpKind::BitAnd)},
    {"bitwise_or", 2, K::Bitwise, bin(BinOpKind::BitOr)},
    {"bitwise_xor", 2, K::Bitwise, bin(BinOpKind::BitXor)},
    {"left_shift", 2, K::Bitwise, bin(BinOpKind::LShift)},
    {"right_shift", 2, K::Bitwise, bin(BinOpKind::RShift)},
    {"invert", 1, K::Invert},
    {"bitwise_not", 1, K::Invert},
    // Extrema.
    {"maximum", 2, K::Extremum, ext(Extremum::Maximum)},
    {"minimum", 2, K::Extremum, ext(Extremum::Minimum)},
    {"fmax", 2, K::Extremum, ext(Extremum::Fmax)},
    {"fmin", 2, K::Extremum, ext(Extremum::Fmin)},
};


// The float type NumPy computes a math function of an integer or bool in: float32 up to 16 bits ('e' loops
// are NumPy's for 8 bits; numba, like us, has none and takes float32), float64 above.
ScalarKind float_loop_for(ScalarKind k) {
  if (is_float(k) || is_complex(k)) return k;
  return scalar_size(k) <= 2 ? ScalarKind::Float32 : ScalarKind::Float64;
}

ScalarKind promote_all(const std::vector<ScalarKind>& kinds) {
  ScalarKind p = kinds[0];
  for (size_t i = 1; i < kinds.size(); ++i) p = promote_scalars(p, kinds[i]);
  return p;
}

}  // namespace

const UfuncInfo* find_ufunc(std::string_view name) {
  for (const UfuncInfo& u : kUfuncs) {
    if (name == u.name) return &u;
  }
  return nullptr;
}

std::vector<std::string_view> ufunc_names() {
  std::vector<std::string_view> names;
  for (const UfuncInfo& u : kUfuncs) names.push_back(u.name);
  return names;
}

UfuncLoop resolve_ufunc(const UfuncInfo& u, const std::vector<ScalarKind>& inputs) {
  UfuncLoop loop;
  if (inputs.size() != u.nin) {
    loop.error = fmt::format("np.{}() takes {} input{}", u.name, u.nin, u.nin == 1 ? "" : "s");
    return loop;
  }
  const ScalarKind p = promote_all(inputs);
  auto refuse = [&](const char* takes) {
    std::string got;
    for (ScalarKind k : inputs) got += (got.empty() ? "" : ", ") + std::string(scalar_name(k));
    loop.error = fmt::format("np.{}() takes {}, got {}", u.name, takes, got);
    return loop;
  };
  switch (u.kind) {
    case K::Math:
    case K::Angle: {
      ScalarKind f = float_loop_for(p);
      if (is_complex(f) && !u.complex) return refuse("real numbers");
      // float16 is computed in float32 and rounded once, as NumPy's 'e' loops do.
      loop.operand = f == ScalarKind::Float16 ? ScalarKind::Float32 : f;
      loop.result = f;
      return loop;
    }
    case K::Arithmetic: {
      ScalarKind t = p;
      if (u.op == bin(BinOpKind::Div) && !is_float(t) && !is_complex(t)) t = float_loop_for(t);
      if (t == ScalarKind::Bool && u.op != bin(BinOpKind::Mul) && u.op != bin(BinOpKind::Add))
        t = ScalarKind::Int8;  // NumPy has no bool loop for these; int8 is its smallest
      if (is_complex(t) && (u.op == bin(BinOpKind::FloorDiv) || u.op == bin(BinOpKind::Mod)))
        return refuse("real numbers");
      loop.operand = loop.result = t;
      return loop;
    }
    case K::Negate:
      if (p == ScalarKind::Bool) return refuse("numbers (not booleans)");
      loop.operand = loop.result = p;
      return loop;
    case K::Absolute:
      loop.operand = p;
      loop.result = is_complex(p) ? (p == ScalarKind::Complex64 ? ScalarKind::Float32 : ScalarKind::Float64) : p;
      if (std::string_view(u.name) == "fabs") {
        if (is_complex(p)) return refuse("real numbers");
        loop.operand = loop.result = float_loop_for(p);
      }
      return loop;
    case K::Compare:
      loop.operand = p;
      loop.result = ScalarKind::Bool;
      if (inputs.size() == 2 && is_integer(inputs[0]) && is_integer(inputs[1]) &&
          is_signed(inputs[0]) != is_signed(inputs[1]) && p == ScalarKind::Float64) {
        loop.mixed_sign_compare = true;  // int64 against uint64: exact, in 64-bit integers
        loop.operand = ScalarKind::Int64;
      }
      return loop;
    case K::Logical:
    case K::LogicalNot:
      loop.operand = p;
      loop.result = ScalarKind::Bool;
      return loop;
    case K::Predicate:
      loop.operand = p;
      loop.result = ScalarKind::Bool;
      return loop;
    case K::Bitwise:
    case K::Invert:
      if (!is_integer(p) && p != ScalarKind::Bool) return refuse("integers or booleans");
      if (p == ScalarKind::Bool && (u.op == bin(BinOpKind::LShift) || u.op == bin(BinOpKind::RShift)))
        return refuse("integers");
      loop.operand = loop.result = p;
      return loop;
    case K::Extremum:
      loop.operand = loop.result = p;
      return loop;
  }
  return refuse("numbers");
}

namespace {

using R = ReductionKind;

const ArrayReduction kReductions[] = {
    {"sum", R::Sum, false, true},         {"prod", R::Prod, false, true},
    {"mean", R::Mean, false, true},       {"var", R::Var, false, true},
    {"std", R::Std, false, true},         {"min", R::Min, false, true},
    {"max", R::Max, false, true},         {"amin", R::Min, false, false},
    {"amax", R::Max, false, false},       {"all", R::All, false, true},
    {"any", R::Any, false, true},         {"count_nonzero", R::CountNonzero, false, false},
    {"nansum", R::Sum, true, false},      {"nanprod", R::Prod, true, false},
    {"nanmean", R::Mean, true, false},    {"nanvar", R::Var, true, false},
    {"nanstd", R::Std, true, false},      {"nanmin", R::Min, true, false},
    {"nanmax", R::Max, true, false},
};

}  // namespace

const ArrayReduction* find_reduction(std::string_view name) {
  for (const ArrayReduction& r : kReductions) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

ReductionLoop resolve_reduction(const ArrayReduction& r, ScalarKind element) {
  ReductionLoop loop;
  const bool complex = is_complex(element);
  switch (r.kind) {
    case R::Sum:
    case R::Prod:
      // NumPy sums small integers and booleans in the platform's integer (int64, uint64 for unsigned).
      if (element == ScalarKind::Bool || (is_integer(element) && is_signed(element)))
        loop.accumulate = ScalarKind::Int64;
      else if (is_integer(element))
        loop.accumulate = ScalarKind::UInt64;
      else
        loop.accumulate = element;
      loop.result = loop.accumulate;
      return loop;
    case R::Mean:
    case R::Var:
    case R::Std:
      loop.accumulate = is_float(element) || complex ? element : ScalarKind::Float64;
      if (loop.accumulate == ScalarKind::Float16) loop.accumulate = ScalarKind::Float32;
      loop.result = loop.accumulate;
      if (r.kind != R::Mean && complex)  // the variance of complex numbers is real
        loop.result = element == ScalarKind::Complex64 ? ScalarKind::Float32 : ScalarKind::Float64;
      return loop;
    case R::Min:
    case R::Max:
      if (complex) {
        loop.error = fmt::format("np.{}() of complex numbers is not supported in kernels", r.name);
        return loop;
      }
      loop.accumulate = loop.result = element;
      return loop;
    case R::All:
    case R::Any:
      loop.accumulate = element;
      loop.result = ScalarKind::Bool;
      return loop;
    case R::CountNonzero:
      loop.accumulate = element;
      loop.result = ScalarKind::Int64;
      return loop;
  }
  loop.error = fmt::format("np.{}() has no loop for {}", r.name, scalar_name(element));
  return loop;
}

bool same_kind_cast(ScalarKind from, ScalarKind to) {
  if (from == to || from == ScalarKind::Bool) return true;
  if (to == ScalarKind::Bool) return false;
  if (is_complex(to)) return true;
  if (is_complex(from)) return false;
  if (is_float(to)) return true;
  if (is_float(from)) return false;
  // Integers: any integer to a signed one; to an unsigned one only from an unsigned one.
  return is_signed(to) || !is_signed(from);
}

}  // namespace gpujit
