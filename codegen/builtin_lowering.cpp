// Builtins: thread indices, barriers, math, and Python's own builtins, lowered by the row of the builtins
// table (ir/builtins.h) that analysis resolved each use to; atomics are in atomic_lowering.cpp, the integer
// intrinsics and print() in intrinsic_lowering.cpp.
//
// Thread indices come from the target's special registers. grid(n) is computed in int64 as numba does,
// ctaid * ntid + tid from zero-extended 32-bit registers, so LLVM knows it is non-negative and in range:
// sign checks on it vanish (a[i] with i from grid never wraps) and the multiply becomes mul.wide.u32.
//
// Math functions whose libdevice body is one PTX instruction (sqrt, fabs, floor, ceil, trunc, copysign)
// and the float predicates (isnan, isinf, isfinite) are LLVM intrinsics or comparisons instead: same
// results, no libdevice link for kernels that use only these. Everything else calls the row's libdevice
// function through the target. Python's min/max return the first extreme operand as CPython does
// (min(nan, 1) is nan, min(1, nan) is 1); round() rounds halves to even.
#include <cmath>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/fp8_lowering.h"
#include "codegen/function_lowering.h"
#include "ir/builtins.h"
#include "ir/fp16_functions.h"
#include "ir/libdevice_functions.h"

namespace gpujit {

bool is_range_call(const FunctionLowering& fl, const Expr& callee) {
  const Symbol* s = fl.symbol_of(callee);
  return s && s->kind == Symbol::Kind::Builtin && s->builtin && s->builtin->id == BuiltinId::Range;
}

namespace {

SpecialReg to_special_reg(BuiltinReg r) {
  switch (r) {
    case BuiltinReg::ThreadIdx:
      return SpecialReg::ThreadIdx;
    case BuiltinReg::BlockDim:
      return SpecialReg::BlockDim;
    case BuiltinReg::BlockIdx:
      return SpecialReg::BlockIdx;
    case BuiltinReg::GridDim:
      return SpecialReg::GridDim;
    case BuiltinReg::LaneId:
      return SpecialReg::LaneId;
    case BuiltinReg::WarpSize:
      return SpecialReg::WarpSize;
    case BuiltinReg::None:
      break;
  }
  throw InternalError("codegen: a special-register builtin without a register");
}

/// Parameter names of builtins that may be called with keywords, as numba-cuda names them.
std::vector<std::string> parameter_names(const BuiltinInfo& b) {
  switch (b.lowering) {
    case BuiltinLowering::Atomic:
      if (b.id == BuiltinId::AtomicCas) return {"ary", "idx", "old", "val"};
      if (b.id == BuiltinId::AtomicCompareAndSwap) return {"ary", "old", "val"};
      return {"ary", "idx", "val"};
    case BuiltinLowering::ArrayAlloc:
      return {"shape", "dtype", "alignment"};
    case BuiltinLowering::Grid:
      return {"ndim"};
    default:
      break;
  }
  switch (b.id) {
    case BuiltinId::SyncWarp:
      return {"mask"};
    case BuiltinId::SyncThreadsCount:
    case BuiltinId::SyncThreadsAnd:
    case BuiltinId::SyncThreadsOr:
      return {"predicate"};
    default:
      return {};
  }
}

}  // namespace

llvm::Value* FunctionLowering::lower_builtin_value(const BuiltinInfo& bi, const Expr& e) {
  const Type& t = type_of(e);
  switch (bi.lowering) {
    case BuiltinLowering::Complex:  // z.real, z.imag
      return lower_number_attribute(bi, e);
    case BuiltinLowering::SpecialRegister: {
      llvm::Value* v = m_.target().special_register(b_, to_special_reg(bi.reg), bi.axis);
      return cast(v, Type::scalar_of(ScalarKind::Int32), t);
    }
    case BuiltinLowering::ArrayAttr:
    case BuiltinLowering::Constant: {
      if (const ConstValue* c = fn_.constant_of(&e)) return lower_constant(*c, t);
      if (bi.typing == BuiltinTyping::MathConstant)
        return cast(llvm::ConstantFP::get(b_.getDoubleTy(), bi.constant),
                    Type::scalar_of(ScalarKind::Float64), t);
      const auto* attr = e.as<AttributeExpr>();
      if (!attr || !type_of(*attr->value).is_array()) internal("array attribute without an array");
      return array_attribute(lower_expr(*attr->value), type_of(*attr->value), bi.name, t);
    }
    default:
      break;
  }
  internal(std::string("builtin '") + bi.qualified_name() + "' used as a value");
}

llvm::Value* FunctionLowering::lower_builtin_call(const BuiltinInfo& bi, const CallExpr& e) {
  const std::vector<const Expr*> args = bind_arguments(e, parameter_names(bi));
  const Type& result = type_of(e);
  const std::vector<Type>* op_types = nullptr;
  if (auto it = fn_.operand_types.find(&e); it != fn_.operand_types.end()) op_types = &it->second;
  auto arg = [&](size_t i) -> const Expr& {
    if (i >= args.size() || !args[i]) internal(std::string("missing argument of ") + bi.qualified_name());
    return *args[i];
  };
  // The i-th argument converted to the type analysis chose for it.
  auto operand = [&](size_t i) -> llvm::Value* {
    if (!op_types || i >= op_types->size())
      internal(std::string("no operand type for ") + bi.qualified_name());
    return lower_expr_as(arg(i), (*op_types)[i]);
  };
  auto operand_type = [&](size_t i) -> const Type& {
    if (!op_types || i >= op_types->size())
      internal(std::string("no operand type for ") + bi.qualified_name());
    return (*op_types)[i];
  };
  const Type i64_type = Type::scalar_of(ScalarKind::Int64);
  const Type i32_type = Type::scalar_of(ScalarKind::Int32);
  const Type bool_type = Type::scalar_of(ScalarKind::Bool);
  llvm::Value* none = llvm::Constant::getNullValue(llvm_type(Type::none()));

  switch (bi.lowering) {
    case BuiltinLowering::Grid: {
      auto ndim = const_eval(arg(0));
      if (!ndim || ndim->kind != ConstValue::Kind::Int || ndim->i < 1 || ndim->i > 3)
        internal("grid/gridsize without a constant dimension of 1 to 3");
      Target& target = m_.target();
      auto reg = [&](SpecialReg r, unsigned axis) {
        return b_.CreateZExt(target.special_register(b_, r, axis), b_.getInt64Ty());
      };
      std::vector<llvm::Value*> values;
      for (unsigned axis = 0; axis < unsigned(ndim->i); ++axis) {
        if (bi.id == BuiltinId::Grid) {
          llvm::Value* base =
              b_.CreateMul(reg(SpecialReg::BlockIdx, axis), reg(SpecialReg::BlockDim, axis), "", true, true);
          values.push_back(b_.CreateAdd(base, reg(SpecialReg::ThreadIdx, axis), "", true, true));
        } else {
          values.push_back(
              b_.CreateMul(reg(SpecialReg::BlockDim, axis), reg(SpecialReg::GridDim, axis), "", true, true));
        }
      }
      if (values.size() == 1) return cast(values[0], i64_type, result);
      Type tt = Type::tuple_of(std::vector<Type>(values.size(), i64_type));
      llvm::Value* agg = llvm::PoisonValue::get(llvm_type(tt));
      for (unsigned i = 0; i < values.size(); ++i) agg = b_.CreateInsertValue(agg, values[i], {i});
      return cast(agg, tt, result);
    }

    case BuiltinLowering::Barrier: {
      Target& target = m_.target();
      switch (bi.id) {
        case BuiltinId::SyncThreads:
          target.barrier_block(b_);
          return none;
        case BuiltinId::SyncThreadsCount:
        case BuiltinId::SyncThreadsAnd:
        case BuiltinId::SyncThreadsOr: {
          llvm::Value* pred = truthy(lower_expr(arg(0)), type_of(arg(0)));
          auto op = bi.id == BuiltinId::SyncThreadsCount ? Target::BarrierReduce::Count
                    : bi.id == BuiltinId::SyncThreadsAnd ? Target::BarrierReduce::And
                                                         : Target::BarrierReduce::Or;
          llvm::Value* r = target.barrier_block_reduce(b_, op, pred);
          if (r->getType()->isIntegerTy(1)) return cast(r, bool_type, result);
          return cast(r, i32_type, result);
        }
        case BuiltinId::SyncWarp: {
          llvm::Value* mask = args.empty() || !args[0]
                                  ? b_.getInt32(0xffffffffu)
                                  : lower_expr_as(arg(0), Type::scalar_of(ScalarKind::UInt32));
          target.barrier_warp(b_, mask);
          return none;
        }
        case BuiltinId::ThreadFence:
          target.fence(b_, Target::FenceScope::Device);
          return none;
        case BuiltinId::ThreadFenceBlock:
          target.fence(b_, Target::FenceScope::Block);
          return none;
        case BuiltinId::ThreadFenceSystem:
          target.fence(b_, Target::FenceScope::System);
          return none;
        default:
          break;
      }
      break;
    }

    case BuiltinLowering::ArrayAlloc: {
      if (!result.is_array()) internal("array allocation typed '" + result.str() + "'");
      // const.array_like(a) is `a`: a global array a kernel names is already in constant memory.
      if (bi.id == BuiltinId::ConstArrayLike) return lower_expr_as(arg(0), result);
      std::vector<int64_t> shape;
      if (auto it = fn_.array_shapes.find(&e); it != fn_.array_shapes.end()) {
        shape = it->second;
      } else {
        shape = const_shape(arg(0));
      }
      unsigned alignment = 0;
      if (auto it = fn_.array_alignments.find(&e); it != fn_.array_alignments.end()) alignment = it->second;
      if (bi.id == BuiltinId::SharedArray) return make_shared_array(shape, result.element(), result, alignment);
      if (bi.id == BuiltinId::LocalArray) return make_local_array(shape, result.element(), result, alignment);
      break;
    }

    case BuiltinLowering::Atomic:
      return lower_atomic(bi, e, args);

    case BuiltinLowering::Intrinsic:
      return lower_intrinsic(bi, e);
    case BuiltinLowering::CacheHint:
      return lower_cache_hint(bi, e);

    case BuiltinLowering::Print:
      return lower_print(e);

    case BuiltinLowering::Warp:
      return lower_warp(bi, e);
    case BuiltinLowering::GridSync:
      return lower_grid_group(bi, e);
    case BuiltinLowering::Complex:
      return lower_complex(bi, e);
    case BuiltinLowering::Random:
      return lower_random(bi, e);
    case BuiltinLowering::Vector:
      return lower_vector_ctor(e);

    case BuiltinLowering::Fp16: {
      const Type half = Type::scalar_of(ScalarKind::Float16);
      const std::string_view name = bi.name;
      llvm::Value* a = operand(0);
      if (fp16_is_comparison(name)) {
        CmpOpKind op = name == "heq" ? CmpOpKind::Eq : name == "hne" ? CmpOpKind::NotEq
                     : name == "hgt" ? CmpOpKind::Gt : name == "hge" ? CmpOpKind::GtE
                     : name == "hlt" ? CmpOpKind::Lt : CmpOpKind::LtE;
        return cast(compare_op(op, a, operand(1), half), bool_type, result);
      }
      llvm::Value* r = nullptr;
      if (name == "hadd") r = binary_op(BinOpKind::Add, a, operand(1), half);
      else if (name == "hsub") r = binary_op(BinOpKind::Sub, a, operand(1), half);
      else if (name == "hmul") r = binary_op(BinOpKind::Mul, a, operand(1), half);
      else if (name == "hdiv") r = binary_op(BinOpKind::Div, a, operand(1), half);
      else if (name == "hneg") r = b_.CreateFNeg(a);
      else if (name == "habs") r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
      else if (name == "hfma") r = b_.CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, operand(1), operand(2)});
      else if (name == "hmax") r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, operand(1));
      else if (name == "hmin") r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, operand(1));
      else {
        // Math in float32, one rounding to float16 (cuda_fp16.h computes these the same way).
        llvm::Value* x = b_.CreateFPExt(a, b_.getFloatTy());
        llvm::Value* y = nullptr;
        if (bi.f32) y = m_.target().call_math(b_, bi.f32, {x}, b_.getFloatTy());
        else if (name == "hrcp") y = b_.CreateFDiv(llvm::ConstantFP::get(b_.getFloatTy(), 1.0), x);
        else if (name == "hrint") y = b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
        else if (name == "htrunc") y = b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x);
        else if (name == "hceil") y = b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
        else if (name == "hfloor") y = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
        else internal("fp16 function '" + std::string(name) + "' without a lowering");
        r = b_.CreateFPTrunc(y, a->getType());
      }
      return cast(r, half, result);
    }

    case BuiltinLowering::Bf16:
      return cast(lower_bf16(bi, e), type_of(e), result);

    case BuiltinLowering::Fp8: {  // codegen/fp8_lowering.cpp
      std::vector<llvm::Value*> values;
      for (size_t i = 0; i < e.args.size(); ++i) values.push_back(operand(i));
      return Fp8Lowering(b_, has_fp8_cvt(m_.target().machine())).call(fp8_function(bi), values);
    }

    case BuiltinLowering::Operator: {
      const Type& t = operand_type(0);
      llvm::Value* r = nullptr;
      if (op_types->size() == 2 && bi.typing == BuiltinTyping::OperatorBinary)  // datetime64 and timedelta64
        return datetime_binary(static_cast<BinOpKind>(bi.axis), operand(0), operand(1), t, operand_type(1), result);
      if (bi.typing == BuiltinTyping::OperatorBinary || bi.typing == BuiltinTyping::LogicalBinary)
        r = binary_op(static_cast<BinOpKind>(bi.axis), operand(0), lower_expr_as(arg(1), t), t);
      else if (bi.typing == BuiltinTyping::OperatorCompare)
        return cast(compare_op(static_cast<CmpOpKind>(bi.axis), operand(0), lower_expr_as(arg(1), t), t),
                    bool_type, result);
      else
        r = unary_op(static_cast<UnaryOpKind>(bi.axis), operand(0), t);
      return cast(r, bi.typing == BuiltinTyping::OperatorUnary && bi.axis == uint8_t(UnaryOpKind::Not)
                         ? bool_type : t, result);
    }

    case BuiltinLowering::LibdeviceFn: {
      // Outputs go through slots of this function's frame; the call returns them after its own result.
      const LibdeviceSignature& sig = libdevice_signature(bi);
      std::vector<llvm::Value*> call_args;
      std::vector<llvm::AllocaInst*> slots;
      size_t input = 0, output = 0;
      for (bool is_out : sig.is_output) {
        if (!is_out) {
          call_args.push_back(operand(input++));
          continue;
        }
        llvm::AllocaInst* slot = entry_alloca(llvm_type(sig.outputs[output++]), "libdevice.out");
        slots.push_back(slot);
        call_args.push_back(b_.CreatePointerBitCastOrAddrSpaceCast(slot, b_.getPtrTy(0)));
      }
      llvm::Type* ret = sig.result.is_void() ? b_.getVoidTy() : llvm_type(sig.result);
      llvm::Value* r = m_.target().call_math(b_, bi.f64, call_args, ret);
      if (slots.empty()) return cast(r, sig.result, result);
      Type tt = libdevice_call_type(sig);
      llvm::Value* agg = llvm::PoisonValue::get(llvm_type(tt));
      unsigned i = 0;
      if (!sig.result.is_void()) agg = b_.CreateInsertValue(agg, r, {i++});
      for (size_t k = 0; k < slots.size(); ++k, ++i)
        agg = b_.CreateInsertValue(agg, b_.CreateLoad(llvm_type(sig.outputs[k]), slots[k]), {i});
      return cast(agg, tt, result);
    }

    case BuiltinLowering::Libdevice: {
      const Type& t0 = operand_type(0);
      if (!t0.is_float())
        internal(std::string("math function ") + bi.qualified_name() + " on '" + t0.str() + "'");
      const ScalarKind k = t0.scalar;
      llvm::Value* x = operand(0);
      Type own = t0;
      llvm::Value* r = nullptr;
      auto unary_intrinsic = [&](llvm::Intrinsic::ID id) { return b_.CreateUnaryIntrinsic(id, x); };
      switch (bi.id) {
        case BuiltinId::Sqrt:
          r = unary_intrinsic(llvm::Intrinsic::sqrt);
          break;
        case BuiltinId::Fabs:
          r = unary_intrinsic(llvm::Intrinsic::fabs);
          break;
        case BuiltinId::Floor:
          r = unary_intrinsic(llvm::Intrinsic::floor);
          break;
        case BuiltinId::Ceil:
          r = unary_intrinsic(llvm::Intrinsic::ceil);
          break;
        case BuiltinId::Trunc:
          r = unary_intrinsic(llvm::Intrinsic::trunc);
          break;
        case BuiltinId::Copysign:
          r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x, operand(1));
          break;
        case BuiltinId::IsNan:
          r = b_.CreateFCmpUNO(x, x);
          own = bool_type;
          break;
        case BuiltinId::IsInf:
          r = b_.CreateFCmpOEQ(unary_intrinsic(llvm::Intrinsic::fabs),
                               llvm::ConstantFP::getInfinity(x->getType()));
          own = bool_type;
          break;
        case BuiltinId::IsFinite:
          r = b_.CreateFCmpOLT(unary_intrinsic(llvm::Intrinsic::fabs),
                               llvm::ConstantFP::getInfinity(x->getType()));
          own = bool_type;
          break;
        case BuiltinId::Pow:
          r = float_pow(x, operand(1), k);
          break;
        default: {
          if (!bi.f32 || !bi.f64)
            internal(std::string("math builtin without libdevice names: ") + bi.qualified_name());
          std::vector<llvm::Value*> values{x};
          if (bi.max_args >= 2) values.push_back(operand(1));
          r = call_math(bi.f32, bi.f64, k, values);
        }
      }
      return cast(r, own, result);
    }

    case BuiltinLowering::Inline: {
      switch (bi.id) {
        case BuiltinId::LiteralUnroll:
          return cast(operand(0), operand_type(0), result);
        case BuiltinId::Len: {
          const Type& t = type_of(arg(0));
          if (const ConstValue* c = fn_.constant_of(&e)) return lower_constant(*c, result);
          if (t.is_tuple()) return cast(i64(int64_t(t.elements.size())), i64_type, result);
          if (t.is_charseq()) return cast(charseq_length(lower_expr(arg(0)), t), i64_type, result);
          if (!t.is_array() || t.ndim == 0) internal("len() of '" + t.str() + "'");
          ArrayParts a = unpack_array(lower_expr(arg(0)), t.ndim);
          return cast(a.shape[0], i64_type, result);
        }
        case BuiltinId::Min:
        case BuiltinId::Max: {
          if (args.size() == 1) return lower_python_builtin(bi, e);  // min(t) of a tuple
          // CPython keeps the first extreme: a later operand replaces it only when strictly smaller (min) or
          // larger (max).
          const CmpOpKind better = bi.id == BuiltinId::Min ? CmpOpKind::Lt : CmpOpKind::Gt;
          const Type& t = operand_type(0);
          // Two floats: C's fmin/fmax (a NaN operand loses), the min.f32/max.f64 instructions, as numba-cuda
          // lowers them (through libdevice's __nv_fmax[f]); CPython would keep a NaN first operand.
          if (args.size() == 2 && t.is_float()) {
            auto id = bi.id == BuiltinId::Min ? llvm::Intrinsic::minnum : llvm::Intrinsic::maxnum;
            return cast(b_.CreateBinaryIntrinsic(id, operand(0), operand(1)), t, result);
          }
          llvm::Value* acc = operand(0);
          for (size_t i = 1; i < args.size(); ++i) {
            llvm::Value* v = operand(i);
            acc = b_.CreateSelect(compare_op(better, v, acc, t), v, acc);
          }
          return cast(acc, t, result);
        }
        case BuiltinId::Abs: {
          if (operand_type(0).is_complex()) return lower_complex(bi, e);  // the modulus
          const Type& t = operand_type(0);
          llvm::Value* x = operand(0);
          if (t.is_float()) return cast(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), t, result);
          if (t.is_integer() || t.is_npdatetime()) {
            if (t.is_integer() && !is_signed(t.scalar)) return cast(x, t, result);
            // abs(INT_MIN) wraps to INT_MIN, as the int64 negation it is; so abs(NaT) is NaT (numba's).
            return cast(b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b_.getFalse()), t, result);
          }
          break;
        }
        case BuiltinId::Round: {
          const Type& t = operand_type(0);
          llvm::Value* x = operand(0);
          if (args.size() == 2) return cast(round_ndigits(x, operand(1)), t, result);
          if (!t.is_float()) return cast(x, t, result);
          llvm::Value* r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
          return cast(r, t, result);
        }
        case BuiltinId::Divmod:
        case BuiltinId::TupleFn:
        case BuiltinId::Sum:
          return lower_python_builtin(bi, e);
        case BuiltinId::Degrees:
        case BuiltinId::Radians: {
          const Type& t = operand_type(0);
          const double factor = bi.id == BuiltinId::Degrees ? 180.0 / M_PI : M_PI / 180.0;
          llvm::Value* x = operand(0);
          return cast(b_.CreateFMul(x, llvm::ConstantFP::get(x->getType(), factor)), t, result);
        }
        default:
          break;
      }
      break;
    }

    case BuiltinLowering::Cast:
      return lower_expr_as(arg(0), result);

    case BuiltinLowering::Constant:
      if (const ConstValue* c = fn_.constant_of(&e)) return lower_constant(*c, result);
      break;

    case BuiltinLowering::Range:
      return unsupported(e, "range() can only be the iterable of a for loop");

    default:
      break;
  }
  internal(std::string("no lowering for builtin ") + bi.qualified_name());
}

// round(x, ndigits) as CPython's fallback double_round (which numba-cuda follows): scale by 10**ndigits in
// float64 (in two steps past 1e22, so the scale cannot overflow), round half away from zero, correct an
// exact halfway case to even, scale back. Infinities, NaNs and a scaled value that overflows return x.
llvm::Value* FunctionLowering::round_ndigits(llvm::Value* x, llvm::Value* ndigits) {
  llvm::Type* xt = x->getType();
  llvm::Type* f64 = b_.getDoubleTy();
  llvm::Value* xd = xt == f64 ? x : b_.CreateFPExt(x, f64);
  auto c = [&](double v) { return llvm::ConstantFP::get(f64, v); };
  auto pow10 = [&](llvm::Value* n) {  // 10.0 ** n for an int32 n >= 0
    return m_.target().call_math(b_, "__nv_powi", {c(10.0), n}, f64);
  };
  llvm::Value* n = b_.CreateSExtOrTrunc(ndigits, b_.getInt64Ty());
  llvm::Value* n32 = b_.CreateTrunc(b_.CreateSelect(b_.CreateICmpSGT(n, b_.getInt64(400)), b_.getInt64(400),
                                                    b_.CreateSelect(b_.CreateICmpSLT(n, b_.getInt64(-400)),
                                                                    b_.getInt64(-400), n)),
                                    b_.getInt32Ty());
  llvm::Value* non_negative = b_.CreateICmpSGE(n32, b_.getInt32(0));
  llvm::Value* big = b_.CreateICmpSGT(n32, b_.getInt32(22));
  llvm::Value* pow1 = pow10(b_.CreateSelect(non_negative, b_.CreateSelect(big, b_.CreateSub(n32, b_.getInt32(22)), n32),
                                            b_.CreateNeg(n32)));
  llvm::Value* pow2 = b_.CreateSelect(big, c(1e22), c(1.0));
  llvm::Value* y = b_.CreateSelect(non_negative, b_.CreateFMul(b_.CreateFMul(xd, pow1), pow2), b_.CreateFDiv(xd, pow1));
  llvm::Value* z = b_.CreateUnaryIntrinsic(llvm::Intrinsic::round, y);
  llvm::Value* halfway =
      b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, b_.CreateFSub(y, z)), c(0.5));
  llvm::Value* even = b_.CreateFMul(c(2.0), b_.CreateUnaryIntrinsic(llvm::Intrinsic::round, b_.CreateFDiv(y, c(2.0))));
  z = b_.CreateSelect(halfway, even, z);
  z = b_.CreateSelect(non_negative, b_.CreateFDiv(b_.CreateFDiv(z, pow2), pow1), b_.CreateFMul(z, pow1));
  auto is_inf = [&](llvm::Value* v) {
    return b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), c(INFINITY));
  };
  llvm::Value* keep_x = b_.CreateOr(b_.CreateOr(is_inf(xd), b_.CreateFCmpUNO(xd, xd)),
                                    b_.CreateAnd(non_negative, is_inf(y)));
  llvm::Value* r = b_.CreateSelect(keep_x, xd, z);
  return xt == f64 ? r : b_.CreateFPTrunc(r, xt);
}

}  // namespace gpujit
