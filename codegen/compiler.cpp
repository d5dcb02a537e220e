// The single compile entry (see compiler.h): the pipeline's table of contents.
//
//   parse (parse_source, before compile) -> analyze (ir/sema.h) -> lower (codegen/lowering.h)
//     -> finalize for the target (link libdevice) -> optimize (O3) -> emit PTX (codegen/pipeline.h)
//
// Each stage is timed into the result and, when asked, dumped. A user error at any stage ends the compile
// with ok == false and the diagnostics in the result; nothing here throws for user errors. The host target
// shares everything up to analysis and then hands over to compile_typed_for_host (codegen/host_jit.h).
#include "codegen/compiler.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include <llvm/ADT/StringExtras.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/host_jit.h"
#include "codegen/lowering.h"
#include "codegen/nvptx_target.h"
#include "codegen/pipeline.h"
#include "frontend/ast_dump.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "ir/sema.h"

namespace gpujit {
namespace {

using Clock = std::chrono::steady_clock;

/// The most registers a PTX thread can have, and so the largest useful `.maxnreg`.
constexpr int kMaxRegisters = 255;

/// PTX's identifier rule: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+.
bool is_ptx_identifier(const std::string& name) {
  auto follows = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  if (name.empty() || !std::all_of(name.begin() + 1, name.end(), follows)) return false;
  if (std::isalpha(static_cast<unsigned char>(name[0]))) return true;
  return (name[0] == '_' || name[0] == '$' || name[0] == '%') && name.size() > 1;
}

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

/// Lowers, optimizes and emits PTX for an analysed program.
void compile_typed_for_nvptx(const TypedProgram& program, const CompileRequest& request,
                             CompileResult& result) {
  const CompileOptions& options = request.options;
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
      lower_program(program, request.globals, *target, context, options.fastmath, result.diagnostics,
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

}  // namespace

CompileResult compile(const CompileRequest& request) {
  CompileResult result;
  if (!request.module) throw InternalError("compile() was given no module");
  const Module& module = *request.module;
  const CompileOptions& options = request.options;

  if (module.errors.has_errors()) {
    result.diagnostics.append(module.errors);
    return result;
  }
  const FunctionDef* kernel = module.find_function(request.kernel_name);
  if (!kernel) {
    result.diagnostics.error(module.file, SourceRange{},
                             "no function named '" + request.kernel_name + "' in " + module.file->name());
    return result;
  }
  if (options.keep_tokens) {
    Diagnostics ignored;  // the parse already reported any lexical error
    result.tokens = dump_tokens(tokenize(module.file, ignored));
  }
  if (options.keep_ast) result.ast = dump_ast(*kernel);

  // analyze() reports the syntax errors kept in the kernel's and its device functions' FunctionDef::errors.
  auto start = Clock::now();
  if (options.entry != EntryKind::Kernel && options.target != TargetKind::Nvptx) {
    result.diagnostics.error(kernel->file, kernel->name_range,
                             "a device function compiles on its own to PTX only, not for the cpu backend");
    return result;
  }
  if (options.entry == EntryKind::DeviceC) {
    const std::string& symbol = options.abi_name.empty() ? kernel->name : options.abi_name;
    if (!is_ptx_identifier(symbol)) {
      result.diagnostics.error(kernel->file, kernel->name_range,
                               "'" + symbol +
                                   "' cannot name a PTX function: a name is a letter, or _ or $ and "
                                   "at least one more character, followed by letters, digits, _ and $; " +
                                   (options.abi_name.empty() ? "give one with abi_info={'abi_name': ...}"
                                                             : "choose another abi_name"));
      return result;
    }
  }
  EntrySpec entry{options.entry != EntryKind::Kernel, request.return_type};
  std::unique_ptr<TypedProgram> program = analyze(*kernel, request.arg_types, request.globals,
                                                  result.diagnostics, request.options.warn_float64, entry);
  result.ms_sema = ms_since(start);
  if (!program || result.diagnostics.has_errors()) return result;
  result.signature = program->kernel()->signature;
  result.uses_grid_sync = uses_grid_sync(*program);
  if (options.keep_typed) result.typed = dump_typed(*program);

  if (options.target == TargetKind::Host) {
    compile_typed_for_host(*program, request, result);
  } else {
    compile_typed_for_nvptx(*program, request, result);
  }
  return result;
}

std::shared_ptr<const Module> parse_source(const std::string& filename, const std::string& text,
                                           unsigned first_line) {
  return parse_module(std::make_shared<const SourceFile>(filename, text, first_line));
}

}  // namespace gpujit
