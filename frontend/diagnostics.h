// Diagnostics: user errors collected across the stages of a compile.
//
// A user error (bad syntax, a type mismatch, an unsupported construct) never aborts a stage: the stage
// reports it here and carries on so one compile can report several. Internal compiler errors are a
// different thing (a broken invariant) and are raised as gpujit::InternalError. Rendering follows clang:
//
//   kernel.py:12:9: error: cannot add 'float32[:]' and 'int64'
//       c = a + 1
//           ^~~~~
//
// Messages are lowercase and name the construct and, where one exists, the fix.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/source.h"

namespace gpujit {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
  SourceFilePtr file;  // may be null for errors with no source position (a bad signature string, say)
};

/// Collects diagnostics in the order they were reported.
class Diagnostics {
 public:
  void error(const SourceFilePtr& file, SourceRange range, std::string message);
  void warning(const SourceFilePtr& file, SourceRange range, std::string message);
  void note(const SourceFilePtr& file, SourceRange range, std::string message);
  void add(Diagnostic d);
  void append(const Diagnostics& other);

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return diags_; }
  /// The first error, or nullptr.
  const Diagnostic* first_error() const;

  /// All diagnostics rendered clang-style, each followed by its source line and a caret line.
  std::string render() const;

 private:
  std::vector<Diagnostic> diags_;
  size_t error_count_ = 0;
};

/// Renders one diagnostic: "file:line:col: error: message\n<source line>\n<caret line>\n".
std::string render_diagnostic(const Diagnostic& d);

/// A broken compiler invariant: a bug in gpujit, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace gpujit
