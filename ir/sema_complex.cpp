// Semantic analysis of complex numbers' builtins: complex(), the members of numbers (z.real, z.imag,
// z.conjugate(), and g.sync() of a grid group), abs() of a complex number and the cmath functions.
//
// The types follow numba's templates:
// - complex(re[, im]) is complex64 when its arguments are float32 (or float16), else complex128;
// - z.real and z.imag are the component float (float32 for complex64); on a real number z.real is z and
//   z.imag is a zero of z's type; z.conjugate() has z's type;
// - abs(z), cmath.phase(z) give the component float, cmath.polar(z) a tuple of two of them;
// - the other cmath functions take a number converted to complex (complex64 from float32 or float16,
//   complex128 from anything else, as numba's conversion to its complex cases) and give that complex type,
//   or bool for isnan/isinf/isfinite; cmath.rect(r, phi) takes two real numbers;
// - cmath.log(z, base) converts both to their common complex type.
#include <fmt/format.h>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

/// The component float of a complex kind.
ScalarKind component_of(ScalarKind c) {
  return c == ScalarKind::Complex64 ? ScalarKind::Float32 : ScalarKind::Float64;
}

/// The complex kind a cmath function computes a number of kind `k` in.
ScalarKind complex_for(const Operand& o) {
  ScalarKind k = o.type.scalar;
  if (is_complex(k)) return k;
  if (k == ScalarKind::Float32 || k == ScalarKind::Float16) return ScalarKind::Complex64;
  return ScalarKind::Complex128;
}

/// complex64 when every part is float32 or float16, else complex128 (a float64 constant makes it complex128).
ScalarKind complex_from_parts(const std::vector<Operand>& parts) {
  Type common = common_numeric_type(parts);
  bool narrow = common.is_scalar(ScalarKind::Float32) || common.is_scalar(ScalarKind::Float16);
  return narrow ? ScalarKind::Complex64 : ScalarKind::Complex128;
}

bool is_cmath_unary(BuiltinId id) { return id >= BuiltinId::CmathSqrt && id <= BuiltinId::CmathAtanh; }

}  // namespace

ExprResult FunctionAnalyzer::member(const AttributeExpr& e, const ExprResult& base) {
  const Type& t = base.type;
  const BuiltinInfo* b = nullptr;
  if (t.kind == Type::Kind::GridGroup) b = find_builtin(BuiltinScope::GridGroup, e.attr);
  bool number = t.is_scalar() && !t.is_bool();
  if (number) b = find_builtin(BuiltinScope::Number, e.attr);
  if (!b) {
    error(e.attr_range, fmt::format("'{}' has no attribute '{}'{}", t.str(), e.attr, origin_of(*e.value)));
    return ExprResult::error();
  }
  ExprResult r;
  if (b->callable) {
    r.what = ExprResult::What::Builtin;
  } else {
    // z.real, z.imag: the component float of a complex number; a real number's own type.
    r = ExprResult::of_value(t.is_complex() ? Type::scalar_of(component_of(t.scalar)) : t);
    if (b->id == BuiltinId::Real && base.value) r.value = base.value;
  }
  r.builtin = b;
  return r;
}

ExprResult FunctionAnalyzer::complex_call(const CallExpr& e, const BuiltinInfo& b,
                                          const std::vector<ExprResult>& args) {
  std::string name = path_of(*e.func);
  auto done = [&](std::vector<Type> operands, Type result) {
    if (checking_) fn_.operand_types[&e] = std::move(operands);
    return record(e, ExprResult::of_value(std::move(result)));
  };
  auto require = [&](size_t i, bool allow_complex) {
    const Type& t = args[i].type;
    if (t.is_scalar() && (allow_complex || !t.is_complex())) return true;
    error(e.args[i]->range, fmt::format("{}() argument {} must be a {}number, got {}{}", name, i + 1,
                                        allow_complex ? "" : "real ", t.str(), origin_of(*e.args[i])));
    return false;
  };
  std::vector<Operand> ops;
  for (const ExprResult& a : args) ops.push_back(operand(a));

  switch (b.id) {
    case BuiltinId::Complex: {
      if (args.size() == 1) {
        if (!require(0, true)) return ExprResult::error();
        Type c = Type::scalar_of(complex_from_parts(ops));
        if (args[0].type.is_complex()) c = Type::scalar_of(ScalarKind::Complex128);
        return done({c}, c);
      }
      if (!require(0, false) || !require(1, false)) return ExprResult::error();
      ScalarKind c = complex_from_parts(ops);
      Type f = Type::scalar_of(component_of(c));
      return done({f, f}, Type::scalar_of(c));
    }
    case BuiltinId::Conjugate: {
      // z.conjugate(): the receiver is the callee's base, evaluated again for its type.
      const auto* attr = e.func->as<AttributeExpr>();
      if (!attr) throw InternalError("conjugate() without a receiver");
      ExprResult z = value(*attr->value);
      if (!z.is_value()) return z;
      return done({z.type}, z.type);
    }
    case BuiltinId::Abs: {
      const Type& t = args[0].type;
      return done({t}, Type::scalar_of(component_of(t.scalar)));
    }
    case BuiltinId::CmathRect: {
      if (!require(0, false) || !require(1, false)) return ExprResult::error();
      ScalarKind c = complex_from_parts(ops);
      Type f = Type::scalar_of(component_of(c));
      return done({f, f}, Type::scalar_of(c));
    }
    case BuiltinId::CmathLog:
      if (args.size() == 2) {
        if (!require(0, true) || !require(1, true)) return ExprResult::error();
        ScalarKind c = promote_scalars(complex_for(ops[0]), complex_for(ops[1]));
        Type ct = Type::scalar_of(c);
        return done({ct, ct}, ct);
      }
      break;
    default:
      break;
  }
  if (args.size() != 1) throw InternalError("cmath builtin '" + b.qualified_name() + "' with two arguments");
  if (!require(0, true)) return ExprResult::error();
  Type c = Type::scalar_of(complex_for(ops[0]));
  Type f = Type::scalar_of(component_of(c.scalar));
  if (is_cmath_unary(b.id)) return done({c}, c);
  switch (b.id) {
    case BuiltinId::CmathPhase:
      return done({c}, f);
    case BuiltinId::CmathPolar:
      return done({c}, Type::tuple_of({f, f}));
    case BuiltinId::CmathIsNan:
    case BuiltinId::CmathIsInf:
    case BuiltinId::CmathIsFinite:
      return done({c}, Type::scalar_of(ScalarKind::Bool));
    default:
      throw InternalError("no typing for '" + b.qualified_name() + "'");
  }
}

}  // namespace gpujit
