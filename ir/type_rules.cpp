// numba's scalar typing rules (see ir/type_rules.h for the rules and their sources).
#include "ir/type_rules.h"

#include <fmt/format.h>

#include "ir/charseq.h"
#include "ir/datetime_rules.h"
#include "ir/enum_type.h"

#include <cmath>
#include <limits>

namespace gpujit {

namespace {

ScalarKind signed_of_size(unsigned bytes) {
  switch (bytes) {
    case 1:
      return ScalarKind::Int8;
    case 2:
      return ScalarKind::Int16;
    case 4:
      return ScalarKind::Int32;
    default:
      return ScalarKind::Int64;
  }
}

// The smallest float that holds every value of an integer kind, as NumPy picks it.
ScalarKind float_for_int(ScalarKind k) {
  unsigned size = scalar_size(k);
  if (k == ScalarKind::Bool || size == 1) return ScalarKind::Float16;
  if (size == 2) return ScalarKind::Float32;
  return ScalarKind::Float64;
}

ScalarKind max_kind(ScalarKind a, ScalarKind b) { return a < b ? b : a; }

// Integer arithmetic runs at 64 bits at least (numba's choose_result_int); bool arithmetic is int64.
ScalarKind widen_int(ScalarKind k) {
  if (k == ScalarKind::Bool || is_signed(k)) return ScalarKind::Int64;
  if (is_unsigned(k)) return ScalarKind::UInt64;
  return k;
}

// bfloat16 is not among them: it has its own operators and functions (numba.cuda.bf16) and converts only
// explicitly, see ir/type_rules.h. Nor are datetime64 and timedelta64 (ir/datetime_rules.h).
bool is_number(const Type& t) {
  return t.is_scalar() && !t.is_complex() && !t.is_bfloat16() && !t.is_npdatetime() && !t.is_fp8();
}

bool fits_unsigned(int64_t v, ScalarKind k) {
  if (v < 0) return false;
  unsigned bits = scalar_size(k) * 8;
  return bits >= 64 || static_cast<uint64_t>(v) < (uint64_t{1} << bits);
}

double float_max(ScalarKind k) {
  return k == ScalarKind::Float16 ? 65504.0 : static_cast<double>(std::numeric_limits<float>::max());
}

// Whether `v` is exactly representable in float kind k (float16 or float32).
bool exact_in(double v, ScalarKind k) {
  if (!std::isfinite(v)) return true;
  if (std::fabs(v) > float_max(k)) return false;
  float f = static_cast<float>(v);
  if (static_cast<double>(f) != v) return false;
  if (k == ScalarKind::Float16) {
    // float16 has 11 significant bits: v must be a multiple of 2**(exponent - 10).
    if (v == 0) return true;
    int exp = 0;
    std::frexp(v, &exp);
    double scaled = std::ldexp(v, 11 - exp);
    return scaled == std::trunc(scaled) && std::fabs(v) >= std::ldexp(1.0, -24);
  }
  return true;
}

// The type a weak constant takes next to `other` (see the header); `self.type` if it does not adapt.
Type adapt(const Operand& self, const Operand& other, bool exact_only) {
  // Arithmetic follows numba: a constant is as strong as a variable of its type (0.5 is float64, 2 int64).
  if (!exact_only) return self.type;
  if (!self.constant || !is_weak_constant(*self.constant) || !self.type.is_scalar()) return self.type;
  if (other.constant && is_weak_constant(*other.constant)) return self.type;
  if (!other.type.is_scalar()) return self.type;
  ScalarKind ok = other.type.scalar;
  // Beside a complex64 a constant takes float32, so `2.0 * z` stays complex64 as `2.0 * x` stays float32.
  if (ok == ScalarKind::Complex64) ok = ScalarKind::Float32;
  const ConstValue& c = *self.constant;
  if (ok == ScalarKind::Float32 || ok == ScalarKind::Float16) {
    double v = c.kind == ConstValue::Kind::Int ? static_cast<double>(c.i) : c.f;
    if (exact_only && !exact_in(v, ok)) return self.type;
    if (!exact_only && std::isfinite(v) && std::fabs(v) > float_max(ok)) return self.type;
    return Type::scalar_of(ok);
  }
  if (is_unsigned(ok) && c.kind == ConstValue::Kind::Int && fits_unsigned(c.i, ok))
    return Type::scalar_of(ok);
  return self.type;
}

std::string op_types_error(const char* op, const Type& a, const Type& b) {
  return fmt::format("unsupported operand types for {}: '{}' and '{}'", op, a.str(), b.str());
}

OpTyping fail(std::string message) {
  OpTyping t;
  t.error = std::move(message);
  return t;
}

OpTyping same(ScalarKind k) {
  OpTyping t;
  t.operand = t.result = Type::scalar_of(k);
  return t;
}

// Complex operands: + - * / ** in the promoted complex type (numba has no // % or bit operations on them).
OpTyping type_complex_binary(BinOpKind op, const Operand& lhs, const Operand& rhs) {
  const char* sym = to_string(op);
  if (!lhs.type.is_scalar() || !rhs.type.is_scalar()) return fail(op_types_error(sym, lhs.type, rhs.type));
  switch (op) {
    case BinOpKind::Add:
    case BinOpKind::Sub:
    case BinOpKind::Mul:
    case BinOpKind::Div:
    case BinOpKind::Pow:
      return same(promote_scalars(adapt(lhs, rhs, false).scalar, adapt(rhs, lhs, false).scalar));
    default:
      return fail(op_types_error(sym, lhs.type, rhs.type));
  }
}

// bfloat16 operands: + - * / of two bfloat16 values give bfloat16 (numba-cuda's operator cases for
// __nv_bfloat16); nothing mixes bfloat16 with another type implicitly.
OpTyping type_bfloat16_binary(BinOpKind op, const Type& lhs, const Type& rhs) {
  bool arithmetic = op == BinOpKind::Add || op == BinOpKind::Sub || op == BinOpKind::Mul || op == BinOpKind::Div;
  if (lhs.is_bfloat16() && rhs.is_bfloat16() && arithmetic) return same(ScalarKind::BFloat16);
  std::string message = op_types_error(to_string(op), lhs, rhs);
  if (arithmetic && lhs.is_scalar() && rhs.is_scalar())
    message += "; bfloat16 operators take two bfloat16 operands: convert the other with bfloat16(x), or both "
               "with float32(x)";
  return fail(std::move(message));
}

}  // namespace

ScalarKind promote_scalars(ScalarKind a, ScalarKind b) {
  if (a == b) return a;
  if (a == ScalarKind::Bool) return b;
  if (b == ScalarKind::Bool) return a;
  if (is_integer(a) && is_integer(b)) {
    if (is_signed(a) == is_signed(b)) return max_kind(a, b);
    ScalarKind s = is_signed(a) ? a : b;
    ScalarKind u = is_signed(a) ? b : a;
    if (scalar_size(u) < scalar_size(s)) return s;
    if (u == ScalarKind::UInt64) return ScalarKind::Float64;
    return signed_of_size(scalar_size(u) * 2);
  }
  if (is_complex(a) || is_complex(b)) {
    ScalarKind c = is_complex(a) ? a : b;
    ScalarKind o = is_complex(a) ? b : a;
    ScalarKind need = is_complex(o) ? o
                      : is_float(o)
                          ? (o == ScalarKind::Float64 ? ScalarKind::Complex128 : ScalarKind::Complex64)
                          : (scalar_size(o) >= 4 ? ScalarKind::Complex128 : ScalarKind::Complex64);
    return max_kind(c, need);
  }
  if (is_float(a) && is_float(b)) return max_kind(a, b);
  ScalarKind f = is_float(a) ? a : b;
  ScalarKind i = is_float(a) ? b : a;
  return max_kind(f, float_for_int(i));
}

Type unify(const Type& a, const Type& b) {
  if (!a.is_valid() || !b.is_valid()) return Type::invalid();
  if (a == b) return a;
  if (a.is_charseq() || b.is_charseq()) return unify_charseq(a, b);  // the longer string
  if (a.is_bfloat16() || b.is_bfloat16()) return Type::invalid();  // equal types returned above
  if (a.is_fp8() || b.is_fp8()) return Type::invalid();
  if (a.is_npdatetime() || b.is_npdatetime()) return Type::invalid();  // numba unifies no two units
  if (a.is_scalar() && b.is_scalar()) return Type::scalar_of(promote_scalars(a.scalar, b.scalar));
  if (a.is_array() && b.is_array()) {
    if (a.scalar != b.scalar || a.record != b.record || a.ndim != b.ndim) return Type::invalid();
    return Type::array_of(a.element(), a.ndim, a.layout == b.layout ? a.layout : Layout::Any, a.index32 && b.index32);
  }
  if (a.is_tuple() && b.is_tuple()) {
    if (a.elements.size() != b.elements.size()) return Type::invalid();
    std::vector<Type> elts;
    for (size_t i = 0; i < a.elements.size(); ++i) {
      Type u = unify(a.elements[i], b.elements[i]);
      if (!u.is_valid()) return Type::invalid();
      elts.push_back(std::move(u));
    }
    return Type::tuple_of(std::move(elts));
  }
  return Type::invalid();
}

bool is_weak_constant(const ConstValue& c) {
  return (c.kind == ConstValue::Kind::Int && c.scalar == ScalarKind::Int64) ||
         (c.kind == ConstValue::Kind::Float && c.scalar == ScalarKind::Float64);
}

OpTyping type_binary(BinOpKind op, const Operand& lhs, const Operand& rhs) {
  const char* sym = to_string(op);
  if (lhs.type.is_npdatetime() || rhs.type.is_npdatetime()) return type_npdatetime_binary(op, lhs.type, rhs.type);
  if (lhs.type.is_bfloat16() || rhs.type.is_bfloat16()) return type_bfloat16_binary(op, lhs.type, rhs.type);
  if (lhs.type.is_complex() || rhs.type.is_complex()) return type_complex_binary(op, lhs, rhs);
  if (!is_number(lhs.type) || !is_number(rhs.type)) return fail(op_types_error(sym, lhs.type, rhs.type));
  ScalarKind a = adapt(lhs, rhs, false).scalar;
  ScalarKind b = adapt(rhs, lhs, false).scalar;
  // numba-cuda's operators take a uint64 beside a signed integer in their int64 case (u + 1, u ^ i are
  // int64), where NumPy's promotion would give float64.
  if (a == ScalarKind::UInt64 && is_signed(b)) a = ScalarKind::Int64;
  if (b == ScalarKind::UInt64 && is_signed(a)) b = ScalarKind::Int64;
  ScalarKind c = promote_scalars(a, b);
  switch (op) {
    case BinOpKind::Add:
    case BinOpKind::Sub:
    case BinOpKind::Mul:
    case BinOpKind::FloorDiv:
    case BinOpKind::Mod:
      return same(widen_int(c));
    case BinOpKind::Div:
      return same(is_float(c) ? c : ScalarKind::Float64);
    case BinOpKind::Pow:
      // numba: float ** int keeps the float type (float32 ** 2 stays float32).
      if (is_float(a) && !is_float(b)) return same(a);
      return same(widen_int(c));
    case BinOpKind::LShift:
    case BinOpKind::RShift:
      if (is_float(a) || is_float(b)) return fail(op_types_error(sym, lhs.type, rhs.type));
      return same(is_unsigned(lhs.type.scalar) ? ScalarKind::UInt64 : ScalarKind::Int64);
    case BinOpKind::BitAnd:
    case BinOpKind::BitOr:
    case BinOpKind::BitXor:
      if (is_float(a) || is_float(b)) return fail(op_types_error(sym, lhs.type, rhs.type));
      if (a == ScalarKind::Bool && b == ScalarKind::Bool) return same(ScalarKind::Bool);
      return same(widen_int(c));
  }
  return fail(op_types_error(sym, lhs.type, rhs.type));
}

OpTyping type_unary(UnaryOpKind op, const Type& operand) {
  if (op == UnaryOpKind::Not) {
    if (!has_truth_value(operand)) {
      return fail(fmt::format("'{}' has no truth value; 'not' needs a number or a bool", operand.str()));
    }
    OpTyping t;
    t.operand = operand;
    t.result = Type::scalar_of(ScalarKind::Bool);
    return t;
  }
  if (operand.is_npdatetime()) return type_npdatetime_unary(op, operand);
  std::string bad = fmt::format("bad operand type for unary {}: '{}'", to_string(op), operand.str());
  if (operand.is_complex() || operand.is_bfloat16())
    return op == UnaryOpKind::Invert ? fail(bad) : same(operand.scalar);
  if (!is_number(operand)) return fail(bad);
  ScalarKind k = operand.scalar;
  if (op == UnaryOpKind::Invert) {
    if (is_float(k)) return fail(bad);
    return same(k == ScalarKind::Bool ? k : widen_int(k));
  }
  return same(is_float(k) ? k : widen_int(k));
}

// `x in t` / `x not in t` with a tuple t: true when x == some element (numba's seq_contains_impl). Each
// element is compared with '==' under that pair's own rules, so every pair must compare; the typing's
// operand is the tuple, from which the lowering reads the elements (FunctionLowering::compare_values).
static OpTyping type_contains(CmpOpKind op, const Operand& item, const Operand& seq) {
  if (!seq.type.is_tuple()) {
    return fail(fmt::format("'{}' needs a tuple on its right, got '{}'; numba supports 'x in (a, b, ...)'",
                            to_string(op), seq.type.str()));
  }
  for (const Type& element : seq.type.elements) {
    OpTyping eq = type_compare(CmpOpKind::Eq, Operand{item.type}, Operand{element});
    if (!eq.ok()) {
      return fail(fmt::format("'{}' compares '{}' with each element of '{}' by '==': {}", to_string(op),
                              item.type.str(), seq.type.str(), eq.error));
    }
  }
  OpTyping t;
  t.operand = seq.type;
  t.result = Type::scalar_of(ScalarKind::Bool);
  return t;
}

OpTyping type_compare(CmpOpKind op, const Operand& lhs, const Operand& rhs) {
  if (op == CmpOpKind::In || op == CmpOpKind::NotIn) return type_contains(op, lhs, rhs);
  if (lhs.type.is_enum() || rhs.type.is_enum()) {  // ir/enum_type.h
    OpTyping t = type_enum_compare(op, lhs.type, rhs.type);
    if (!t.ok() || t.operand.is_valid()) return t;
  }
  if (lhs.type.is_charseq() || rhs.type.is_charseq()) return type_charseq_compare(op, lhs.type, rhs.type);
  switch (op) {
    case CmpOpKind::Is:
    case CmpOpKind::IsNot:
      return fail(fmt::format("'{}' comparisons are not supported; use '==' or '!='", to_string(op)));
    default:
      break;
  }
  if (lhs.type.is_npdatetime() || rhs.type.is_npdatetime()) return type_npdatetime_compare(op, lhs.type, rhs.type);
  if ((lhs.type.is_complex() || rhs.type.is_complex()) && lhs.type.is_scalar() && rhs.type.is_scalar()) {
    if (op != CmpOpKind::Eq && op != CmpOpKind::NotEq) {
      return fail(fmt::format("complex numbers cannot be ordered with '{}'; compare their .real, .imag or abs()",
                              to_string(op)));
    }
    OpTyping t;
    t.operand = Type::scalar_of(promote_scalars(adapt(lhs, rhs, true).scalar, adapt(rhs, lhs, true).scalar));
    t.result = Type::scalar_of(ScalarKind::Bool);
    return t;
  }
  if (lhs.type.is_bfloat16() && rhs.type.is_bfloat16()) {
    OpTyping t;
    t.operand = lhs.type;
    t.result = Type::scalar_of(ScalarKind::Bool);
    return t;
  }
  if (!is_number(lhs.type) || !is_number(rhs.type)) {
    std::string message =
        fmt::format("cannot compare '{}' and '{}' with '{}'", lhs.type.str(), rhs.type.str(), to_string(op));
    if ((lhs.type.is_bfloat16() || rhs.type.is_bfloat16()) && lhs.type.is_scalar() && rhs.type.is_scalar())
      message += "; a bfloat16 compares with another bfloat16: convert the other with bfloat16(x)";
    return fail(std::move(message));
  }
  ScalarKind a = adapt(lhs, rhs, true).scalar;
  ScalarKind b = adapt(rhs, lhs, true).scalar;
  OpTyping t;
  t.operand = Type::scalar_of(promote_scalars(a, b));
  t.result = Type::scalar_of(ScalarKind::Bool);
  return t;
}

Type common_numeric_type(const std::vector<Operand>& operands) {
  // numba's unification: constants count with their own types (min(x, 0.0) of a float32 x is float64).
  Type all;
  for (const Operand& o : operands) {
    if (!is_number(o.type)) return Type::invalid();
    all = all.is_valid() ? unify(all, o.type) : o.type;
  }
  return all;
}

bool has_truth_value(const Type& t) { return t.is_scalar() && !t.is_npdatetime(); }

bool can_convert(const Type& from, const Type& to) {
  if (from.is_charseq() || to.is_charseq()) return charseq_store_error(from, to).empty();  // ir/charseq.h
  // A complex number converts to complex types only (numba has no complex-to-real conversion).
  // bfloat16 converts to and from the real numbers and bool, not complex (numba-cuda's casts of __nv_bfloat16).
  if (from.is_scalar() && to.is_scalar()) {
    if (from.is_npdatetime() || to.is_npdatetime()) return from == to;  // numba: no conversion between units
    if (from.is_bfloat16() || to.is_bfloat16()) return !from.is_complex() && !to.is_complex();
    return !from.is_complex() || to.is_complex();
  }
  if (from.is_array() && to.is_array()) {
    return from.scalar == to.scalar && from.record == to.record && from.ndim == to.ndim &&
           (to.layout == Layout::Any || from.layout == to.layout) && (from.index32 || !to.index32);
  }
  if (from.is_tuple() && to.is_tuple()) {
    if (from.elements.size() != to.elements.size()) return false;
    for (size_t i = 0; i < from.elements.size(); ++i) {
      if (!can_convert(from.elements[i], to.elements[i])) return false;
    }
    return true;
  }
  return from.is_valid() && from == to;
}

ScalarKind math_float_kind(const std::vector<Operand>& operands) {
  bool any_float = false;
  ScalarKind floats = ScalarKind::Float16;
  ScalarKind int_need = ScalarKind::Float16;
  bool any_int = false;
  for (const Operand& o : operands) {
    if (!o.type.is_scalar()) continue;
    ScalarKind k = o.type.scalar;
    if (is_float(k)) {
      any_float = true;
      floats = max_kind(floats, k);
    } else {
      any_int = true;
      // Beside a float argument a small integer converts safely to float32 (numba picks the float32 case);
      // an int32/int64 argument needs float64.
      int_need = max_kind(int_need, scalar_size(k) <= 2 ? ScalarKind::Float32 : ScalarKind::Float64);
    }
  }
  if (!any_float) return ScalarKind::Float64;
  if (any_int) return max_kind(max_kind(floats, int_need), ScalarKind::Float32);
  return floats;
}

ConversionRank scalar_conversion_rank(ScalarKind from, ScalarKind to) {
  if (from == to) return ConversionRank::Exact;
  if (is_npdatetime(from) || is_npdatetime(to)) return ConversionRank::None;
  // bfloat16 converts to and from the real numbers and bool (can_convert), never exactly typed: unsafe.
  if (is_bfloat16(from) || is_bfloat16(to))
    return is_complex(from) || is_complex(to) ? ConversionRank::None : ConversionRank::Unsafe;
  unsigned fs = scalar_size(from), ts = scalar_size(to);
  if (is_complex(from)) {
    if (!is_complex(to)) return ConversionRank::None;
    return ts > fs ? ConversionRank::Promote : ConversionRank::Unsafe;
  }
  if (to == ScalarKind::Bool) return ConversionRank::Unsafe;
  if (from == ScalarKind::Bool) return ConversionRank::Safe;
  if (is_float(from)) {
    if (is_float(to)) return ts > fs ? ConversionRank::Promote : ConversionRank::Unsafe;
    if (is_complex(to)) return 2 * fs <= ts ? ConversionRank::Safe : ConversionRank::Unsafe;
    return ConversionRank::Unsafe;  // to an integer
  }
  // From an integer.
  if (is_float(to)) return 2 * fs <= ts ? ConversionRank::Safe : ConversionRank::Unsafe;
  if (is_complex(to)) return 4 * fs <= ts ? ConversionRank::Safe : ConversionRank::Unsafe;
  if (is_signed(from) == is_signed(to)) return ts > fs ? ConversionRank::Promote : ConversionRank::Unsafe;
  return is_unsigned(from) && ts > fs ? ConversionRank::Safe : ConversionRank::Unsafe;
}

std::optional<ConversionRank> argument_rank(const Type& a, const Type& p) {
  if (a.is_scalar() && p.is_scalar()) return scalar_conversion_rank(a.scalar, p.scalar);
  if (a.is_array() && p.is_array()) {
    if (a.scalar != p.scalar || a.record != p.record || a.ndim != p.ndim) return std::nullopt;
    if (p.layout != Layout::Any && a.layout != p.layout) return std::nullopt;  // C or F: that order only
    return ConversionRank::Safe;
  }
  return std::nullopt;  // tuples and records pass only as exactly the parameter's type
}

bool count_rank(ConversionRank rank, std::array<int, 3>& rating) {
  switch (rank) {
    case ConversionRank::None: return false;
    case ConversionRank::Unsafe: ++rating[0]; break;
    case ConversionRank::Safe: ++rating[1]; break;
    case ConversionRank::Promote: ++rating[2]; break;
    case ConversionRank::Exact: break;
  }
  return true;
}

std::optional<std::array<int, 3>> rate_signature(const std::vector<Type>& args, const std::vector<Type>& params) {
  if (args.size() != params.size()) return std::nullopt;
  std::array<int, 3> rating{};
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == params[i]) continue;
    std::optional<ConversionRank> c = argument_rank(args[i], params[i]);
    if (!c || !count_rank(*c, rating)) return std::nullopt;
  }
  return rating;
}

}  // namespace gpujit
