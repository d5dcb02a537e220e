// Complex numbers: complex64 and complex128 are the literal structs {float, float} and {double, double}
// (NumPy's layout in memory: the real part, then the imaginary part), and everything is computed from real
// math on the two parts, in the parts' own float type.
//
// Semantics, numba's where it has them:
// - + - * componentwise as (a+bi)(c+di) = (ac-bd) + (ad+bc)i; `/` is CPython's _Py_c_quot (dividing by the
//   larger of |c| and |d|). A zero divisor gives (nan, nan): numba raises ZeroDivisionError there, which a
//   kernel cannot.
// - `**` is CPython's c_pow with numba's fast path: z ** 2 is z * z; x ** 0 is 1, 0 ** y is 0.
// - == compares both parts (NaN parts compare unequal), != is its negation; a complex number is true when
//   either part is nonzero (or NaN).
// - abs(z) and cmath.polar use hypot; phase is atan2(imag, real).
// - cmath: exp, log, log10, sqrt, sin, cos, tan, sinh, cosh, tanh and the inverse functions use CPython's
//   formulas for finite arguments (sqrt without overflow in the intermediate, tanh with its large-argument
//   branch, atanh with its large-argument branch, asin/acos/asinh/acosh from two square roots), which keep
//   full precision near the branch cuts. Where a part is infinite or NaN the answer is CPython's (and numba's):
//   its special-value table for the classes of the two parts (cmath_special_values.inc, generated from
//   CPython by scripts/gen_cmath_special_values.py), or for exp, cosh, sinh, tanh and rect with an infinite
//   real part and a finite nonzero imaginary part, CPython's formula for that case. sin, cos, tan, asin and
//   atan are the hyperbolic functions of iz rotated, as in CPython, so they inherit the same answers.
#include <cmath>
#include <limits>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/function_lowering.h"
#include "ir/builtins.h"

namespace gpujit {

namespace {

struct Parts {
  llvm::Value* re;
  llvm::Value* im;
};

/// One function's special values: 7 x 7 (real, imaginary) pairs, rows by the class of the real part.
struct SpecialValues {
  const char* name;
  double values[49][2];
};

constexpr double kInf = HUGE_VAL;
constexpr double kNaN = __builtin_nan("");

#define GPUJIT_CMATH_SPECIAL_VALUES(fn, ...) constexpr SpecialValues k_special_##fn{#fn, __VA_ARGS__};
#include "codegen/cmath_special_values.inc"
#undef GPUJIT_CMATH_SPECIAL_VALUES

ScalarKind component_of(ScalarKind c) {
  return c == ScalarKind::Complex64 ? ScalarKind::Float32 : ScalarKind::Float64;
}

/// Real math on the parts of complex numbers of one precision, emitted at the lowering's insert point.
class ComplexMath {
 public:
  ComplexMath(FunctionLowering& fl, ScalarKind component)
      : fl_(fl), b_(fl.b_), k_(component), real_(fl.llvm_type(Type::scalar_of(component))) {}

  llvm::Type* real_type() const { return real_; }
  llvm::Value* c(double v) { return llvm::ConstantFP::get(real_, v); }

  Parts split(llvm::Value* v) { return {b_.CreateExtractValue(v, {0}), b_.CreateExtractValue(v, {1})}; }
  llvm::Value* join(Parts p) {
    llvm::Type* t = llvm::StructType::get(real_->getContext(), {real_, real_});
    llvm::Value* agg = b_.CreateInsertValue(llvm::PoisonValue::get(t), p.re, {0});
    return b_.CreateInsertValue(agg, p.im, {1});
  }

  // Real operations.
  llvm::Value* add(llvm::Value* x, llvm::Value* y) { return b_.CreateFAdd(x, y); }
  llvm::Value* sub(llvm::Value* x, llvm::Value* y) { return b_.CreateFSub(x, y); }
  llvm::Value* mul(llvm::Value* x, llvm::Value* y) { return b_.CreateFMul(x, y); }
  llvm::Value* div(llvm::Value* x, llvm::Value* y) { return b_.CreateFDiv(x, y); }
  llvm::Value* neg(llvm::Value* x) { return b_.CreateFNeg(x); }
  llvm::Value* fabs(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }
  llvm::Value* sqrt(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x); }
  llvm::Value* copysign(llvm::Value* x, llvm::Value* y) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x, y);
  }
  /// A libdevice-named math function: "sin" is __nv_sinf for float32 parts, __nv_sin for float64.
  llvm::Value* fn(const char* stem, llvm::Value* x) {
    return fl_.call_math(std::string("__nv_") + stem + "f", std::string("__nv_") + stem, k_, {x});
  }
  llvm::Value* fn(const char* stem, llvm::Value* x, llvm::Value* y) {
    return fl_.call_math(std::string("__nv_") + stem + "f", std::string("__nv_") + stem, k_, {x, y});
  }
  llvm::Value* select(llvm::Value* cond, llvm::Value* x, llvm::Value* y) {
    return b_.CreateSelect(cond, x, y);
  }
  Parts select(llvm::Value* cond, Parts x, Parts y) {
    return {select(cond, x.re, y.re), select(cond, x.im, y.im)};
  }
  llvm::Value* eq(llvm::Value* x, double v) { return b_.CreateFCmpOEQ(x, c(v)); }
  llvm::Value* is_inf(llvm::Value* x) { return b_.CreateFCmpOEQ(fabs(x), c(HUGE_VAL)); }

  /// ln(largest finite value / 4) / 2 and sqrt(largest finite / 4) of the part's type: where CPython's
  /// formulas switch to their large-argument branches.
  double log_large_half() const { return std::log(max_finite() / 4) / 2; }
  double sqrt_large() const { return std::sqrt(max_finite() / 4); }
  double max_finite() const {
    return k_ == ScalarKind::Float32 ? double(std::numeric_limits<float>::max())
                                     : std::numeric_limits<double>::max();
  }

  llvm::Value* is_finite(llvm::Value* x) { return b_.CreateFCmpOLT(fabs(x), c(HUGE_VAL)); }

  /// The class of `x` as the special-value tables index it: 0 -inf, 1 negative, 2 -0.0, 3 +0.0, 4 positive,
  /// 5 +inf, 6 NaN.
  llvm::Value* special_class(llvm::Value* x) {
    auto k = [&](int v) { return b_.getInt32(uint32_t(v)); };
    llvm::Value* bits = b_.CreateBitCast(x, b_.getIntNTy(real_->getPrimitiveSizeInBits()));
    llvm::Value* zero = select(b_.CreateICmpSLT(bits, llvm::ConstantInt::get(bits->getType(), 0)), k(2), k(3));
    llvm::Value* r = select(b_.CreateFCmpOGT(x, c(0)), k(4), zero);
    r = select(b_.CreateFCmpOLT(x, c(0)), k(1), r);
    r = select(eq(x, HUGE_VAL), k(5), r);
    r = select(eq(x, -HUGE_VAL), k(0), r);
    return select(b_.CreateFCmpUNO(x, x), k(6), r);
  }

  /// `normal` where both parts of `z` are finite, else the table's entry for their classes.
  Parts special(const SpecialValues& t, Parts z, Parts normal) {
    llvm::Module& mod = *b_.GetInsertBlock()->getModule();
    const bool f32 = k_ == ScalarKind::Float32;
    const std::string symbol = std::string("gpujit.cmath.") + t.name + (f32 ? ".f32" : ".f64");
    llvm::GlobalVariable* g = mod.getGlobalVariable(symbol, true);
    if (!g) {
      std::vector<llvm::Constant*> cells;
      for (const auto& v : t.values) {
        cells.push_back(llvm::ConstantFP::get(real_, v[0]));
        cells.push_back(llvm::ConstantFP::get(real_, v[1]));
      }
      llvm::Constant* init = llvm::ConstantArray::get(llvm::ArrayType::get(real_, cells.size()), cells);
      g = new llvm::GlobalVariable(mod, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, symbol,
                                   nullptr, llvm::GlobalValue::NotThreadLocal,
                                   fl_.m_.target().constant_address_space());
      g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    }
    llvm::Value* base = b_.CreateAddrSpaceCast(g, b_.getPtrTy(0));
    llvm::Value* cell = b_.CreateAdd(b_.CreateMul(special_class(z.re), b_.getInt32(7)), special_class(z.im));
    llvm::Value* at = b_.CreateMul(cell, b_.getInt32(2));
    llvm::Value* re = b_.CreateLoad(real_, b_.CreateInBoundsGEP(real_, base, at));
    llvm::Value* im = b_.CreateLoad(real_, b_.CreateInBoundsGEP(real_, base, b_.CreateAdd(at, b_.getInt32(1))));
    return select(b_.CreateAnd(is_finite(z.re), is_finite(z.im)), normal, Parts{re, im});
  }

  /// CPython's computed case: an infinite real part (or modulus) and a finite nonzero imaginary part (angle).
  llvm::Value* infinite_and_finite_nonzero(Parts z) {
    return b_.CreateAnd(is_inf(z.re), b_.CreateAnd(is_finite(z.im), b_.CreateFCmpONE(z.im, c(0))));
  }
  /// (copysign(mag, cos y) * sre, copysign(mag, sin y) * sim): the limit of mag * e^(iy) with signs flipped.
  Parts signed_cis(double mag, llvm::Value* y, double sre, double sim) {
    return {mul(copysign(c(mag), fn("cos", y)), c(sre)), mul(copysign(c(mag), fn("sin", y)), c(sim))};
  }

  // Complex operations.
  Parts mul(Parts a, Parts z) {
    return {sub(mul(a.re, z.re), mul(a.im, z.im)), add(mul(a.re, z.im), mul(a.im, z.re))};
  }

  Parts div(Parts a, Parts z) {
    llvm::Value* nan = c(std::nan(""));
    // |z.re| >= |z.im|: divide through by z.re.
    llvm::Value* ratio1 = div(z.im, z.re);
    llvm::Value* denom1 = add(z.re, mul(z.im, ratio1));
    Parts q1{div(add(a.re, mul(a.im, ratio1)), denom1), div(sub(a.im, mul(a.re, ratio1)), denom1)};
    q1 = select(eq(z.re, 0), Parts{nan, nan}, q1);
    // Otherwise divide through by z.im.
    llvm::Value* ratio2 = div(z.re, z.im);
    llvm::Value* denom2 = add(mul(z.re, ratio2), z.im);
    Parts q2{div(add(mul(a.re, ratio2), a.im), denom2), div(sub(mul(a.im, ratio2), a.re), denom2)};
    q2 = select(eq(z.im, 0), Parts{nan, nan}, q2);
    return select(b_.CreateFCmpOGE(fabs(z.re), fabs(z.im)), q1, q2);
  }

  Parts pow(Parts a, Parts z) {
    llvm::Value* vabs = fn("hypot", a.re, a.im);
    llvm::Value* len = fn("pow", vabs, z.re);
    llvm::Value* at = fn("atan2", a.im, a.re);
    llvm::Value* phase = mul(at, z.re);
    llvm::Value* imag_exp = b_.CreateFCmpUNE(z.im, c(0));
    len = select(imag_exp, div(len, fn("exp", mul(at, z.im))), len);
    phase = select(imag_exp, add(phase, mul(z.im, fn("log", vabs))), phase);
    Parts general{mul(len, fn("cos", phase)), mul(len, fn("sin", phase))};
    llvm::Value* z_zero = b_.CreateAnd(eq(z.re, 0), eq(z.im, 0));
    llvm::Value* a_zero = b_.CreateAnd(eq(a.re, 0), eq(a.im, 0));
    llvm::Value* z_two = b_.CreateAnd(eq(z.re, 2), eq(z.im, 0));
    Parts r = select(a_zero, Parts{c(0), c(0)}, general);
    r = select(z_zero, Parts{c(1), c(0)}, r);
    return select(z_two, mul(a, a), r);
  }

  Parts sqrt(Parts z) {
    llvm::Value* ax = fabs(z.re);
    llvm::Value* ay = fabs(z.im);
    llvm::Value* s = sqrt(mul(add(ax, fn("hypot", ax, ay)), c(0.5)));
    llvm::Value* d = div(ay, mul(s, c(2)));
    Parts r = select(b_.CreateFCmpOGE(z.re, c(0)), Parts{s, copysign(d, z.im)}, Parts{d, copysign(s, z.im)});
    r = select(b_.CreateAnd(eq(z.re, 0), eq(z.im, 0)), Parts{c(0), z.im}, r);
    return special(k_special_sqrt, z, r);
  }

  Parts exp(Parts z) {
    llvm::Value* e = fn("exp", z.re);
    Parts r{mul(e, fn("cos", z.im)), mul(e, fn("sin", z.im))};
    r = select(eq(z.im, 0), Parts{e, z.im}, r);
    r = special(k_special_exp, z, r);
    llvm::Value* positive = b_.CreateFCmpOGT(z.re, c(0));
    return select(infinite_and_finite_nonzero(z),
                  select(positive, signed_cis(HUGE_VAL, z.im, 1, 1), signed_cis(0, z.im, 1, 1)), r);
  }

  Parts log(Parts z) {
    return special(k_special_log, z, {fn("log", fn("hypot", z.re, z.im)), fn("atan2", z.im, z.re)});
  }

  Parts sinh(Parts z) {
    Parts r{mul(fn("sinh", z.re), fn("cos", z.im)), mul(fn("cosh", z.re), fn("sin", z.im))};
    r = special(k_special_sinh, z, r);
    llvm::Value* positive = b_.CreateFCmpOGT(z.re, c(0));
    return select(infinite_and_finite_nonzero(z),
                  select(positive, signed_cis(HUGE_VAL, z.im, 1, 1), signed_cis(HUGE_VAL, z.im, -1, 1)), r);
  }
  Parts cosh(Parts z) {
    Parts r{mul(fn("cosh", z.re), fn("cos", z.im)), mul(fn("sinh", z.re), fn("sin", z.im))};
    r = special(k_special_cosh, z, r);
    llvm::Value* positive = b_.CreateFCmpOGT(z.re, c(0));
    return select(infinite_and_finite_nonzero(z),
                  select(positive, signed_cis(HUGE_VAL, z.im, 1, 1), signed_cis(HUGE_VAL, z.im, 1, -1)), r);
  }

  Parts rect(llvm::Value* r, llvm::Value* phi) {
    Parts z{r, phi};
    Parts v{mul(r, fn("cos", phi)), select(eq(phi, 0), mul(r, phi), mul(r, fn("sin", phi)))};
    v = special(k_special_rect, z, v);
    llvm::Value* positive = b_.CreateFCmpOGT(r, c(0));
    return select(infinite_and_finite_nonzero(z),
                  select(positive, signed_cis(HUGE_VAL, phi, 1, 1), signed_cis(HUGE_VAL, phi, -1, -1)), v);
  }

  Parts tanh(Parts z) {
    // CPython: for |x| large, tanh is 1 in the real part and the imaginary part decays like exp(-2|x|).
    llvm::Value* large = b_.CreateFCmpOGT(fabs(z.re), c(log_large_half()));
    Parts far{copysign(c(1), z.re),
              mul(mul(mul(c(4), fn("sin", z.im)), fn("cos", z.im)), fn("exp", mul(c(-2), fabs(z.re))))};
    llvm::Value* tx = fn("tanh", z.re);
    llvm::Value* ty = fn("tan", z.im);
    llvm::Value* cx = div(c(1), fn("cosh", z.re));
    llvm::Value* txty = mul(tx, ty);
    llvm::Value* denom = add(c(1), mul(txty, txty));
    Parts near{div(mul(tx, add(c(1), mul(ty, ty))), denom), mul(mul(div(ty, denom), cx), cx)};
    Parts r = special(k_special_tanh, z, select(large, far, near));
    Parts limit{copysign(c(1), z.re), copysign(c(0), mul(mul(c(2), fn("sin", z.im)), fn("cos", z.im)))};
    return select(infinite_and_finite_nonzero(z), limit, r);
  }

  Parts asinh(Parts z) {
    Parts s1 = sqrt(Parts{add(c(1), z.im), neg(z.re)});
    Parts s2 = sqrt(Parts{sub(c(1), z.im), z.re});
    return special(k_special_asinh, z,
                   {fn("asinh", sub(mul(s1.re, s2.im), mul(s2.re, s1.im))),
                    fn("atan2", z.im, sub(mul(s1.re, s2.re), mul(s1.im, s2.im)))});
  }

  Parts acos(Parts z) {
    Parts s1 = sqrt(Parts{sub(c(1), z.re), neg(z.im)});
    Parts s2 = sqrt(Parts{add(c(1), z.re), z.im});
    return special(k_special_acos, z,
                   {mul(c(2), fn("atan2", s1.re, s2.re)), fn("asinh", sub(mul(s2.re, s1.im), mul(s2.im, s1.re)))});
  }

  Parts acosh(Parts z) {
    Parts s1 = sqrt(Parts{sub(z.re, c(1)), z.im});
    Parts s2 = sqrt(Parts{add(z.re, c(1)), z.im});
    return special(k_special_acosh, z,
                   {fn("asinh", add(mul(s1.re, s2.re), mul(s1.im, s2.im))), mul(c(2), fn("atan2", s1.im, s2.re))});
  }

  Parts atanh(Parts z) {
    // atanh(-z) = -atanh(z): compute for a non-negative real part.
    llvm::Value* negative = b_.CreateFCmpOLT(z.re, c(0));
    llvm::Value* x = select(negative, neg(z.re), z.re);
    llvm::Value* y = select(negative, neg(z.im), z.im);
    llvm::Value* ay = fabs(y);
    llvm::Value* one_minus = sub(c(1), x);
    Parts near{div(fn("log1p", div(mul(c(4), x), add(mul(one_minus, one_minus), mul(ay, ay)))), c(4)),
               div(neg(fn("atan2", mul(c(-2), y), sub(mul(one_minus, add(c(1), x)), mul(ay, ay)))), c(2))};
    llvm::Value* h = fn("hypot", mul(x, c(0.5)), mul(y, c(0.5)));
    Parts far{div(div(div(x, h), h), c(4)), neg(copysign(c(M_PI / 2), neg(y)))};
    llvm::Value* large =
        b_.CreateOr(b_.CreateFCmpOGT(x, c(sqrt_large())), b_.CreateFCmpOGT(ay, c(sqrt_large())));
    Parts r = select(large, far, near);
    return special(k_special_atanh, z, select(negative, Parts{neg(r.re), neg(r.im)}, r));
  }

  /// f(z) = -i g(iz), for the circular functions from the hyperbolic ones.
  template <typename G>
  Parts rotated(Parts z, G g) {
    Parts r = g(Parts{neg(z.im), z.re});
    return {r.im, neg(r.re)};
  }

 private:
  FunctionLowering& fl_;
  llvm::IRBuilder<>& b_;
  ScalarKind k_;
  llvm::Type* real_;
};

}  // namespace

llvm::Value* FunctionLowering::complex_cast(llvm::Value* v, const Type& from, const Type& to) {
  if (to.is_bool()) return complex_truthy(v);
  if (!to.is_complex()) internal("no conversion from '" + from.str() + "' to '" + to.str() + "'");
  ComplexMath m(*this, component_of(to.scalar));
  Type part = Type::scalar_of(component_of(to.scalar));
  if (from.is_complex()) {
    Parts p = ComplexMath(*this, component_of(from.scalar)).split(v);
    Type from_part = Type::scalar_of(component_of(from.scalar));
    return m.join({cast(p.re, from_part, part), cast(p.im, from_part, part)});
  }
  return m.join({cast(v, from, part), m.c(0)});
}

llvm::Value* FunctionLowering::complex_truthy(llvm::Value* v) {
  llvm::Value* re = b_.CreateExtractValue(v, {0});
  llvm::Value* im = b_.CreateExtractValue(v, {1});
  llvm::Value* zero = llvm::ConstantFP::get(re->getType(), 0.0);
  return b_.CreateOr(b_.CreateFCmpUNE(re, zero), b_.CreateFCmpUNE(im, zero));
}

llvm::Value* FunctionLowering::complex_binary(BinOpKind op, llvm::Value* a, llvm::Value* b, const Type& t) {
  ComplexMath m(*this, component_of(t.scalar));
  Parts x = m.split(a), y = m.split(b);
  switch (op) {
    case BinOpKind::Add:
      return m.join({m.add(x.re, y.re), m.add(x.im, y.im)});
    case BinOpKind::Sub:
      return m.join({m.sub(x.re, y.re), m.sub(x.im, y.im)});
    case BinOpKind::Mul:
      return m.join(m.mul(x, y));
    case BinOpKind::Div:
      return m.join(m.div(x, y));
    case BinOpKind::Pow:
      return m.join(m.pow(x, y));
    default:
      internal(std::string("operator ") + to_string(op) + " on complex operands");
  }
}

llvm::Value* FunctionLowering::complex_compare(CmpOpKind op, llvm::Value* a, llvm::Value* b, const Type& t) {
  ComplexMath m(*this, component_of(t.scalar));
  Parts x = m.split(a), y = m.split(b);
  llvm::Value* equal = b_.CreateAnd(b_.CreateFCmpOEQ(x.re, y.re), b_.CreateFCmpOEQ(x.im, y.im));
  if (op == CmpOpKind::Eq || op == CmpOpKind::Is) return equal;
  if (op == CmpOpKind::NotEq || op == CmpOpKind::IsNot) return b_.CreateNot(equal);
  internal(std::string("comparison ") + to_string(op) + " on complex operands");
}

llvm::Value* FunctionLowering::complex_unary(UnaryOpKind op, llvm::Value* v, const Type& t) {
  ComplexMath m(*this, component_of(t.scalar));
  switch (op) {
    case UnaryOpKind::Pos:
      return v;
    case UnaryOpKind::Neg: {
      Parts p = m.split(v);
      return m.join({m.neg(p.re), m.neg(p.im)});
    }
    case UnaryOpKind::Not:
      return b_.CreateNot(complex_truthy(v));
    default:
      internal(std::string("unary ") + to_string(op) + " on complex operands");
  }
}

llvm::Value* FunctionLowering::lower_number_attribute(const BuiltinInfo& bi, const Expr& e) {
  const auto* attr = e.as<AttributeExpr>();
  if (!attr) internal(bi.qualified_name() + " without a receiver");
  const Type& base = type_of(*attr->value);
  const Type& result = type_of(e);
  llvm::Value* v = lower_expr(*attr->value);
  if (!base.is_complex()) {
    // A real number: x.real is x, x.imag a zero of its type.
    if (bi.id == BuiltinId::Real) return cast(v, base, result);
    return llvm::Constant::getNullValue(llvm_type(result));
  }
  Type part = Type::scalar_of(component_of(base.scalar));
  return cast(b_.CreateExtractValue(v, {bi.id == BuiltinId::Real ? 0u : 1u}), part, result);
}

llvm::Value* FunctionLowering::lower_complex(const BuiltinInfo& bi, const CallExpr& e) {
  const Type& result = type_of(e);
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end())
    internal("complex builtin " + bi.qualified_name() + " without operand types");
  const std::vector<Type>& ops = it->second;

  if (bi.id == BuiltinId::Conjugate) {
    const auto* attr = e.func->as<AttributeExpr>();
    if (!attr || ops.size() != 1) internal("conjugate() without a receiver");
    llvm::Value* z = lower_expr_as(*attr->value, ops[0]);
    if (!ops[0].is_complex()) return cast(z, ops[0], result);
    ComplexMath m(*this, component_of(ops[0].scalar));
    Parts p = m.split(z);
    return cast(m.join({p.re, m.neg(p.im)}), ops[0], result);
  }
  if (ops.size() != e.args.size()) internal("complex builtin " + bi.qualified_name() + " with a wrong arity");
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < e.args.size(); ++i) args.push_back(lower_expr_as(*e.args[i], ops[i]));

  if (bi.id == BuiltinId::Complex) {
    if (args.size() == 1) return cast(args[0], ops[0], result);
    ComplexMath m(*this, component_of(result.scalar));
    return m.join({args[0], args[1]});
  }
  if (bi.id == BuiltinId::CmathRect) {
    ComplexMath m(*this, component_of(result.scalar));
    return m.join(m.rect(args[0], args[1]));
  }

  return cmath_value(bi.id, args, ops[0], result);
}

llvm::Value* FunctionLowering::cmath_value(BuiltinId id, const std::vector<llvm::Value*>& args, const Type& ct,
                                           const Type& result) {
  ComplexMath m(*this, component_of(ct.scalar));
  Type part = Type::scalar_of(component_of(ct.scalar));
  Parts z = m.split(args[0]);
  auto complex_result = [&](Parts p) { return cast(m.join(p), ct, result); };
  switch (id) {
    case BuiltinId::Abs:
      return cast(m.fn("hypot", z.re, z.im), part, result);
    case BuiltinId::CmathPhase:
      return cast(m.fn("atan2", z.im, z.re), part, result);
    case BuiltinId::CmathPolar: {
      Type pair = Type::tuple_of({part, part});
      llvm::Value* agg = llvm::PoisonValue::get(llvm_type(pair));
      agg = b_.CreateInsertValue(agg, m.fn("hypot", z.re, z.im), {0});
      agg = b_.CreateInsertValue(agg, m.fn("atan2", z.im, z.re), {1});
      return cast(agg, pair, result);
    }
    case BuiltinId::CmathIsNan:
      return cast(b_.CreateOr(b_.CreateFCmpUNO(z.re, z.re), b_.CreateFCmpUNO(z.im, z.im)),
                  Type::scalar_of(ScalarKind::Bool), result);
    case BuiltinId::CmathIsInf:
      return cast(b_.CreateOr(m.is_inf(z.re), m.is_inf(z.im)), Type::scalar_of(ScalarKind::Bool), result);
    case BuiltinId::CmathIsFinite: {
      llvm::Value* inf = m.c(HUGE_VAL);
      llvm::Value* finite =
          b_.CreateAnd(b_.CreateFCmpOLT(m.fabs(z.re), inf), b_.CreateFCmpOLT(m.fabs(z.im), inf));
      return cast(finite, Type::scalar_of(ScalarKind::Bool), result);
    }
    case BuiltinId::CmathSqrt:
      return complex_result(m.sqrt(z));
    case BuiltinId::CmathExp:
      return complex_result(m.exp(z));
    case BuiltinId::CmathLog: {
      Parts l = m.log(z);
      if (args.size() == 2) l = m.div(l, m.log(m.split(args[1])));
      return complex_result(l);
    }
    case BuiltinId::CmathLog10: {
      Parts l = m.log(z);
      llvm::Value* ln10 = m.c(M_LN10);
      return complex_result({m.div(l.re, ln10), m.div(l.im, ln10)});
    }
    case BuiltinId::CmathSin:
      return complex_result(m.rotated(z, [&](Parts w) { return m.sinh(w); }));
    case BuiltinId::CmathCos:
      return complex_result(m.cosh(Parts{m.neg(z.im), z.re}));
    case BuiltinId::CmathTan:
      return complex_result(m.rotated(z, [&](Parts w) { return m.tanh(w); }));
    case BuiltinId::CmathAsin:
      return complex_result(m.rotated(z, [&](Parts w) { return m.asinh(w); }));
    case BuiltinId::CmathAcos:
      return complex_result(m.acos(z));
    case BuiltinId::CmathAtan:
      return complex_result(m.rotated(z, [&](Parts w) { return m.atanh(w); }));
    case BuiltinId::CmathSinh:
      return complex_result(m.sinh(z));
    case BuiltinId::CmathCosh:
      return complex_result(m.cosh(z));
    case BuiltinId::CmathTanh:
      return complex_result(m.tanh(z));
    case BuiltinId::CmathAsinh:
      return complex_result(m.asinh(z));
    case BuiltinId::CmathAcosh:
      return complex_result(m.acosh(z));
    case BuiltinId::CmathAtanh:
      return complex_result(m.atanh(z));
    default:
      break;
  }
  internal("no lowering for complex builtin " + builtin_info(id).qualified_name());
}

}  // namespace gpujit
