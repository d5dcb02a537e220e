// Fuzz target (a): the lexer and the parser. Any bytes are a source file; tokenizing and parsing them must end
// in tokens, an AST and diagnostics, never a crash, a sanitizer report, a hang or an exception. The dumps and the
// rendered diagnostics run too, since they walk everything the parser built.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "frontend/ast_dump.h"
#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "frontend/source.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpujit;
  fuzz::FuzzInput in = fuzz::split_input(data, size);
  // A function's text handed over by the Python shim starts at its line in the user's file.
  uint32_t first_line = 1 + in.options % 4 * 100;
  auto file = std::make_shared<SourceFile>("fuzz.py", in.source, first_line);

  Diagnostics lex_diags;
  std::vector<Token> tokens = tokenize(file, lex_diags);
  std::string text = dump_tokens(tokens) + lex_diags.render();

  std::unique_ptr<Module> module = parse_module(file);
  text += dump_module(*module) + module->errors.render();
  for (const FunctionDefPtr& fn : module->functions) text += dump_ast(*fn) + fn->errors.render();
  return text.empty() && size > 1 << 30;  // keeps the work observable; always 0
}
