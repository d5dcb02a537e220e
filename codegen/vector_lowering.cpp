// CUDA vector types (ir/vector_types.h) and numba's Dim3: a value of either is an LLVM vector <lanes x base>
// (Dim3 is <3 x i32>) on every target, so a vector moves through variables, tuples and device function calls
// as one value, and a lane is an extractelement. A constructor inserts its lanes in order: a number
// argument (already converted to the base type) is one lane, a vector argument gives each of its own.
#include <llvm/IR/Constants.h>

#include "codegen/function_lowering.h"
#include "ir/vector_types.h"

namespace gpujit {

llvm::Value* FunctionLowering::lower_vector_ctor(const CallExpr& e) {
  const Type& result = type_of(e);
  auto it = fn_.operand_types.find(&e);
  if (!result.is_vector() || it == fn_.operand_types.end() || it->second.size() != e.args.size())
    internal("vector constructor without its operand types");
  llvm::Value* v = llvm::PoisonValue::get(llvm_type(result));
  unsigned lane = 0;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type& t = it->second[i];
    llvm::Value* arg = lower_expr_as(*e.args[i], t);
    if (!t.is_vector()) {
      v = b_.CreateInsertElement(v, arg, b_.getInt32(lane++));
      continue;
    }
    for (unsigned k = 0; k < t.lanes; ++k)
      v = b_.CreateInsertElement(v, b_.CreateExtractElement(arg, b_.getInt32(k)), b_.getInt32(lane++));
  }
  if (lane != result.lanes)
    internal("vector constructor with " + std::to_string(lane) + " lanes for " + result.str());
  return v;
}

llvm::Value* FunctionLowering::lower_vector_lane(const AttributeExpr& e) {
  const Type& vector = type_of(*e.value);
  int lane = vector_lane_of(e.attr);
  if (lane < 0 || lane >= int(vector.lanes)) internal("lane '" + e.attr + "' of a " + vector.str());
  return cast(b_.CreateExtractElement(lower_expr(*e.value), b_.getInt32(unsigned(lane))),
              Type::scalar_of(vector.scalar), type_of(e));
}

llvm::Value* FunctionLowering::lower_dim3(const std::string& name_space) {
  SpecialReg reg = name_space == "threadIdx"  ? SpecialReg::ThreadIdx
                   : name_space == "blockIdx" ? SpecialReg::BlockIdx
                   : name_space == "blockDim" ? SpecialReg::BlockDim
                   : name_space == "gridDim"
                       ? SpecialReg::GridDim
                       : throw InternalError("codegen: '" + name_space + "' is not a Dim3");
  llvm::Value* v = llvm::PoisonValue::get(llvm_type(Type::dim3_()));
  for (unsigned axis = 0; axis < 3; ++axis) {
    llvm::Value* r = m_.target().special_register(b_, reg, axis);
    v = b_.CreateInsertElement(v, b_.CreateZExtOrTrunc(r, b_.getInt32Ty()), b_.getInt32(axis));
  }
  return v;
}

}  // namespace gpujit
