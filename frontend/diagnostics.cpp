// Diagnostics: collecting and clang-style rendering.
//
// A rendered diagnostic is the "file:line:col: severity: message" header, then, when the position is known
// and the file has that line, the source line and a caret line: '^' under the first column of the range and
// '~' under the rest of it (to the end of the line when the range continues on a later line). Tabs before
// the caret are copied from the source line so the caret stays aligned however the terminal shows tabs.
#include "frontend/diagnostics.h"

#include <fmt/format.h>

namespace gpujit {
namespace {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

std::string caret_line(std::string_view line, SourceRange range) {
  size_t begin = range.begin.col == 0 ? 0 : range.begin.col - 1;
  size_t end = begin + 1;
  if (range.end.line == range.begin.line && range.end.col > range.begin.col) {
    end = range.end.col - 1;
  } else if (range.end.line > range.begin.line) {
    end = std::max(line.size(), begin + 1);
  }
  std::string out;
  for (size_t i = 0; i < begin; ++i) out += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
  out += '^';
  if (end > begin + 1) out.append(end - begin - 1, '~');
  return out;
}

}  // namespace

void Diagnostics::error(const SourceFilePtr& file, SourceRange range, std::string message) {
  add({Severity::Error, range, std::move(message), file});
}

void Diagnostics::warning(const SourceFilePtr& file, SourceRange range, std::string message) {
  add({Severity::Warning, range, std::move(message), file});
}

void Diagnostics::note(const SourceFilePtr& file, SourceRange range, std::string message) {
  add({Severity::Note, range, std::move(message), file});
}

void Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::Error) ++error_count_;
  diags_.push_back(std::move(d));
}

void Diagnostics::append(const Diagnostics& other) {
  for (const Diagnostic& d : other.diags_) add(d);
}

const Diagnostic* Diagnostics::first_error() const {
  for (const Diagnostic& d : diags_) {
    if (d.severity == Severity::Error) return &d;
  }
  return nullptr;
}

std::string Diagnostics::render() const {
  std::string out;
  for (const Diagnostic& d : diags_) out += render_diagnostic(d);
  return out;
}

std::string render_diagnostic(const Diagnostic& d) {
  std::string out;
  if (d.file) {
    out += d.file->name();
    if (d.range.valid()) out += fmt::format(":{}:{}", d.range.begin.line, d.range.begin.col);
    out += ": ";
  }
  out += fmt::format("{}: {}\n", severity_name(d.severity), d.message);
  if (d.file && d.range.valid()) {
    std::string_view line = d.file->line_text(d.range.begin.line);
    bool has_line = d.range.begin.line >= d.file->first_line() &&
                    d.range.begin.line < d.file->first_line() + d.file->line_count();
    if (has_line) {
      out += line;
      out += '\n';
      out += caret_line(line, d.range);
      out += '\n';
    }
  }
  return out;
}

}  // namespace gpujit
