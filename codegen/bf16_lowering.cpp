// bfloat16: conversions, and the functions of cuda.bf16 (ir/bf16_functions.h).
//
// A bfloat16 value is LLVM's `bfloat`. On NVPTX (Target::native_bfloat16) + - * /, fma, negation, abs,
// comparisons and the roundings to nearest are LLVM's own bfloat operations: add/mul/fma/setp/neg/abs.bf16
// and cvt.rn.bf16.f32/f64 on sm_90 (fma.rn.bf16 and cvt.rn.bf16.f32 on sm_80, from which LLVM makes the
// rest). The CPU backend computes them in float32 and rounds with integer code (x86's vcvtneps2bf16 would
// flush subnormals, which the GPU keeps): a sum, difference, product or quotient of two bfloat16 values
// rounded once from float32 is the correctly rounded result (float32 has more than 2 * 8 + 2 bits), and an
// fma is summed with its exact error so that it too rounds once. Everything else is target-independent code
// with the same result on every target:
// - math functions widen to float32 (exact), compute there, and round once;
// - min/max and the saturating clamps compute in float32 too, where their result is exact;
// - the directed roundings (_rz/_rd/_ru) of float32 work on its bits; integers round to bfloat16 from their
//   own bits in every mode (no double rounding through float32 for 32- and 64-bit integers); a float64
//   rounds to float32 to odd first, which the second rounding then makes correct;
// - bfloat16 to an integer widens to float32, rounds in the mode, and converts saturating (NaN gives 0), as
//   CUDA's cvt.rni/rzi/rmi/rpi do.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/function_lowering.h"
#include "ir/bf16_functions.h"

namespace gpujit {

llvm::Value* FunctionLowering::bfloat16_cast(llvm::Value* v, const Type& from, const Type& to) {
  llvm::Type* f32 = b_.getFloatTy();
  const ScalarKind f = from.scalar, t = to.scalar;
  if (t == ScalarKind::BFloat16) {
    if (f == ScalarKind::Bool) return bfloat16_narrow(b_.CreateUIToFP(v, f32));
    if (is_integer(f)) {
      // Up to 16 bits an integer is exact in float32, so one rounding follows.
      if (scalar_size(f) <= 2)
        return bfloat16_narrow(is_signed(f) ? b_.CreateSIToFP(v, f32) : b_.CreateUIToFP(v, f32));
      return bfloat16_from_int(v, is_signed(f), Bf16Rounding::Nearest);
    }
    if (f == ScalarKind::Float16) return bfloat16_narrow(b_.CreateFPExt(v, f32));
    if (f == ScalarKind::Float32 || f == ScalarKind::Float64) return bfloat16_narrow(v);
  } else if (f == ScalarKind::BFloat16) {
    if (t == ScalarKind::Bool) return truthy(v, from);
    return cast(bfloat16_widen(v), Type::scalar_of(ScalarKind::Float32), to);
  }
  internal("no conversion from '" + from.str() + "' to '" + to.str() + "'");
}

llvm::Value* FunctionLowering::bfloat16_widen(llvm::Value* v) {
  if (m_.target().native_bfloat16()) return b_.CreateFPExt(v, b_.getFloatTy());
  llvm::Value* bits = b_.CreateZExt(b_.CreateBitCast(v, b_.getInt16Ty()), b_.getInt32Ty());
  return b_.CreateBitCast(b_.CreateShl(bits, 16), b_.getFloatTy());
}

llvm::Value* FunctionLowering::bfloat16_narrow(llvm::Value* v) {
  if (m_.target().native_bfloat16()) return b_.CreateFPTrunc(v, b_.getBFloatTy());
  if (v->getType()->isDoubleTy()) {
    // To float32 rounding to odd: exact values stay; an inexact one rounded to its even neighbour moves to
    // the odd one on the value's side (ordered comparisons leave NaN alone).
    llvm::Value* f = b_.CreateFPTrunc(v, b_.getFloatTy());
    llvm::Value* back = b_.CreateFPExt(f, b_.getDoubleTy());
    llvm::Value* bits = b_.CreateBitCast(f, b_.getInt32Ty());
    llvm::Value* even = b_.CreateICmpEQ(b_.CreateAnd(bits, 1), b_.getInt32(0));
    llvm::Value* fix = b_.CreateAnd(b_.CreateFCmpONE(v, back), even);
    llvm::Value* away = b_.CreateFCmpOGT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v),
                                         b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back));
    llvm::Value* moved =
        b_.CreateSelect(away, b_.CreateAdd(bits, b_.getInt32(1)), b_.CreateSub(bits, b_.getInt32(1)));
    v = b_.CreateBitCast(b_.CreateSelect(fix, moved, bits), b_.getFloatTy());
  }
  return bfloat16_from_float(v, Bf16Rounding::Nearest);
}

llvm::Value* FunctionLowering::bfloat16_binary(BinOpKind op, llvm::Value* a, llvm::Value* b) {
  if (m_.target().native_bfloat16()) {
    switch (op) {
      case BinOpKind::Add:
        return b_.CreateFAdd(a, b);
      case BinOpKind::Sub:
        return b_.CreateFSub(a, b);
      case BinOpKind::Mul:
        return b_.CreateFMul(a, b);
      case BinOpKind::Div:
        return b_.CreateFDiv(a, b);
      default:
        break;
    }
  } else {
    llvm::Value* x = bfloat16_widen(a);
    llvm::Value* y = bfloat16_widen(b);
    switch (op) {
      case BinOpKind::Add:
        return bfloat16_narrow(b_.CreateFAdd(x, y));
      case BinOpKind::Sub:
        return bfloat16_narrow(b_.CreateFSub(x, y));
      case BinOpKind::Mul:
        return bfloat16_narrow(b_.CreateFMul(x, y));
      case BinOpKind::Div:
        return bfloat16_narrow(b_.CreateFDiv(x, y));
      default:
        break;
    }
  }
  internal(std::string("operator ") + to_string(op) + " on bfloat16 operands");
}

llvm::Value* FunctionLowering::bfloat16_compare(llvm::CmpInst::Predicate p, llvm::Value* a, llvm::Value* b) {
  if (m_.target().native_bfloat16()) return b_.CreateFCmp(p, a, b);
  return b_.CreateFCmp(p, bfloat16_widen(a), bfloat16_widen(b));  // exact
}

llvm::Value* FunctionLowering::bfloat16_from_float(llvm::Value* x, Bf16Rounding mode) {
  bool nearest = mode == Bf16Rounding::Nearest || mode == Bf16Rounding::None;
  if (nearest && m_.target().native_bfloat16()) return b_.CreateFPTrunc(x, b_.getBFloatTy());
  // The top 16 bits of the float, moved one unit away from zero when the dropped bits ask for it; a carry
  // runs into the exponent and up to infinity, as it should.
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Value* bits = b_.CreateBitCast(x, i32);
  llvm::Value* hi = b_.CreateLShr(bits, 16);
  llvm::Value* inexact = b_.CreateICmpNE(b_.CreateAnd(bits, 0xffff), llvm::ConstantInt::get(i32, 0));
  llvm::Value* negative = b_.CreateICmpSLT(bits, llvm::ConstantInt::get(i32, 0));
  llvm::Value* up = b_.getFalse();
  if (mode == Bf16Rounding::Up) up = b_.CreateAnd(inexact, b_.CreateNot(negative));
  if (mode == Bf16Rounding::Down) up = b_.CreateAnd(inexact, negative);
  if (nearest) {  // above the halfway point, or at it with an odd result
    llvm::Value* rest = b_.CreateAnd(bits, 0xffff);
    llvm::Value* half = llvm::ConstantInt::get(i32, 0x8000);
    llvm::Value* odd = b_.CreateICmpNE(b_.CreateAnd(hi, 1), llvm::ConstantInt::get(i32, 0));
    up = b_.CreateOr(b_.CreateICmpUGT(rest, half), b_.CreateAnd(b_.CreateICmpEQ(rest, half), odd));
  }
  llvm::Value* r = b_.CreateAdd(hi, b_.CreateZExt(up, i32));
  llvm::Value* is_nan = b_.CreateFCmpUNO(x, x);
  r = b_.CreateSelect(is_nan, llvm::ConstantInt::get(i32, 0x7fff), r);
  return b_.CreateBitCast(b_.CreateTrunc(r, b_.getInt16Ty()), b_.getBFloatTy());
}

llvm::Value* FunctionLowering::bfloat16_from_int(llvm::Value* v, bool is_signed, Bf16Rounding mode) {
  llvm::Type* i64 = b_.getInt64Ty();
  auto c64 = [&](uint64_t x) { return llvm::ConstantInt::get(i64, x); };
  llvm::Value* x = is_signed ? b_.CreateSExt(v, i64) : b_.CreateZExt(v, i64);
  if (v->getType() == i64) x = v;
  llvm::Value* negative = is_signed ? b_.CreateICmpSLT(x, c64(0)) : b_.getFalse();
  llvm::Value* magnitude = b_.CreateSelect(negative, b_.CreateNeg(x), x);  // INT64_MIN stays 2**63, unsigned
  llvm::Value* zero = b_.CreateICmpEQ(magnitude, c64(0));
  llvm::Value* m = b_.CreateSelect(zero, c64(1), magnitude);
  llvm::Value* lz = b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, m, b_.getTrue());
  llvm::Value* normal = b_.CreateShl(m, lz);          // leading 1 at bit 63
  llvm::Value* mantissa = b_.CreateLShr(normal, 56);  // the 8 significant bits kept
  llvm::Value* rest = b_.CreateAnd(normal, c64((uint64_t{1} << 56) - 1));
  llvm::Value* half = c64(uint64_t{1} << 55);
  llvm::Value* inexact = b_.CreateICmpNE(rest, c64(0));
  llvm::Value* up = b_.getFalse();
  switch (mode) {
    case Bf16Rounding::None:
    case Bf16Rounding::Nearest: {
      llvm::Value* odd = b_.CreateICmpNE(b_.CreateAnd(mantissa, c64(1)), c64(0));
      up = b_.CreateOr(b_.CreateICmpUGT(rest, half), b_.CreateAnd(b_.CreateICmpEQ(rest, half), odd));
      break;
    }
    case Bf16Rounding::Zero:
      break;
    case Bf16Rounding::Up:
      up = b_.CreateAnd(inexact, b_.CreateNot(negative));
      break;
    case Bf16Rounding::Down:
      up = b_.CreateAnd(inexact, negative);
      break;
  }
  mantissa = b_.CreateAdd(mantissa, b_.CreateZExt(up, i64));  // 128..256; 256 carries into the exponent below
  llvm::Value* exponent = b_.CreateSub(c64(63 + 127), lz);
  llvm::Value* bits = b_.CreateAdd(b_.CreateShl(exponent, 7), b_.CreateSub(mantissa, c64(128)));
  bits = b_.CreateOr(bits, b_.CreateShl(b_.CreateZExt(negative, i64), 15));
  bits = b_.CreateSelect(zero, c64(0), bits);
  return b_.CreateBitCast(b_.CreateTrunc(bits, b_.getInt16Ty()), b_.getBFloatTy());
}

llvm::Value* FunctionLowering::lower_bf16(const BuiltinInfo& bi, const CallExpr& e) {
  if (std::string why = m_.target().bfloat16_unsupported(); !why.empty()) return unsupported(e, why);
  const Bf16Function& f = bf16_function(bi);
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.size() != e.args.size())
    internal(std::string("no operand types for ") + bi.qualified_name());
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < e.args.size(); ++i) args.push_back(lower_expr_as(*e.args[i], it->second[i]));
  llvm::Type* f32 = b_.getFloatTy();
  llvm::Type* bf = b_.getBFloatTy();
  const Type bf_type = Type::scalar_of(ScalarKind::BFloat16);
  auto widen = [&](llvm::Value* v) { return bfloat16_widen(v); };
  auto narrow = [&](llvm::Value* v) { return bfloat16_narrow(v); };
  auto f32_const = [&](double x) { return llvm::ConstantFP::get(f32, x); };
  // Clamped to [0, 1] with NaN going to 0 (maxnum drops the NaN); exact in float32.
  auto saturate = [&](llvm::Value* v) {
    llvm::Value* w = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, widen(v), f32_const(0.0));
    return narrow(b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, w, f32_const(1.0)));
  };
  auto in_f32 = [&](llvm::Intrinsic::ID id) { return narrow(b_.CreateUnaryIntrinsic(id, widen(args[0]))); };
  auto fma = [&]() -> llvm::Value* {
    if (m_.target().native_bfloat16())
      return b_.CreateIntrinsic(llvm::Intrinsic::fma, {bf}, {args[0], args[1], args[2]});
    // a * b is exact in float64; so is the sum's rounding error (TwoSum), which, when not zero, makes the
    // float64 sum odd (rounding to odd), so that the one rounding to bfloat16 after it is correct.
    llvm::Type* f64 = b_.getDoubleTy();
    llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
    b_.clearFastMathFlags();
    llvm::Value* p = b_.CreateFMul(b_.CreateFPExt(widen(args[0]), f64), b_.CreateFPExt(widen(args[1]), f64));
    llvm::Value* c = b_.CreateFPExt(widen(args[2]), f64);
    llvm::Value* sum = b_.CreateFAdd(p, c);
    llvm::Value* bp = b_.CreateFSub(sum, c);
    llvm::Value* bc = b_.CreateFSub(sum, bp);
    llvm::Value* err = b_.CreateFAdd(b_.CreateFSub(p, bp), b_.CreateFSub(c, bc));
    llvm::Value* bits = b_.CreateBitCast(sum, b_.getInt64Ty());
    llvm::Value* even = b_.CreateICmpEQ(b_.CreateAnd(bits, 1), b_.getInt64(0));
    llvm::Value* zero = llvm::ConstantFP::get(f64, 0.0);
    llvm::Value* fix = b_.CreateAnd(b_.CreateAnd(b_.CreateFCmpONE(err, zero), even),
                                    b_.CreateFCmpONE(sum, llvm::ConstantFP::getInfinity(f64)));
    // The odd neighbour on the error's side: up in magnitude when error and sum have the same sign.
    llvm::Value* same_sign = b_.CreateICmpEQ(b_.CreateFCmpOLT(err, zero), b_.CreateFCmpOLT(sum, zero));
    llvm::Value* moved =
        b_.CreateSelect(same_sign, b_.CreateAdd(bits, b_.getInt64(1)), b_.CreateSub(bits, b_.getInt64(1)));
    sum = b_.CreateBitCast(b_.CreateSelect(fix, moved, bits), f64);
    return narrow(sum);
  };
  auto arith = [&](Bf16Op op) {
    BinOpKind k = op == Bf16Op::Add || op == Bf16Op::AddSat   ? BinOpKind::Add
                  : op == Bf16Op::Sub || op == Bf16Op::SubSat ? BinOpKind::Sub
                  : op == Bf16Op::Mul || op == Bf16Op::MulSat ? BinOpKind::Mul
                                                              : BinOpKind::Div;
    return binary_op(k, args[0], args[1], bf_type);
  };

  llvm::Value* r = nullptr;
  switch (f.op) {
    case Bf16Op::Add:
    case Bf16Op::Sub:
    case Bf16Op::Mul:
    case Bf16Op::Div: {
      // The _rn forms are never contracted into an fma. NVPTX fuses an fmul and an fadd whatever their flags,
      // so there they are one fma.rn.bf16 the compiler leaves alone (Target::bfloat16_fma_rn): b * 1 + a,
      // b * -1 + a, a * b + -0, exact forms of the sum, difference and product rounded once. Elsewhere the
      // rounding after each operation (bfloat16_narrow) keeps them apart.
      if (f.rounding == Bf16Rounding::Nearest && f.op != Bf16Op::Div && m_.target().native_bfloat16()) {
        llvm::Value* one = llvm::ConstantFP::get(bf, f.op == Bf16Op::Sub ? -1.0 : 1.0);
        llvm::Value* minus_zero = llvm::ConstantFP::getNegativeZero(bf);
        std::vector<llvm::Value*> ops = f.op == Bf16Op::Mul
                                            ? std::vector<llvm::Value*>{args[0], args[1], minus_zero}
                                            : std::vector<llvm::Value*>{args[1], one, args[0]};
        r = m_.target().bfloat16_fma_rn(b_, ops[0], ops[1], ops[2]);
        if (r) break;
      }
      r = arith(f.op);
      break;
    }
    case Bf16Op::AddSat:
    case Bf16Op::SubSat:
    case Bf16Op::MulSat:
      r = saturate(arith(f.op));
      break;
    case Bf16Op::Fma:
      r = fma();
      break;
    case Bf16Op::FmaSat:
      r = saturate(fma());
      break;
    case Bf16Op::FmaRelu: {
      llvm::Value* v = fma();
      llvm::Value* negative = b_.CreateFCmpOLT(widen(v), f32_const(0.0));
      r = b_.CreateSelect(negative, b_.CreateBitCast(b_.getInt16(0), bf), v);
      break;
    }
    case Bf16Op::Neg:
      r = unary_op(UnaryOpKind::Neg, args[0], bf_type);
      break;
    case Bf16Op::Abs:
      if (m_.target().native_bfloat16()) {
        r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]);
      } else {
        llvm::Value* bits = b_.CreateAnd(b_.CreateBitCast(args[0], b_.getInt16Ty()), 0x7fff);
        r = b_.CreateBitCast(bits, bf);
      }
      break;
    case Bf16Op::Eq:
      r = bfloat16_compare(llvm::CmpInst::FCMP_OEQ, args[0], args[1]);
      break;
    case Bf16Op::Ne:
      r = bfloat16_compare(llvm::CmpInst::FCMP_ONE, args[0], args[1]);
      break;
    case Bf16Op::Ge:
      r = bfloat16_compare(llvm::CmpInst::FCMP_OGE, args[0], args[1]);
      break;
    case Bf16Op::Gt:
      r = bfloat16_compare(llvm::CmpInst::FCMP_OGT, args[0], args[1]);
      break;
    case Bf16Op::Le:
      r = bfloat16_compare(llvm::CmpInst::FCMP_OLE, args[0], args[1]);
      break;
    case Bf16Op::Lt:
      r = bfloat16_compare(llvm::CmpInst::FCMP_OLT, args[0], args[1]);
      break;
    case Bf16Op::Equ:
      r = bfloat16_compare(llvm::CmpInst::FCMP_UEQ, args[0], args[1]);
      break;
    case Bf16Op::Neu:
      r = bfloat16_compare(llvm::CmpInst::FCMP_UNE, args[0], args[1]);
      break;
    case Bf16Op::Geu:
      r = bfloat16_compare(llvm::CmpInst::FCMP_UGE, args[0], args[1]);
      break;
    case Bf16Op::Gtu:
      r = bfloat16_compare(llvm::CmpInst::FCMP_UGT, args[0], args[1]);
      break;
    case Bf16Op::Leu:
      r = bfloat16_compare(llvm::CmpInst::FCMP_ULE, args[0], args[1]);
      break;
    case Bf16Op::Ltu:
      r = bfloat16_compare(llvm::CmpInst::FCMP_ULT, args[0], args[1]);
      break;
    case Bf16Op::Max:
    case Bf16Op::Min:
    case Bf16Op::MaxNan:
    case Bf16Op::MinNan: {
      llvm::Intrinsic::ID id = f.op == Bf16Op::Max      ? llvm::Intrinsic::maxnum
                               : f.op == Bf16Op::Min    ? llvm::Intrinsic::minnum
                               : f.op == Bf16Op::MaxNan ? llvm::Intrinsic::maximum
                                                        : llvm::Intrinsic::minimum;
      r = narrow(b_.CreateBinaryIntrinsic(id, widen(args[0]), widen(args[1])));
      break;
    }
    case Bf16Op::IsNan:
      r = bfloat16_compare(llvm::CmpInst::FCMP_UNO, args[0], args[0]);
      break;
    case Bf16Op::IsInf: {
      llvm::Value* x = widen(args[0]);
      llvm::Value* pos = b_.CreateFCmpOEQ(x, llvm::ConstantFP::getInfinity(f32));
      llvm::Value* neg = b_.CreateFCmpOEQ(x, llvm::ConstantFP::getInfinity(f32, true));
      r = b_.CreateSelect(pos, b_.getInt32(1), b_.CreateSelect(neg, b_.getInt32(-1), b_.getInt32(0)));
      break;
    }
    case Bf16Op::Math:
      r = narrow(m_.target().call_math(b_, f.f32, {widen(args[0])}, f32));
      break;
    case Bf16Op::Trunc:
      r = in_f32(llvm::Intrinsic::trunc);
      break;
    case Bf16Op::Ceil:
      r = in_f32(llvm::Intrinsic::ceil);
      break;
    case Bf16Op::Floor:
      r = in_f32(llvm::Intrinsic::floor);
      break;
    case Bf16Op::Rint:
      r = in_f32(llvm::Intrinsic::roundeven);
      break;
    case Bf16Op::Sqrt:
      r = in_f32(llvm::Intrinsic::sqrt);
      break;
    case Bf16Op::Rsqrt:
      r = narrow(m_.target().call_math(b_, "__nv_rsqrtf", {widen(args[0])}, f32));
      break;
    case Bf16Op::Rcp:
      r = narrow(b_.CreateFDiv(f32_const(1.0), widen(args[0])));
      break;
    case Bf16Op::FromFloat:
      r = f.param == ScalarKind::Float32 ? bfloat16_from_float(args[0], f.rounding)
                                         : bfloat16_narrow(args[0]);
      break;
    case Bf16Op::FromInt:
      r = bfloat16_from_int(args[0], is_signed(f.param), f.rounding);
      break;
    case Bf16Op::ToInt: {
      llvm::Value* x = widen(args[0]);
      if (f.rounding == Bf16Rounding::Nearest) x = b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
      if (f.rounding == Bf16Rounding::Down) x = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
      if (f.rounding == Bf16Rounding::Up) x = b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
      auto id = is_signed(f.result) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
      llvm::Type* dest = llvm_type(Type::scalar_of(f.result));
      r = b_.CreateIntrinsic(id, {dest, f32}, {x});
      break;
    }
    case Bf16Op::ToFloat:
      r = widen(args[0]);
      break;
    case Bf16Op::AsBits:
      r = b_.CreateBitCast(args[0], b_.getInt16Ty());
      break;
    case Bf16Op::FromBits:
      r = b_.CreateBitCast(args[0], bf);
      break;
  }
  if (!r) internal(std::string("bf16 function without a lowering: ") + bi.qualified_name());
  return cast(r, Type::scalar_of(f.result), type_of(e));
}

}  // namespace gpujit
