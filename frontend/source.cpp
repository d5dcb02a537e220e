// SourceFile: the line table.
//
// line_starts_ holds the byte offset of every line's first character, computed once at construction, so
// line_text() is a lookup. A trailing newline does not open an extra, empty line. "\r\n" line endings are
// accepted: the '\r' is not part of a line's text.
#include "frontend/source.h"

namespace gpujit {

SourceFile::SourceFile(std::string name, std::string text, uint32_t first_line)
    : name_(std::move(name)), text_(std::move(text)), first_line_(first_line == 0 ? 1 : first_line) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n' && i + 1 < text_.size()) line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line < first_line_) return {};
  size_t index = line - first_line_;
  if (index >= line_starts_.size()) return {};
  size_t begin = line_starts_[index];
  size_t end = index + 1 < line_starts_.size() ? line_starts_[index + 1] : text_.size();
  std::string_view text(text_);
  std::string_view result = text.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\n') result.remove_suffix(1);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

}  // namespace gpujit
