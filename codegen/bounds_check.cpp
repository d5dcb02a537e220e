// Debug-mode bounds checks (CompileOptions::debug, numba's debug=True / boundscheck=True): the check every
// integer array index gets after Python's negative wrap, and what each target does when one fails.
//
// The check is one unsigned compare of the wrapped i64 index with the axis' extent (an index still negative
// after the wrap compares as huge), branching to a cold block that hands the target the index as written,
// the extent, the axis and a constant string naming the function and the source line. Target::index_error
// never returns, so that block ends in `unreachable`: the in-bounds path gets no new values merging back and
// LLVM keeps optimizing it as before. Without debug, checked_index() is wrap_index() and no check exists.
//
// NVPTX: the first failing thread fills a record in global memory (codegen/device_error.h) and every failing
// thread exits; the runtime synchronizes after launching such a kernel and raises the message, as the host
// backend does. (A trap would end the CUDA context: every later call would fail.)
// Host: a call to gpujit_host_index_error (codegen/host_abi.h), which records the message and ends the
// block; the executor raises it after the launch (rt::KernelIndexError, IndexError in Python).
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/function_lowering.h"
#include "codegen/host_target.h"
#include "codegen/nvptx_target.h"
#include "codegen/device_error.h"
#include "codegen/host_abi.h"
#include "ir/index_signs.h"

namespace gpujit {
namespace {

/// A NUL-terminated string constant in address space `address_space` of the builder's module, as a generic
/// pointer.
llvm::Value* c_string(llvm::IRBuilder<>& b, const std::string& text, unsigned address_space) {
  llvm::Module* module = b.GetInsertBlock()->getModule();
  llvm::Constant* init = llvm::ConstantDataArray::getString(b.getContext(), text, true);
  // One global per distinct text: a kernel checks many accesses on the same line, all with one message.
  llvm::GlobalVariable* g = nullptr;
  for (llvm::GlobalVariable& existing : module->globals()) {
    if (existing.getName().starts_with("gpujit.where") && existing.hasInitializer() &&
        existing.getInitializer() == init && existing.getAddressSpace() == address_space) {
      g = &existing;
      break;
    }
  }
  if (g == nullptr) {
    g = new llvm::GlobalVariable(*module, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init,
                                 "gpujit.where", nullptr, llvm::GlobalValue::NotThreadLocal, address_space);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    g->setAlignment(llvm::Align(1));
  }
  return b.CreateAddrSpaceCast(g, b.getPtrTy(0));
}

}  // namespace

llvm::Value* FunctionLowering::checked_index(llvm::Value* index, const Type& index_type, llvm::Value* extent,
                                             unsigned axis, const Expr& at) {
  llvm::Value* wrapped = wrap_index(index, index_type, extent, 64, never_negative(fn_, at));
  if (!m_.bounds_check()) return wrapped;
  llvm::Value* written = cast(index, index_type, Type::scalar_of(ScalarKind::Int64));

  // "kernel 'k' at file.py:12" or "device function 'f' of kernel 'k' at file.py:7".
  const TypedFunction* kernel = m_.program().kernel();
  std::string where = &fn_ == kernel ? "kernel '" + fn_.name + "'"
                                     : "device function '" + fn_.name + "' of kernel '" + kernel->name + "'";
  if (at.range.valid() && fn_.def->file) {
    where += " at " + fn_.def->file->name() + ":" + std::to_string(at.range.begin.line);
  }

  llvm::BasicBlock* fail = new_block("index.error");
  llvm::BasicBlock* ok = new_block("index.ok");
  llvm::Value* in_bounds = b_.CreateICmpULT(wrapped, extent, "in.bounds");
  b_.CreateCondBr(in_bounds, ok, fail, llvm::MDBuilder(m_.ctx()).createLikelyBranchWeights());
  b_.SetInsertPoint(fail);
  // In global memory: on the GPU the runtime reads the text back after the launch (codegen/device_error.h).
  m_.target().index_error(b_, c_string(b_, where, m_.target().global_address_space()), written, extent, axis);
  b_.CreateUnreachable();
  b_.SetInsertPoint(ok);
  return wrapped;
}

void FunctionLowering::lower_raise(const RaiseStmt& s) {
  auto it = fn_.raises.find(&s);
  if (it == fn_.raises.end()) internal("a raise statement without its description");
  // The description lives in global memory on the GPU, where the host can read it back by its address.
  m_.target().raise_exception(b_, c_string(b_, it->second, m_.target().global_address_space()));
  b_.CreateUnreachable();
}

void FunctionLowering::check_division(BinOpKind op, llvm::Value* divisor, const Type& t,
                                      const SourceRange& at) {
  if (!m_.bounds_check() || !(t.is_integer() || t.is_float())) return;
  // numba-cuda's fastmath float32 true division is the fast approximate divide with no zero check even in
  // debug mode (x / 0.0 gives inf or nan); float64 and the other operators keep theirs.
  if (m_.fastmath() && op == BinOpKind::Div && t.scalar == ScalarKind::Float32 && !t.is_array()) return;
  const char* message = nullptr;
  if (t.is_integer() && (op == BinOpKind::FloorDiv || op == BinOpKind::Mod)) {
    message = "integer division or modulo by zero";
  } else if (t.is_float()) {
    message = op == BinOpKind::Div        ? "float division by zero"
              : op == BinOpKind::FloorDiv ? "float floor division by zero"
              : op == BinOpKind::Mod      ? "float modulo"
                                          : nullptr;
  }
  if (message == nullptr) return;
  llvm::Value* zero = t.is_float() ? b_.CreateFCmpOEQ(divisor, llvm::ConstantFP::get(divisor->getType(), 0.0))
                                   : b_.CreateICmpEQ(divisor, llvm::ConstantInt::get(divisor->getType(), 0));
  llvm::BasicBlock* fail = new_block("division.error");
  llvm::BasicBlock* ok = new_block("division.ok");
  b_.CreateCondBr(zero, fail, ok, llvm::MDBuilder(m_.ctx()).createUnlikelyBranchWeights());
  b_.SetInsertPoint(fail);
  ConstValue text;
  text.kind = ConstValue::Kind::String;
  text.s = message;
  std::string description =
      raise_description("builtins.ZeroDivisionError", fn_.name, fn_.def->file ? fn_.def->file->name() : "",
                        at.begin.line, {text});
  m_.target().raise_exception(b_, c_string(b_, description, m_.target().global_address_space()));
  b_.CreateUnreachable();
  b_.SetInsertPoint(ok);
}

void NvptxTarget::record_error(llvm::IRBuilder<>& b, uint64_t kind, llvm::Value* text,
                               const std::vector<std::pair<unsigned, llvm::Value*>>& extra) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::Type* i64 = b.getInt64Ty();
  auto* record_type = llvm::ArrayType::get(i64, kErrSlots);
  llvm::GlobalVariable* record = m.getNamedGlobal(kDeviceErrorSymbol);
  if (record == nullptr) {
    record = new llvm::GlobalVariable(m, record_type, false, llvm::GlobalValue::ExternalLinkage,
                                      llvm::ConstantAggregateZero::get(record_type), kDeviceErrorSymbol, nullptr,
                                      llvm::GlobalValue::NotThreadLocal, global_address_space());
    record->setAlignment(llvm::Align(8));
  }
  auto slot = [&](unsigned k) { return b.CreateConstInBoundsGEP2_64(record_type, record, 0, k); };
  auto* global = llvm::dyn_cast<llvm::GlobalVariable>(text->stripPointerCasts());
  auto* chars = global ? llvm::dyn_cast<llvm::ConstantDataSequential>(global->getInitializer()) : nullptr;
  if (chars == nullptr) throw InternalError("a device error without its constant text");
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* fill = llvm::BasicBlock::Create(m.getContext(), "error.record", fn);
  llvm::BasicBlock* leave = llvm::BasicBlock::Create(m.getContext(), "error.exit", fn);
  llvm::Value* claim = b.CreateAtomicCmpXchg(slot(kErrFlag), b.getInt64(0), b.getInt64(1), llvm::MaybeAlign(8),
                                             llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  b.CreateCondBr(b.CreateExtractValue(claim, {1}), fill, leave);
  b.SetInsertPoint(fill);
  b.CreateStore(b.getInt64(kind), slot(kErrKind));
  b.CreateStore(b.CreatePtrToInt(text, i64), slot(kErrText));
  b.CreateStore(b.getInt64(chars->getNumElements() - 1), slot(kErrTextLen));  // without the NUL
  for (const auto& [k, v] : extra) b.CreateStore(v, slot(k));
  for (unsigned a = 0; a < 3; ++a) {
    b.CreateStore(b.CreateZExt(special_register(b, SpecialReg::ThreadIdx, a), i64), slot(kErrThread + a));
    b.CreateStore(b.CreateZExt(special_register(b, SpecialReg::BlockIdx, a), i64), slot(kErrBlock + a));
  }
  b.CreateBr(leave);
  b.SetInsertPoint(leave);
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_exit, {});
}

void NvptxTarget::index_error(llvm::IRBuilder<>& b, llvm::Value* where, llvm::Value* index,
                              llvm::Value* extent, unsigned axis) {
  // The first failing thread fills the record the runtime raises from (codegen/device_error.h); every
  // failing thread then exits. A trap would end the CUDA context with it.
  const bool tuple = axis == kTupleIndexAxis;
  record_error(b, tuple ? kErrTupleIndex : kErrIndexOutOfBounds, where,
               {{kErrIndex, index}, {kErrExtent, extent}, {kErrAxis, b.getInt64(axis)}});
}

void HostTarget::index_error(llvm::IRBuilder<>& b, llvm::Value* where, llvm::Value* index,
                             llvm::Value* extent, unsigned axis) {
  // The thread index goes along: inside a block entry's loop it lives in the loop's induction variables.
  auto* call = llvm::cast<llvm::CallInst>(call_runtime(
      b, "gpujit_host_index_error", b.getVoidTy(),
      {where, index, extent, b.getInt32(axis), thread_index(b, 0), thread_index(b, 1), thread_index(b, 2)}));
  call->setDoesNotReturn();
  if (llvm::Function* fn = call->getCalledFunction()) {
    fn->setDoesNotReturn();
    fn->addFnAttr(llvm::Attribute::Cold);
  }
}

void NvptxTarget::raise_exception(llvm::IRBuilder<>& b, llvm::Value* description) {
  // The same record as a failed bounds check (codegen/device_error.h), holding the raise's description; the
  // runtime throws rt::KernelRaise from it after the launch.
  record_error(b, kErrRaise, description, {});
}

void HostTarget::raise_exception(llvm::IRBuilder<>& b, llvm::Value* description) {
  auto* call = llvm::cast<llvm::CallInst>(
      call_runtime(b, "gpujit_host_raise", b.getVoidTy(),
                   {description, thread_index(b, 0), thread_index(b, 1), thread_index(b, 2)}));
  call->setDoesNotReturn();
  if (llvm::Function* fn = call->getCalledFunction()) {
    fn->setDoesNotReturn();
    fn->addFnAttr(llvm::Attribute::Cold);
  }
}

}  // namespace gpujit
