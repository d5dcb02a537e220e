// cuda.atomic.*: every operation returns the element's old value; all are relaxed (monotonic) at the
// target's atomic scope, as CUDA's atomicAdd and numba-cuda's atomics are.
//
// Most operations are one atomicrmw, which both targets turn into their own instruction (PTX atom.add,
// atom.inc, atom.cas ...) or, where the hardware has none (64-bit inc/dec on NVPTX, everything but add and
// exchange on x86), into a compare-and-swap loop of their own. Float subtraction is an atomic add of the
// negated value: the same result bit for bit (x - y == x + -y in IEEE arithmetic), and GPUs add floats
// atomically in one instruction. cas and compare_and_swap are a cmpxchg.
//
// Float max, min, nanmax and nanmin follow numba-cuda (its ___numba_atomic_*_{nan}{max,min} helpers), as a
// CAS loop written here:
//   max/min:       nothing is stored when either the value or the element is NaN: a NaN element stays;
//   nanmax/nanmin: a NaN value is ignored and a NaN element is replaced by the value.
// The loop swaps only while the element still needs replacing, so an element that is already the maximum
// costs one load. Integer nanmax/nanmin are plain max/min.
#include <llvm/IR/Constants.h>

#include "codegen/function_lowering.h"
#include "ir/builtins.h"

namespace gpujit {

namespace {

using Op = llvm::AtomicRMWInst::BinOp;

/// The atomicrmw of an operation on integers or, for add, sub and exch, on floats.
Op rmw_op(BuiltinId id, ScalarKind dtype) {
  const bool fp = is_float(dtype);
  const bool sgn = is_signed(dtype);
  switch (id) {
    case BuiltinId::AtomicAdd:
    case BuiltinId::AtomicSub:  // a float sub adds the negated value; an integer one is a sub
      return fp ? Op::FAdd : id == BuiltinId::AtomicAdd ? Op::Add : Op::Sub;
    case BuiltinId::AtomicMax:
    case BuiltinId::AtomicNanMax:
      return sgn ? Op::Max : Op::UMax;
    case BuiltinId::AtomicMin:
    case BuiltinId::AtomicNanMin:
      return sgn ? Op::Min : Op::UMin;
    case BuiltinId::AtomicExch:
      return Op::Xchg;
    case BuiltinId::AtomicAnd:
      return Op::And;
    case BuiltinId::AtomicOr:
      return Op::Or;
    case BuiltinId::AtomicXor:
      return Op::Xor;
    case BuiltinId::AtomicInc:
      return Op::UIncWrap;  // old >= val ? 0 : old + 1, CUDA's atomicInc
    case BuiltinId::AtomicDec:
      return Op::UDecWrap;  // old == 0 || old > val ? val : old - 1, CUDA's atomicDec
    default:
      throw InternalError("codegen: no atomicrmw for this atomic builtin");
  }
}

bool is_float_minmax(BuiltinId id, ScalarKind dtype) {
  return is_float(dtype) && (id == BuiltinId::AtomicMax || id == BuiltinId::AtomicMin ||
                             id == BuiltinId::AtomicNanMax || id == BuiltinId::AtomicNanMin);
}

}  // namespace

llvm::Value* FunctionLowering::lower_atomic(const BuiltinInfo& bi, const CallExpr& e,
                                            const std::vector<const Expr*>& args) {
  auto arg = [&](size_t i) -> const Expr& {
    if (i >= args.size() || !args[i]) internal(std::string("missing argument of ") + bi.qualified_name());
    return *args[i];
  };
  const Type& array_type = type_of(arg(0));
  if (!array_type.is_array()) internal("atomic operation on '" + array_type.str() + "'");
  const ScalarKind dtype = array_type.scalar;
  const Type elem = Type::scalar_of(dtype);
  const llvm::MaybeAlign align(scalar_size(dtype));
  const llvm::SyncScope::ID scope = m_.target().atomic_scope(m_.ctx());
  const auto relaxed = llvm::AtomicOrdering::Monotonic;

  // The element's address; arguments are evaluated left to right, as Python does.
  llvm::Value* ptr;
  size_t next = 2;
  if (bi.id == BuiltinId::AtomicCompareAndSwap) {
    ptr = unpack_array(lower_expr(arg(0)), array_type.ndim).data;  // element 0 of a 1-D array
    next = 1;
  } else {
    IndexResult place = index_array(lower_expr(arg(0)), array_type, arg(1), elem);
    if (!place.element_ptr) internal("atomic operation on an array slice");
    ptr = place.element_ptr;
  }

  if (bi.id == BuiltinId::AtomicCas || bi.id == BuiltinId::AtomicCompareAndSwap) {
    llvm::Value* expected = lower_expr_as(arg(next), elem);
    llvm::Value* desired = lower_expr_as(arg(next + 1), elem);
    llvm::AtomicCmpXchgInst* cas =
        b_.CreateAtomicCmpXchg(ptr, expected, desired, align, relaxed, relaxed, scope);
    return cast(b_.CreateExtractValue(cas, {0}, "old"), elem, type_of(e));
  }

  llvm::Value* val = lower_expr_as(arg(next), elem);
  if (!is_float_minmax(bi.id, dtype)) {
    if (bi.id == BuiltinId::AtomicSub && is_float(dtype)) val = b_.CreateFNeg(val);
    llvm::Value* old = b_.CreateAtomicRMW(rmw_op(bi.id, dtype), ptr, val, align, relaxed, scope);
    return cast(old, elem, type_of(e));
  }

  // Float max/min as a CAS loop on the element's bits (see the file comment for the NaN rules).
  const bool nan_aware = bi.id == BuiltinId::AtomicNanMax || bi.id == BuiltinId::AtomicNanMin;
  const bool is_max = bi.id == BuiltinId::AtomicMax || bi.id == BuiltinId::AtomicNanMax;
  llvm::Type* ft = val->getType();
  llvm::Type* it = b_.getIntNTy(ft->getPrimitiveSizeInBits());
  llvm::LoadInst* first = b_.CreateLoad(ft, ptr, "atomic.first");
  first->setAtomic(relaxed, scope);
  first->setAlignment(*align);
  llvm::Value* skip = nan_aware ? b_.CreateFCmpUNO(val, val) : b_.CreateFCmpUNO(val, first);
  llvm::BasicBlock* entry = b_.GetInsertBlock();
  llvm::BasicBlock* check = new_block("atomic.check");
  llvm::BasicBlock* attempt = new_block("atomic.attempt");
  llvm::BasicBlock* done = new_block("atomic.done");
  b_.CreateCondBr(skip, done, check);

  b_.SetInsertPoint(check);
  llvm::PHINode* current = b_.CreatePHI(ft, 2, "atomic.current");
  current->addIncoming(first, entry);
  // Replace while the element is smaller (max) or larger (min) than the value; nanmax/nanmin also replace
  // a NaN element (unordered compares are true for NaN).
  llvm::Value* replace = is_max
                             ? (nan_aware ? b_.CreateFCmpULT(current, val) : b_.CreateFCmpOLT(current, val))
                             : (nan_aware ? b_.CreateFCmpUGT(current, val) : b_.CreateFCmpOGT(current, val));
  b_.CreateCondBr(replace, attempt, done);

  b_.SetInsertPoint(attempt);
  llvm::AtomicCmpXchgInst* cas = b_.CreateAtomicCmpXchg(
      ptr, b_.CreateBitCast(current, it), b_.CreateBitCast(val, it), align, relaxed, relaxed, scope);
  llvm::Value* seen = b_.CreateBitCast(b_.CreateExtractValue(cas, {0}), ft, "atomic.seen");
  current->addIncoming(seen, attempt);
  b_.CreateCondBr(b_.CreateExtractValue(cas, {1}), done, check);

  b_.SetInsertPoint(done);
  llvm::PHINode* old = b_.CreatePHI(ft, 3, "atomic.old");
  old->addIncoming(first, entry);
  old->addIncoming(current, check);
  old->addIncoming(current, attempt);
  return cast(old, elem, type_of(e));
}

}  // namespace gpujit
