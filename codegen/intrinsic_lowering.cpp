// numba-cuda's integer and float intrinsics (cuda.popc, brev, clz, ffs, fma, cbrt, selp, nanosleep), the
// integer method i.bit_count() (popc of the receiver, as numba-cuda) and print().
//
// The intrinsics are LLVM intrinsics both targets know (ctpop, bitreverse, ctlz, cttz, fma): NVPTX selects
// popc.b32, brev.b32, clz.b32, fma.rn.f32 for them, the host its own instructions. ffs(x) is the 1-based
// index of the lowest set bit, 0 for 0, as CUDA's __ffs; cbrt calls libdevice's __nv_cbrt[f] (libm's cbrt
// on the host).
//
// print(a, b, ...) builds its whole format string at compile time, as numba-cuda does: each value is
// formatted by its type (%lld for signed integers, %llu for unsigned, %f for floats, all widened to 64 bits
// as C varargs are), string literals are written into the format itself (with '%' doubled), items are joined
// by a space and the line ends in a newline. Bools print True or False (numba-cuda has no bool printing).
// The target prints it: vprintf on the GPU, printf on the host.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/function_lowering.h"
#include "ir/builtins.h"

namespace gpujit {

namespace {

/// A NUL-terminated string constant in the target's constant memory, as a generic pointer. Equal strings
/// are unnamed_addr, so LLVM's constant merging keeps one copy of each.
llvm::Value* string_constant(llvm::IRBuilder<>& b, ModuleLowering& m, const std::string& text) {
  llvm::Constant* init = llvm::ConstantDataArray::getString(m.ctx(), text, true);
  auto* g = new llvm::GlobalVariable(m.module(), init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                     init, "gpujit.str", nullptr, llvm::GlobalValue::NotThreadLocal,
                                     m.target().constant_address_space());
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  g->setAlignment(llvm::Align(1));
  return b.CreateAddrSpaceCast(g, b.getPtrTy(0));
}

}  // namespace

llvm::Value* FunctionLowering::lower_intrinsic(const BuiltinInfo& bi, const CallExpr& e) {
  auto it = fn_.operand_types.find(&e);
  if (bi.id == BuiltinId::BitCount) {  // i.bit_count(): the receiver is the callee's base
    const auto* attr = e.func->as<AttributeExpr>();
    if (!attr || it == fn_.operand_types.end() || it->second.size() != 1)
      internal("bit_count() without a receiver");
    llvm::Value* i = lower_expr_as(*attr->value, it->second[0]);
    return cast(b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, i), it->second[0], type_of(e));
  }
  if (it == fn_.operand_types.end() || it->second.size() != e.args.size())
    internal("no operand types for " + bi.qualified_name());
  const std::vector<Type>& types = it->second;
  if (bi.id == BuiltinId::FromBuffer)  // the array's data pointer, its first field
    return b_.CreateExtractValue(lower_expr_as(*e.args[0], types[0]), {0});
  if (bi.id == BuiltinId::AssumeAligned) {
    // An llvm.assume on the data pointer: LLVM's AlignmentFromAssumptions raises the alignment of the loads
    // and stores it can prove sit at multiples of it, and the load/store vectorizer then merges neighbours.
    auto align = fn_.array_alignments.find(&e);
    if (align == fn_.array_alignments.end()) internal("assume_aligned() without its alignment");
    llvm::Value* data = b_.CreateExtractValue(lower_expr_as(*e.args[0], types[0]), {0});
    b_.CreateAlignmentAssumption(m_.module().getDataLayout(), data, align->second);
    return llvm::Constant::getNullValue(llvm_type(Type::none()));
  }
  std::vector<llvm::Value*> x;
  for (size_t i = 0; i < e.args.size(); ++i) x.push_back(lower_expr_as(*e.args[i], types[i]));
  const Type& result = type_of(e);
  using llvm::Intrinsic::ID;
  auto intrinsic = [&](ID id, std::vector<llvm::Value*> operands) {
    return b_.CreateIntrinsic(id, {operands[0]->getType()}, operands);
  };
  switch (bi.id) {
    case BuiltinId::Popc:
      return cast(intrinsic(llvm::Intrinsic::ctpop, {x[0]}), types[0], result);
    case BuiltinId::Clz:
      return cast(intrinsic(llvm::Intrinsic::ctlz, {x[0], b_.getFalse()}), types[0], result);
    case BuiltinId::Brev:
      return cast(intrinsic(llvm::Intrinsic::bitreverse, {x[0]}), types[0], result);
    case BuiltinId::Ffs: {
      llvm::Value* zero = llvm::ConstantInt::get(x[0]->getType(), 0);
      llvm::Value* index = b_.CreateAdd(intrinsic(llvm::Intrinsic::cttz, {x[0], b_.getTrue()}),
                                        llvm::ConstantInt::get(x[0]->getType(), 1));
      llvm::Value* ffs = b_.CreateSelect(b_.CreateICmpEQ(x[0], zero), zero, index);
      return cast(b_.CreateZExtOrTrunc(ffs, b_.getInt32Ty()), Type::scalar_of(ScalarKind::UInt32), result);
    }
    case BuiltinId::Fma:
      return cast(intrinsic(llvm::Intrinsic::fma, {x[0], x[1], x[2]}), types[0], result);
    case BuiltinId::Cbrt:
      if (!bi.f32 || !bi.f64) internal("cbrt without libdevice names");
      return cast(call_math(bi.f32, bi.f64, types[0].scalar, {x[0]}), types[0], result);
    case BuiltinId::Selp:
      return cast(b_.CreateSelect(x[0], x[1], x[2]), types[1], result);
    case BuiltinId::Nanosleep:
      m_.target().nanosleep(b_, x[0]);
      return llvm::Constant::getNullValue(llvm_type(Type::none()));
    default:
      break;
  }
  internal("no lowering for intrinsic " + bi.qualified_name());
}

llvm::Value* FunctionLowering::lower_print(const CallExpr& e) {
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.size() != e.args.size())
    internal("no operand types for print()");
  std::string format;
  std::vector<llvm::Value*> values;
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (i > 0) format += ' ';
    const Expr& a = *e.args[i];
    if (const ConstValue* c = fn_.constant_of(&a); c && c->kind == ConstValue::Kind::String) {
      for (char ch : c->s) format += ch == '%' ? std::string("%%") : std::string(1, ch);
      continue;
    }
    const Type& t = it->second[i];
    llvm::Value* v = lower_expr_as(a, t);
    if (t.is_vector()) {  // a Dim3: "(x, y, z)"
      format += "(";
      for (unsigned k = 0; k < t.lanes; ++k) {
        format += k ? ", %lld" : "%lld";
        values.push_back(b_.CreateSExt(b_.CreateExtractElement(v, b_.getInt32(k)), b_.getInt64Ty()));
      }
      format += ")";
      continue;
    }
    switch (t.scalar) {
      case ScalarKind::Bool:
        format += "%s";
        values.push_back(
            b_.CreateSelect(v, string_constant(b_, m_, "True"), string_constant(b_, m_, "False")));
        break;
      case ScalarKind::Int64:
        format += "%lld";
        values.push_back(v);
        break;
      case ScalarKind::UInt64:
        format += "%llu";
        values.push_back(v);
        break;
      case ScalarKind::Float64:
        format += "%f";
        values.push_back(v);
        break;
      default:
        internal("print() of a value of type " + t.str());
    }
  }
  format += '\n';
  m_.target().print(b_, string_constant(b_, m_, format), values);
  return llvm::Constant::getNullValue(llvm_type(Type::none()));
}

}  // namespace gpujit
