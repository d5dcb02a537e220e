// The one conversion helper and Python's arithmetic on LLVM values.
//
// cast() is the only place a value changes type. Integer widening follows the *source* signedness (an
// int32 -1 becomes int64 -1, a uint32 0xffffffff stays 4294967295); narrowing truncates (wraps). Float to
// integer conversions saturate and send NaN to 0 (llvm.fpto[su]i.sat, one cvt.rzi on NVPTX); a plain fptosi
// would make out-of-range values poison, which LLVM may exploit. Bool converts to 0/1.
//
// Operators run in the operand type analysis chose, and produce a value of that type:
// - + - * wrap for integers; `/` exists only for floats (analysis converts integer operands to float64).
// - `//` and `%` floor, as Python: -7 // 2 == -4 and -7 % 2 == 1, 7 % -2 == -1; for floats the remainder
//   has the divisor's sign and the quotient is computed as CPython's float_divmod does. Integer division
//   by zero gives 0 for both `//` and `%` (NumPy's result; numba-cuda does not raise on the GPU and
//   leaves it undefined), and INT_MIN // -1 wraps to INT_MIN. Float division by zero gives what NumPy
//   gives: x // 0.0 is x / 0.0 (inf or nan), x % 0.0 is nan.
// - `**`: integers by squaring (negative exponents: see ModuleLowering::int_pow_function); floats call
//   pow, except x ** 2.0 which is x * x (as NumPy's fast path, and exact).
// - << and >> by the bit width or more (or a negative amount) give 0, or all sign bits for >> of a
//   negative value, rather than LLVM's poison.
// - Comparisons of floats are ordered except !=, so NaN compares unequal to everything, itself included.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/fp8_lowering.h"
#include "codegen/function_lowering.h"
#include "ir/enum_type.h"

namespace gpujit {
llvm::Value* FunctionLowering::cast(llvm::Value* v, const Type& from, const Type& to) {
  if (from == to) return v;
  if (from.is_charseq() && to.is_charseq()) return charseq_cast(v, from, to);  // text_lowering.cpp
  if (from.is_tuple() && to.is_tuple() && from.elements.size() == to.elements.size()) {
    llvm::Value* agg = llvm::PoisonValue::get(llvm_type(to));
    for (unsigned i = 0; i < from.elements.size(); ++i)
      agg = b_.CreateInsertValue(agg, cast(b_.CreateExtractValue(v, {i}), from.elements[i], to.elements[i]),
                                 {i});
    return agg;
  }
  // Arrays convert only between layouts (C to any); the representation is the same.
  if (from.is_array() && to.is_array() && from.scalar == to.scalar && from.ndim == to.ndim) return v;
  if (!from.is_scalar() || !to.is_scalar())
    internal("no conversion from '" + from.str() + "' to '" + to.str() + "'");

  if (from.is_npdatetime() || to.is_npdatetime()) return datetime_cast(v, from, to);  // datetime_lowering.cpp
  if (from.is_fp8() || to.is_fp8()) {  // fp8_lowering.cpp: bfloat16 and float16 go in as their float32 value
    Fp8Lowering fp8(b_, has_fp8_cvt(m_.target().machine()));
    if (to.is_fp8()) {
      if (from.is_bfloat16()) v = bfloat16_widen(v);
      else if (from.is_scalar(ScalarKind::Float16)) v = b_.CreateFPExt(v, b_.getFloatTy());
      return fp8.to_fp8(v, from.scalar, to.scalar);
    }
    if (to.is_scalar(ScalarKind::Float16)) return fp8.fp8_to_half(v, from.scalar);
    return cast(fp8.fp8_to_float(v, from.scalar), Type::scalar_of(ScalarKind::Float32), to);
  }
  if (from.is_bfloat16() || to.is_bfloat16()) return bfloat16_cast(v, from, to);  // bf16_lowering.cpp
  if (from.is_complex() || to.is_complex()) return complex_cast(v, from, to);  // complex_lowering.cpp
  const ScalarKind f = from.scalar, t = to.scalar;
  llvm::Type* dest = llvm_type(to);
  if (t == ScalarKind::Bool) return truthy(v, from);
  if (f == ScalarKind::Bool) return is_float(t) ? b_.CreateUIToFP(v, dest) : b_.CreateZExt(v, dest);
  if (is_integer(f) && is_integer(t)) return b_.CreateIntCast(v, dest, is_signed(f));
  if (is_integer(f) && t == ScalarKind::Float16 && scalar_size(f) == 1)
    return m_.target().byte_to_half(b_, v, is_signed(f));
  if (is_integer(f) && is_float(t)) return is_signed(f) ? b_.CreateSIToFP(v, dest) : b_.CreateUIToFP(v, dest);
  if (is_float(f) && is_integer(t)) {
    auto id = is_signed(t) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {dest, v->getType()}, {v});
  }
  if (is_float(f) && is_float(t)) return b_.CreateFPCast(v, dest);
  internal("no conversion from '" + from.str() + "' to '" + to.str() + "'");
}

llvm::Value* FunctionLowering::truthy(llvm::Value* v, const Type& t) {
  if (t.is_bool()) return v;
  if (t.is_complex()) return complex_truthy(v);
  if (t.is_integer()) return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  if (t.is_bfloat16()) return truthy(bfloat16_widen(v), Type::scalar_of(ScalarKind::Float32));
  if (t.is_float()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));  // NaN is true
  if (t.kind == Type::Kind::None) return b_.getFalse();
  if (t.is_tuple()) return b_.getInt1(!t.elements.empty());
  internal("no truth value for '" + t.str() + "'");
}

llvm::Value* FunctionLowering::binary_op(BinOpKind op, llvm::Value* a, llvm::Value* b, const Type& t) {
  if (!t.is_scalar()) internal(std::string("operator ") + to_string(op) + " on '" + t.str() + "'");
  if (t.is_complex()) return complex_binary(op, a, b, t);
  const ScalarKind k = t.scalar;
  if (k == ScalarKind::Bool) {
    switch (op) {
      case BinOpKind::BitAnd:
        return b_.CreateAnd(a, b);
      case BinOpKind::BitOr:
        return b_.CreateOr(a, b);
      case BinOpKind::BitXor:
        return b_.CreateXor(a, b);
      default:
        internal(std::string("operator ") + to_string(op) + " on bool operands");
    }
  }
  if (is_integer(k)) {
    const bool s = is_signed(k);
    switch (op) {
      case BinOpKind::Add:
        return b_.CreateAdd(a, b);
      case BinOpKind::Sub:
        return b_.CreateSub(a, b);
      case BinOpKind::Mul:
        return b_.CreateMul(a, b);
      case BinOpKind::FloorDiv:
        return int_floor_div_mod(a, b, s, false);
      case BinOpKind::Mod:
        return int_floor_div_mod(a, b, s, true);
      case BinOpKind::Pow:
        return int_pow(a, b, s);
      case BinOpKind::LShift:
        return shift(a, b, true, s);
      case BinOpKind::RShift:
        return shift(a, b, false, s);
      case BinOpKind::BitAnd:
        return b_.CreateAnd(a, b);
      case BinOpKind::BitOr:
        return b_.CreateOr(a, b);
      case BinOpKind::BitXor:
        return b_.CreateXor(a, b);
      case BinOpKind::Div:
        internal("true division in an integer type");
    }
  }
  if (k == ScalarKind::BFloat16) return bfloat16_binary(op, a, b);  // bf16_lowering.cpp
  if (is_float(k)) {
    switch (op) {
      case BinOpKind::Add:
        return b_.CreateFAdd(a, b);
      case BinOpKind::Sub:
        return b_.CreateFSub(a, b);
      case BinOpKind::Mul:
        return b_.CreateFMul(a, b);
      case BinOpKind::Div:
        return b_.CreateFDiv(a, b);
      case BinOpKind::FloorDiv:
        return float_floor_div_mod(a, b, k, false);
      case BinOpKind::Mod:
        return float_floor_div_mod(a, b, k, true);
      case BinOpKind::Pow:
        return float_pow(a, b, k);
      default:
        internal(std::string("operator ") + to_string(op) + " on float operands");
    }
  }
  internal(std::string("operator ") + to_string(op) + " on '" + t.str() + "'");
}

llvm::Value* FunctionLowering::int_floor_div_mod(llvm::Value* a, llvm::Value* b, bool is_signed,
                                                 bool want_mod) {
  llvm::Type* t = a->getType();
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* by_zero = b_.CreateICmpEQ(b, zero);
  if (!is_signed) {
    llvm::Value* d = b_.CreateSelect(by_zero, one, b);
    return b_.CreateSelect(by_zero, zero, want_mod ? b_.CreateURem(a, d) : b_.CreateUDiv(a, d));
  }
  // Divide by 1 in place of 0 (and of -1, negating instead: INT_MIN / -1 overflows in sdiv), then move the
  // truncated quotient and remainder to floor semantics when the remainder's sign differs from the divisor's.
  llvm::Value* by_minus_one = b_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(t, -1));
  llvm::Value* d = b_.CreateSelect(b_.CreateOr(by_zero, by_minus_one), one, b);
  llvm::Value* n = b_.CreateSelect(by_minus_one, b_.CreateNeg(a), a);
  llvm::Value* q = b_.CreateSDiv(n, d);
  llvm::Value* r = b_.CreateSRem(n, d);
  llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, d), zero));
  llvm::Value* result = want_mod ? b_.CreateSelect(adjust, b_.CreateAdd(r, d), r)
                                 : b_.CreateSelect(adjust, b_.CreateSub(q, one), q);
  return b_.CreateSelect(by_zero, zero, result);
}

llvm::Value* FunctionLowering::float_floor_div_mod(llvm::Value* a, llvm::Value* b, ScalarKind k,
                                                   bool want_mod) {
  if (k == ScalarKind::Float16) {
    llvm::Type* f32 = b_.getFloatTy();
    llvm::Value* r =
        float_floor_div_mod(b_.CreateFPExt(a, f32), b_.CreateFPExt(b, f32), ScalarKind::Float32, want_mod);
    return b_.CreateFPTrunc(r, a->getType());
  }
  llvm::Type* t = a->getType();
  llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
  llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
  llvm::Value* mod = call_math("__nv_fmodf", "__nv_fmod", k, {a, b});
  llvm::Value* mod_nonzero = b_.CreateFCmpUNE(mod, zero);
  // The remainder takes the divisor's sign: move it by one divisor when their signs differ.
  // One statement per instruction: as arguments of one call their order would be the C++ compiler's (g++
  // and clang++ emitted them in opposite orders; the clang-built sanitizer build's FileCheck run showed it).
  llvm::Value* mod_negative = b_.CreateFCmpOLT(mod, zero);
  llvm::Value* b_negative = b_.CreateFCmpOLT(b, zero);
  llvm::Value* signs_differ = b_.CreateXor(b_negative, mod_negative);
  llvm::Value* adjust = b_.CreateAnd(mod_nonzero, signs_differ);
  if (want_mod) {
    llvm::Value* moved = b_.CreateSelect(adjust, b_.CreateFAdd(mod, b), mod);
    // A zero remainder is +0.0 or -0.0 with the divisor's sign.
    llvm::Value* signed_zero = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, b);
    return b_.CreateSelect(mod_nonzero, moved, signed_zero);
  }
  llvm::Value* div = b_.CreateFDiv(b_.CreateFSub(a, mod), b);
  div = b_.CreateSelect(adjust, b_.CreateFSub(div, one), div);
  // div is within rounding of an integer; round it to the nearest one below or at div + 0.5.
  llvm::Value* floor_div = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div);
  llvm::Value* half = llvm::ConstantFP::get(t, 0.5);
  floor_div = b_.CreateSelect(b_.CreateFCmpOGT(b_.CreateFSub(div, floor_div), half),
                              b_.CreateFAdd(floor_div, one), floor_div);
  llvm::Value* quotient = b_.CreateFDiv(a, b);
  llvm::Value* zero_div = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, quotient);
  llvm::Value* result = b_.CreateSelect(b_.CreateFCmpUNE(div, zero), floor_div, zero_div);
  // Division by zero: NumPy's floor_divide gives a / b (inf or nan).
  return b_.CreateSelect(b_.CreateFCmpOEQ(b, zero), quotient, result);
}

llvm::Value* FunctionLowering::int_pow(llvm::Value* a, llvm::Value* b, bool is_signed) {
  auto* t = llvm::cast<llvm::IntegerType>(a->getType());
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(b); c && !c->isNegative() && c->getZExtValue() <= 64) {
    // A small constant exponent: unroll the squaring at compile time (x ** 2 is one multiply).
    uint64_t e = c->getZExtValue();
    llvm::Value* acc = llvm::ConstantInt::get(t, 1);
    llvm::Value* x = a;
    bool first = true;
    while (e != 0) {
      if (e & 1) {
        acc = first ? x : b_.CreateMul(acc, x);
        first = false;
      }
      e >>= 1;
      if (e != 0) x = b_.CreateMul(x, x);
    }
    return acc;
  }
  return b_.CreateCall(m_.int_pow_function(t->getBitWidth(), is_signed), {a, b});
}

llvm::Value* FunctionLowering::float_pow(llvm::Value* a, llvm::Value* b, ScalarKind k) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantFP>(b)) {
    if (c->isExactlyValue(2.0)) return b_.CreateFMul(a, a);
    if (c->isExactlyValue(1.0)) return a;
  }
  return call_math("__nv_powf", "__nv_pow", k, {a, b});
}

llvm::Value* FunctionLowering::shift(llvm::Value* a, llvm::Value* amount, bool left, bool is_signed) {
  llvm::Type* t = a->getType();
  unsigned bits = t->getIntegerBitWidth();
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* in_range = b_.CreateICmpULT(amount, llvm::ConstantInt::get(t, bits));
  if (left) return b_.CreateSelect(in_range, b_.CreateShl(a, amount), zero);
  if (is_signed)
    return b_.CreateAShr(a, b_.CreateSelect(in_range, amount, llvm::ConstantInt::get(t, bits - 1)));
  return b_.CreateSelect(in_range, b_.CreateLShr(a, amount), zero);
}

llvm::Value* FunctionLowering::compare_op(CmpOpKind op, llvm::Value* a, llvm::Value* b, const Type& t) {
  if (t.kind == Type::Kind::None) {
    return b_.getInt1(op == CmpOpKind::Eq || op == CmpOpKind::Is || op == CmpOpKind::LtE ||
                      op == CmpOpKind::GtE);
  }
  if (op == CmpOpKind::Is) op = CmpOpKind::Eq;
  if (op == CmpOpKind::IsNot) op = CmpOpKind::NotEq;
  if (t.kind == Type::Kind::EnumMember) return compare_op(op, a, b, t.enum_class->value_type);  // its value
  if (t.is_charseq()) return charseq_compare(op, a, b, t);
  if (t.is_tuple() && (op == CmpOpKind::Eq || op == CmpOpKind::NotEq)) {
    llvm::Value* all = b_.getTrue();
    for (unsigned i = 0; i < t.elements.size(); ++i)
      all = b_.CreateAnd(all, compare_op(CmpOpKind::Eq, b_.CreateExtractValue(a, {i}),
                                         b_.CreateExtractValue(b, {i}), t.elements[i]));
    return op == CmpOpKind::Eq ? all : b_.CreateNot(all);
  }
  if (!t.is_scalar()) internal(std::string("comparison ") + to_string(op) + " on '" + t.str() + "'");
  if (t.is_complex()) return complex_compare(op, a, b, t);
  if (t.is_npdatetime()) return datetime_compare(op, a, b);  // datetime_lowering.cpp
  if (t.is_bfloat16() && !m_.target().native_bfloat16()) {
    a = bfloat16_widen(a), b = bfloat16_widen(b);  // exact
  }
  if (t.is_float() || t.is_bfloat16()) {
    switch (op) {
      case CmpOpKind::Eq:
        return b_.CreateFCmpOEQ(a, b);
      case CmpOpKind::NotEq:
        return b_.CreateFCmpUNE(a, b);
      case CmpOpKind::Lt:
        return b_.CreateFCmpOLT(a, b);
      case CmpOpKind::LtE:
        return b_.CreateFCmpOLE(a, b);
      case CmpOpKind::Gt:
        return b_.CreateFCmpOGT(a, b);
      case CmpOpKind::GtE:
        return b_.CreateFCmpOGE(a, b);
      default:
        break;
    }
  } else {
    const bool s = is_signed(t.scalar);  // bool compares unsigned: False < True
    switch (op) {
      case CmpOpKind::Eq:
        return b_.CreateICmpEQ(a, b);
      case CmpOpKind::NotEq:
        return b_.CreateICmpNE(a, b);
      case CmpOpKind::Lt:
        return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
      case CmpOpKind::LtE:
        return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
      case CmpOpKind::Gt:
        return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
      case CmpOpKind::GtE:
        return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
      default:
        break;
    }
  }
  internal(std::string("comparison ") + to_string(op) + " on '" + t.str() + "'");
}

llvm::Value* FunctionLowering::unary_op(UnaryOpKind op, llvm::Value* v, const Type& t) {
  if (t.is_complex()) return complex_unary(op, v, t);
  switch (op) {
    case UnaryOpKind::Pos:
      return v;
    case UnaryOpKind::Not:
      return b_.CreateNot(truthy(v, t));
    case UnaryOpKind::Neg:
      if (t.is_integer() || t.is_npdatetime()) return b_.CreateNeg(v);  // -NaT wraps to NaT, as in numba
      if (t.is_bfloat16() && !m_.target().native_bfloat16())  // the sign bit, without a float operation
        return b_.CreateBitCast(b_.CreateXor(b_.CreateBitCast(v, b_.getInt16Ty()), 0x8000), v->getType());
      if (t.is_float() || t.is_bfloat16()) return b_.CreateFNeg(v);
      break;
    case UnaryOpKind::Invert:
      if (t.is_integer() || t.is_bool()) return b_.CreateNot(v);  // ~bool is `not`, as NumPy
      break;
  }
  internal(std::string("unary ") + to_string(op) + " on '" + t.str() + "'");
}

llvm::Value* FunctionLowering::call_math(const std::string& f32_name, const std::string& f64_name,
                                         ScalarKind k, llvm::ArrayRef<llvm::Value*> args) {
  if (k == ScalarKind::Float16) {
    std::vector<llvm::Value*> wide;
    for (llvm::Value* a : args)
      wide.push_back(a->getType()->isHalfTy() ? b_.CreateFPExt(a, b_.getFloatTy()) : a);
    llvm::Value* r = call_math(f32_name, f64_name, ScalarKind::Float32, wide);
    return r->getType()->isFloatTy() ? b_.CreateFPTrunc(r, b_.getHalfTy()) : r;
  }
  const std::string& name = k == ScalarKind::Float32 ? f32_name : f64_name;
  if (name.empty() || !is_float(k)) internal("no math function for " + std::string(scalar_name(k)));
  llvm::Type* ret = args.empty() ? llvm_type(Type::scalar_of(k)) : args[0]->getType();
  return m_.target().call_math(b_, name, args, ret);
}

}  // namespace gpujit
