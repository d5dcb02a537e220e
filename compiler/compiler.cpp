// The compile driver (see compiler.h): the pipeline's table of contents. Each stage is one layer's entry,
// and each can be dumped (CompileOptions::keep_*, the CLI's --emit):
//
//   source text  -> tokens        frontend/lexer.h     tokenize()           --emit tokens
//   tokens       -> AST           frontend/parser.h    parse_module()       --emit ast      (parse_source)
//   AST          -> typed AST     ir/sema.h            analyze()            --emit typed
//   typed AST    -> LLVM IR       codegen/codegen.h    lower, link libdevice, optimize  --emit llvm
//   LLVM IR      -> PTX           codegen/codegen.h    compile_typed_for_nvptx()        --emit ptx
//              or -> host code    codegen/codegen.h    compile_typed_for_host() (JIT-loaded, cpu backend)
//
// The cache key of a request (the on-disk kernel cache's) is computed here too, in cache_key.cpp. Each stage
// is timed into the result. A user error at any stage ends the compile with ok == false and the diagnostics
// in the result; nothing here throws for user errors. The host target shares everything up to analysis.
#include "compiler/compiler.h"
#include "compiler/warm_up.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include <llvm/Config/llvm-config.h>

#include "codegen/codegen.h"
#include "codegen/libdevice.h"
#include "codegen/lowering.h"
#include "frontend/ast_dump.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "ir/sema.h"

namespace gpujit {
namespace {

using Clock = std::chrono::steady_clock;

/// PTX's identifier rule: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+.
bool is_ptx_identifier(const std::string& name) {
  auto follows = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  if (name.empty() || !std::all_of(name.begin() + 1, name.end(), follows)) return false;
  if (std::isalpha(static_cast<unsigned char>(name[0]))) return true;
  return (name[0] == '_' || name[0] == '$' || name[0] == '%') && name.size() > 1;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// CompileResult::link: jit's link= first, then each external function's code (functions in program order,
/// callees before callers), each input once.
void collect_link(const TypedProgram& program, const CompileOptions& options, CompileResult& result) {
  auto add = [&](const LinkFile& f) {
    if (std::find(result.link.begin(), result.link.end(), f) == result.link.end()) result.link.push_back(f);
  };
  for (const LinkFile& f : options.link) add(f);
  for (const auto& fn : program.functions) {
    for (const ExternFunction* x : fn->externs) {
      // Code given as LLVM IR (a numba lowering, codegen/extern_lowering.cpp) is already in the module.
      if (!x->link.empty() && std::all_of(x->link.begin(), x->link.end(), [](const LinkFile& f) {
            return f.kind == "llvm";
          }))
        continue;
      if (std::find(result.extern_functions.begin(), result.extern_functions.end(), x->name) ==
          result.extern_functions.end())
        result.extern_functions.push_back(x->name);
      for (const LinkFile& f : x->link) add(f);
    }
  }
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
                                                  result.diagnostics, request.options.warn_float64, entry,
                                                  request.overloads.get());
  result.ms_sema = ms_since(start);
  if (!program || result.diagnostics.has_errors()) return result;
  result.signature = program->kernel()->signature;
  result.uses_grid_sync = uses_grid_sync(*program);
  for (const auto& fn : program->functions) {
    if (!fn->is_kernel && fn.get() != program->kernel())
      result.device_functions.push_back({fn->def, fn->signature.params});
  }
  if (options.keep_typed) result.typed = dump_typed(*program);

  if (options.target == TargetKind::Host) {
    compile_typed_for_host(*program, request.globals, options, result);
    // Listed, never linked: the host backend loads no device code, but the module callbacks of jit's link=
    // inputs run when the kernel loads there too (python/src/module_callbacks.h).
    if (result.ok) collect_link(*program, options, result);
  } else {
    if (options.opt_level > 0) warm_up_arch(options.arch);  // in the background, once per architecture
    compile_typed_for_nvptx(*program, request.globals, options, result);
    if (result.ok) collect_link(*program, options, result);
    if (result.ok) prepare_codegen(options.arch, options.opt_level);  // for the next compile, in the background
  }
  return result;
}

CompileResult compile_host(CompileRequest request) {
  request.options.target = TargetKind::Host;
  return compile(request);
}

std::shared_ptr<const Module> parse_source(const std::string& filename, const std::string& text,
                                           unsigned first_line) {
  return parse_module(std::make_shared<const SourceFile>(filename, text, first_line));
}

Toolchain toolchain() {
  Toolchain t;
  t.llvm_version = LLVM_VERSION_STRING;
  t.libdevice = find_libdevice(&t.libdevice_searched);
  return t;
}

}  // namespace gpujit
