// Source text and positions.
//
// A SourceFile owns the text of one compilation input together with the name of the file it came from and
// the line number its first line has in that file, so that a kernel handed over by the Python shim (the
// function's text only) still reports the user's own line numbers. Every token and AST node keeps a
// SourceRange; positions are 1-based lines in the user's file and 1-based columns in characters (bytes, as
// the kernel language is ASCII outside strings and comments).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpujit {

/// A position in the user's file: 1-based line and column. line == 0 means "unknown".
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;

  bool valid() const { return line != 0; }
  friend bool operator==(SourceLoc a, SourceLoc b) { return a.line == b.line && a.col == b.col; }
  friend bool operator!=(SourceLoc a, SourceLoc b) { return !(a == b); }
  friend bool operator<(SourceLoc a, SourceLoc b) {
    return a.line < b.line || (a.line == b.line && a.col < b.col);
  }
};

/// A half-open range [begin, end) of source positions; end is the position just past the last character.
struct SourceRange {
  SourceLoc begin;
  SourceLoc end;

  bool valid() const { return begin.valid(); }
  /// The smallest range covering both.
  static SourceRange merge(SourceRange a, SourceRange b) {
    if (!a.valid()) return b;
    if (!b.valid()) return a;
    return {b.begin < a.begin ? b.begin : a.begin, a.end < b.end ? b.end : a.end};
  }
};

/// The text of one input, its file name and the line number of its first line in that file.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text, uint32_t first_line = 1);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  uint32_t first_line() const { return first_line_; }

  /// The text of a line, by its number in the user's file, without the newline; empty if out of range.
  std::string_view line_text(uint32_t line) const;
  /// Number of lines in the text.
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

 private:
  std::string name_;
  std::string text_;
  uint32_t first_line_;
  std::vector<size_t> line_starts_;  // byte offset of each line's first character
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

}  // namespace gpujit
