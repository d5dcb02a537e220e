// The NVPTX back half of a compile (see codegen.h): lower an analysed program, apply the entry's launch
// bounds and register limit, link libdevice (NvptxTarget::finalize_module; in a kernel without loops, its
// functions come optimized ahead and are linked after the optimization), optimize and emit PTX.
#include <chrono>
#include <memory>
#include <string>

#include <llvm/ADT/StringExtras.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/codegen.h"
#include "codegen/lowering.h"
#include "codegen/nvptx_target.h"
#include "codegen/nvvm_ir_writer.h"
#include "codegen/pipeline.h"

namespace gpujit {
namespace {

using Clock = std::chrono::steady_clock;

/// The most registers a PTX thread can have, and so the largest useful `.maxnreg`.
constexpr int kMaxRegisters = 255;

/// PTX symbols are ASCII, but Python identifiers are Unicode (`def größe(a)`), and a kernel's, device
/// function's or captured array's symbol carries its Python name: LLVM's PTX printer stops the process on any
/// other byte (found by fuzz_compile). Every byte of a defined symbol outside [A-Za-z0-9_$.] becomes _xHH
/// ('.' is LLVM's own, and the NVPTX backend renames it); setName() keeps the names unique.
void make_ptx_symbol_names(llvm::Module& module) {
  auto allowed = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.'; };
  for (llvm::GlobalValue& g : module.global_values()) {
    if (g.isDeclaration() || llvm::all_of(g.getName(), allowed)) continue;
    std::string name;
    for (char c : g.getName()) {
      name += allowed(c) ? std::string(1, c) : "_x" + llvm::utohexstr(static_cast<unsigned char>(c), true, 2);
    }
    g.setName(name);
  }
}

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
  make_ptx_symbol_names(*lowered.module);
  result.entry_name = lowered.kernel->getName().str();
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
  // Before libdevice is linked and LLVM optimizes: libNVVM links libdevice and optimizes it itself, and the
  // module has fewer of the intrinsics LLVM 7 lacks. For jit(lto=True), a construct the writer cannot express
  // is a warning (the link then uses the PTX, docs/cuda_c.md); for compile(output='ltoir') it is the error.
  const bool lto_link = options.lto && options.entry == EntryKind::Kernel;
  if (lto_link || options.nvvm_ir_output) {
    NvvmIrEntry entry{lowered.kernel, options.entry == EntryKind::Kernel, options.force_inline};
    if (!write_nvvm_ir(*lowered.module, entry, &result.nvvm_ir, &result.nvvm_ir_error)) {
      result.nvvm_ir.clear();
      if (options.nvvm_ir_output) {
        result.diagnostics.error(def.file, def.name_range,
                                 "output='ltoir': " + result.nvvm_ir_error + "; compile to PTX (output='ptx') instead");
        return;
      }
      result.diagnostics.warning(def.file, def.name_range,
                                 "lto=True: " + result.nvvm_ir_error +
                                     "; the kernel is linked as PTX, and its CUDA C functions stay calls");
    }
  }
  if (!target->finalize_module(*lowered.module, *lowered.kernel, &error)) {
    result.diagnostics.error(def.file, def.name_range, error);
    return;
  }
  result.ms_lower = ms_since(start);

  start = Clock::now();
  optimize_module(*lowered.module, target->machine(), options.opt_level);
  result.libdevice_optimized_ahead = target->links_after_optimization();
  if (!target->link_after_optimization(*lowered.module, &error)) {
    result.diagnostics.error(def.file, def.name_range, error);
    return;
  }
  result.ms_optimize = ms_since(start);
  if (options.keep_llvm) result.llvm_ir = print_module(*lowered.module);

  start = Clock::now();
  result.ptx = target->emit(*lowered.module, &result.codegen_prepared_ahead);
  result.ms_ptx = ms_since(start);
  result.ok = true;
}

}  // namespace gpujit
