// Fuzz target (b): the parser and semantic analysis (type inference and checking). The input is source text
// and a trailer choosing the function and its signature (fuzz_input.h); analysis must end in a typed program
// or diagnostics. An InternalError (a broken compiler invariant) or any other exception escapes and is
// reported by libFuzzer as a crash, like a sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "frontend/diagnostics.h"
#include "frontend/parser.h"
#include "frontend/source.h"
#include "fuzz_input.h"
#include "ir/globals.h"
#include "ir/sema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpujit;
  fuzz::FuzzInput in = fuzz::split_input(data, size);
  std::unique_ptr<Module> module = parse_module(std::make_shared<SourceFile>("fuzz.py", in.source));
  if (module->errors.has_errors()) return 0;
  const FunctionDef* fn = fuzz::choose_function(*module, in.kernel_name);
  if (fn == nullptr) return 0;
  Signature sig = fuzz::choose_signature(in, *fn);

  Diagnostics diags;
  GlobalEnv globals = globals_from_module(*module, diags);
  EntrySpec entry;
  entry.device = in.options >> 6 >= 2;
  if (entry.device) entry.return_type = sig.ret;
  bool warn_float64 = in.options & 1;
  std::unique_ptr<TypedProgram> program = analyze(*fn, sig.params, globals, diags, warn_float64, entry);
  std::string text = diags.render();
  if (program) text += dump_typed(*program);
  return text.empty() && size > 1 << 30;  // keeps the work observable; always 0
}
