// The NVPTX target (see nvptx_target.h).
#include "codegen/nvptx_target.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <llvm/Analysis/CFG.h>
#include <llvm/IR/Attributes.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Triple.h>

#include "codegen/codegen.h"
#include "codegen/libdevice.h"
#include "codegen/pipeline.h"
#include "frontend/diagnostics.h"

namespace gpujit {
namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";
constexpr unsigned kMinSm = 75;

void initialize_nvptx_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// GPUJIT_CODEGEN_AGGRESSIVE=1 runs the NVPTX code generator at its aggressive level for opt 3, as gpujit
/// did before: a switch to compare the two, read once per process (TargetMachines are kept and reused).
bool aggressive_codegen_asked() {
  static const bool asked = [] {
    const char* v = std::getenv("GPUJIT_CODEGEN_AGGRESSIVE");
    return v && *v && std::string_view(v) != "0";
  }();
  return asked;
}

/// The code generator's level for LLVM optimization level `opt_level`. Opt 3 optimizes the module at O3 but
/// generates code at the default level: NVPTX's aggressive level differs in running GVN where the default
/// runs EarlyCSE (twice, after its straight-line and loop strength reductions), and ptxas makes up the rest:
/// over the 78 example and benchmark compiles, 70 give the same SASS, 2 the same number of instructions and
/// 6 one to eight fewer, and the tiled matmul compiles 6% faster (docs/python.md, "Compile time").
llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return aggressive_codegen_asked() ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::Default;
  }
}

std::unique_ptr<llvm::TargetMachine> create_machine(const std::string& arch, int opt_level, std::string* error) {
  initialize_nvptx_once();
  llvm::Triple triple(kTriple);
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, *error);
  if (!target) return nullptr;
  llvm::TargetOptions options;
  // a * b + c contracts to fma, as nvcc (-fmad=true) and numba-cuda (NVVM) do by default: one rounding
  // instead of two, and the code CUDA C compiles to. At opt 0 (opt=False, debug=True) nothing contracts,
  // as NVVM does at -opt=0: each operation rounds on its own, as the source reads.
  options.AllowFPOpFusion = opt_level > 0 ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  // The PTX ISA version is left to LLVM, which picks the oldest one that supports `arch`; CUDA 13's ptxas
  // accepts every version LLVM 22 emits for sm_75 and newer.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, arch, "", options, std::nullopt, std::nullopt, codegen_level(opt_level)));
  if (!machine) *error = "LLVM cannot create an NVPTX target for '" + arch + "'";
  return machine;
}

/// One TargetMachine per (arch, level) per thread: building one costs about a millisecond, and a
/// TargetMachine's codegen state must not be shared by two threads emitting at once.
llvm::TargetMachine* cached_machine(const std::string& arch, int opt_level, std::string* error) {
  thread_local std::map<std::pair<std::string, int>, std::unique_ptr<llvm::TargetMachine>> cache;
  auto key = std::make_pair(arch, opt_level);
  if (auto it = cache.find(key); it != cache.end()) return it->second.get();
  std::unique_ptr<llvm::TargetMachine> machine = create_machine(arch, opt_level, error);
  if (!machine) return nullptr;
  return (cache[key] = std::move(machine)).get();
}

/// Code generators built ahead (prepare_nvptx_codegen), at most one ready per (arch, level). Each has a
/// TargetMachine of its own, which no other thread touches while it is built or run; once it has run, its
/// pass manager is destroyed (before the module it ran on) and its machine kept for the next one.
struct PreparedCodegen {
  std::unique_ptr<llvm::TargetMachine> machine;  // declared before the passes, which it outlives
  CodegenPassesPtr passes;
};

struct CodegenPool {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, PreparedCodegen> ready;
  std::map<std::pair<std::string, int>, std::vector<std::unique_ptr<llvm::TargetMachine>>> idle;
  int taken = 0;
};

CodegenPool& codegen_pool() {
  static CodegenPool* pool = new CodegenPool;  // never destroyed: a preparing thread may outlive main()
  return *pool;
}

llvm::Intrinsic::ID sreg_intrinsic(SpecialReg reg, unsigned axis) {
  using namespace llvm::Intrinsic;
  static constexpr ID kTid[] = {nvvm_read_ptx_sreg_tid_x, nvvm_read_ptx_sreg_tid_y, nvvm_read_ptx_sreg_tid_z};
  static constexpr ID kNtid[] = {nvvm_read_ptx_sreg_ntid_x, nvvm_read_ptx_sreg_ntid_y,
                                 nvvm_read_ptx_sreg_ntid_z};
  static constexpr ID kCtaid[] = {nvvm_read_ptx_sreg_ctaid_x, nvvm_read_ptx_sreg_ctaid_y,
                                  nvvm_read_ptx_sreg_ctaid_z};
  static constexpr ID kNctaid[] = {nvvm_read_ptx_sreg_nctaid_x, nvvm_read_ptx_sreg_nctaid_y,
                                   nvvm_read_ptx_sreg_nctaid_z};
  if (axis > 2) throw InternalError("special register axis out of range");
  switch (reg) {
    case SpecialReg::ThreadIdx:
      return kTid[axis];
    case SpecialReg::BlockDim:
      return kNtid[axis];
    case SpecialReg::BlockIdx:
      return kCtaid[axis];
    case SpecialReg::GridDim:
      return kNctaid[axis];
    case SpecialReg::LaneId:
      return nvvm_read_ptx_sreg_laneid;
    case SpecialReg::WarpSize:
      return nvvm_read_ptx_sreg_warpsize;
  }
  throw InternalError("unknown special register");
}

}  // namespace

unsigned parse_sm_version(const std::string& arch) {
  if (arch.size() < 5 || arch.compare(0, 3, "sm_") != 0) return 0;
  unsigned v = 0;
  size_t i = 3;
  for (; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) v = v * 10 + unsigned(arch[i] - '0');
  // sm_90a, sm_100a: architecture-specific variants keep a trailing letter.
  if (i + 1 < arch.size() || (i < arch.size() && arch[i] != 'a' && arch[i] != 'f')) return 0;
  return v;
}

void limit_registers(llvm::Function& kernel, int count) {
  if (count <= 0) throw InternalError("a register limit must be positive");
  kernel.addFnAttr("nvvm.maxnreg", std::to_string(count));
}

std::string NvptxTarget::bfloat16_unsupported() const {
  std::string arch = machine_->getTargetCPU().str();
  if (parse_sm_version(arch) >= 80) return "";
  return "bfloat16 needs a GPU of compute capability 8.0 or newer (sm_80); this kernel is compiled for " + arch;
}

llvm::Value* NvptxTarget::bfloat16_fma_rn(llvm::IRBuilder<>& b, llvm::Value* a, llvm::Value* x, llvm::Value* c) {
  llvm::Type* i16 = b.getInt16Ty();
  auto* type = llvm::FunctionType::get(i16, {i16, i16, i16}, false);
  auto* fma = llvm::InlineAsm::get(type, "fma.rn.bf16 $0, $1, $2, $3;", "=h,h,h,h", false);
  llvm::Value* r = b.CreateCall(fma, {b.CreateBitCast(a, i16), b.CreateBitCast(x, i16), b.CreateBitCast(c, i16)});
  return b.CreateBitCast(r, b.getBFloatTy());
}

namespace {

bool check_arch(const std::string& arch, std::string* error) {
  unsigned sm = parse_sm_version(arch);
  if (sm == 0) {
    *error = "unknown GPU architecture '" + arch + "'; write it as sm_80, sm_90...";
    return false;
  }
  if (sm < kMinSm) {
    *error = "GPU architecture '" + arch + "' is too old; gpujit targets sm_75 and newer";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<NvptxTarget> NvptxTarget::create(const std::string& arch, int opt_level, bool fastmath,
                                                 std::string* error) {
  if (!check_arch(arch, error)) return nullptr;
  llvm::TargetMachine* machine = cached_machine(arch, opt_level, error);
  if (!machine) return nullptr;
  return std::unique_ptr<NvptxTarget>(new NvptxTarget(machine, opt_level, fastmath));
}

void NvptxTarget::init_module(llvm::Module& module) {
  module.setTargetTriple(machine_->getTargetTriple());
  module.setDataLayout(machine_->createDataLayout());
  // Read by the NVVMReflect pass, which resolves libdevice's __nvvm_reflect("__CUDA_FTZ") checks: flush
  // denormals only under fastmath. __CUDA_PREC_SQRT (approximate square roots only under fastmath) is
  // answered when libdevice is linked (finalize_module): LLVM reads no module flag for it.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", fastmath_ ? 1 : 0);
}

void NvptxTarget::mark_kernel(llvm::Function& fn) {
  fn.setCallingConv(llvm::CallingConv::PTX_Kernel);
  fn.setLinkage(llvm::GlobalValue::ExternalLinkage);
}

llvm::Value* NvptxTarget::special_register(llvm::IRBuilder<>& b, SpecialReg reg, unsigned axis) {
  // The intrinsics carry the registers' ranges (tid.x < 1024, ...), which lets LLVM prove index math free
  // of overflow and drop sign checks on grid indices.
  return b.CreateIntrinsic(b.getInt32Ty(), sreg_intrinsic(reg, axis), {});
}

void NvptxTarget::barrier_block(llvm::IRBuilder<>& b) {
  // bar.sync 0: what CUDA's __syncthreads() and numba's syncthreads() compile to.
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all, {}, {b.getInt32(0)});
}

llvm::Value* NvptxTarget::barrier_block_reduce(llvm::IRBuilder<>& b, BarrierReduce op, llvm::Value* pred) {
  using namespace llvm::Intrinsic;
  switch (op) {
    case BarrierReduce::Count:
      return b.CreateIntrinsic(nvvm_barrier_cta_red_popc_aligned_all, {}, {b.getInt32(0), pred});
    case BarrierReduce::And:
      return b.CreateIntrinsic(nvvm_barrier_cta_red_and_aligned_all, {}, {b.getInt32(0), pred});
    case BarrierReduce::Or:
      return b.CreateIntrinsic(nvvm_barrier_cta_red_or_aligned_all, {}, {b.getInt32(0), pred});
  }
  throw InternalError("unknown barrier reduction");
}

void NvptxTarget::barrier_warp(llvm::IRBuilder<>& b, llvm::Value* mask) {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {}, {mask});
}

void NvptxTarget::fence(llvm::IRBuilder<>& b, FenceScope scope) {
  using namespace llvm::Intrinsic;
  switch (scope) {
    case FenceScope::Block:
      b.CreateIntrinsic(nvvm_membar_cta, llvm::ArrayRef<llvm::Type*>(), llvm::ArrayRef<llvm::Value*>());
      return;
    case FenceScope::Device:
      b.CreateIntrinsic(nvvm_membar_gl, llvm::ArrayRef<llvm::Type*>(), llvm::ArrayRef<llvm::Value*>());
      return;
    case FenceScope::System:
      b.CreateIntrinsic(nvvm_membar_sys, llvm::ArrayRef<llvm::Type*>(), llvm::ArrayRef<llvm::Value*>());
      return;
  }
}

llvm::SyncScope::ID NvptxTarget::atomic_scope(llvm::LLVMContext& ctx) const {
  // CUDA's atomicAdd and numba's atomic.add are device-scope (PTX .gpu), not system-scope.
  return ctx.getOrInsertSyncScopeID("device");
}

llvm::Value* NvptxTarget::dynamic_shared_size(llvm::IRBuilder<>& b) {
  // %dynamic_smem_size: what numba-cuda reads (through inline assembly) to size shared.array(0, ...).
  return b.CreateIntrinsic(b.getInt32Ty(), llvm::Intrinsic::nvvm_read_ptx_sreg_dynamic_smem_size, {});
}

// Cache operators have no LLVM intrinsic: the load or store is inline PTX, as numba-cuda writes it, on the
// element's address converted to the global space (cvta.to.global). PTX has no 8-bit registers, so an 8-bit
// value travels in a 32-bit one (ld and st take wider registers than their type). The asm has side
// effects and clobbers memory, so LLVM neither drops it nor moves memory accesses across it: a volatile
// ldcv in a polling loop is read again on every iteration.
llvm::Value* NvptxTarget::load_cached(llvm::IRBuilder<>& b, std::string_view op, llvm::Type* type,
                                      llvm::Value* ptr) {
  const unsigned bits = type->getPrimitiveSizeInBits();
  llvm::Type* reg = bits == 8 ? b.getInt32Ty() : b.getIntNTy(bits);
  const char* constraint = bits == 16 ? "h" : bits == 64 ? "l" : "r";
  auto* fty = llvm::FunctionType::get(reg, {b.getInt64Ty()}, false);
  auto* ld = llvm::InlineAsm::get(fty, fmt::format("ld.global.{}.b{} $0, [$1];", op, bits),
                                  fmt::format("={},l,~{{memory}}", constraint), true);
  llvm::Value* address = b.CreatePtrToInt(b.CreateAddrSpaceCast(ptr, b.getPtrTy(1)), b.getInt64Ty());
  llvm::Value* v = b.CreateCall(ld, {address});
  if (bits == 8) v = b.CreateTrunc(v, b.getInt8Ty());
  return b.CreateBitCast(v, type);
}

void NvptxTarget::store_cached(llvm::IRBuilder<>& b, std::string_view op, llvm::Value* value,
                               llvm::Value* ptr) {
  const unsigned bits = value->getType()->getPrimitiveSizeInBits();
  llvm::Value* v = b.CreateBitCast(value, b.getIntNTy(bits));
  if (bits == 8) v = b.CreateZExt(v, b.getInt32Ty());
  const char* constraint = bits == 16 ? "h" : bits == 64 ? "l" : "r";
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getInt64Ty(), v->getType()}, false);
  auto* st = llvm::InlineAsm::get(fty, fmt::format("st.global.{}.b{} [$0], $1;", op, bits),
                                  fmt::format("l,{},~{{memory}}", constraint), true);
  llvm::Value* address = b.CreatePtrToInt(b.CreateAddrSpaceCast(ptr, b.getPtrTy(1)), b.getInt64Ty());
  b.CreateCall(st, {address, v});
}

// PTX converts a byte to half in one instruction, cvt.rn.f16.s8 (nvcc's and numba's code); LLVM has no
// 8-bit registers and converts from the value widened to 16 bits. The same result either way; the asm is
// free of side effects, so LLVM may still move, merge or drop it, and a constant is folded instead.
llvm::Value* NvptxTarget::byte_to_half(llvm::IRBuilder<>& b, llvm::Value* v, bool is_signed) {
  if (llvm::isa<llvm::Constant>(v)) return Target::byte_to_half(b, v, is_signed);
  llvm::Value* wide = is_signed ? b.CreateSExt(v, b.getInt16Ty()) : b.CreateZExt(v, b.getInt16Ty());
  auto* fty = llvm::FunctionType::get(b.getInt16Ty(), {b.getInt16Ty()}, false);
  auto* cvt = llvm::InlineAsm::get(fty, is_signed ? "cvt.rn.f16.s8 $0, $1;" : "cvt.rn.f16.u8 $0, $1;", "=h,h",
                                   /*hasSideEffects=*/false);
  return b.CreateBitCast(b.CreateCall(cvt, {wide}), b.getHalfTy());
}

void NvptxTarget::nanosleep(llvm::IRBuilder<>& b, llvm::Value* ns) {
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getInt32Ty()}, false);
  b.CreateCall(llvm::InlineAsm::get(fty, "nanosleep.u32 $0;", "r", true), {ns});
}

void NvptxTarget::print(llvm::IRBuilder<>& b, llvm::Value* format, llvm::ArrayRef<llvm::Value*> args) {
  // CUDA's device printf is `i32 vprintf(ptr format, ptr args)`, the arguments laid out in a local buffer
  // as a struct of the promoted values, each at its natural alignment.
  llvm::Module* module = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee vprintf = module->getOrInsertFunction(
      "vprintf", llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy()}, false));
  llvm::Value* buffer = llvm::ConstantPointerNull::get(b.getPtrTy());
  if (!args.empty()) {
    std::vector<llvm::Type*> fields;
    for (llvm::Value* a : args) fields.push_back(a->getType());
    llvm::StructType* type = llvm::StructType::get(b.getContext(), fields);
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* slot = entry.CreateAlloca(type, nullptr, "printf.args");
    for (unsigned i = 0; i < args.size(); ++i) b.CreateStore(args[i], b.CreateStructGEP(type, slot, i));
    buffer = slot;
  }
  b.CreateCall(vprintf, {format, buffer});
}

namespace {

/// numba-cuda's fastmath for float32 (its mathimpl.py): these functions call libdevice's approximate
/// variants, which are the PTX approximate instructions (sin.approx.ftz.f32, ex2.approx.ftz.f32,
/// lg2.approx.ftz.f32...) with a few operations around them.
std::string_view fast_float32_variant(std::string_view name) {
  static const std::map<std::string_view, std::string_view> variants = {
      {"__nv_sinf", "__nv_fast_sinf"},     {"__nv_cosf", "__nv_fast_cosf"}, {"__nv_tanf", "__nv_fast_tanf"},
      {"__nv_expf", "__nv_fast_expf"},     {"__nv_logf", "__nv_fast_logf"}, {"__nv_log2f", "__nv_fast_log2f"},
      {"__nv_log10f", "__nv_fast_log10f"}, {"__nv_powf", "__nv_fast_powf"},
  };
  auto it = variants.find(name);
  return it == variants.end() ? name : it->second;
}

}  // namespace

llvm::Value* NvptxTarget::call_math(llvm::IRBuilder<>& b, std::string_view libdevice_name,
                                    llvm::ArrayRef<llvm::Value*> args, llvm::Type* ret) {
  if (fastmath_ && ret->isFloatTy()) {
    // tanh has no libdevice variant: numba emits PTX's tanh.approx.f32, which LLVM has no intrinsic for. It
    // needs PTX ISA 7.0, which LLVM emits for sm_80 and newer (sm_75 gets 6.3): sm_75 keeps libdevice's
    // tanhf, whose flush-to-zero build is approximate too (ex2.approx, rcp.approx).
    if (libdevice_name == "__nv_tanhf" && args.size() == 1 &&
        parse_sm_version(machine_->getTargetCPU().str()) >= 80) {
      auto* asm_fn = llvm::InlineAsm::get(llvm::FunctionType::get(ret, {ret}, false),
                                          "tanh.approx.f32 $0, $1;", "=f,f", /*hasSideEffects=*/false);
      return b.CreateCall(asm_fn, args);
    }
    libdevice_name = fast_float32_variant(libdevice_name);
  }
  uses_libdevice_ = true;
  llvm::Module* module = b.GetInsertBlock()->getModule();
  std::vector<llvm::Type*> params;
  for (llvm::Value* a : args) params.push_back(a->getType());
  llvm::FunctionCallee fn =
      module->getOrInsertFunction(llvm::StringRef(libdevice_name.data(), libdevice_name.size()),
                                  llvm::FunctionType::get(ret, params, false));
  return b.CreateCall(fn, args);
}

namespace {

/// Whether a function of `module` has a loop (a back edge in its control flow).
bool has_loop(llvm::Module& module) {
  for (llvm::Function& fn : module) {
    if (fn.isDeclaration()) continue;
    llvm::SmallVector<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, 4> back_edges;
    llvm::FindFunctionBackedges(fn, back_edges);
    if (!back_edges.empty()) return true;
  }
  return false;
}

/// GPUJIT_LATE_LIBDEVICE=0 links libdevice before optimization in every kernel, as gpujit did before: a
/// switch to compare the two (the kernels' tests do).
bool late_libdevice_allowed() {
  const char* v = std::getenv("GPUJIT_LATE_LIBDEVICE");
  return !(v && std::string_view(v) == "0");
}

}  // namespace

bool NvptxTarget::finalize_module(llvm::Module& module, llvm::Function& kernel, std::string* error) {
  if (uses_libdevice_) {
    // Already optimized bodies, linked after the kernel's optimization (libdevice.h), where nothing gains by
    // optimizing them again: a kernel without loops, at an optimizing level.
    const bool optimizing = machine_->getOptLevel() != llvm::CodeGenOptLevel::None;
    if (optimizing && late_libdevice_allowed() && !has_loop(module)) {
      if (!prepare_optimized_libdevice(module, *machine_, fastmath_, &optimized_libdevice_, error))
        return false;
    } else {
      if (!link_libdevice(module, error)) return false;
      resolve_prec_sqrt(module, fastmath_ ? 0 : 1);
    }
  }
  for (llvm::Function& fn : module) {
    if (fn.isDeclaration() || &fn == &kernel) continue;
    // Device functions and linked libdevice code are private to this module: once inlined, LLVM drops them.
    fn.setLinkage(llvm::GlobalValue::InternalLinkage);
    if (fastmath_) fn.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
  }
  if (fastmath_) kernel.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
  return true;
}

bool prepare_nvptx_codegen(const std::string& arch, int opt_level, std::string* error) {
  if (!check_arch(arch, error)) return false;
  CodegenPool& pool = codegen_pool();
  const auto key = std::make_pair(arch, opt_level);
  std::unique_ptr<llvm::TargetMachine> machine;
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (pool.ready.count(key)) return true;
    auto& idle = pool.idle[key];
    if (!idle.empty()) {
      machine = std::move(idle.back());
      idle.pop_back();
    }
  }
  if (!machine) machine = create_machine(arch, opt_level, error);
  if (!machine) return false;
  PreparedCodegen prepared{std::move(machine), nullptr};
  prepared.passes = build_codegen_passes(*prepared.machine);
  std::lock_guard<std::mutex> lock(pool.mutex);
  if (pool.ready.count(key)) {  // another thread prepared one meanwhile: keep the machine for later
    prepared.passes.reset();
    pool.idle[key].push_back(std::move(prepared.machine));
  } else {
    pool.ready.emplace(key, std::move(prepared));
  }
  return true;
}

int nvptx_codegen_taken() {
  std::lock_guard<std::mutex> lock(codegen_pool().mutex);
  return codegen_pool().taken;
}

std::string NvptxTarget::emit(llvm::Module& module, bool* prepared_ahead) {
  CodegenPool& pool = codegen_pool();
  const auto key = std::make_pair(machine_->getTargetCPU().str(), opt_level_);
  std::optional<PreparedCodegen> prepared;
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto it = pool.ready.find(key);
    if (it != pool.ready.end()) {
      prepared.emplace(std::move(it->second));
      pool.ready.erase(it);
      ++pool.taken;
    }
  }
  *prepared_ahead = prepared.has_value();
  if (!prepared) return emit_assembly(module, *machine_);
  std::string text = run_codegen_passes(module, *prepared->passes);
  prepared->passes.reset();  // here, while the module it ran on exists
  std::lock_guard<std::mutex> lock(pool.mutex);
  pool.idle[key].push_back(std::move(prepared->machine));
  return text;
}

bool NvptxTarget::link_after_optimization(llvm::Module& module, std::string* error) {
  if (optimized_libdevice_.empty()) return true;
  return link_optimized_libdevice(module, *machine_, optimized_libdevice_, error);
}

}  // namespace gpujit
