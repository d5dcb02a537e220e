// The NVPTX back half of a compile (see codegen.h): lower an analysed program, apply the entry's launch
// bounds and register limit, link libdevice (NvptxTarget::finalize_module), optimize and emit PTX.
#include <chrono>
#include <memory>
#include <string>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/codegen.h"
#include "codegen/lowering.h"
#include "codegen/nvptx_target.h"
#include "codegen/pipeline.h"

namespace gpujit {
namespace {

using Clock = std::chrono::steady_clock;

/// The most registers a PTX thread can have, and so the largest useful `.maxnreg`.
constexpr int kMaxRegisters = 255;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

void compile_typed_for_nvptx(const TypedProgram& program, const GlobalEnv& globals,
                             const CompileOptions& options, CompileResult& result) {
  const FunctionDef& def = *program.kernel()->def;
  std::string error;
  if (options.max_registers < 0 || options.max_registers > kMaxRegisters) {
    result.diagnostics.error(def.file, def.name_range,
                             "max_registers must be between 1 and " + std::to_string(kMaxRegisters) +
                                 " (a thread has at most that many), not " +
                                 std::to_string(options.max_registers));
    return;
  }
  std::unique_ptr<NvptxTarget> target =
      NvptxTarget::create(options.arch, options.opt_level, options.fastmath, &error);
  if (!target) {
    result.diagnostics.error(nullptr, SourceRange{}, error);
    return;
  }

  auto start = Clock::now();
  llvm::LLVMContext context;
  LoweredModule lowered =
      lower_program(program, globals, *target, context, options.fastmath, result.diagnostics,
                    options.debug,
                    options.debug_info ? LineInfo::Dwarf : options.lineinfo ? LineInfo::Directives : LineInfo::None,
                    options.entry, options.abi_name);
  result.params = lowered.params;
  result.entry_name = lowered.kernel->getName().str();
  if (result.diagnostics.has_errors()) return;
  if (options.keep_llvm) result.lowered_llvm_ir = print_module(*lowered.module, /*inline_attributes=*/true);
  if (options.entry == EntryKind::Kernel) {
    result.max_threads = options.max_threads;
    if (options.max_registers > 0) limit_registers(*lowered.kernel, options.max_registers);
    // Read by NVPTX's AsmPrinter, as clang's __launch_bounds__ and __cluster_dims__ are.
    if (options.max_threads > 0)
      lowered.kernel->addFnAttr("nvvm.maxntid", std::to_string(options.max_threads) + ",1,1");
    if (options.min_blocks > 0)
      lowered.kernel->addFnAttr("nvvm.minctasm", std::to_string(options.min_blocks));
    if (options.max_cluster_rank > 0)
      lowered.kernel->addFnAttr("nvvm.maxclusterrank", std::to_string(options.max_cluster_rank));
  }
  if (!target->finalize_module(*lowered.module, *lowered.kernel, &error)) {
    result.diagnostics.error(def.file, def.name_range, error);
    return;
  }
  result.ms_lower = ms_since(start);

  start = Clock::now();
  optimize_module(*lowered.module, target->machine(), options.opt_level);
  result.ms_optimize = ms_since(start);
  if (options.keep_llvm) result.llvm_ir = print_module(*lowered.module);

  start = Clock::now();
  result.ptx = emit_assembly(*lowered.module, target->machine());
  result.ms_ptx = ms_since(start);
  result.ok = true;
}

}  // namespace gpujit
