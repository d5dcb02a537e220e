// fp8 conversions in LLVM IR (numba-cuda's fp8 types and cuda_fp8 functions, ir/fp8_functions.h).
//
// An fp8 value is its byte (i8). Every conversion is cuda_fp8.hpp's, bit for bit: the software algorithms the
// header runs on the host and on older GPUs are emitted as integer IR on every target (so the CPU backend gives
// the very bytes a GPU does), and on an NVPTX target of sm_90 or newer (sm_89 with PTX ISA 8.1) the two
// conversions PTX has instructions for, as the header itself uses them, go through those: float32 to e4m3/e5m2
// with SATFINITE (cvt.rn.satfinite.e4m3x2.f32) and e4m3/e5m2 to float16 (cvt.rn.f16x2.e4m3x2). e8m0's PTX
// conversions need sm_100a, which gpujit does not target; they stay in software. The mode arguments
// (saturation, interpretation, rounding) are IR values: constants fold, others select at run time.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/Target/TargetMachine.h>

#include "ir/fp8_functions.h"
#include "ir/types.h"

namespace gpujit {

/// Whether a target has PTX's fp8 cvt instructions: NVPTX, sm_90 or newer, or sm_89 with PTX ISA 8.1+.
bool has_fp8_cvt(const llvm::TargetMachine& machine);

/// Emits fp8 conversions with one builder; `ptx_cvt` as has_fp8_cvt() says for the target.
class Fp8Lowering {
 public:
  Fp8Lowering(llvm::IRBuilder<>& b, bool ptx_cvt) : b_(b), ptx_cvt_(ptx_cvt) {}

  /// __nv_cvt_double_to_fp8: an f64 to the e4m3 (`e4m3` true) or e5m2 byte; `satfinite` an i1.
  llvm::Value* from_double(llvm::Value* x, llvm::Value* e4m3, llvm::Value* satfinite);
  /// __nv_cvt_float_to_fp8: an f32 (NaN made canonical) through from_double, or PTX's cvt on sm_89+.
  llvm::Value* from_float(llvm::Value* x, llvm::Value* e4m3, llvm::Value* satfinite);
  /// An e4m3/e5m2 byte widened to float32 (exact; NaN is float16's canonical NaN widened).
  llvm::Value* to_float(llvm::Value* byte, bool e4m3);
  /// __nv_cvt_bfloat16raw_to_e8m0: bfloat16 bits (i16) to the e8m0 byte; `rounding` an i32 cudaRoundMode.
  llvm::Value* e8m0_from_bf16(llvm::Value* bits, llvm::Value* satfinite, llvm::Value* rounding);
  /// __nv_cvt_float_to_e8m0 and __nv_cvt_double_to_e8m0.
  llvm::Value* e8m0_from_float(llvm::Value* x, llvm::Value* satfinite, llvm::Value* rounding);
  llvm::Value* e8m0_from_double(llvm::Value* x, llvm::Value* satfinite, llvm::Value* rounding);
  /// __nv_cvt_e8m0_to_bf16raw: the bfloat16 bits (i16) of an e8m0 byte.
  llvm::Value* e8m0_to_bf16(llvm::Value* byte);

  /// fp8_X(v) of a value `v` of scalar type `from` (a number, a bfloat16 or an fp8 type) into fp8 type `to`,
  /// as cuda_fp8.hpp's constructors convert: SATFINITE, and for e8m0 rounding up. A bfloat16 or float16 `v`
  /// arrives as float32 (`from` says what it was: both widen exactly); an integer as itself.
  llvm::Value* to_fp8(llvm::Value* v, ScalarKind from, ScalarKind to);
  /// The float32 value of an fp8 byte of type `k` (exact), which every conversion out of fp8 starts from.
  llvm::Value* fp8_to_float(llvm::Value* byte, ScalarKind k);
  /// An fp8 byte of type `k` as float16 (exact for e4m3/e5m2; e8m0 rounds to nearest, as the header's).
  llvm::Value* fp8_to_half(llvm::Value* byte, ScalarKind k);

  /// A cuda_fp8 function: `args` already converted to the row's parameter types.
  llvm::Value* call(const Fp8Function& f, const std::vector<llvm::Value*>& args);

 private:
  llvm::Value* bf16_bits_rz(llvm::Value* f32);
  llvm::Value* bf16_bits_ru(llvm::Value* f32);
  llvm::Value* float_with_sticky(llvm::Value* f64);
  llvm::Value* e8m0_from_magnitude(llvm::Value* v, bool is_signed);
  llvm::Value* i8(uint64_t v) { return b_.getInt8(uint8_t(v)); }
  llvm::Value* i16(uint64_t v) { return b_.getInt16(uint16_t(v)); }
  llvm::Value* i32(uint64_t v) { return b_.getInt32(uint32_t(v)); }
  llvm::Value* i64(uint64_t v) { return b_.getInt64(v); }

  llvm::IRBuilder<>& b_;
  bool ptx_cvt_;
};

}  // namespace gpujit
