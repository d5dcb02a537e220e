// Fuzz target (c): the whole compile to PTX, through the public entry compile() the CLI and the Python
// binding use: parse, analysis, lowering to LLVM IR, LLVM's optimizer and the NVPTX backend. The input's
// trailer (fuzz_input.h) picks the kernel, its signature, the architecture and the options (fastmath, bounds
// checks, line and debug info, optimization level, kernel or device-function entry). A compile must succeed or
// report diagnostics; an InternalError, an LLVM fatal error (which exits) or a sanitizer report is a crash.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "compiler/compiler.h"
#include "ir/globals.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpujit;
  fuzz::FuzzInput in = fuzz::split_input(data, size);
  std::shared_ptr<const Module> module = parse_source("fuzz.py", in.source);
  if (module->errors.has_errors()) return 0;
  const FunctionDef* fn = fuzz::choose_function(*module, in.kernel_name);
  if (fn == nullptr) return 0;
  Signature sig = fuzz::choose_signature(in, *fn);

  CompileRequest request;
  request.module = module;
  request.kernel_name = fn->name;
  request.arg_types = sig.params;
  Diagnostics global_diags;
  request.globals = globals_from_module(*module, global_diags);
  CompileOptions& o = request.options;
  o.fastmath = in.options & 1;
  o.debug = in.options & 2;
  o.lineinfo = in.options & 4;
  o.debug_info = in.options & 8;
  o.opt_level = (in.options >> 4) & 3;
  switch (in.options >> 6) {
    case 2: o.entry = EntryKind::DeviceC; break;
    case 3: o.entry = EntryKind::DeviceNumba; break;
    default: o.entry = EntryKind::Kernel; break;
  }
  if (o.entry != EntryKind::Kernel) request.return_type = sig.ret;
  o.arch = fuzz::choose_arch(in.arch);
  o.keep_typed = o.keep_llvm = in.arch & 0x80;

  CompileResult result = compile(request);
  std::string text = global_diags.render() + result.diagnostics.render();
  if (result.ok && result.ptx.empty()) __builtin_trap();  // a successful compile always yields PTX
  return text.empty() && size > 1 << 30;  // keeps the work observable; always 0
}
