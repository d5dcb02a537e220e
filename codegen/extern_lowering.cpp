// Calls of external device functions (declare_device, ir/extern_function.h): a declaration of the symbol with
// the declared ABI and a call of it. The code that defines it is linked after PTX is emitted (the runtime,
// runtime/kernel_link.h), so the PTX names it `.extern .func`.
//
// One kind of definition is linked here instead: LLVM IR text (a link input of kind "llvm"), which
// python/gpujit/_lowlevel.py makes by running a numba lowering callback (@intrinsic, lower_builtin) with
// llvmlite. It is parsed into the kernel's module (LLVM still reads typed pointers and upgrades them), linked,
// and made internal and always-inline, so it runs on every backend and leaves no external symbol.
#include <algorithm>
#include <set>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Constants.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/SourceMgr.h>

#include "codegen/function_lowering.h"

namespace gpujit {
namespace {

bool defined_by_llvm_ir(const ExternFunction& f) {
  return !f.link.empty() &&
         std::all_of(f.link.begin(), f.link.end(), [](const LinkFile& l) { return l.kind == "llvm"; });
}

/// Gives each libdevice function (`__nv_sqrt`) that linked IR declares a body that calls the target's own
/// (call_math: libdevice on NVPTX, LLVM intrinsics or libm on the CPU), so that IR written for numba-cuda, which
/// calls libdevice by name, runs on every backend. The declaration is renamed first: on NVPTX call_math declares
/// `__nv_sqrt` itself (and notes that libdevice must be linked).
void define_libdevice_calls(llvm::Module& module, const std::vector<llvm::Function*>& declared,
                            Target& target) {
  for (llvm::Function* fn : declared) {
    std::string name = fn->getName().str();
    fn->setName("gpujit.ir." + name);
    fn->setLinkage(llvm::GlobalValue::InternalLinkage);
    fn->addFnAttr(llvm::Attribute::AlwaysInline);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.getContext(), "entry", fn));
    std::vector<llvm::Value*> args;
    for (llvm::Argument& a : fn->args()) args.push_back(&a);
    llvm::Type* ret = fn->getReturnType();
    llvm::Value* v = target.call_math(b, name, args, ret);
    if (ret->isVoidTy())
      b.CreateRetVoid();
    else
      b.CreateRet(v);
  }
}

/// Parses each "llvm" input of `f` into `module`'s context and links it in; the error's text, or "".
std::string link_llvm_ir(llvm::Module& module, const ExternFunction& f, Target& target) {
  std::set<std::string> before;
  for (llvm::Function& fn : module)
    if (fn.isDeclaration()) before.insert(fn.getName().str());
  for (const LinkFile& l : f.link) {
    llvm::SMDiagnostic err;
    std::unique_ptr<llvm::Module> piece = llvm::parseAssemblyString(l.data, err, module.getContext());
    if (!piece)
      return "its LLVM IR (" + l.name + ") does not parse: line " + std::to_string(err.getLineNo()) + ": " +
             err.getMessage().str();
    piece->setTargetTriple(module.getTargetTriple());
    piece->setDataLayout(module.getDataLayout());
    // Only what the module needs: the function the kernel declares, and what that calls (a library that two
    // lowerings share, numba's compiled function, is linked once; its other globals stay out).
    if (llvm::Linker::linkModules(module, std::move(piece), llvm::Linker::LinkOnlyNeeded))
      return "its LLVM IR (" + l.name + ") does not link into the kernel's module (a symbol defined twice?)";
  }
  std::vector<llvm::Function*> libdevice;
  for (llvm::Function& fn : module) {
    if (!fn.isDeclaration() || before.count(fn.getName().str())) continue;
    if (fn.getName().starts_with("__nv_")) {
      libdevice.push_back(&fn);
    } else if (!target.extern_calls_unsupported().empty() &&
               (!fn.isIntrinsic() || fn.getName().starts_with("llvm.nvvm."))) {
      // The CPU backend links nothing after this: name what its JIT would not find.
      return "its LLVM IR calls '" + fn.getName().str() + "', which the cpu backend does not have";
    }
  }
  define_libdevice_calls(module, libdevice, target);
  return "";
}

}  // namespace

llvm::Value* FunctionLowering::lower_extern_call(const CallExpr& e, const ExternFunction& callee) {
  const bool from_ir = defined_by_llvm_ir(callee);
  if (std::string why = m_.target().extern_calls_unsupported(); !why.empty() && !from_ir)
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
    if (from_ir) {
      if (std::string why = link_llvm_ir(m_.module(), callee, m_.target()); !why.empty())
        return unsupported(e, "'" + callee.name + "': " + why);
      fn = m_.module().getFunction(callee.name);
      if (!fn || fn->isDeclaration() || fn->getFunctionType() != fn_type)
        return unsupported(e, "'" + callee.name +
                                  "': its LLVM IR does not define it with the parameter and "
                                  "return types of its signature");
      fn->setLinkage(llvm::GlobalValue::InternalLinkage);
      fn->addFnAttr(llvm::Attribute::AlwaysInline);
    }
  } else if (fn->getFunctionType() != fn_type || (!from_ir && !fn->isDeclaration())) {
    return unsupported(
        e, "external function '" + callee.name +
               "' is declared twice with different signatures, "
               "or its name is that of a function of the kernel's; give each declaration one name");
  }
  const std::vector<Type>& converted = fn_.operand_types.at(&e);
  std::vector<llvm::Value*> args;
  llvm::AllocaInst* slot = nullptr;
  if (!callee.c_abi) {
    slot =
        entry_alloca(sig.ret.is_void() ? llvm::Type::getInt8Ty(m_.ctx()) : abi_type(sig.ret), "extern.ret");
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
  if (sig.ret.is_scalar(ScalarKind::Bool))
    result = b_.CreateICmpNE(result, llvm::ConstantInt::get(result->getType(), 0));
  return cast(result, sig.ret, type_of(e));
}

}  // namespace gpujit
