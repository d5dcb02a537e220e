// The host back half of compile() and the process's JIT (see host_jit.h).
//
// One LLJIT per process, created on first use and never destroyed (kernels may be released during static
// destruction, and the JIT must outlive them). Its main JITDylib holds the runtime entry points generated
// code calls (host_abi.h), defined by address: the core library may be loaded RTLD_LOCAL by Python, where a
// search of the process's symbols would not see them. Each kernel gets its own JITDylib, linked to the main
// one and to the process's symbols (libm); its destructor removes it, which frees the code. The JIT always
// generates code at the highest codegen level; the IR level follows CompileOptions::opt_level.
#include "codegen/host_jit.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include <llvm/ExecutionEngine/Orc/AbsoluteSymbols.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/codegen.h"
#include "codegen/host_target.h"
#include "codegen/lowering.h"
#include "codegen/pipeline.h"
#include "frontend/diagnostics.h"
#include "ir/typed_function.h"

#if defined(__x86_64__)
// Half-precision conversions LLVM calls where x86-64 has no instruction for them (double to half always;
// float to and from half without F16C). They are libgcc's; Python loads libgcc with our extension
// privately (RTLD_LOCAL), so the JIT's search of the process's symbols does not find them, and they are
// bound by address below. Declared only to take their addresses; the JIT calls them with LLVM's signature.
extern "C" {
void __truncdfhf2();
void __truncsfhf2();
void __extendhfsf2();
}
#endif
// libgcc's integer powers, which llvm.powi becomes (libdevice.powi, round(x, ndigits)): bound by address too.
extern "C" {
double __powidf2(double, int);
float __powisf2(float, int);
}

namespace gpujit {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

class HostJit {
 public:
  /// The process's JIT; throws InternalError if LLVM cannot JIT for this CPU.
  static HostJit& instance() {
    static HostJit* jit = new HostJit();
    return *jit;
  }

  /// Loads an optimized module into a fresh JITDylib and returns the addresses of `names` in it.
  std::vector<HostEntryFn> load(std::unique_ptr<llvm::Module> module,
                                std::unique_ptr<llvm::LLVMContext> context,
                                const std::vector<std::string>& names, llvm::orc::JITDylib** dylib_out) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string name = "gpujit_kernel_" + std::to_string(next_id_++);
    auto created = jit_->createJITDylib(name);
    if (!created)
      throw InternalError("host JIT: creating a JITDylib: " + llvm::toString(created.takeError()));
    llvm::orc::JITDylib& dylib = *created;
    dylib.addToLinkOrder(jit_->getMainJITDylib());
    llvm::orc::ThreadSafeModule tsm(std::move(module), llvm::orc::ThreadSafeContext(std::move(context)));
    if (llvm::Error e = jit_->addIRModule(dylib, std::move(tsm))) {
      release_locked(dylib);
      throw InternalError("host JIT: adding a module failed: " + llvm::toString(std::move(e)));
    }
    std::vector<HostEntryFn> entries;
    for (const std::string& name : names) {
      auto address = jit_->lookup(dylib, name);
      if (!address) {
        std::string message = llvm::toString(address.takeError());
        release_locked(dylib);
        throw InternalError("host JIT: linking '" + name + "' failed: " + message);
      }
      entries.push_back(address->toPtr<HostEntryFn>());
    }
    *dylib_out = &dylib;
    return entries;
  }

  void release(llvm::orc::JITDylib* dylib) {
    std::lock_guard<std::mutex> lock(mutex_);
    release_locked(*dylib);
  }

 private:
  HostJit() {
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder) throw InternalError("host JIT: " + llvm::toString(builder.takeError()));
    builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    jit_ = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*builder)).create(),
                 "creating the JIT");
    llvm::orc::SymbolMap runtime;
    auto define = [&](const char* name, auto* fn) {
      runtime[jit_->mangleAndIntern(name)] = {
          llvm::orc::ExecutorAddr::fromPtr(fn),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    };
    define("gpujit_host_syncthreads", &gpujit_host_syncthreads);
    define("gpujit_host_syncthreads_count", &gpujit_host_syncthreads_count);
    define("gpujit_host_syncthreads_and", &gpujit_host_syncthreads_and);
    define("gpujit_host_syncthreads_or", &gpujit_host_syncthreads_or);
    define("gpujit_host_syncwarp", &gpujit_host_syncwarp);
    define("gpujit_host_warp", &gpujit_host_warp);
    define("gpujit_host_grid_sync", &gpujit_host_grid_sync);
    define("gpujit_host_index_error", &gpujit_host_index_error);
    define("gpujit_host_raise", &gpujit_host_raise);
#if defined(__x86_64__)
    define("__truncdfhf2", &__truncdfhf2);
    define("__truncsfhf2", &__truncsfhf2);
    define("__extendhfsf2", &__extendhfsf2);
#endif
    define("__powidf2", &__powidf2);
    define("__powisf2", &__powisf2);
    if (llvm::Error e = jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime))))
      throw InternalError("host JIT: " + llvm::toString(std::move(e)));
  }

  template <typename T>
  static T check(llvm::Expected<T> value, const char* what) {
    if (!value)
      throw InternalError(std::string("host JIT: ") + what + ": " + llvm::toString(value.takeError()));
    return std::move(*value);
  }

  void release_locked(llvm::orc::JITDylib& dylib) {
    // Errors here would only come from code still being materialized for this dylib, which cannot happen once
    // load() returned; nothing useful can be done with them in a destructor.
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(dylib));
  }

  std::mutex mutex_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  uint64_t next_id_ = 0;
};

}  // namespace

HostCode::~HostCode() {
  if (jit_dylib != nullptr) HostJit::instance().release(static_cast<llvm::orc::JITDylib*>(jit_dylib));
}

void compile_typed_for_host(const TypedProgram& program, const GlobalEnv& globals,
                            const CompileOptions& options, CompileResult& result) {
  std::string error;
  std::unique_ptr<HostTarget> target = HostTarget::create(options.opt_level, options.fastmath, &error);
  if (!target) {
    result.diagnostics.error(nullptr, SourceRange{}, error);
    return;
  }
  auto context = std::make_unique<llvm::LLVMContext>();

  auto start = std::chrono::steady_clock::now();
  LoweredModule lowered = lower_program(program, globals, *target, *context, options.fastmath,
                                        result.diagnostics, options.debug);
  result.params = lowered.params;
  result.entry_name = lowered.kernel->getName().str();
  if (result.diagnostics.has_errors()) return;
  if (!target->finalize_module(*lowered.module, *lowered.kernel, &error)) {
    const TypedFunction* kernel = program.kernel();
    result.diagnostics.error(kernel->def->file, kernel->def->name_range, error);
    return;
  }
  HostModuleInfo info = target->prepare_for_jit(*lowered.module, *lowered.kernel);
  lowered.kernel = nullptr;  // replaced by prepare_for_jit
  {
    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyModule(*lowered.module, &os))
      throw InternalError("host codegen produced invalid LLVM IR:\n" + problems);
  }
  result.ms_lower = ms_since(start);

  start = std::chrono::steady_clock::now();
  optimize_module(*lowered.module, target->machine(), options.opt_level);
  result.ms_optimize = ms_since(start);
  if (options.keep_llvm) result.llvm_ir = print_module(*lowered.module);

  start = std::chrono::steady_clock::now();
  auto code = std::make_shared<HostCode>();
  llvm::orc::JITDylib* dylib = nullptr;
  std::vector<std::string> names{info.entry_name};
  if (!info.block_entry_name.empty()) names.push_back(info.block_entry_name);
  std::vector<HostEntryFn> entries =
      HostJit::instance().load(std::move(lowered.module), std::move(context), names, &dylib);
  code->jit_dylib = dylib;
  code->entry = entries[0];
  code->block_entry = entries.size() > 1 ? entries[1] : nullptr;
  code->entry_name = info.entry_name;
  code->static_shared_bytes = info.static_shared_bytes;
  code->uses_barrier = info.uses_barrier;
  result.host = std::move(code);
  result.max_threads = options.max_threads;  // launch_bounds: the cpu backend enforces it at launch
  result.ms_ptx = ms_since(start);
  result.ok = true;
}

}  // namespace gpujit
