// NumPy's array functions in kernels (ir/ufuncs.h): ufuncs over arrays are one loop over the output's
// elements, reductions one loop (two for var and std) over the array's, run by the thread that makes the
// call, as numba-cuda compiles them.
//
// The loop's extents are the output's, cut to each input's where that input's axis is not 1: NumPy raises
// on shapes that do not broadcast, which a kernel cannot, so the loop stays inside every array instead
// (the same choice as a slice store, array_access.cpp).
#include <cmath>

#include "codegen/function_lowering.h"
#include "ir/ufuncs.h"

namespace gpujit {

llvm::Value* FunctionLowering::lower_ufunc(const UfuncCall& c) {
  const Type& out_type = type_of(*c.out);
  const unsigned nd = out_type.ndim;
  std::vector<llvm::Value*> values;
  std::vector<Type> types;
  std::vector<ArrayParts> parts;
  for (const Expr* in : c.inputs) {
    values.push_back(lower_expr(*in));
    types.push_back(type_of(*in));
    parts.push_back(types.back().is_array() ? unpack_array(values.back(), types.back().ndim) : ArrayParts{});
  }
  llvm::Value* out = lower_expr(*c.out);
  ArrayParts dst = unpack_array(out, nd);

  std::vector<llvm::Value*> extents = dst.shape;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!types[i].is_array()) continue;
    const unsigned k = types[i].ndim;
    for (unsigned j = 0; j < k; ++j) {
      llvm::Value*& extent = extents[nd - k + j];
      llvm::Value* n = parts[i].shape[j];
      llvm::Value* cut = b_.CreateSelect(b_.CreateICmpSLT(n, extent), n, extent);
      extent = b_.CreateSelect(b_.CreateICmpEQ(n, i64(1)), extent, cut);
    }
  }

  for_each_index(extents, [&](const std::vector<llvm::Value*>& idx) {
    std::vector<llvm::Value*> elements;
    std::vector<Type> element_types;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!types[i].is_array()) {
        elements.push_back(values[i]);
        element_types.push_back(types[i]);
        continue;
      }
      // An input of lower rank lines up with the output's last axes; an axis of length 1 repeats.
      const unsigned k = types[i].ndim;
      std::vector<llvm::Value*> at(k);
      for (unsigned j = 0; j < k; ++j) {
        at[j] = b_.CreateSelect(b_.CreateICmpEQ(parts[i].shape[j], i64(1)), i64(0), idx[nd - k + j]);
      }
      const Type element = types[i].element();
      elements.push_back(load_place(LValue{element_pointer(parts[i], types[i], at), element, true}));
      element_types.push_back(element);
    }
    llvm::Value* r = ufunc_element(c, elements, element_types);
    r = cast(r, Type::scalar_of(c.result), out_type.element());
    store_place(LValue{element_pointer(dst, out_type, idx), out_type.element(), true}, r);
  });
  return out;
}

llvm::Value* FunctionLowering::ufunc_element(const UfuncCall& c, const std::vector<llvm::Value*>& values,
                                             const std::vector<Type>& types) {
  const UfuncInfo& u = *c.ufunc;
  const Type operand = Type::scalar_of(c.operand);
  const Type result = Type::scalar_of(c.result);
  const Type bool_type = Type::scalar_of(ScalarKind::Bool);
  auto in = [&](size_t i) { return cast(values[i], types[i], operand); };
  auto is_nan = [&](llvm::Value* v, const Type& t) -> llvm::Value* {
    if (t.is_float()) return b_.CreateFCmpUNO(v, v);
    if (t.is_complex()) {
      llvm::Value* re = b_.CreateExtractValue(v, {0});
      llvm::Value* im = b_.CreateExtractValue(v, {1});
      return b_.CreateOr(b_.CreateFCmpUNO(re, re), b_.CreateFCmpUNO(im, im));
    }
    return b_.getFalse();
  };
  // NumPy's order of complex numbers: by real part, then imaginary part (its CLT and CLE macros).
  auto complex_less = [&](llvm::Value* x, llvm::Value* y, bool or_equal) {
    llvm::Value* xr = b_.CreateExtractValue(x, {0});
    llvm::Value* xi = b_.CreateExtractValue(x, {1});
    llvm::Value* yr = b_.CreateExtractValue(y, {0});
    llvm::Value* yi = b_.CreateExtractValue(y, {1});
    llvm::Value* parts_ordered = b_.CreateAnd(b_.CreateFCmpOEQ(xi, xi), b_.CreateFCmpOEQ(yi, yi));
    llvm::Value* by_real = b_.CreateAnd(b_.CreateFCmpOLT(xr, yr), parts_ordered);
    llvm::Value* by_imag = b_.CreateAnd(b_.CreateFCmpOEQ(xr, yr),
                                        or_equal ? b_.CreateFCmpOLE(xi, yi) : b_.CreateFCmpOLT(xi, yi));
    return b_.CreateOr(by_real, by_imag);
  };

  switch (u.kind) {
    case UfuncKind::Math: {
      if (operand.is_complex()) {
        llvm::Value* r = cmath_value(*u.complex, {in(0)}, operand, operand);
        if (std::string_view(u.name) == "log2") {
          llvm::Value* ln2 = llvm::ConstantFP::get(llvm_type(Type::scalar_of(c.operand == ScalarKind::Complex64
                                                                                 ? ScalarKind::Float32
                                                                                 : ScalarKind::Float64)),
                                                   M_LN2);
          r = b_.CreateInsertValue(r, b_.CreateFDiv(b_.CreateExtractValue(r, {0}), ln2), {0});
          r = b_.CreateInsertValue(r, b_.CreateFDiv(b_.CreateExtractValue(r, {1}), ln2), {1});
        }
        return cast(r, operand, result);
      }
      const BuiltinInfo& row = builtin_info(u.real);
      std::vector<llvm::Value*> args;
      for (size_t i = 0; i < values.size(); ++i) args.push_back(in(i));
      return cast(call_math(row.f32, row.f64, c.operand, args), operand, result);
    }
    case UfuncKind::Angle: {
      double factor = u.op == 0 ? M_PI / 180.0 : 180.0 / M_PI;
      llvm::Value* r = b_.CreateFMul(in(0), llvm::ConstantFP::get(llvm_type(operand), factor));
      return cast(r, operand, result);
    }
    case UfuncKind::Arithmetic: {
      auto op = static_cast<BinOpKind>(u.op);
      if (operand.is_bool()) {
        // NumPy's bool loops: add is or, multiply is and.
        return op == BinOpKind::Add ? b_.CreateOr(in(0), in(1)) : b_.CreateAnd(in(0), in(1));
      }
      return binary_op(op, in(0), in(1), operand);
    }
    case UfuncKind::Negate:
      return unary_op(static_cast<UnaryOpKind>(u.op), in(0), operand);
    case UfuncKind::Absolute: {
      if (operand.is_complex()) return cmath_value(BuiltinId::Abs, {in(0)}, operand, result);
      llvm::Value* x = in(0);
      if (operand.is_float()) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      if (operand.is_bool() || !is_signed(c.operand)) return x;
      return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::Constant::getNullValue(x->getType())), b_.CreateNeg(x), x);
    }
    case UfuncKind::Compare: {
      auto op = static_cast<CmpOpKind>(u.op);
      if (c.mixed_sign_compare) {
        // A signed and an unsigned integer, exactly: a negative value is below every unsigned one; otherwise
        // the 64-bit patterns compare as unsigned numbers.
        std::vector<llvm::Value*> bits, negative;
        for (size_t i = 0; i < 2; ++i) {
          bool s = is_signed(types[i].scalar);
          llvm::Value* v = cast(values[i], types[i], Type::scalar_of(s ? ScalarKind::Int64 : ScalarKind::UInt64));
          bits.push_back(v);
          negative.push_back(s ? b_.CreateICmpSLT(v, i64(0)) : b_.getFalse());
        }
        auto less = [&](size_t x, size_t y) {
          return b_.CreateOr(b_.CreateAnd(negative[x], b_.CreateNot(negative[y])),
                             b_.CreateAnd(b_.CreateICmpEQ(negative[x], negative[y]),
                                          b_.CreateICmpULT(bits[x], bits[y])));
        };
        llvm::Value* eq = b_.CreateAnd(b_.CreateICmpEQ(negative[0], negative[1]), b_.CreateICmpEQ(bits[0], bits[1]));
        switch (op) {
          case CmpOpKind::Eq: return eq;
          case CmpOpKind::NotEq: return b_.CreateNot(eq);
          case CmpOpKind::Lt: return less(0, 1);
          case CmpOpKind::Gt: return less(1, 0);
          case CmpOpKind::LtE: return b_.CreateNot(less(1, 0));
          case CmpOpKind::GtE: return b_.CreateNot(less(0, 1));
          default: break;
        }
        internal("ufunc comparison without an order");
      }
      if (operand.is_complex() && op != CmpOpKind::Eq && op != CmpOpKind::NotEq) {
        llvm::Value* x = in(0);
        llvm::Value* y = in(1);
        switch (op) {
          case CmpOpKind::Lt: return complex_less(x, y, false);
          case CmpOpKind::LtE: return complex_less(x, y, true);
          case CmpOpKind::Gt: return complex_less(y, x, false);
          case CmpOpKind::GtE: return complex_less(y, x, true);
          default: break;
        }
        internal("ufunc comparison without an order");
      }
      return cast(compare_op(op, in(0), in(1), operand), bool_type, result);
    }
    case UfuncKind::Logical: {
      llvm::Value* x = truthy(values[0], types[0]);
      llvm::Value* y = truthy(values[1], types[1]);
      switch (static_cast<BinOpKind>(u.op)) {
        case BinOpKind::BitAnd: return b_.CreateAnd(x, y);
        case BinOpKind::BitOr: return b_.CreateOr(x, y);
        default: return b_.CreateXor(x, y);
      }
    }
    case UfuncKind::LogicalNot:
      return b_.CreateNot(truthy(values[0], types[0]));
    case UfuncKind::Predicate: {
      const Type& t = types[0];
      if (!t.is_float() && !t.is_complex()) return b_.getInt1(u.op == 2);  // an integer is finite, never NaN
      auto classify = [&](llvm::Value* x) -> llvm::Value* {
        llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
        llvm::Value* mag = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
        if (u.op == 0) return b_.CreateFCmpUNO(x, x);
        if (u.op == 1) return b_.CreateFCmpOEQ(mag, inf);
        return b_.CreateFCmpOLT(mag, inf);
      };
      if (t.is_float()) return classify(values[0]);
      llvm::Value* re = classify(b_.CreateExtractValue(values[0], {0}));
      llvm::Value* im = classify(b_.CreateExtractValue(values[0], {1}));
      return u.op == 2 ? b_.CreateAnd(re, im) : b_.CreateOr(re, im);
    }
    case UfuncKind::Bitwise:
      return binary_op(static_cast<BinOpKind>(u.op), in(0), in(1), operand);
    case UfuncKind::Invert:
      if (operand.is_bool()) return b_.CreateNot(in(0));
      return unary_op(UnaryOpKind::Invert, in(0), operand);
    case UfuncKind::Extremum: {
      // maximum and minimum return a NaN operand; fmax and fmin the other one (NumPy's loops).
      auto e = static_cast<Extremum>(u.op);
      bool want_max = e == Extremum::Maximum || e == Extremum::Fmax;
      bool nan_wins = e == Extremum::Maximum || e == Extremum::Minimum;
      llvm::Value* x = in(0);
      llvm::Value* y = in(1);
      llvm::Value* keep_x;
      if (operand.is_complex()) {
        keep_x = want_max ? complex_less(y, x, true) : complex_less(x, y, true);
      } else {
        CmpOpKind op = want_max ? CmpOpKind::GtE : CmpOpKind::LtE;
        keep_x = compare_op(op, x, y, operand);
      }
      keep_x = b_.CreateOr(keep_x, nan_wins ? is_nan(x, operand) : is_nan(y, operand));
      return b_.CreateSelect(keep_x, x, y);
    }
  }
  internal(std::string("no lowering for ufunc np.") + u.name);
}

llvm::Value* FunctionLowering::lower_reduction(const ReductionCall& c) {
  const ArrayReduction& r = *c.reduction;
  const Type& array_type = type_of(*c.array);
  const Type element = array_type.element();
  const Type acc = Type::scalar_of(c.accumulate);
  const Type i64_type = Type::scalar_of(ScalarKind::Int64);
  ArrayParts a = unpack_array(lower_expr(*c.array), array_type.ndim);
  // Runs `body` on every element, converted to the accumulating type.
  auto each = [&](const std::function<void(llvm::Value*)>& body) {
    for_each_index(a.shape, [&](const std::vector<llvm::Value*>& idx) {
      llvm::Value* x = load_place(LValue{element_pointer(a, array_type, idx), element, true});
      body(cast(x, element, acc));
    });
  };
  auto slot = [&](const Type& t, llvm::Value* init, const char* name) {
    llvm::AllocaInst* s = entry_alloca(llvm_type(t), name);
    b_.CreateStore(init, s);
    return s;
  };
  auto load = [&](llvm::AllocaInst* s, const Type& t) { return b_.CreateLoad(llvm_type(t), s); };
  auto is_nan = [&](llvm::Value* v) -> llvm::Value* {
    if (acc.is_float()) return b_.CreateFCmpUNO(v, v);
    if (acc.is_complex()) {
      llvm::Value* re = b_.CreateExtractValue(v, {0});
      llvm::Value* im = b_.CreateExtractValue(v, {1});
      return b_.CreateOr(b_.CreateFCmpUNO(re, re), b_.CreateFCmpUNO(im, im));
    }
    return b_.getFalse();
  };
  auto constant = [&](double v) { return cast(llvm::ConstantFP::get(b_.getDoubleTy(), v), Type::scalar_of(ScalarKind::Float64), acc); };
  const bool skip = r.skip_nan && (acc.is_float() || acc.is_complex());

  // The sum of the elements (those not NaN for the nan* functions) and how many there were.
  auto sum_and_count = [&]() {
    llvm::AllocaInst* sum = slot(acc, cast(b_.getInt64(0), i64_type, acc), "reduce.sum");
    llvm::AllocaInst* count = slot(i64_type, i64(0), "reduce.count");
    each([&](llvm::Value* x) {
      llvm::Value* keep = skip ? b_.CreateNot(is_nan(x)) : b_.getTrue();
      llvm::Value* s = load(sum, acc);
      b_.CreateStore(b_.CreateSelect(keep, binary_op(BinOpKind::Add, s, x, acc), s), sum);
      llvm::Value* n = load(count, i64_type);
      b_.CreateStore(b_.CreateAdd(n, b_.CreateZExt(keep, b_.getInt64Ty())), count);
    });
    return std::make_pair(load(sum, acc), load(count, i64_type));
  };
  auto mean = [&]() {
    auto [sum, count] = sum_and_count();
    return std::make_pair(binary_op(BinOpKind::Div, sum, cast(count, i64_type, acc), acc), count);
  };

  switch (r.kind) {
    case ReductionKind::Sum:
      return sum_and_count().first;
    case ReductionKind::Prod: {
      llvm::AllocaInst* prod = slot(acc, cast(b_.getInt64(1), i64_type, acc), "reduce.prod");
      each([&](llvm::Value* x) {
        llvm::Value* p = load(prod, acc);
        llvm::Value* next = binary_op(BinOpKind::Mul, p, x, acc);
        b_.CreateStore(skip ? b_.CreateSelect(is_nan(x), p, next) : next, prod);
      });
      return load(prod, acc);
    }
    case ReductionKind::Mean:
      return mean().first;
    case ReductionKind::Var:
    case ReductionKind::Std: {
      // numba's two passes: the mean, then the mean of |x - mean|^2.
      const Type real = Type::scalar_of(c.result);
      llvm::Value* m = mean().first;
      llvm::AllocaInst* ssd = slot(real, cast(b_.getInt64(0), i64_type, real), "reduce.ssd");
      llvm::AllocaInst* count = slot(i64_type, i64(0), "reduce.count");
      each([&](llvm::Value* x) {
        llvm::Value* keep = skip ? b_.CreateNot(is_nan(x)) : b_.getTrue();
        llvm::Value* d = binary_op(BinOpKind::Sub, x, m, acc);
        llvm::Value* sq;
        if (acc.is_complex()) {
          llvm::Value* re = b_.CreateExtractValue(d, {0});
          llvm::Value* im = b_.CreateExtractValue(d, {1});
          sq = b_.CreateFAdd(b_.CreateFMul(re, re), b_.CreateFMul(im, im));
        } else {
          sq = b_.CreateFMul(d, d);
        }
        llvm::Value* s = load(ssd, real);
        b_.CreateStore(b_.CreateSelect(keep, b_.CreateFAdd(s, sq), s), ssd);
        llvm::Value* n = load(count, i64_type);
        b_.CreateStore(b_.CreateAdd(n, b_.CreateZExt(keep, b_.getInt64Ty())), count);
      });
      llvm::Value* var = b_.CreateFDiv(load(ssd, real), cast(load(count, i64_type), i64_type, real));
      if (r.kind == ReductionKind::Var) return var;
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, var);
    }
    case ReductionKind::Min:
    case ReductionKind::Max: {
      // From the identity (+-inf, or the integer type's extreme); a NaN element makes the result NaN and
      // keeps it so, unless the nan* variant skips it. nanmin/nanmax of only NaNs is NaN.
      const bool is_min = r.kind == ReductionKind::Min;
      llvm::Value* init;
      llvm::Type* ty = llvm_type(acc);
      if (acc.is_float()) {
        init = llvm::ConstantFP::getInfinity(ty, !is_min);
      } else if (acc.is_bool()) {
        init = b_.getInt1(is_min);
      } else {
        unsigned bits = ty->getIntegerBitWidth();
        bool s = is_signed(c.accumulate);
        llvm::APInt v = is_min ? (s ? llvm::APInt::getSignedMaxValue(bits) : llvm::APInt::getMaxValue(bits))
                               : (s ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getMinValue(bits));
        init = llvm::ConstantInt::get(ty, v);
      }
      llvm::AllocaInst* best = slot(acc, init, "reduce.best");
      llvm::AllocaInst* seen = slot(Type::scalar_of(ScalarKind::Bool), b_.getFalse(), "reduce.seen");
      each([&](llvm::Value* x) {
        llvm::Value* cur = load(best, acc);
        llvm::Value* take = compare_op(is_min ? CmpOpKind::Lt : CmpOpKind::Gt, x, cur, acc);
        if (!skip) take = b_.CreateOr(take, is_nan(x));
        b_.CreateStore(b_.CreateSelect(take, x, cur), best);
        b_.CreateStore(b_.CreateOr(load(seen, Type::scalar_of(ScalarKind::Bool)), b_.CreateNot(is_nan(x))), seen);
      });
      llvm::Value* result = load(best, acc);
      if (skip) result = b_.CreateSelect(load(seen, Type::scalar_of(ScalarKind::Bool)), result, constant(NAN));
      return result;
    }
    case ReductionKind::All:
    case ReductionKind::Any: {
      const bool all = r.kind == ReductionKind::All;
      llvm::AllocaInst* flag = slot(Type::scalar_of(ScalarKind::Bool), b_.getInt1(all), "reduce.flag");
      each([&](llvm::Value* x) {
        llvm::Value* f = load(flag, Type::scalar_of(ScalarKind::Bool));
        llvm::Value* t = truthy(x, acc);
        b_.CreateStore(all ? b_.CreateAnd(f, t) : b_.CreateOr(f, t), flag);
      });
      return load(flag, Type::scalar_of(ScalarKind::Bool));
    }
    case ReductionKind::CountNonzero: {
      llvm::AllocaInst* count = slot(i64_type, i64(0), "reduce.count");
      each([&](llvm::Value* x) {
        llvm::Value* n = load(count, i64_type);
        b_.CreateStore(b_.CreateAdd(n, b_.CreateZExt(truthy(x, acc), b_.getInt64Ty())), count);
      });
      return load(count, i64_type);
    }
  }
  internal(std::string("no lowering for np.") + r.name);
}

}  // namespace gpujit
