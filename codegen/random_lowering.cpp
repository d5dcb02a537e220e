// gpu.random: numba.cuda.random's xoroshiro128+ draws, bit for bit.
//
// Generator i is element i of the states array, numba's (s0, s1) record of two uint64, or row i of the same
// bytes seen as an (n, 2) uint64 array. One step returns s0 + s1 and moves the
// state to (rotl(s0, 55) ^ t ^ (t << 14), rotl(t, 36)) with t = s0 ^ s1. A uint64 x becomes a float64 in
// [0, 1) as (x >> 11) * 2**-53 (exact) and a float32 by rounding that float64 (so it can round up to 1.0,
// as numba's can). The normal draws are Box-Muller from two float32 uniforms u1, u2, keeping z0 only:
// float32: sqrt(-2 * log(u1)) * cos(2pi * u2) computed in float32; float64: the same in float64 with
// log(u1) still the float32 logarithm, as numba types math.log of a float32.
#include <cmath>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/function_lowering.h"
#include "ir/builtins.h"

namespace gpujit {

llvm::Value* FunctionLowering::lower_random(const BuiltinInfo& bi, const CallExpr& e) {
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.size() != 2 || e.args.size() != 2)
    internal("random builtin " + bi.qualified_name() + " without operand types");
  const Type& states_type = it->second[0];
  const Type i64_type = Type::scalar_of(ScalarKind::Int64);
  const bool records = states_type.record != nullptr;
  ArrayParts states = unpack_array(lower_expr_as(*e.args[0], states_type), records ? 1 : 2);
  llvm::Value* row = wrap_index(lower_expr_as(*e.args[1], i64_type), i64_type, states.shape[0]);
  llvm::Value* s0_ptr = nullptr;
  llvm::Value* s1_ptr = nullptr;
  if (records) {  // s0 at byte 0 of the record, s1 at byte 8 (sema checked the layout)
    s0_ptr = element_pointer(states, states_type, {row});
    s1_ptr = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), s0_ptr, 8);
  } else {
    s0_ptr = element_pointer(states, states_type, {row, i64(0)});
    s1_ptr = element_pointer(states, states_type, {row, i64(1)});
  }

  llvm::Type* u64 = b_.getInt64Ty();
  auto rotl = [&](llvm::Value* x, uint64_t k) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fshl, {u64}, {x, x, b_.getInt64(k)});
  };
  auto next = [&]() {
    llvm::Value* s0 = load_element(s0_ptr, ScalarKind::UInt64);
    llvm::Value* s1 = load_element(s1_ptr, ScalarKind::UInt64);
    llvm::Value* result = b_.CreateAdd(s0, s1);
    llvm::Value* t = b_.CreateXor(s1, s0);
    store_element(s0_ptr, b_.CreateXor(b_.CreateXor(rotl(s0, 55), t), b_.CreateShl(t, 14)),
                  ScalarKind::UInt64);
    store_element(s1_ptr, rotl(t, 36), ScalarKind::UInt64);
    return result;
  };
  auto unit_f64 = [&](llvm::Value* x) {
    llvm::Value* mantissa = b_.CreateUIToFP(b_.CreateLShr(x, 11), b_.getDoubleTy());
    return b_.CreateFMul(mantissa, llvm::ConstantFP::get(b_.getDoubleTy(), std::ldexp(1.0, -53)));
  };
  auto unit_f32 = [&](llvm::Value* x) { return b_.CreateFPTrunc(unit_f64(x), b_.getFloatTy()); };

  const Type& result = type_of(e);
  switch (bi.id) {
    case BuiltinId::RandomNext:
      return cast(next(), Type::scalar_of(ScalarKind::UInt64), result);
    case BuiltinId::RandomUniformF64:
      return cast(unit_f64(next()), Type::scalar_of(ScalarKind::Float64), result);
    case BuiltinId::RandomUniformF32:
      return cast(unit_f32(next()), Type::scalar_of(ScalarKind::Float32), result);
    case BuiltinId::RandomNormalF32:
    case BuiltinId::RandomNormalF64: {
      llvm::Value* u1 = unit_f32(next());
      llvm::Value* u2 = unit_f32(next());
      llvm::Value* log_u1 = call_math("__nv_logf", "__nv_log", ScalarKind::Float32, {u1});
      bool wide = bi.id == BuiltinId::RandomNormalF64;
      ScalarKind k = wide ? ScalarKind::Float64 : ScalarKind::Float32;
      llvm::Type* ft = wide ? b_.getDoubleTy() : b_.getFloatTy();
      if (wide) {
        log_u1 = b_.CreateFPExt(log_u1, ft);
        u2 = b_.CreateFPExt(u2, ft);
      }
      // numba's TWO_PI_FLOAT32 is np.float32(2 * pi): 2pi rounded to float32.
      double two_pi = wide ? 2 * M_PI : double(float(2 * M_PI));
      llvm::Value* radius = b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt,
                                                    b_.CreateFMul(llvm::ConstantFP::get(ft, -2.0), log_u1));
      llvm::Value* angle = b_.CreateFMul(llvm::ConstantFP::get(ft, two_pi), u2);
      llvm::Value* z0 = b_.CreateFMul(radius, call_math("__nv_cosf", "__nv_cos", k, {angle}));
      return cast(z0, Type::scalar_of(k), result);
    }
    default:
      break;
  }
  internal("no lowering for random builtin " + bi.qualified_name());
}

}  // namespace gpujit
