// Statements and control flow.
//
// Each compound statement builds its blocks in source order. Statements after a `return`, `break` or
// `continue` in the same block are unreachable and are not lowered. Loops keep their break and continue
// targets on a stack; a loop's `else` block runs when the loop ends without `break`, as in Python.
//
// `for i in range(start, stop, step)` keeps a hidden counter apart from the user's variable, so assigning
// to `i` inside the body does not change the iteration, and the variable keeps its last value after the
// loop. The counter is compared with `<` for a positive step and `>` for a negative one; when the step's
// sign is only known at run time both tests are combined, and a zero step runs no iteration (Python raises
// ValueError). The increment is `nsw` for signed counters, as clang's `for` loops are: the counter stays
// below `stop` before each step, so it can only overflow when `stop` lies within one step of the type's
// limit.
//
// With line information on (lineinfo=True: the function has a DISubprogram), every instruction a statement
// emits carries the statement's line and column, and code a compound statement emits after its body (a
// loop's step, its branch back) carries the compound statement's own.
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>

#include "codegen/function_lowering.h"
#include "ir/sema.h"

namespace gpujit {

bool is_range_call(const FunctionLowering& fl, const Expr& e);  // builtin_lowering.cpp

void FunctionLowering::lower_block(const Block& block) {
  for (const StmtPtr& s : block) {
    if (block_terminated()) return;
    lower_stmt(*s);
  }
}

namespace {

/// Gives the instructions of one statement its line and column (line information on: the function has a
/// DISubprogram), and the enclosing statement's location back afterwards, which is where the code a compound
/// statement emits after its body (a loop's step and back edge) belongs.
class StatementLocation {
 public:
  StatementLocation(llvm::IRBuilder<>& b, llvm::Function& fn, const Stmt& s)
      : b_(b), outer_(b.getCurrentDebugLocation()) {
    if (llvm::DISubprogram* sp = fn.getSubprogram()) {
      b_.SetCurrentDebugLocation(
          llvm::DILocation::get(fn.getContext(), s.range.begin.line, s.range.begin.col, sp));
    }
  }
  ~StatementLocation() { b_.SetCurrentDebugLocation(outer_); }
  StatementLocation(const StatementLocation&) = delete;
  StatementLocation& operator=(const StatementLocation&) = delete;

 private:
  llvm::IRBuilder<>& b_;
  llvm::DebugLoc outer_;
};

}  // namespace

void FunctionLowering::lower_stmt(const Stmt& s) {
  StatementLocation location(b_, *llvm_fn_, s);
  switch (s.kind) {
    case StmtKind::Expr: {
      const Expr& value = *static_cast<const ExprStmt&>(s).value;
      if (value.kind == ExprKind::StringLit) return;  // a docstring or a bare string: no effect
      lower_expr(value);
      return;
    }
    case StmtKind::Assign:
      return lower_assign(static_cast<const AssignStmt&>(s));
    case StmtKind::AugAssign:
      return lower_aug_assign(static_cast<const AugAssignStmt&>(s));
    case StmtKind::If:
      return lower_if(static_cast<const IfStmt&>(s));
    case StmtKind::For:
      return lower_for(static_cast<const ForStmt&>(s));
    case StmtKind::While:
      return lower_while(static_cast<const WhileStmt&>(s));
    case StmtKind::Break:
      if (loops_.empty()) internal("break outside a loop");
      b_.CreateBr(loops_.back().break_to);
      return;
    case StmtKind::Continue:
      if (loops_.empty()) internal("continue outside a loop");
      b_.CreateBr(loops_.back().continue_to);
      return;
    case StmtKind::Return:
      return lower_return(static_cast<const ReturnStmt&>(s));
    case StmtKind::Raise:
      return lower_raise(static_cast<const RaiseStmt&>(s));
    case StmtKind::Pass:
      return;
  }
  internal("unknown statement kind");
}

void FunctionLowering::lower_assign(const AssignStmt& s) {
  // The value is computed once, before any target is stored: `a, b = b, a` swaps, `x = y = f()` calls once.
  llvm::Value* value = lower_expr(*s.value);
  const Type& from = type_of(*s.value);
  for (const ExprPtr& target : s.targets) assign_to(*target, value, from);
}

void FunctionLowering::assign_to(const Expr& target, llvm::Value* value, const Type& from) {
  switch (target.kind) {
    case ExprKind::Name: {
      const auto& name = static_cast<const NameExpr&>(target).id;
      auto it = fn_.locals.find(name);
      if (it == fn_.locals.end()) internal("assignment to '" + name + "', which has no local type");
      b_.CreateStore(cast(value, from, it->second), local_slot(name));
      return;
    }
    case ExprKind::Attribute: {
      const auto& a = static_cast<const AttributeExpr&>(target);
      store_field(*a.value, a.attr, value, from);
      return;
    }
    case ExprKind::Subscript: {
      const auto& sub = static_cast<const SubscriptExpr&>(target);
      if (type_of(*sub.value).is_record()) {
        store_field(*sub.value, field_name(sub), value, from);
        return;
      }
      if (type_of(target).is_array()) {
        store_to_view(static_cast<const SubscriptExpr&>(target), value, from);
        return;
      }
      LValue lv = subscript_lvalue(static_cast<const SubscriptExpr&>(target));
      store_place(lv, cast(value, from, lv.type));
      return;
    }
    case ExprKind::Tuple: {
      const auto& elts = static_cast<const TupleExpr&>(target).elts;
      if (!from.is_tuple() || from.elements.size() != elts.size())
        internal("unpacking '" + from.str() + "' into " + std::to_string(elts.size()) + " targets");
      for (unsigned i = 0; i < elts.size(); ++i)
        assign_to(*elts[i], b_.CreateExtractValue(value, {i}), from.elements[i]);
      return;
    }
    default:
      unsupported(target,
                  "cannot assign to this expression; assign to a variable, an array element or a tuple");
  }
}

void FunctionLowering::lower_aug_assign(const AugAssignStmt& s) {
  auto it = fn_.stmt_operand_types.find(&s);
  if (it == fn_.stmt_operand_types.end()) internal("augmented assignment without an operand type");
  const Type& op_type = it->second;
  // Python order: the target's place (and its current value), then the right-hand side.
  LValue lv;
  if (auto* name = s.target->as<NameExpr>()) {
    auto local = fn_.locals.find(name->id);
    if (local == fn_.locals.end())
      internal("augmented assignment to '" + name->id + "' without a local type");
    lv = LValue{local_slot(name->id), local->second, false};
  } else if (auto* sub = s.target->as<SubscriptExpr>(); sub && type_of(*sub->value).is_record()) {
    lv = field_lvalue(*sub->value, field_name(*sub));
  } else if (auto* sub = s.target->as<SubscriptExpr>()) {
    lv = subscript_lvalue(*sub);
  } else if (auto* attr = s.target->as<AttributeExpr>()) {
    lv = field_lvalue(*attr->value, attr->attr);
  } else {
    unsupported(*s.target, "cannot use this expression as the target of an augmented assignment");
    return;
  }
  llvm::Value* current = load_place(lv);
  llvm::Value* lhs = cast(current, lv.type, op_type);
  if (auto mixed = fn_.stmt_mixed_operands.find(&s); mixed != fn_.stmt_mixed_operands.end()) {
    // datetime64 or timedelta64 (ir/datetime_rules.h): the right operand has a type of its own.
    const TypedFunction::MixedOperands& m = mixed->second;
    llvm::Value* r = datetime_binary(s.op, lhs, lower_expr_as(*s.value, m.rhs), op_type, m.rhs, m.result);
    store_place(lv, cast(r, m.result, lv.type));
    return;
  }
  llvm::Value* rhs = lower_expr_as(*s.value, op_type);
  check_division(s.op, rhs, op_type, s.range);
  store_place(lv, cast(binary_op(s.op, lhs, rhs, op_type), op_type, lv.type));
}

void FunctionLowering::lower_if(const IfStmt& s) {
  if (std::optional<bool> taken = static_branch(fn_, s)) {  // the dead block was never typed
    lower_block(*taken ? s.body : s.orelse);
    return;
  }
  llvm::Value* cond = truthy(lower_expr(*s.test), type_of(*s.test));
  llvm::BasicBlock* then_bb = new_block("if.then");
  llvm::BasicBlock* else_bb = s.orelse.empty() ? nullptr : new_block("if.else");
  llvm::BasicBlock* end_bb = new_block("if.end");
  b_.CreateCondBr(cond, then_bb, else_bb ? else_bb : end_bb);
  b_.SetInsertPoint(then_bb);
  lower_block(s.body);
  if (!block_terminated()) b_.CreateBr(end_bb);
  if (else_bb) {
    b_.SetInsertPoint(else_bb);
    lower_block(s.orelse);
    if (!block_terminated()) b_.CreateBr(end_bb);
  }
  b_.SetInsertPoint(end_bb);
}

void FunctionLowering::lower_for(const ForStmt& s) {
  if (auto* call = s.iter->as<CallExpr>(); call && is_range_call(*this, *call->func)) {
    lower_for_range(s, *call);
    return;
  }
  unsupported(*s.iter, "a for loop must iterate over range(...)");
}

void FunctionLowering::lower_for_range(const ForStmt& s, const CallExpr& range) {
  const auto* target = s.target->as<NameExpr>();
  if (!target) {
    unsupported(*s.target, "the target of a for loop over range() must be a single variable");
    return;
  }
  auto local = fn_.locals.find(target->id);
  if (local == fn_.locals.end() || !local->second.is_integer())
    internal("loop variable '" + target->id + "' has no integer type");
  const Type& t = local->second;
  const bool is_signed = gpujit::is_signed(t.scalar);
  llvm::Type* lt = llvm_type(t);

  const auto& args = range.args;
  if (args.empty() || args.size() > 3) internal("range() with " + std::to_string(args.size()) + " arguments");
  llvm::Value* start = args.size() == 1 ? llvm::ConstantInt::get(lt, 0) : lower_expr_as(*args[0], t);
  llvm::Value* stop = lower_expr_as(*args[args.size() == 1 ? 0 : 1], t);
  llvm::Value* step = args.size() == 3 ? lower_expr_as(*args[2], t) : llvm::ConstantInt::get(lt, 1);

  llvm::AllocaInst* counter = entry_alloca(lt, "range." + target->id);
  b_.CreateStore(start, counter);
  llvm::BasicBlock* cond_bb = new_block("for.cond");
  llvm::BasicBlock* body_bb = new_block("for.body");
  llvm::BasicBlock* inc_bb = new_block("for.inc");
  llvm::BasicBlock* else_bb = s.orelse.empty() ? nullptr : new_block("for.else");
  llvm::BasicBlock* end_bb = new_block("for.end");
  b_.CreateBr(cond_bb);

  b_.SetInsertPoint(cond_bb);
  llvm::Value* i = b_.CreateLoad(lt, counter);
  auto below = [&] { return is_signed ? b_.CreateICmpSLT(i, stop) : b_.CreateICmpULT(i, stop); };
  auto above = [&] { return is_signed ? b_.CreateICmpSGT(i, stop) : b_.CreateICmpUGT(i, stop); };
  llvm::Value* more;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(step); c && !c->isZero()) {
    more = (is_signed && c->isNegative()) ? above() : below();
  } else if (is_signed) {
    llvm::Value* zero = llvm::ConstantInt::get(lt, 0);
    more = b_.CreateOr(b_.CreateAnd(b_.CreateICmpSGT(step, zero), below()),
                       b_.CreateAnd(b_.CreateICmpSLT(step, zero), above()));
  } else {
    more = b_.CreateAnd(b_.CreateICmpNE(step, llvm::ConstantInt::get(lt, 0)), below());
  }
  b_.CreateCondBr(more, body_bb, else_bb ? else_bb : end_bb);

  b_.SetInsertPoint(body_bb);
  b_.CreateStore(i, local_slot(target->id));
  loops_.push_back({end_bb, inc_bb});
  lower_block(s.body);
  loops_.pop_back();
  if (!block_terminated()) b_.CreateBr(inc_bb);

  b_.SetInsertPoint(inc_bb);
  llvm::Value* current = b_.CreateLoad(lt, counter);
  b_.CreateStore(b_.CreateAdd(current, step, "", /*HasNUW=*/false, /*HasNSW=*/is_signed), counter);
  b_.CreateBr(cond_bb);

  if (else_bb) {
    b_.SetInsertPoint(else_bb);
    lower_block(s.orelse);
    if (!block_terminated()) b_.CreateBr(end_bb);
  }
  b_.SetInsertPoint(end_bb);
}

void FunctionLowering::lower_while(const WhileStmt& s) {
  llvm::BasicBlock* cond_bb = new_block("while.cond");
  llvm::BasicBlock* body_bb = new_block("while.body");
  llvm::BasicBlock* else_bb = s.orelse.empty() ? nullptr : new_block("while.else");
  llvm::BasicBlock* end_bb = new_block("while.end");
  b_.CreateBr(cond_bb);

  b_.SetInsertPoint(cond_bb);
  llvm::Value* cond = truthy(lower_expr(*s.test), type_of(*s.test));
  b_.CreateCondBr(cond, body_bb, else_bb ? else_bb : end_bb);

  b_.SetInsertPoint(body_bb);
  loops_.push_back({end_bb, cond_bb});
  lower_block(s.body);
  loops_.pop_back();
  if (!block_terminated()) b_.CreateBr(cond_bb);

  if (else_bb) {
    b_.SetInsertPoint(else_bb);
    lower_block(s.orelse);
    if (!block_terminated()) b_.CreateBr(end_bb);
  }
  b_.SetInsertPoint(end_bb);
}

void FunctionLowering::lower_return(const ReturnStmt& s) {
  llvm::Type* ret = llvm_fn_->getReturnType();
  if (ret->isVoidTy()) {
    if (s.value) lower_expr(*s.value);  // `return None` or a call whose value is dropped
    b_.CreateRetVoid();
    return;
  }
  if (!s.value || type_of(*s.value).is_void()) {  // a bare return, or `return f()` of a void f
    if (s.value) lower_expr(*s.value);
    b_.CreateRet(llvm::Constant::getNullValue(ret));
    return;
  }
  b_.CreateRet(lower_expr_as(*s.value, fn_.signature.ret));
}

}  // namespace gpujit
