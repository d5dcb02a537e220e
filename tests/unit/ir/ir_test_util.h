// Helpers for the ir/ unit tests: parse a source string, build its globals the way the CLI does, analyse one
// kernel for a signature string, and read the first error as "line:col: message".
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "frontend/parser.h"
#include "ir/globals.h"
#include "ir/sema.h"

namespace gpujit::test {

struct Analyzed {
  std::shared_ptr<Module> module;
  GlobalEnv globals;
  Diagnostics diags;
  std::unique_ptr<TypedProgram> program;

  const TypedFunction& kernel() const { return *program->kernel(); }
  /// "line:col: message" of the first error, or "" when analysis succeeded.
  std::string first_error() const {
    const Diagnostic* d = diags.first_error();
    if (!d) return "";
    return std::to_string(d->range.begin.line) + ":" + std::to_string(d->range.begin.col) + ": " + d->message;
  }
};

/// Parses `source` as kernel.py and analyses `kernel` for `signature` ("float32[:], int64").
inline Analyzed analyze_source(const std::string& source, const std::string& kernel,
                               const std::string& signature) {
  Analyzed a;
  a.module = parse_module(std::make_shared<SourceFile>("kernel.py", source));
  EXPECT_FALSE(a.module->errors.has_errors()) << a.module->errors.render();
  a.globals = globals_from_module(*a.module, a.diags);
  std::string err;
  std::optional<Signature> sig = parse_signature(signature, &err);
  EXPECT_TRUE(sig.has_value()) << err;
  const FunctionDef* f = a.module->find_function(kernel);
  EXPECT_NE(f, nullptr) << "no function " << kernel;
  if (!f || !sig) return a;
  a.program = analyze(*f, sig->params, a.globals, a.diags);
  return a;
}

/// The one error analysis reported, as "line:col: message"; fails the test if it reported none or several.
inline std::string only_error_of(const Analyzed& a) {
  EXPECT_FALSE(a.program);
  EXPECT_EQ(a.diags.error_count(), 1u) << a.diags.render();
  return a.first_error();
}

/// The type analysis gave the local variable `name` of the kernel.
inline std::string local_type(const Analyzed& a, const std::string& name) {
  if (!a.program) return "<no program: " + a.first_error() + ">";
  auto it = a.kernel().locals.find(name);
  return it == a.kernel().locals.end() ? "<none>" : it->second.str();
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gpujit::test
