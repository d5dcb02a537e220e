// The host CPU target (see host_target.h).
//
// Math: the lowering names functions by their libdevice names. On the host the cheap ones become LLVM
// intrinsics (sqrt, fabs, floor, fma... one instruction each, and vectorizable), the classification
// functions a comparison or two, and the rest calls to the C library's function of the same stem
// ("__nv_expf" -> expf, "__nv_erf" -> erf). glibc's float and double functions are accurate to 1-2 ULP at
// most, never looser than libdevice's documented bounds (2 ULP for expf/sinf, 4 for powf and the gammas), so
// results agree with the GPU's within libdevice's own error. The declarations carry `memory(none)`: C's errno
// is never read by kernels, and without that LLVM could neither hoist nor vectorize around them.
#include "codegen/host_target.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/ConstantRange.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/ReplaceConstant.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include "frontend/diagnostics.h"
#include "codegen/host_abi.h"

namespace gpujit {
namespace {

constexpr const char* kContextPlaceholder = "gpujit.host.ctx";
constexpr const char* kThreadIdxPlaceholder = "gpujit.host.tid";  // i32 (i32 axis)

/// The hidden parameters prepare_for_jit() appends to every function: ctx, then threadIdx.x, .y, .z.
constexpr unsigned kHiddenParams = 4;

void initialize_native_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
}

/// One host TargetMachine per optimization level per thread, as the NVPTX target keeps its own; it optimizes
/// the module for this CPU (its features decide vector widths). The JIT compiles with its own copy.
llvm::TargetMachine* cached_machine(int opt_level, std::string* error) {
  thread_local std::map<int, std::unique_ptr<llvm::TargetMachine>> cache;
  if (auto it = cache.find(opt_level); it != cache.end()) return it->second.get();
  initialize_native_once();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    *error = "LLVM cannot target this CPU: " + llvm::toString(builder.takeError());
    return nullptr;
  }
  builder->setCodeGenOptLevel(codegen_level(opt_level));
  auto machine = builder->createTargetMachine();
  if (!machine) {
    *error = "LLVM cannot target this CPU: " + llvm::toString(machine.takeError());
    return nullptr;
  }
  return (cache[opt_level] = std::move(*machine)).get();
}

/// Byte offset and value range of each special register in HostThreadContext.
struct RegisterField {
  size_t offset;
  uint64_t lo, hi;  // [lo, hi)
};

RegisterField register_field(SpecialReg reg, unsigned axis) {
  if (axis > 2) throw InternalError("special register axis out of range");
  size_t a = axis * sizeof(uint32_t);
  // The ranges CUDA guarantees, which the NVPTX intrinsics also carry: they let LLVM prove index arithmetic
  // free of signed overflow the same way on both targets.
  uint64_t grid_hi = axis == 0 ? 0x7fffffffu : 65535u;
  switch (reg) {
    case SpecialReg::ThreadIdx:
      return {offsetof(HostThreadContext, tid) + a, 0, axis == 2 ? 64u : 1024u};
    case SpecialReg::BlockDim:
      return {offsetof(HostThreadContext, ntid) + a, 1, axis == 2 ? 65u : 1025u};
    case SpecialReg::BlockIdx:
      return {offsetof(HostThreadContext, ctaid) + a, 0, grid_hi};
    case SpecialReg::GridDim:
      return {offsetof(HostThreadContext, nctaid) + a, 1, grid_hi + 1};
    case SpecialReg::LaneId:
      return {offsetof(HostThreadContext, laneid), 0, kHostWarpSize};
    case SpecialReg::WarpSize:
      return {offsetof(HostThreadContext, warpsize), kHostWarpSize, kHostWarpSize + 1};
  }
  throw InternalError("unknown special register");
}

/// A load of a context field: invariant for the whole run of a thread, so LLVM may hoist and merge it
/// across stores and barrier calls.
llvm::LoadInst* load_context_field(llvm::IRBuilderBase& b, llvm::Value* ctx, size_t offset,
                                   llvm::Type* type) {
  llvm::Value* addr = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctx, offset);
  llvm::LoadInst* load = b.CreateLoad(type, addr);
  load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(b.getContext(), {}));
  return load;
}

/// libm functions callable by the stem of their libdevice name (double: stem, float: stem + "f").
const std::set<std::string, std::less<>>& libm_stems() {
  static const std::set<std::string, std::less<>> stems = {
      "sin",       "cos",   "tan",    "asin",      "acos", "atan",  "atan2", "sinh",   "cosh",   "tanh",
      "asinh",     "acosh", "atanh",  "exp",       "exp2", "exp10", "expm1", "log",    "log2",   "log10",
      "log1p",     "logb",  "pow",    "hypot",     "cbrt", "erf",   "erfc",  "tgamma", "lgamma", "fmod",
      "remainder", "ldexp", "scalbn", "nextafter", "fdim", "j0",    "j1",    "y0",     "y1",
      // Results through pointers (libdevice.sincos, frexp, modf, remquo): glibc has them all.
      "sincos",    "frexp", "modf",   "remquo"};
  return stems;
}

/// Intrinsics for libdevice functions that are one instruction (or one libcall LLVM understands) on hosts.
std::optional<llvm::Intrinsic::ID> intrinsic_for(std::string_view stem) {
  // Qualified: unqualified, sqrt and the others are ambiguous wherever <math.h>'s ::sqrt is visible too.
  namespace I = llvm::Intrinsic;
  static const std::map<std::string, I::ID, std::less<>> table = {
      {"sqrt", I::sqrt},   {"fabs", I::fabs},         {"floor", I::floor},         {"ceil", I::ceil},
      {"trunc", I::trunc}, {"rint", I::rint},         {"nearbyint", I::nearbyint}, {"round", I::round},
      {"fma", I::fma},     {"copysign", I::copysign}, {"fmin", I::minnum},         {"fmax", I::maxnum}};
  if (auto it = table.find(stem); it != table.end()) return it->second;
  return std::nullopt;
}

}  // namespace

std::unique_ptr<HostTarget> HostTarget::create(int opt_level, bool fastmath, std::string* error) {
  llvm::TargetMachine* machine = cached_machine(opt_level, error);
  if (!machine) return nullptr;
  return std::unique_ptr<HostTarget>(new HostTarget(machine, fastmath));
}

void HostTarget::init_module(llvm::Module& module) {
  module.setTargetTriple(machine_->getTargetTriple());
  module.setDataLayout(machine_->createDataLayout());
}

void HostTarget::mark_kernel(llvm::Function& fn) { fn.setLinkage(llvm::GlobalValue::ExternalLinkage); }

llvm::Value* HostTarget::context(llvm::IRBuilder<>& b) {
  llvm::Module* module = b.GetInsertBlock()->getModule();
  llvm::Function* fn = module->getFunction(kContextPlaceholder);
  if (fn == nullptr) {
    fn = llvm::Function::Create(llvm::FunctionType::get(b.getPtrTy(), false),
                                llvm::GlobalValue::ExternalLinkage, kContextPlaceholder, module);
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->setWillReturn();
  }
  return b.CreateCall(fn);
}

llvm::Value* HostTarget::call_runtime(llvm::IRBuilder<>& b, const char* name, llvm::Type* ret,
                                      llvm::ArrayRef<llvm::Value*> extra_args) {
  std::vector<llvm::Value*> args{context(b)};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : args) types.push_back(a->getType());
  llvm::Module* module = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee fn = module->getOrInsertFunction(name, llvm::FunctionType::get(ret, types, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) f->setDoesNotThrow();
  return b.CreateCall(fn, args);
}

llvm::Value* HostTarget::thread_index(llvm::IRBuilder<>& b, unsigned axis) {
  llvm::Module* module = b.GetInsertBlock()->getModule();
  llvm::Function* fn = module->getFunction(kThreadIdxPlaceholder);
  if (fn == nullptr) {
    fn = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty()}, false),
                                llvm::GlobalValue::ExternalLinkage, kThreadIdxPlaceholder, module);
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->setWillReturn();
  }
  return b.CreateCall(fn, {b.getInt32(axis)});
}

llvm::Value* HostTarget::special_register(llvm::IRBuilder<>& b, SpecialReg reg, unsigned axis) {
  if (reg == SpecialReg::ThreadIdx) {
    if (axis > 2) throw InternalError("special register axis out of range");
    return thread_index(b, axis);
  }
  if (reg == SpecialReg::LaneId) {
    // The linear thread index modulo the warp size, as the executor numbers lanes.
    llvm::Value* ntid_x = special_register(b, SpecialReg::BlockDim, 0);
    llvm::Value* ntid_y = special_register(b, SpecialReg::BlockDim, 1);
    llvm::Value* linear = b.CreateMul(thread_index(b, 2), ntid_y);
    linear = b.CreateMul(b.CreateAdd(linear, thread_index(b, 1)), ntid_x);
    linear = b.CreateAdd(linear, thread_index(b, 0));
    return b.CreateAnd(linear, b.getInt32(kHostWarpSize - 1));
  }
  RegisterField field = register_field(reg, axis);
  llvm::LoadInst* load = load_context_field(b, context(b), field.offset, b.getInt32Ty());
  load->setMetadata(
      llvm::LLVMContext::MD_range,
      llvm::MDBuilder(b.getContext()).createRange(llvm::APInt(32, field.lo), llvm::APInt(32, field.hi)));
  return load;
}

void HostTarget::barrier_block(llvm::IRBuilder<>& b) {
  uses_barrier_ = true;
  call_runtime(b, "gpujit_host_syncthreads", b.getVoidTy(), {});
}

llvm::Value* HostTarget::barrier_block_reduce(llvm::IRBuilder<>& b, BarrierReduce op, llvm::Value* pred) {
  uses_barrier_ = true;
  llvm::Value* p = b.CreateZExt(pred, b.getInt32Ty());
  switch (op) {
    case BarrierReduce::Count:
      return call_runtime(b, "gpujit_host_syncthreads_count", b.getInt32Ty(), {p});
    case BarrierReduce::And:
      return b.CreateICmpNE(call_runtime(b, "gpujit_host_syncthreads_and", b.getInt32Ty(), {p}),
                            b.getInt32(0));
    case BarrierReduce::Or:
      return b.CreateICmpNE(call_runtime(b, "gpujit_host_syncthreads_or", b.getInt32Ty(), {p}),
                            b.getInt32(0));
  }
  throw InternalError("unknown barrier reduction");
}

void HostTarget::barrier_warp(llvm::IRBuilder<>& b, llvm::Value* mask) {
  uses_barrier_ = true;
  call_runtime(b, "gpujit_host_syncwarp", b.getVoidTy(), {b.CreateZExtOrTrunc(mask, b.getInt32Ty())});
}

void HostTarget::fence(llvm::IRBuilder<>& b, FenceScope scope) {
  // Threads of a block run on one OS thread, but blocks run on several: every scope needs a real fence.
  b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
}

llvm::SyncScope::ID HostTarget::atomic_scope(llvm::LLVMContext& ctx) const { return llvm::SyncScope::System; }

llvm::Value* HostTarget::dynamic_shared_size(llvm::IRBuilder<>& b) {
  return load_context_field(b, context(b), offsetof(HostThreadContext, dynamic_shared_bytes), b.getInt32Ty());
}

// The host has no cache operators: a hinted access is a plain one, volatile so that it is neither merged
// nor moved, as the GPU's inline PTX is not (a polling loop on cuda.ldcv reads the element every time).
llvm::Value* HostTarget::load_cached(llvm::IRBuilder<>& b, std::string_view, llvm::Type* type,
                                     llvm::Value* ptr) {
  return b.CreateAlignedLoad(type, ptr, llvm::Align(type->getPrimitiveSizeInBits() / 8), true);
}

void HostTarget::store_cached(llvm::IRBuilder<>& b, std::string_view, llvm::Value* value, llvm::Value* ptr) {
  b.CreateAlignedStore(value, ptr, llvm::Align(value->getType()->getPrimitiveSizeInBits() / 8), true);
}

// Kernels run as host threads; a nanosleep is a hint to wait, and waiting is never needed for correctness.
void HostTarget::nanosleep(llvm::IRBuilder<>&, llvm::Value*) {}

void HostTarget::print(llvm::IRBuilder<>& b, llvm::Value* format, llvm::ArrayRef<llvm::Value*> args) {
  // The C library's printf, then fflush(NULL): each line reaches the output at once (printf locks the
  // stream, so lines of concurrent threads never interleave), in order with the host program's own output.
  llvm::Module* module = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee printf_fn =
      module->getOrInsertFunction("printf", llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy()}, true));
  llvm::FunctionCallee fflush_fn =
      module->getOrInsertFunction("fflush", llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy()}, false));
  std::vector<llvm::Value*> values{format};
  values.insert(values.end(), args.begin(), args.end());
  b.CreateCall(printf_fn, values);
  b.CreateCall(fflush_fn, {llvm::ConstantPointerNull::get(b.getPtrTy())});
}

llvm::Value* HostTarget::call_math(llvm::IRBuilder<>& b, std::string_view libdevice_name,
                                   llvm::ArrayRef<llvm::Value*> args, llvm::Type* ret) {
  std::string_view name = libdevice_name;
  if (name.substr(0, 5) == "__nv_") name.remove_prefix(5);
  llvm::Type* arg_type = args.empty() ? ret : args[0]->getType();
  bool is_float = arg_type->isFloatTy();
  // libdevice's float variants end in 'f'; a double-named stem may itself end in 'f' (erf, erff).
  std::string_view stem =
      is_float && !name.empty() && name.back() == 'f' ? name.substr(0, name.size() - 1) : name;

  auto as_ret = [&](llvm::Value* i1) { return ret->isIntegerTy(1) ? i1 : b.CreateZExt(i1, ret); };
  if (stem == "isnan" || stem == "isnand") return as_ret(b.CreateFCmpUNO(args[0], args[0]));
  if (stem == "isinf" || stem == "isinfd") {
    llvm::Value* inf = llvm::ConstantFP::getInfinity(arg_type);
    return as_ret(b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]), inf));
  }
  if (stem == "finite" || stem == "isfinited") {
    llvm::Value* inf = llvm::ConstantFP::getInfinity(arg_type);
    return as_ret(b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]), inf));
  }
  if (stem == "signbit" || stem == "signbitd") {
    unsigned bits = arg_type->getPrimitiveSizeInBits();
    llvm::Value* as_int = b.CreateBitCast(args[0], b.getIntNTy(bits));
    return as_ret(b.CreateICmpSLT(as_int, b.getIntN(bits, 0)));
  }
  if (stem == "rsqrt") {
    return b.CreateFDiv(llvm::ConstantFP::get(arg_type, 1.0),
                        b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]));
  }
  if (stem == "fdivide") return b.CreateFDiv(args[0], args[1]);
  if (stem == "saturate") {
    llvm::Value* lo =
        b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, args[0], llvm::ConstantFP::get(arg_type, 0.0));
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, lo, llvm::ConstantFP::get(arg_type, 1.0));
  }
  if (stem == "powi") return b.CreateIntrinsic(llvm::Intrinsic::powi, {arg_type, args[1]->getType()}, args);
  if (auto id = intrinsic_for(stem)) return b.CreateIntrinsic(*id, {arg_type}, args);

  if (libm_stems().count(stem) == 0) {
    if (unsupported_math_.empty()) unsupported_math_ = std::string(libdevice_name);
    return llvm::PoisonValue::get(ret);
  }
  std::string libm_name(stem);
  if (is_float) libm_name += 'f';
  std::vector<llvm::Type*> params;
  for (llvm::Value* a : args) params.push_back(a->getType());
  llvm::Module* module = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee callee =
      module->getOrInsertFunction(libm_name, llvm::FunctionType::get(ret, params, false));
  bool writes_results = std::any_of(args.begin(), args.end(), [](llvm::Value* a) {
    return a->getType()->isPointerTy();
  });
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    if (!writes_results) f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  return b.CreateCall(callee, args);
}

bool HostTarget::finalize_module(llvm::Module& module, llvm::Function& kernel, std::string* error) {
  if (!unsupported_math_.empty()) {
    *error = "math function '" + unsupported_math_ + "' has no implementation on the cpu backend";
    return false;
  }
  for (llvm::Function& fn : module) {
    if (fn.isDeclaration() || &fn == &kernel) continue;
    fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  return true;
}

namespace {

/// The range threadIdx's axis can take, as a parameter attribute.
llvm::Attribute thread_index_range(llvm::LLVMContext& c, unsigned axis) {
  return llvm::Attribute::get(
      c, llvm::Attribute::Range,
      llvm::ConstantRange(llvm::APInt(32, 0), llvm::APInt(32, axis == 2 ? 64 : 1024)));
}

/// Step 1 of prepare_for_jit: the hidden parameters (ctx, threadIdx.x/y/z) on every defined function, passed
/// on at every call; the placeholders become them. Returns the new kernel.
llvm::Function* thread_context(llvm::Module& m, llvm::Function* kernel) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  std::vector<llvm::Function*> defined;
  for (llvm::Function& f : m) {
    if (!f.isDeclaration()) defined.push_back(&f);
  }
  std::map<llvm::Function*, llvm::Function*> remap;
  for (llvm::Function* f : defined) {
    llvm::FunctionType* old_type = f->getFunctionType();
    std::vector<llvm::Type*> params(old_type->param_begin(), old_type->param_end());
    params.insert(params.end(), {ptr, i32, i32, i32});
    auto* type = llvm::FunctionType::get(old_type->getReturnType(), params, old_type->isVarArg());
    auto* nf = llvm::Function::Create(type, f->getLinkage(), f->getAddressSpace(), "", &m);
    nf->copyAttributesFrom(f);
    nf->splice(nf->begin(), f);
    unsigned n = f->arg_size();
    for (unsigned i = 0; i < n; ++i) {
      f->getArg(i)->replaceAllUsesWith(nf->getArg(i));
      nf->getArg(i)->takeName(f->getArg(i));
    }
    nf->getArg(n)->setName("ctx");
    for (unsigned axis = 0; axis < 3; ++axis) {
      nf->getArg(n + 1 + axis)->setName(std::string("tid.") + "xyz"[axis]);
      nf->addParamAttr(n + 1 + axis, thread_index_range(c, axis));
    }
    nf->takeName(f);
    remap[f] = nf;
  }

  llvm::Function* ctx_placeholder = m.getFunction(kContextPlaceholder);
  llvm::Function* tid_placeholder = m.getFunction(kThreadIdxPlaceholder);
  for (auto& [old_fn, nf] : remap) {
    unsigned first_hidden = nf->arg_size() - kHiddenParams;
    std::vector<llvm::CallInst*> calls;
    for (llvm::BasicBlock& bb : *nf) {
      for (llvm::Instruction& inst : bb) {
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) calls.push_back(call);
      }
    }
    for (llvm::CallInst* call : calls) {
      llvm::Function* callee = call->getCalledFunction();
      if (callee == nullptr) continue;
      if (callee == ctx_placeholder || callee == tid_placeholder) {
        unsigned which = 0;
        if (callee == tid_placeholder) {
          auto* axis = llvm::cast<llvm::ConstantInt>(call->getArgOperand(0));
          which = 1 + unsigned(axis->getZExtValue());
        }
        call->replaceAllUsesWith(nf->getArg(first_hidden + which));
        call->eraseFromParent();
        continue;
      }
      auto it = remap.find(callee);
      if (it == remap.end()) continue;
      std::vector<llvm::Value*> args(call->arg_begin(), call->arg_end());
      for (unsigned h = 0; h < kHiddenParams; ++h) args.push_back(nf->getArg(first_hidden + h));
      auto* nc = llvm::CallInst::Create(it->second, args, "", call->getIterator());
      nc->takeName(call);
      nc->setCallingConv(call->getCallingConv());
      nc->setTailCallKind(call->getTailCallKind());
      nc->setDebugLoc(call->getDebugLoc());
      llvm::AttributeList attrs = call->getAttributes();
      std::vector<llvm::AttributeSet> param_attrs;
      for (unsigned i = 0; i < call->arg_size(); ++i) param_attrs.push_back(attrs.getParamAttrs(i));
      param_attrs.resize(args.size());
      nc->setAttributes(llvm::AttributeList::get(c, attrs.getFnAttrs(), attrs.getRetAttrs(), param_attrs));
      call->replaceAllUsesWith(nc);
      call->eraseFromParent();
    }
  }
  for (auto& [old_fn, nf] : remap) {
    if (!old_fn->use_empty())
      throw InternalError("host codegen: a function's address is taken: " + nf->getName().str());
    old_fn->eraseFromParent();
  }
  for (llvm::Function* placeholder : {ctx_placeholder, tid_placeholder}) {
    if (placeholder == nullptr) continue;
    if (!placeholder->use_empty())
      throw InternalError("host codegen: a thread register read outside any function");
    placeholder->eraseFromParent();
  }
  return remap.at(kernel);
}

/// Step 2: shared arrays into the context's buffers. Returns the static shared bytes.
///
/// The buffers are only kHostSharedAlign-aligned, so an array asking for more (shared.array's alignment=)
/// is aligned at run time: the static arrays' base is rounded up to the largest alignment among them, and
/// the dynamic array's base is rounded down to its own; the static size includes the slack both roundings
/// may use (the dynamic buffer starts right after the static one), so no array overlaps another and the
/// dynamic one keeps all of the launch's bytes.
size_t place_shared_arrays(llvm::Module& m) {
  llvm::LLVMContext& c = m.getContext();
  const llvm::DataLayout& layout = m.getDataLayout();
  std::vector<llvm::GlobalVariable*> shared;
  size_t align_of[2] = {kHostSharedAlign, kHostSharedAlign};  // static, dynamic
  for (llvm::GlobalVariable& g : m.globals()) {
    if (g.getAddressSpace() != HostTarget::kSharedAddressSpace) continue;
    shared.push_back(&g);
    size_t& a = align_of[g.isDeclaration() || layout.getTypeAllocSize(g.getValueType()) == 0 ? 1 : 0];
    a = std::max<size_t>(a, g.getAlign().valueOrOne().value());
  }
  // Per function: where its prologue goes (before the first original instruction, so the values dominate
  // every use) and the buffer bases it has loaded.
  struct Prologue {
    llvm::Instruction* before = nullptr;
    llvm::Value* bases[2] = {nullptr, nullptr};  // static, dynamic
  };
  std::map<llvm::Function*, Prologue> prologues;
  auto base_of = [&](llvm::Function* f, bool dynamic) {
    Prologue& p = prologues[f];
    if (p.before == nullptr) p.before = &*f->getEntryBlock().getFirstInsertionPt();
    llvm::Value*& base = p.bases[dynamic ? 1 : 0];
    if (base == nullptr) {
      llvm::IRBuilder<> b(p.before);
      size_t offset =
          dynamic ? offsetof(HostThreadContext, dynamic_shared) : offsetof(HostThreadContext, shared);
      llvm::LoadInst* load =
          load_context_field(b, f->getArg(f->arg_size() - kHiddenParams), offset, b.getPtrTy());
      load->setMetadata(llvm::LLVMContext::MD_align,
                        llvm::MDNode::get(c, llvm::ConstantAsMetadata::get(b.getInt64(kHostSharedAlign))));
      load->setMetadata(llvm::LLVMContext::MD_nonnull, llvm::MDNode::get(c, {}));
      base = load;
      const size_t align = align_of[dynamic ? 1 : 0];
      if (align > kHostSharedAlign) {
        llvm::Value* p = dynamic ? base : b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, align - 1);
        base = b.CreateIntrinsic(llvm::Intrinsic::ptrmask, {b.getPtrTy(), b.getInt64Ty()},
                                 {p, b.getInt64(~uint64_t(align - 1))}, nullptr, "shared.aligned");
      }
    }
    return base;
  };

  size_t total = 0;
  for (llvm::GlobalVariable* g : shared) {
    uint64_t size = g->isDeclaration() ? 0 : layout.getTypeAllocSize(g->getValueType());
    bool dynamic = size == 0;
    size_t offset = 0;
    if (!dynamic) {
      size_t align = std::max<size_t>(g->getAlign().valueOrOne().value(), kHostSharedAlign);
      offset = (total + align - 1) / align * align;
      total = offset + size;
    }
    llvm::convertUsersOfConstantsToInstructions({g});
    std::vector<llvm::Use*> uses;
    for (llvm::Use& u : g->uses()) uses.push_back(&u);
    std::map<llvm::Function*, llvm::Value*> addresses;
    for (llvm::Use* u : uses) {
      auto* inst = llvm::dyn_cast<llvm::Instruction>(u->getUser());
      if (inst == nullptr) throw InternalError("host codegen: a shared array used outside any function");
      llvm::Function* f = inst->getFunction();
      llvm::Value*& address = addresses[f];
      if (address == nullptr) {
        llvm::Value* base = base_of(f, dynamic);
        llvm::IRBuilder<> b(prologues[f].before);
        address =
            offset == 0 ? base : b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset, g->getName());
      }
      auto* cast = llvm::dyn_cast<llvm::AddrSpaceCastInst>(inst);
      if (cast != nullptr && cast->getDestAddressSpace() == 0) {
        cast->replaceAllUsesWith(address);
        cast->eraseFromParent();
        continue;
      }
      // A use in the shared address space itself: hand it the same address, cast back.
      llvm::Instruction* at = inst;
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(inst)) at = phi->getIncomingBlock(*u)->getTerminator();
      u->set(new llvm::AddrSpaceCastInst(address, g->getType(), "", at->getIterator()));
    }
    g->eraseFromParent();
  }
  for (size_t align : align_of) total += align - kHostSharedAlign;  // the slack of the roundings
  return total;
}

/// The kernel's own (non-hidden) arguments, loaded from a kernelParams array at the builder's position.
std::vector<llvm::Value*> load_kernel_arguments(llvm::IRBuilder<>& b, llvm::Function* kernel,
                                                llvm::Value* params) {
  std::vector<llvm::Value*> args;
  unsigned n = kernel->arg_size() - kHiddenParams;
  for (unsigned i = 0; i < n; ++i) {
    llvm::Value* slot = b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), params, i));
    args.push_back(b.CreateLoad(kernel->getArg(i)->getType(), slot, kernel->getArg(i)->getName()));
  }
  return args;
}

llvm::Function* make_wrapper(llvm::Module& m, const std::string& name) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, ptr}, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, &m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->getArg(0)->setName("params");
  fn->getArg(1)->setName("ctx");
  return fn;
}

/// Step 3a: the per-thread HostEntryFn: one thread, its index read from ctx.
void make_thread_entry(llvm::Module& m, llvm::Function* kernel, const std::string& name) {
  llvm::Function* entry = make_wrapper(m, name);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", entry));
  llvm::Value* ctx = entry->getArg(1);
  std::vector<llvm::Value*> args = load_kernel_arguments(b, kernel, entry->getArg(0));
  args.push_back(ctx);
  for (unsigned axis = 0; axis < 3; ++axis) {
    llvm::LoadInst* tid =
        load_context_field(b, ctx, offsetof(HostThreadContext, tid) + 4 * axis, b.getInt32Ty());
    args.push_back(tid);
  }
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
}

/// Step 3b: the per-block HostEntryFn: every thread of the block in a loop nest (x innermost), so that LLVM
/// sees the threads as loop iterations it may vectorize. Only for kernels without barriers.
void make_block_entry(llvm::Module& m, llvm::Function* kernel, const std::string& name) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Function* entry = make_wrapper(m, name);
  llvm::Value* ctx = entry->getArg(1);
  auto* start = llvm::BasicBlock::Create(c, "entry", entry);
  llvm::IRBuilder<> b(start);
  std::vector<llvm::Value*> args = load_kernel_arguments(b, kernel, entry->getArg(0));
  args.push_back(ctx);
  llvm::Value* extent[3];
  for (unsigned axis = 0; axis < 3; ++axis) {
    extent[axis] = load_context_field(b, ctx, offsetof(HostThreadContext, ntid) + 4 * axis, b.getInt32Ty());
  }
  // Three do-while loops: every blockDim extent is at least 1.
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, "exit", entry);
  llvm::BasicBlock* header[3];
  llvm::PHINode* index[3];
  llvm::BasicBlock* before = start;
  for (int axis = 2; axis >= 0; --axis) {
    header[axis] = llvm::BasicBlock::Create(c, std::string("loop.") + "xyz"[axis], entry, exit);
    b.CreateBr(header[axis]);
    b.SetInsertPoint(header[axis]);
    index[axis] = b.CreatePHI(b.getInt32Ty(), 2, std::string("tid.") + "xyz"[axis]);
    index[axis]->addIncoming(b.getInt32(0), before);
    before = header[axis];
  }
  for (unsigned axis = 0; axis < 3; ++axis) args.push_back(index[axis]);
  b.CreateCall(kernel, args);
  for (unsigned axis = 0; axis < 3; ++axis) {
    llvm::BasicBlock* latch = b.GetInsertBlock();
    llvm::Value* next = b.CreateNUWAdd(index[axis], b.getInt32(1));
    index[axis]->addIncoming(next, latch);
    llvm::BasicBlock* after =
        axis == 2 ? exit : llvm::BasicBlock::Create(c, std::string("latch.") + "xyz"[axis + 1], entry, exit);
    b.CreateCondBr(b.CreateICmpULT(next, extent[axis]), header[axis], after);
    b.SetInsertPoint(after);
  }
  b.CreateRetVoid();
}

}  // namespace

HostModuleInfo HostTarget::prepare_for_jit(llvm::Module& module, llvm::Function& kernel) {
  HostModuleInfo info;
  info.uses_barrier = uses_barrier_;
  std::string name = kernel.getName().str();
  info.entry_name = name + "_host_thread";
  llvm::Function* threaded = thread_context(module, &kernel);
  info.static_shared_bytes = place_shared_arrays(module);
  make_thread_entry(module, threaded, info.entry_name);
  if (!uses_barrier_) {
    info.block_entry_name = name + "_host_block";
    make_block_entry(module, threaded, info.block_entry_name);
  }
  threaded->setLinkage(llvm::GlobalValue::InternalLinkage);
  threaded->setCallingConv(llvm::CallingConv::C);
  threaded->addFnAttr(llvm::Attribute::AlwaysInline);
  return info;
}

}  // namespace gpujit
