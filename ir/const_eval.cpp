// Constant folding with run-time semantics (see ir/const_eval.h).
#include "ir/const_eval.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/enum_type.h"
#include "ir/type_rules.h"

namespace gpujit {

namespace {

// Wraps raw 64-bit integer bits to kind k's width: sign-extended for signed kinds, zero-extended otherwise.
int64_t wrap_to(uint64_t bits, ScalarKind k) {
  unsigned width = scalar_size(k) * 8;
  if (width >= 64) return static_cast<int64_t>(bits);
  uint64_t mask = (uint64_t{1} << width) - 1;
  bits &= mask;
  if (is_signed(k) && (bits >> (width - 1)) & 1) bits |= ~mask;
  return static_cast<int64_t>(bits);
}

double as_double(const ConstValue& v) {
  switch (v.kind) {
    case ConstValue::Kind::Float:
      return v.f;
    case ConstValue::Kind::Bool:
      return v.i ? 1.0 : 0.0;
    default:
      return is_unsigned(v.scalar) ? static_cast<double>(static_cast<uint64_t>(v.i))
                                   : static_cast<double>(v.i);
  }
}

bool is_scalar_const(const ConstValue& v) {
  if (v.enum_class && !v.enum_class->is_int) return false;  // a member of an Enum is not a number
  return v.kind == ConstValue::Kind::Int || v.kind == ConstValue::Kind::Float ||
         v.kind == ConstValue::Kind::Bool;
}

ConstValue make_float(double f, ScalarKind k) {
  if (k == ScalarKind::Float32) f = static_cast<double>(static_cast<float>(f));
  return ConstValue::of_float(f, k);
}

std::optional<ConstValue> fold_int(BinOpKind op, int64_t a, int64_t b, ScalarKind k) {
  const bool sign = is_signed(k);
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  uint64_t r = 0;
  switch (op) {
    case BinOpKind::Add:
      r = ua + ub;
      break;
    case BinOpKind::Sub:
      r = ua - ub;
      break;
    case BinOpKind::Mul:
      r = ua * ub;
      break;
    case BinOpKind::FloorDiv:
    case BinOpKind::Mod: {
      if (b == 0) return std::nullopt;
      if (!sign) {
        r = op == BinOpKind::FloorDiv ? ua / ub : ua % ub;
        break;
      }
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return std::nullopt;
      int64_t q = a / b, m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) --q, m += b;
      r = static_cast<uint64_t>(op == BinOpKind::FloorDiv ? q : m);
      break;
    }
    case BinOpKind::Pow: {
      if (sign && b < 0) return std::nullopt;
      uint64_t base = ua, result = 1, e = ub;
      while (e) {
        if (e & 1) result *= base;
        base *= base;
        e >>= 1;
      }
      r = result;
      break;
    }
    case BinOpKind::LShift:
    case BinOpKind::RShift:
      if ((sign && b < 0) || ub >= 64) return std::nullopt;
      if (op == BinOpKind::LShift)
        r = ua << ub;
      else
        r = sign ? static_cast<uint64_t>(a >> b) : ua >> ub;
      break;
    case BinOpKind::BitAnd:
      r = ua & ub;
      break;
    case BinOpKind::BitOr:
      r = ua | ub;
      break;
    case BinOpKind::BitXor:
      r = ua ^ ub;
      break;
    case BinOpKind::Div:
      return std::nullopt;
  }
  return ConstValue::of_int(wrap_to(r, k), k);
}

std::optional<ConstValue> fold_float(BinOpKind op, double a, double b, ScalarKind k) {
  double r = 0;
  switch (op) {
    case BinOpKind::Add:
      r = a + b;
      break;
    case BinOpKind::Sub:
      r = a - b;
      break;
    case BinOpKind::Mul:
      r = a * b;
      break;
    case BinOpKind::Div:
      if (b == 0) return std::nullopt;
      r = a / b;
      break;
    case BinOpKind::FloorDiv:
    case BinOpKind::Mod: {
      if (b == 0) return std::nullopt;
      double m = std::fmod(a, b);
      double q = (a - m) / b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b, q -= 1;
      r = op == BinOpKind::FloorDiv ? std::floor(q + 0.0) : m;
      break;
    }
    case BinOpKind::Pow:
      r = std::pow(a, b);
      break;
    default:
      return std::nullopt;
  }
  return make_float(r, k);
}

}  // namespace

std::optional<ConstValue> fold_cast(const ConstValue& v, ScalarKind k) {
  if (!is_scalar_const(v)) return std::nullopt;
  if (k == ScalarKind::Bool)
    return const_truth(v).has_value() ? std::optional(ConstValue::of_bool(*const_truth(v))) : std::nullopt;
  if (is_integer(k)) {
    if (v.kind == ConstValue::Kind::Float) {
      double t = std::trunc(v.f);
      // Out of range or NaN is poison in LLVM's fptosi/fptoui; leave it to run time.
      if (!std::isfinite(t)) return std::nullopt;
      if (is_signed(k)) {
        if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return std::nullopt;
        return ConstValue::of_int(wrap_to(static_cast<uint64_t>(static_cast<int64_t>(t)), k), k);
      }
      if (t < 0 || t >= 18446744073709551616.0) return std::nullopt;
      return ConstValue::of_int(wrap_to(static_cast<uint64_t>(t), k), k);
    }
    return ConstValue::of_int(wrap_to(static_cast<uint64_t>(v.i), k), k);
  }
  if (k == ScalarKind::Float32 || k == ScalarKind::Float64) return make_float(as_double(v), k);
  return std::nullopt;  // float16 and complex constants are not folded
}

std::optional<bool> const_truth(const ConstValue& v) {
  switch (v.kind) {
    case ConstValue::Kind::Int:
    case ConstValue::Kind::Bool:
      return v.i != 0;
    case ConstValue::Kind::Float:
      return v.f != 0;
    default:
      return std::nullopt;
  }
}

std::optional<ConstValue> fold_unary(UnaryOpKind op, const ConstValue& v) {
  if (!is_scalar_const(v)) return std::nullopt;
  OpTyping t = type_unary(op, v.type());
  if (!t.ok()) return std::nullopt;
  if (op == UnaryOpKind::Not) return ConstValue::of_bool(!*const_truth(v));
  std::optional<ConstValue> x = fold_cast(v, t.operand.scalar);
  if (!x) return std::nullopt;
  ScalarKind k = t.result.scalar;
  switch (op) {
    case UnaryOpKind::Pos:
      return x;
    case UnaryOpKind::Neg:
      if (x->kind == ConstValue::Kind::Float) return make_float(-x->f, k);
      return ConstValue::of_int(wrap_to(0 - static_cast<uint64_t>(x->i), k), k);
    case UnaryOpKind::Invert:
      if (k == ScalarKind::Bool) return ConstValue::of_bool(x->i == 0);
      return ConstValue::of_int(wrap_to(~static_cast<uint64_t>(x->i), k), k);
    case UnaryOpKind::Not:
      break;
  }
  return std::nullopt;
}

std::optional<ConstValue> fold_binary(BinOpKind op, const ConstValue& a, const ConstValue& b) {
  if (!is_scalar_const(a) || !is_scalar_const(b)) return std::nullopt;
  OpTyping t = type_binary(op, Operand{a.type(), &a}, Operand{b.type(), &b});
  if (!t.ok()) return std::nullopt;
  ScalarKind k = t.operand.scalar;
  std::optional<ConstValue> x = fold_cast(a, k), y = fold_cast(b, k);
  if (!x || !y) return std::nullopt;
  if (k == ScalarKind::Bool) {
    bool p = x->i != 0, q = y->i != 0;
    switch (op) {
      case BinOpKind::BitAnd:
        return ConstValue::of_bool(p && q);
      case BinOpKind::BitOr:
        return ConstValue::of_bool(p || q);
      case BinOpKind::BitXor:
        return ConstValue::of_bool(p != q);
      default:
        return std::nullopt;
    }
  }
  if (is_integer(k)) return fold_int(op, x->i, y->i, k);
  if (k == ScalarKind::Float32 || k == ScalarKind::Float64) return fold_float(op, x->f, y->f, k);
  return std::nullopt;
}

std::optional<ConstValue> fold_compare(CmpOpKind op, const ConstValue& a, const ConstValue& b) {
  if (a.enum_class || b.enum_class) {
    OpTyping t = type_enum_compare(op, a.type(), b.type());
    if (!t.ok()) return std::nullopt;
    const bool negated = op == CmpOpKind::NotEq || op == CmpOpKind::IsNot;
    if (t.operand.is_void()) return ConstValue::of_bool(negated);  // decided by the classes
    if (t.operand.is_valid()) {  // one class: the members' values decide
      ConstValue x = a, y = b;
      x.enum_class = y.enum_class = nullptr;
      return fold_compare(negated ? CmpOpKind::NotEq : CmpOpKind::Eq, x, y);
    }
  }
  if (!is_scalar_const(a) || !is_scalar_const(b)) return std::nullopt;
  OpTyping t = type_compare(op, Operand{a.type(), &a}, Operand{b.type(), &b});
  if (!t.ok()) return std::nullopt;
  ScalarKind k = t.operand.scalar;
  std::optional<ConstValue> x = fold_cast(a, k), y = fold_cast(b, k);
  if (!x || !y) return std::nullopt;
  int cmp = 0;
  bool unordered = false;
  if (x->kind == ConstValue::Kind::Float) {
    unordered = std::isnan(x->f) || std::isnan(y->f);
    cmp = x->f < y->f ? -1 : (x->f > y->f ? 1 : 0);
  } else if (is_unsigned(k)) {
    uint64_t p = static_cast<uint64_t>(x->i), q = static_cast<uint64_t>(y->i);
    cmp = p < q ? -1 : (p > q ? 1 : 0);
  } else {
    cmp = x->i < y->i ? -1 : (x->i > y->i ? 1 : 0);
  }
  bool r = false;
  switch (op) {
    case CmpOpKind::Eq:
      r = !unordered && cmp == 0;
      break;
    case CmpOpKind::NotEq:
      r = unordered || cmp != 0;
      break;
    case CmpOpKind::Lt:
      r = !unordered && cmp < 0;
      break;
    case CmpOpKind::LtE:
      r = !unordered && cmp <= 0;
      break;
    case CmpOpKind::Gt:
      r = !unordered && cmp > 0;
      break;
    case CmpOpKind::GtE:
      r = !unordered && cmp >= 0;
      break;
    default:
      return std::nullopt;
  }
  return ConstValue::of_bool(r);
}

}  // namespace gpujit
