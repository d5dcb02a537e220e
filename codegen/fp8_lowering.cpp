// fp8 conversions (see fp8_lowering.h). Each function follows the cuda_fp8.hpp function its comment names,
// step for step, so that a reader can check one against the other.
#include "codegen/fp8_lowering.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>

#include <cstdlib>
#include <string>

namespace gpujit {

bool has_fp8_cvt(const llvm::TargetMachine& machine) {
  if (!machine.getTargetTriple().isNVPTX()) return false;
  std::string cpu = machine.getTargetCPU().str();  // "sm_90", "sm_89", "sm_90a"
  if (cpu.rfind("sm_", 0) != 0) return false;
  int sm = std::atoi(cpu.c_str() + 3);
  if (sm >= 90) return true;
  if (sm < 89) return false;
  // sm_89 has the instructions from PTX ISA 8.1 on; the PTX version is a target feature ("+ptx78").
  std::string features = machine.getTargetFeatureString().str();
  size_t at = features.find("+ptx");
  return at != std::string::npos && std::atoi(features.c_str() + at + 4) >= 81;
}

namespace {

// A constant i1 operand's value, or -1 when it is known only at run time.
int constant_bool(llvm::Value* v) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return c->isOne() ? 1 : 0;
  return -1;
}

}  // namespace

llvm::Value* Fp8Lowering::from_double(llvm::Value* x, llvm::Value* e4m3, llvm::Value* satfinite) {
  auto& b = b_;
  auto sel8 = [&](uint8_t a, uint8_t c) { return b.CreateSelect(e4m3, i8(a), i8(c)); };
  auto sel64 = [&](uint64_t a, uint64_t c) { return b.CreateSelect(e4m3, i64(a), i64(c)); };
  llvm::Value* xbits = b.CreateBitCast(x, b.getInt64Ty());
  llvm::Value* maxnorm = sel8(0x7E, 0x7B);
  llvm::Value* mantissa_mask = sel8(0x7, 0x3);
  llvm::Value* bias = b.CreateSelect(e4m3, i16(7), i16(15));
  llvm::Value* significand_bits = sel64(4, 3);
  llvm::Value* mindenorm_o2 = sel64(0x3F50000000000000ULL, 0x3EE0000000000000ULL);  // 2^-10, 2^-17
  // maxnorm + 1/2 ulp; e5m2's less one, so that both compare with `>`.
  llvm::Value* overflow_threshold = sel64(0x407D000000000000ULL, 0x40EE000000000000ULL - 1);
  llvm::Value* minnorm = sel64(0x3F90000000000000ULL, 0x3F10000000000000ULL);  // 2^-6, 2^-14
  llvm::Value* half_ulp = b.CreateShl(i64(1), b.CreateSub(i64(52), significand_bits));
  llvm::Value* sign = b.CreateShl(b.CreateTrunc(b.CreateLShr(xbits, 63), b.getInt8Ty()), 7);
  llvm::Value* exp16 = b.CreateAnd(b.CreateTrunc(b.CreateLShr(xbits, 52), b.getInt16Ty()), i16(0x7FF));
  llvm::Value* exp = b.CreateTrunc(b.CreateAdd(b.CreateSub(exp16, i16(1023)), bias), b.getInt8Ty());
  llvm::Value* mantissa = b.CreateAnd(
      b.CreateTrunc(b.CreateLShr(xbits, b.CreateSub(i64(53), significand_bits)), b.getInt8Ty()), mantissa_mask);
  llvm::Value* absx = b.CreateAnd(xbits, i64(0x7FFFFFFFFFFFFFFFULL));
  llvm::Value* sig8 = b.CreateTrunc(significand_bits, b.getInt8Ty());

  // Normal range: the exponent and the truncated mantissa, then round to nearest even.
  llvm::Value* normal = b.CreateOr(b.CreateShl(exp, b.CreateSub(sig8, i8(1))), mantissa);
  llvm::Value* round = b.CreateAnd(xbits, b.CreateSub(b.CreateShl(half_ulp, 1), i64(1)));
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(mantissa, i8(1)), i8(0));
  llvm::Value* up = b.CreateOr(b.CreateICmpUGT(round, half_ulp),
                               b.CreateAnd(b.CreateICmpEQ(round, half_ulp), odd));
  normal = b.CreateAdd(normal, b.CreateZExt(up, b.getInt8Ty()));

  // Denormal range: the implicit bit joins the mantissa, which shifts right by 1 - exp (1 to 4 here; the
  // clamp only keeps the shifts of the other ranges, whose result is not chosen, defined).
  llvm::Value* shift = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateSub(i8(1), exp), i8(7));
  llvm::Value* with_implicit = b.CreateOr(mantissa, b.CreateShl(i8(1), b.CreateSub(sig8, i8(1))));
  llvm::Value* denormal = b.CreateLShr(with_implicit, shift);
  llvm::Value* shift64 = b.CreateZExt(shift, b.getInt64Ty());
  llvm::Value* dround = b.CreateAnd(b.CreateOr(xbits, i64(1ULL << 52)),
                                    b.CreateSub(b.CreateShl(half_ulp, b.CreateAdd(shift64, i64(1))), i64(1)));
  llvm::Value* dhalf = b.CreateShl(half_ulp, shift64);
  llvm::Value* dodd = b.CreateICmpNE(b.CreateAnd(denormal, i8(1)), i8(0));
  llvm::Value* dup = b.CreateOr(b.CreateICmpUGT(dround, dhalf), b.CreateAnd(b.CreateICmpEQ(dround, dhalf), dodd));
  denormal = b.CreateAdd(denormal, b.CreateZExt(dup, b.getInt8Ty()));

  llvm::Value* nan = b.CreateSelect(e4m3, i8(0x7F), b.CreateOr(i8(0x7E), mantissa));  // e5m2: a quiet NaN
  llvm::Value* overflow = b.CreateSelect(satfinite, maxnorm, sel8(0x7F, 0x7C));       // e4m3 has no Inf
  llvm::Value* res = b.CreateSelect(b.CreateICmpUGE(absx, minnorm), normal, denormal);
  res = b.CreateSelect(b.CreateICmpUGT(absx, overflow_threshold), overflow, res);
  res = b.CreateSelect(b.CreateICmpUGT(absx, i64(0x7FF0000000000000ULL)), nan, res);
  res = b.CreateSelect(b.CreateICmpULE(absx, mindenorm_o2), i8(0), res);
  return b.CreateOr(res, sign);
}

llvm::Value* Fp8Lowering::from_float(llvm::Value* x, llvm::Value* e4m3, llvm::Value* satfinite) {
  int sat = constant_bool(satfinite), e4 = constant_bool(e4m3);
  if (ptx_cvt_ && sat == 1 && e4 >= 0) {
    // The header's sm_89 path: the value in the low byte, 0.0 in the high one.
    auto* type = llvm::FunctionType::get(b_.getInt16Ty(), {b_.getFloatTy(), b_.getFloatTy()}, false);
    std::string text = e4 ? "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;" : "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;";
    llvm::Value* pair =
        b_.CreateCall(llvm::InlineAsm::get(type, text, "=h,f,f", false), {x, llvm::ConstantFP::get(b_.getFloatTy(), 0.0)});
    return b_.CreateTrunc(pair, b_.getInt8Ty());
  }
  llvm::Value* bits = b_.CreateBitCast(x, b_.getInt32Ty());
  llvm::Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(bits, i32(0x7FFFFFFF)), i32(0x7F800000));
  bits = b_.CreateSelect(is_nan, i32(0x7FFFFFFF), bits);  // the canonical NaN
  llvm::Value* dx = b_.CreateFPExt(b_.CreateBitCast(bits, b_.getFloatTy()), b_.getDoubleTy());
  return from_double(dx, e4m3, satfinite);
}

llvm::Value* Fp8Lowering::to_float(llvm::Value* byte, bool e4m3) {
  llvm::Type* f32 = b_.getFloatTy();
  if (ptx_cvt_) {
    auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt16Ty()}, false);
    const char* text = e4m3 ? "cvt.rn.f16x2.e4m3x2 $0, $1;" : "cvt.rn.f16x2.e5m2x2 $0, $1;";
    llvm::Value* pair = b_.CreateCall(llvm::InlineAsm::get(type, text, "=r,h", false),
                                      {b_.CreateZExt(byte, b_.getInt16Ty())});
    llvm::Value* half = b_.CreateBitCast(b_.CreateTrunc(pair, b_.getInt16Ty()), b_.getHalfTy());
    return b_.CreateFPExt(half, f32);
  }
  // __nv_cvt_fp8_to_halfraw's value, computed exactly in float32: the mantissa as an integer (with its
  // implicit bit when the exponent field is not 0) times a power of two.
  const unsigned m = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  llvm::Value* x = b_.CreateZExt(byte, b_.getInt32Ty());
  llvm::Value* mag = b_.CreateAnd(x, i32(0x7F));
  llvm::Value* exp = b_.CreateLShr(mag, m);
  llvm::Value* frac = b_.CreateAnd(mag, i32((1u << m) - 1));
  llvm::Value* is_denormal = b_.CreateICmpEQ(exp, i32(0));
  llvm::Value* mant = b_.CreateSelect(is_denormal, frac, b_.CreateOr(frac, i32(1u << m)));
  llvm::Value* exp1 = b_.CreateSelect(is_denormal, i32(1), exp);
  llvm::Value* scale_bits = b_.CreateShl(b_.CreateAdd(exp1, i32(127 - bias - m)), 23);
  llvm::Value* value = b_.CreateFMul(b_.CreateUIToFP(mant, f32), b_.CreateBitCast(scale_bits, f32));
  llvm::Value* negative = b_.CreateICmpNE(b_.CreateAnd(x, i32(0x80)), i32(0));
  value = b_.CreateSelect(negative, b_.CreateFNeg(value), value);
  llvm::Value* canonical_nan = b_.CreateBitCast(i32(0x7FFFE000), f32);  // float16's 0x7FFF, widened
  if (e4m3) return b_.CreateSelect(b_.CreateICmpEQ(mag, i32(0x7F)), canonical_nan, value);
  llvm::Value* special = b_.CreateICmpEQ(exp, i32(31));
  llvm::Value* inf = b_.CreateSelect(negative, llvm::ConstantFP::getInfinity(f32, true),
                                     llvm::ConstantFP::getInfinity(f32, false));
  llvm::Value* inf_or_nan = b_.CreateSelect(b_.CreateICmpEQ(frac, i32(0)), inf, canonical_nan);
  return b_.CreateSelect(special, inf_or_nan, value);
}

llvm::Value* Fp8Lowering::e8m0_from_bf16(llvm::Value* bits, llvm::Value* satfinite, llvm::Value* rounding) {
  auto& b = b_;
  llvm::Value* res = b.CreateTrunc(b.CreateLShr(bits, 7), b.getInt8Ty());  // the exponent: toward zero
  llvm::Value* abs = b.CreateAnd(bits, i16(0x7FFF));
  // Up: a non-zero mantissa of a finite value above 2^-127 takes the next power of two.
  llvm::Value* up = b.CreateAnd(b.CreateICmpEQ(rounding, i32(2)),  // cudaRoundPosInf
                                b.CreateICmpNE(b.CreateAnd(bits, i16(0x7F)), i16(0)));
  up = b.CreateAnd(up, b.CreateAnd(b.CreateICmpUGT(abs, i16(0x40)), b.CreateICmpULT(abs, i16(0x7F80))));
  res = b.CreateAdd(res, b.CreateZExt(up, b.getInt8Ty()));
  llvm::Value* clamp = b.CreateAnd(satfinite, b.CreateAnd(b.CreateICmpULE(abs, i16(0x7F80)),
                                                          b.CreateICmpEQ(res, i8(0xFF))));
  return b.CreateSelect(clamp, i8(0xFE), res);
}

llvm::Value* Fp8Lowering::bf16_bits_rz(llvm::Value* f32) {
  llvm::Value* u = b_.CreateBitCast(f32, b_.getInt32Ty());
  llvm::Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(u, i32(0x7FFFFFFF)), i32(0x7F800000));
  return b_.CreateSelect(is_nan, i16(0x7FFF), b_.CreateTrunc(b_.CreateLShr(u, 16), b_.getInt16Ty()));
}

llvm::Value* Fp8Lowering::bf16_bits_ru(llvm::Value* f32) {
  llvm::Value* u = b_.CreateBitCast(f32, b_.getInt32Ty());
  llvm::Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(u, i32(0x7FFFFFFF)), i32(0x7F800000));
  llvm::Value* hi = b_.CreateTrunc(b_.CreateLShr(u, 16), b_.getInt16Ty());
  llvm::Value* up = b_.CreateAnd(b_.CreateICmpULT(u, i32(0x7F800000)),
                                 b_.CreateICmpNE(b_.CreateAnd(u, i32(0xFFFF)), i32(0)));
  return b_.CreateSelect(is_nan, i16(0x7FFF), b_.CreateAdd(hi, b_.CreateZExt(up, b_.getInt16Ty())));
}

llvm::Value* Fp8Lowering::e8m0_from_float(llvm::Value* x, llvm::Value* satfinite, llvm::Value* rounding) {
  llvm::Value* rz = bf16_bits_rz(x);
  llvm::Value* absbits = b_.CreateAnd(b_.CreateBitCast(x, b_.getInt32Ty()), i32(0x7FFFFFFF));
  llvm::Value* ru = bf16_bits_ru(b_.CreateBitCast(absbits, b_.getFloatTy()));
  llvm::Value* bits = b_.CreateSelect(b_.CreateICmpEQ(rounding, i32(1)), rz, ru);  // cudaRoundZero
  return e8m0_from_bf16(bits, satfinite, rounding);
}

llvm::Value* Fp8Lowering::float_with_sticky(llvm::Value* x) {
  // __internal_double_to_float_with_sticky: float32 rounded toward zero, its last bit set if inexact, so
  // that rounding it up once more gives the double's rounding up.
  llvm::Value* f = b_.CreateFPTrunc(x, b_.getFloatTy());
  llvm::Value* d = b_.CreateFPExt(f, b_.getDoubleTy());
  llvm::Value* u = b_.CreateBitCast(f, b_.getInt32Ty());
  llvm::Value* not_nan = b_.CreateICmpULE(b_.CreateShl(u, 1), i32(0xFF000000));
  llvm::Value* zero = llvm::ConstantFP::get(b_.getDoubleTy(), 0.0);
  llvm::Value* away = b_.CreateOr(b_.CreateAnd(b_.CreateFCmpOGT(x, zero), b_.CreateFCmpOGT(d, x)),
                                  b_.CreateAnd(b_.CreateFCmpOLT(x, zero), b_.CreateFCmpOLT(d, x)));
  u = b_.CreateSub(u, b_.CreateZExt(away, b_.getInt32Ty()));
  llvm::Value* sticky = b_.CreateAnd(b_.CreateFCmpUNE(d, x), not_nan);
  u = b_.CreateSelect(sticky, b_.CreateOr(u, i32(1)), u);
  return b_.CreateBitCast(u, b_.getFloatTy());
}

llvm::Value* Fp8Lowering::e8m0_from_double(llvm::Value* x, llvm::Value* satfinite, llvm::Value* rounding) {
  return e8m0_from_float(float_with_sticky(x), satfinite, rounding);
}

llvm::Value* Fp8Lowering::e8m0_to_bf16(llvm::Value* byte) {
  llvm::Value* res = b_.CreateShl(b_.CreateZExt(byte, b_.getInt16Ty()), 7);
  res = b_.CreateSelect(b_.CreateICmpEQ(byte, i8(0xFF)), i16(0x7FFF), res);  // NaN
  return b_.CreateSelect(b_.CreateICmpEQ(byte, i8(0)), i16(0x0040), res);    // 2^-127
}

llvm::Value* Fp8Lowering::e8m0_from_magnitude(llvm::Value* v, bool is_signed) {
  // __nv_fp8_e8m0(long long / unsigned long long): bfloat16 to nearest, nudged up one ulp when that fell
  // short of the value, then rounded up to a power of two: the smallest power of two >= |v| (0 gives 2^-127).
  v = b_.CreateZExt(v, b_.getInt64Ty());
  if (is_signed) v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, v, b_.getFalse());
  llvm::Value* lz = b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, v, b_.getFalse());
  llvm::Value* e = b_.CreateSub(i64(63), lz);
  llvm::Value* not_pow2 = b_.CreateICmpNE(b_.CreateAnd(v, b_.CreateSub(v, i64(1))), i64(0));
  e = b_.CreateAdd(e, b_.CreateZExt(not_pow2, b_.getInt64Ty()));
  llvm::Value* res = b_.CreateTrunc(b_.CreateAdd(e, i64(127)), b_.getInt8Ty());
  return b_.CreateSelect(b_.CreateICmpEQ(v, i64(0)), i8(0), res);
}

llvm::Value* Fp8Lowering::to_fp8(llvm::Value* v, ScalarKind from, ScalarKind to) {
  llvm::Type* f32 = b_.getFloatTy();
  if (is_fp8(from)) {
    v = fp8_to_float(v, from);
    from = ScalarKind::Float32;
  }
  if (is_integer(from)) {
    // e4m3/e5m2 and e8m0 take 8- and 16-bit integers through float32; e8m0 takes 32-bit ones through
    // float64 and 64-bit ones exactly (cuda_fp8.hpp's integer constructors).
    unsigned size = scalar_size(from);
    bool s = is_signed(from);
    if (to == ScalarKind::Fp8E8M0 && size == 8) return e8m0_from_magnitude(v, s);
    if (to == ScalarKind::Fp8E8M0 && size == 4) {
      v = s ? b_.CreateSIToFP(v, b_.getDoubleTy()) : b_.CreateUIToFP(v, b_.getDoubleTy());
      from = ScalarKind::Float64;
    } else {
      v = s ? b_.CreateSIToFP(v, f32) : b_.CreateUIToFP(v, f32);
      from = ScalarKind::Float32;
    }
  }
  llvm::Value* sat = b_.getTrue();
  if (to == ScalarKind::Fp8E8M0) {
    llvm::Value* up = i32(2);  // cudaRoundPosInf
    if (from == ScalarKind::Float64) return e8m0_from_double(v, sat, up);
    if (from == ScalarKind::BFloat16) {  // its own bits (v is the exact float32)
      llvm::Value* bits = b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16), b_.getInt16Ty());
      return e8m0_from_bf16(bits, sat, up);
    }
    return e8m0_from_float(v, sat, up);
  }
  llvm::Value* e4m3 = b_.getInt1(to == ScalarKind::Fp8E4M3);
  if (from == ScalarKind::Float64) return from_double(v, e4m3, sat);
  return from_float(v, e4m3, sat);
}

llvm::Value* Fp8Lowering::fp8_to_float(llvm::Value* byte, ScalarKind k) {
  if (k == ScalarKind::Fp8E8M0) {
    llvm::Value* bits = b_.CreateZExt(e8m0_to_bf16(byte), b_.getInt32Ty());
    return b_.CreateBitCast(b_.CreateShl(bits, 16), b_.getFloatTy());
  }
  return to_float(byte, k == ScalarKind::Fp8E4M3);
}

llvm::Value* Fp8Lowering::fp8_to_half(llvm::Value* byte, ScalarKind k) {
  return b_.CreateFPTrunc(fp8_to_float(byte, k), b_.getHalfTy());
}

llvm::Value* Fp8Lowering::call(const Fp8Function& f, const std::vector<llvm::Value*>& args) {
  if (f.op == Fp8Op::E8m0ToBf16Raw) {
    llvm::Value* raw = llvm::PoisonValue::get(llvm::FixedVectorType::get(b_.getInt16Ty(), 1));
    return b_.CreateInsertElement(raw, e8m0_to_bf16(args[0]), uint64_t(0));
  }
  if (f.op == Fp8Op::ToHalfRaw) {
    llvm::Value* e4m3 = b_.CreateICmpEQ(args[1], i32(0));  // __NV_E4M3
    int e4 = constant_bool(e4m3);
    llvm::Value* value = e4 >= 0 ? to_float(args[0], e4 == 1)
                                 : b_.CreateSelect(e4m3, to_float(args[0], true), to_float(args[0], false));
    llvm::Value* bits = b_.CreateBitCast(b_.CreateFPTrunc(value, b_.getHalfTy()), b_.getInt16Ty());
    llvm::Value* raw = llvm::PoisonValue::get(llvm::FixedVectorType::get(b_.getInt16Ty(), 1));
    return b_.CreateInsertElement(raw, bits, uint64_t(0));
  }
  llvm::Value* sat = b_.CreateICmpEQ(args[1], i32(1));  // __NV_SATFINITE
  unsigned lanes = f.value_lanes == 2 ? 2 : 1;
  llvm::Value* result = nullptr;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    llvm::Value* x = f.value_lanes ? b_.CreateExtractElement(args[0], uint64_t(lane)) : args[0];
    bool raw = f.value == ScalarKind::UInt16;  // a bfloat16_raw: its bits
    llvm::Value* r;
    if (f.op == Fp8Op::ToE8m0) {
      if (raw) r = e8m0_from_bf16(x, sat, args[2]);
      else if (f.value == ScalarKind::Float64) r = e8m0_from_double(x, sat, args[2]);
      else r = e8m0_from_float(x, sat, args[2]);
    } else {
      llvm::Value* e4m3 = b_.CreateICmpEQ(args[2], i32(0));  // __NV_E4M3
      if (raw) x = b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(x, b_.getInt32Ty()), 16), b_.getFloatTy());
      r = f.value == ScalarKind::Float64 ? from_double(x, e4m3, sat) : from_float(x, e4m3, sat);
    }
    if (lanes == 1) return r;
    llvm::Value* wide = b_.CreateShl(b_.CreateZExt(r, b_.getInt16Ty()), 8 * lane);
    result = result ? b_.CreateOr(result, wide) : wide;
  }
  return result;
}

}  // namespace gpujit
