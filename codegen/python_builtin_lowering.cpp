// The Python builtins numba implements over tuples, and divmod (ir/sema_python.cpp types them): each is a few
// operations codegen writes itself, in the types analysis recorded.
//
// - divmod(a, b) is the tuple (a // b, a % b) of the same operands (LLVM shares their division); under
//   debug=True a zero divisor raises ZeroDivisionError as // does.
// - sum(t, start) adds left to right, acc = acc + t[k], each addition in its own operand type and the
//   accumulator kept in the sum's type, as numba's loop does. sum(a) of an array is a reduction loop
//   (ufunc_lowering.cpp) and never comes here.
// - min(t) and max(t) keep the first extreme element: a later one replaces it only when strictly smaller
//   (larger), so a NaN wins only as the first element, as in CPython and numba's loop over the tuple.
#include <llvm/IR/Constants.h>

#include "codegen/function_lowering.h"

namespace gpujit {

llvm::Value* FunctionLowering::lower_python_builtin(const BuiltinInfo& b, const CallExpr& e) {
  const Type& result = type_of(e);
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.empty())
    internal(std::string("no operand types for ") + b.qualified_name());
  const std::vector<Type>& ops = it->second;
  switch (b.id) {
    case BuiltinId::Divmod: {
      const Type& t = ops[0];
      llvm::Value* a = lower_expr_as(*e.args[0], t);
      llvm::Value* d = lower_expr_as(*e.args[1], t);
      check_division(BinOpKind::FloorDiv, d, t, e.range);
      const Type pair_type = Type::tuple_of({t, t});
      llvm::Value* pair = llvm::PoisonValue::get(llvm_type(pair_type));
      pair = b_.CreateInsertValue(pair, binary_op(BinOpKind::FloorDiv, a, d, t), {0});
      pair = b_.CreateInsertValue(pair, binary_op(BinOpKind::Mod, a, d, t), {1});
      return cast(pair, pair_type, result);
    }
    case BuiltinId::TupleFn:
      return lower_expr_as(*e.args[0], result);
    case BuiltinId::Sum: {
      const Type& acc_type = ops[0];
      const Type& tuple_type = type_of(*e.args[0]);
      if (!tuple_type.is_tuple() || ops.size() != tuple_type.elements.size() + 1)
        internal("sum() of a " + tuple_type.str() + " without one operand type per element");
      llvm::Value* acc = e.args.size() > 1
                             ? lower_expr_as(*e.args[1], acc_type)
                             : cast(b_.getInt64(0), Type::scalar_of(ScalarKind::Int64), acc_type);
      llvm::Value* tuple = lower_expr(*e.args[0]);
      for (unsigned k = 0; k < tuple_type.elements.size(); ++k) {
        const Type& op = ops[k + 1];
        llvm::Value* x = cast(b_.CreateExtractValue(tuple, {k}), tuple_type.elements[k], op);
        acc = cast(binary_op(BinOpKind::Add, cast(acc, acc_type, op), x, op), op, acc_type);
      }
      return cast(acc, acc_type, result);
    }
    case BuiltinId::Min:
    case BuiltinId::Max: {
      const Type& tuple_type = ops[0];
      if (!tuple_type.is_tuple() || tuple_type.elements.empty())
        internal("min()/max() of one argument that is no tuple");
      const Type& t = tuple_type.elements[0];
      const CmpOpKind better = b.id == BuiltinId::Min ? CmpOpKind::Lt : CmpOpKind::Gt;
      llvm::Value* tuple = lower_expr_as(*e.args[0], tuple_type);
      llvm::Value* extreme = b_.CreateExtractValue(tuple, {0});
      for (unsigned k = 1; k < tuple_type.elements.size(); ++k) {
        llvm::Value* v = b_.CreateExtractValue(tuple, {k});
        extreme = b_.CreateSelect(compare_op(better, v, extreme, t), v, extreme);
      }
      return cast(extreme, t, result);
    }
    default:
      break;
  }
  internal(std::string("no lowering for builtin ") + b.qualified_name());
}

}  // namespace gpujit
