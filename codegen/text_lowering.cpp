// Fixed-width strings (ir/charseq.h) and the comparisons of Enum members (ir/enum_type.h) in lowered code.
//
// A CharSeq value is an LLVM array of its code units, [n x i8] for bytes and [n x i32] for str, loaded and
// stored whole (codegen/array_access.cpp). The operations that look at its units go through a stack copy
// and a loop over it, so their code does not grow with the string's length; SROA and the loop passes undo
// the copy for short strings. An Enum member is its value: comparing two members of one class compares their
// values (compare_op), and a comparison of two classes is decided by analysis (compare_values). `x in t` over
// a tuple t is lowered here too, as the or of x == each element.
#include <algorithm>

#include <llvm/IR/Constants.h>

#include "codegen/function_lowering.h"
#include "ir/charseq.h"
#include "ir/enum_type.h"
#include "ir/type_rules.h"

namespace gpujit {

llvm::Constant* charseq_constant(llvm::LLVMContext& ctx, const ConstValue& c) {
  std::vector<uint32_t> units = code_units(c);
  if (c.is_bytes()) {
    std::vector<uint8_t> bytes(units.begin(), units.end());
    return llvm::ConstantDataArray::get(ctx, bytes);
  }
  return llvm::ConstantDataArray::get(ctx, units);
}

llvm::Value* FunctionLowering::charseq_cast(llvm::Value* v, const Type& from, const Type& to) {
  if (from.scalar != to.scalar) internal("no conversion from '" + from.str() + "' to '" + to.str() + "'");
  if (from.length == to.length) return v;
  const uint64_t unit = scalar_size(to.scalar);
  llvm::AllocaInst* src = entry_alloca(llvm_type(from), "str.src");
  llvm::AllocaInst* dst = entry_alloca(llvm_type(to), "str.dst");
  b_.CreateStore(v, src);
  b_.CreateStore(llvm::Constant::getNullValue(llvm_type(to)), dst);  // the padding: NULs
  b_.CreateMemCpy(dst, llvm::MaybeAlign(unit), src, llvm::MaybeAlign(unit),
                  uint64_t(std::min(from.length, to.length)) * unit);
  return b_.CreateLoad(llvm_type(to), dst);
}

llvm::Value* FunctionLowering::charseq_compare(CmpOpKind op, llvm::Value* a, llvm::Value* b, const Type& t) {
  if (op != CmpOpKind::Eq && op != CmpOpKind::NotEq)
    internal("string comparison " + std::string(to_string(op)));
  llvm::Type* unit = llvm_type(Type::scalar_of(t.scalar));
  llvm::AllocaInst* pa = entry_alloca(llvm_type(t), "str.a");
  llvm::AllocaInst* pb = entry_alloca(llvm_type(t), "str.b");
  b_.CreateStore(a, pa);
  b_.CreateStore(b, pb);
  // Equal padded to one length is NumPy's equality (trailing NULs ignored): the first unit that differs
  // decides.
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* head = new_block("streq.head");
  llvm::BasicBlock* body = new_block("streq.body");
  llvm::BasicBlock* done = new_block("streq.done");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "streq.i");
  i->addIncoming(i64(0), pre);
  llvm::Value* more = b_.CreateICmpULT(i, i64(int64_t(t.length)));
  b_.CreateCondBr(more, body, done);
  b_.SetInsertPoint(body);
  llvm::Value* x = b_.CreateLoad(unit, b_.CreateInBoundsGEP(unit, pa, i));
  llvm::Value* y = b_.CreateLoad(unit, b_.CreateInBoundsGEP(unit, pb, i));
  llvm::Value* same = b_.CreateICmpEQ(x, y);
  i->addIncoming(b_.CreateAdd(i, i64(1), "", true, true), body);
  b_.CreateCondBr(same, head, done);
  b_.SetInsertPoint(done);
  llvm::PHINode* equal = b_.CreatePHI(b_.getInt1Ty(), 2, "streq");
  equal->addIncoming(b_.getTrue(), head);   // every unit compared equal
  equal->addIncoming(b_.getFalse(), body);  // one differed
  return op == CmpOpKind::Eq ? static_cast<llvm::Value*>(equal) : b_.CreateNot(equal);
}

llvm::Value* FunctionLowering::charseq_length(llvm::Value* v, const Type& t) {
  llvm::Type* unit = llvm_type(Type::scalar_of(t.scalar));
  llvm::AllocaInst* p = entry_alloca(llvm_type(t), "str.len");
  b_.CreateStore(v, p);
  // From the end: the length is one past the last unit that is not NUL.
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* head = new_block("strlen.head");
  llvm::BasicBlock* body = new_block("strlen.body");
  llvm::BasicBlock* done = new_block("strlen.done");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode* n = b_.CreatePHI(b_.getInt64Ty(), 2, "strlen.n");
  n->addIncoming(i64(int64_t(t.length)), pre);
  b_.CreateCondBr(b_.CreateICmpSGT(n, i64(0)), body, done);
  b_.SetInsertPoint(body);
  llvm::Value* last = b_.CreateSub(n, i64(1), "", true, true);
  llvm::Value* c = b_.CreateLoad(unit, b_.CreateInBoundsGEP(unit, p, last));
  n->addIncoming(last, body);
  b_.CreateCondBr(b_.CreateICmpEQ(c, llvm::ConstantInt::get(unit, 0)), head, done);
  b_.SetInsertPoint(done);
  llvm::PHINode* length = b_.CreatePHI(b_.getInt64Ty(), 2, "strlen");
  length->addIncoming(i64(0), head);  // all NULs
  length->addIncoming(n, body);       // the unit before n is not NUL
  return length;
}

llvm::Value* FunctionLowering::compare_values(CmpOpKind op, llvm::Value* lhs, const Type& lhs_type,
                                              llvm::Value* rhs, const Type& rhs_type, const Type& operand) {
  if (operand.is_void()) return b_.getInt1(op == CmpOpKind::NotEq || op == CmpOpKind::IsNot);
  if (op == CmpOpKind::In || op == CmpOpKind::NotIn) {
    // `x in t`, t a tuple (ir/type_rules.cpp, type_contains): x == t[0] or x == t[1] ..., each pair converted
    // by its own '==' rule. The elements are values already computed, so no short circuit is needed.
    llvm::Value* found = b_.getFalse();
    for (unsigned i = 0; i < rhs_type.elements.size(); ++i) {
      const Type& element = rhs_type.elements[i];
      OpTyping eq = type_compare(CmpOpKind::Eq, Operand{lhs_type}, Operand{element});
      if (!eq.ok()) internal("'in' over a tuple element that does not compare: " + eq.error);
      llvm::Value* item = b_.CreateExtractValue(rhs, {i});
      found = b_.CreateOr(found, compare_values(CmpOpKind::Eq, lhs, lhs_type, item, element, eq.operand));
    }
    return op == CmpOpKind::In ? found : b_.CreateNot(found);
  }
  return compare_op(op, cast(lhs, lhs_type, operand), cast(rhs, rhs_type, operand), operand);
}

}  // namespace gpujit
