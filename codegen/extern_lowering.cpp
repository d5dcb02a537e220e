// Calls of external device functions (declare_device, ir/extern_function.h): a declaration of the symbol with
// the declared ABI and a call of it. The code that defines it is linked after PTX is emitted (the runtime,
// runtime/kernel_link.h), so the PTX names it `.extern .func`.
#include <llvm/IR/Constants.h>

#include "codegen/function_lowering.h"

namespace gpujit {

llvm::Value* FunctionLowering::lower_extern_call(const CallExpr& e, const ExternFunction& callee) {
  if (std::string why = m_.target().extern_calls_unsupported(); !why.empty())
    return unsupported(e, "'" + callee.name + "' is an external function (declare_device): " + why);
  const Signature& sig = callee.signature;
  auto abi_type = [&](const Type& t) -> llvm::Type* {
    // A bool crosses as a byte, as C's bool and numba's data model have it.
    return t.is_scalar(ScalarKind::Bool) ? m_.memory_type(ScalarKind::Bool) : llvm_type(t);
  };
  std::vector<llvm::Type*> params;
  llvm::Type* ret = sig.ret.is_void() ? llvm::Type::getVoidTy(m_.ctx()) : abi_type(sig.ret);
  llvm::Type* i32 = llvm::Type::getInt32Ty(m_.ctx());
  llvm::Type* ptr = llvm::PointerType::get(m_.ctx(), 0);
  if (!callee.c_abi) params.push_back(ptr);  // numba's ABI: the result's slot first
  for (const Type& t : sig.params) params.push_back(abi_type(t));
  auto* fn_type = llvm::FunctionType::get(callee.c_abi ? ret : i32, params, false);
  llvm::Function* fn = m_.module().getFunction(callee.name);
  if (!fn) {
    fn = llvm::Function::Create(fn_type, llvm::GlobalValue::ExternalLinkage, callee.name, m_.module());
  } else if (fn->getFunctionType() != fn_type || !fn->isDeclaration()) {
    return unsupported(e, "external function '" + callee.name + "' is declared twice with different signatures, "
                          "or its name is that of a function of the kernel's; give each declaration one name");
  }
  const std::vector<Type>& converted = fn_.operand_types.at(&e);
  std::vector<llvm::Value*> args;
  llvm::AllocaInst* slot = nullptr;
  if (!callee.c_abi) {
    slot = entry_alloca(sig.ret.is_void() ? llvm::Type::getInt8Ty(m_.ctx()) : abi_type(sig.ret), "extern.ret");
    args.push_back(slot);
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    llvm::Value* v = lower_expr_as(*e.args[i], converted[i]);
    if (converted[i].is_scalar(ScalarKind::Bool)) v = b_.CreateZExt(v, abi_type(converted[i]));
    args.push_back(v);
  }
  llvm::Value* result = b_.CreateCall(fn, args);
  if (sig.ret.is_void()) return llvm::Constant::getNullValue(llvm_type(Type::none()));
  if (!callee.c_abi) result = b_.CreateLoad(abi_type(sig.ret), slot);
  if (sig.ret.is_scalar(ScalarKind::Bool)) result = b_.CreateICmpNE(result, llvm::ConstantInt::get(result->getType(), 0));
  return cast(result, sig.ret, type_of(e));
}

}  // namespace gpujit
