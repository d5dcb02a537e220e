// The lexer (frontend/lexer.h).
//
// One pass over the bytes with a cursor (pos_) and the current line's number and start offset, so a token's
// position is computed from its offset without a search. Indentation is measured twice, once with tabs to
// multiples of 8 and once with a tab as one column, and a line whose level differs between the two is
// "inconsistent use of tabs and spaces", as in CPython. Errors that break the line structure (a bad dedent,
// an unterminated triple-quoted string) stop the scan; other errors skip the offending text and go on, so
// one run reports several.
#include "frontend/lexer.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

namespace gpujit {
namespace {

constexpr int kTabSize = 8;
constexpr size_t kMaxIndentDepth = 100;  // CPython's limit

struct Spelling {
  std::string_view text;
  TokenKind kind;
};

#define GPUJIT_SPELLING_ENTRY(kind, text) Spelling{text, TokenKind::kind},
constexpr Spelling kKeywords[] = {GPUJIT_KEYWORDS(GPUJIT_SPELLING_ENTRY)};
constexpr Spelling kOperators[] = {GPUJIT_OPERATORS(GPUJIT_SPELLING_ENTRY)};
#undef GPUJIT_SPELLING_ENTRY

bool keyword_kind(std::string_view word, TokenKind* kind) {
  for (const Spelling& k : kKeywords) {
    if (k.text == word) {
      *kind = k.kind;
      return true;
    }
  }
  return false;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
// Bytes >= 0x80 are parts of UTF-8 encoded identifiers, which Python allows in host code.
bool is_ident_start(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return -1;
}

bool is_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return false;
  bool r = false, b = false, u = false, f = false;
  for (char c : word) {
    bool* flag = nullptr;
    switch (c | 0x20) {
      case 'r': flag = &r; break;
      case 'b': flag = &b; break;
      case 'u': flag = &u; break;
      case 'f': flag = &f; break;
      default: return false;
    }
    if (*flag) return false;
    *flag = true;
  }
  if (u && word.size() > 1) return false;
  return !(b && f);
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  Lexer(const SourceFilePtr& file, Diagnostics& diags) : file_(file), src_(file->text()), diags_(diags) {}

  std::vector<Token> run();

 private:
  // One indentation level: col counts a tab to the next multiple of 8, alt_col counts it as 1.
  struct Level {
    int col;
    int alt_col;
  };
  struct OpenBracket {
    char c;
    SourceLoc loc;
  };

  char at(size_t p) const { return p < src_.size() ? src_[p] : '\0'; }
  // The position of an offset on the current line.
  SourceLoc loc(size_t offset) const {
    return {file_->first_line() + line_index_, static_cast<uint32_t>(offset - line_start_ + 1)};
  }
  uint32_t current_line() const { return file_->first_line() + line_index_; }
  void start_new_line(size_t newline_offset) {
    ++line_index_;
    line_start_ = newline_offset + 1;
  }
  void error(SourceLoc begin, SourceLoc end, std::string message) {
    diags_.error(file_, {begin, end}, std::move(message));
  }
  void push(TokenKind kind, size_t begin, size_t end) {
    Token t;
    t.kind = kind;
    t.range = {loc(begin), loc(end)};
    t.text = src_.substr(begin, end - begin);
    tokens_.push_back(std::move(t));
  }
  void push_layout(TokenKind kind, SourceLoc begin, SourceLoc end) {
    Token t;
    t.kind = kind;
    t.range = {begin, end};
    tokens_.push_back(std::move(t));
  }
  size_t skip_ident_chars(size_t p) const {
    while (is_ident_char(at(p))) ++p;
    return p;
  }

  bool indentation();
  void lex_name_or_string();
  void lex_string(size_t begin, size_t quote);
  size_t decode_escape(size_t p, std::string& value, bool bytes);
  void lex_number();
  void lex_prefixed_int(size_t begin);
  size_t read_digits(size_t p) const;
  bool lex_operator();
  void finish();

  const SourceFilePtr& file_;
  const std::string& src_;
  Diagnostics& diags_;
  size_t pos_ = 0;
  uint32_t line_index_ = 0;  // 0-based line of pos_ within the text
  size_t line_start_ = 0;    // offset of the current line's first byte
  std::vector<Token> tokens_;
  std::vector<Level> levels_;  // levels_[0] is the base level, set by the first logical line
  std::vector<OpenBracket> open_;
  bool fatal_ = false;
};

std::vector<Token> Lexer::run() {
  // A UTF-8 byte order mark is not part of the first line, for columns as for tokens.
  if (src_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = line_start_ = 3;
  bool line_start = true;
  while (!fatal_) {
    if (line_start && open_.empty()) {
      line_start = false;
      if (!indentation()) {
        if (pos_ >= src_.size() || fatal_) break;
        line_start = true;
        continue;
      }
    }
    char c = at(pos_);
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      ++pos_;
      continue;
    }
    if (pos_ >= src_.size()) break;
    if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      continue;
    }
    if (c == '\n') {
      if (open_.empty() && !tokens_.empty() && !tokens_.back().is(TokenKind::Newline)) {
        push(TokenKind::Newline, pos_, pos_ + 1);
        tokens_.back().text.clear();
      }
      start_new_line(pos_);
      ++pos_;
      line_start = open_.empty();
      continue;
    }
    if (c == '\\') {
      size_t next = pos_ + 1;
      if (at(next) == '\r' && at(next + 1) == '\n') ++next;
      if (at(next) == '\n') {
        start_new_line(next);
        pos_ = next + 1;
      } else if (next >= src_.size()) {
        error(loc(pos_), loc(pos_ + 1), "unexpected end of file after line continuation character");
        ++pos_;
      } else {
        error(loc(pos_), loc(pos_ + 1), "unexpected character after line continuation character");
        ++pos_;
      }
      continue;
    }
    if (is_ident_start(c)) {
      lex_name_or_string();
    } else if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) {
      lex_number();
    } else if (c == '\'' || c == '"') {
      lex_string(pos_, pos_);
    } else if (!lex_operator()) {
      auto u = static_cast<unsigned char>(c);
      std::string shown = (u >= 0x20 && u < 0x7f) ? fmt::format("'{}'", c) : fmt::format("(0x{:02x})", u);
      error(loc(pos_), loc(pos_ + 1), fmt::format("invalid character {} in source", shown));
      ++pos_;
    }
  }
  finish();
  return std::move(tokens_);
}

// Measures the indentation of a new physical line and emits Indent/Dedent. Returns false for a blank or
// comment-only line, which it consumes whole.
bool Lexer::indentation() {
  int col = 0, alt_col = 0;
  size_t p = pos_;
  for (;; ++p) {
    char c = at(p);
    if (c == ' ') {
      ++col;
      ++alt_col;
    } else if (c == '\t') {
      col = (col / kTabSize + 1) * kTabSize;
      ++alt_col;
    } else if (c == '\f') {
      col = alt_col = 0;
    } else {
      break;
    }
  }
  pos_ = p;
  if (p >= src_.size()) return false;
  char c = src_[p];
  if (c == '#' || c == '\n' || (c == '\r' && at(p + 1) == '\n')) {
    while (p < src_.size() && src_[p] != '\n') ++p;
    if (p < src_.size()) {
      start_new_line(p);
      ++p;
    }
    pos_ = p;
    return false;
  }

  SourceLoc here = loc(p);
  auto inconsistent = [&] {
    error(here, here, "inconsistent use of tabs and spaces in indentation");
    fatal_ = true;
  };
  if (levels_.empty()) {
    levels_.push_back({col, alt_col});
    return true;
  }
  const Level& top = levels_.back();
  if (col == top.col) {
    if (alt_col != top.alt_col) inconsistent();
  } else if (col > top.col) {
    if (alt_col <= top.alt_col) {
      inconsistent();
    } else if (levels_.size() > kMaxIndentDepth) {
      error(here, here, "too many levels of indentation");
      fatal_ = true;
    } else {
      levels_.push_back({col, alt_col});
      push_layout(TokenKind::Indent, loc(line_start_), here);
    }
  } else {
    while (levels_.size() > 1 && col < levels_.back().col) {
      levels_.pop_back();
      push_layout(TokenKind::Dedent, here, here);
    }
    if (col != levels_.back().col) {
      error(here, here, "unindent does not match any outer indentation level");
      fatal_ = true;
    } else if (alt_col != levels_.back().alt_col) {
      inconsistent();
    }
  }
  return !fatal_;
}

void Lexer::lex_name_or_string() {
  size_t begin = pos_;
  size_t end = skip_ident_chars(begin);
  std::string_view word(src_.data() + begin, end - begin);
  char next = at(end);
  if ((next == '\'' || next == '"') && is_string_prefix(word)) {
    lex_string(begin, end);
    return;
  }
  TokenKind kind = TokenKind::Name;
  keyword_kind(word, &kind);
  push(kind, begin, end);
  pos_ = end;
}

void Lexer::lex_string(size_t begin, size_t quote) {
  bool raw = false, bytes = false, fstring = false;
  for (size_t p = begin; p < quote; ++p) {
    char c = static_cast<char>(src_[p] | 0x20);
    raw |= c == 'r';
    bytes |= c == 'b';
    fstring |= c == 'f';
  }
  SourceLoc start = loc(begin);
  char q = src_[quote];
  bool triple = at(quote + 1) == q && at(quote + 2) == q;
  size_t p = quote + (triple ? 3 : 1);
  std::string value;
  auto unterminated = [&](uint32_t line) {
    const char* what = triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
    error(start, start, fmt::format("{} (detected at line {})", what, line));
  };
  for (;;) {
    if (p >= src_.size()) {
      unterminated(file_->first_line() + file_->line_count() - 1);  // the file's last line
      fatal_ = true;
      pos_ = p;
      return;
    }
    char c = src_[p];
    if (c == q) {
      if (!triple) {
        ++p;
        break;
      }
      if (at(p + 1) == q && at(p + 2) == q) {
        p += 3;
        break;
      }
      value += c;
      ++p;
    } else if (c == '\n') {
      if (!triple) {
        unterminated(current_line());
        pos_ = p;  // the main loop ends the line
        return;
      }
      value += '\n';
      start_new_line(p);
      ++p;
    } else if (c == '\r' && at(p + 1) == '\n') {
      ++p;
    } else if (c == '\\') {
      if (raw || fstring) {
        // The backslash stays, and it keeps the next character from ending the literal.
        value += c;
        ++p;
        if (p < src_.size()) {
          if (src_[p] == '\n') start_new_line(p);
          value += src_[p];
          ++p;
        }
      } else {
        p = decode_escape(p, value, bytes);
      }
    } else {
      value += c;
      ++p;
    }
  }
  Token t;
  t.kind = fstring ? TokenKind::FString : TokenKind::String;
  t.range = {start, loc(p)};
  t.text = src_.substr(begin, p - begin);
  t.str_value = std::move(value);
  t.is_bytes = bytes;
  tokens_.push_back(std::move(t));
  pos_ = p;
}

// Decodes the escape sequence at p (a backslash) into value; returns the offset after it. Unknown escapes
// keep their backslash, as in Python. \N{name} is kept undecoded: the kernel language has no use for it.
size_t Lexer::decode_escape(size_t p, std::string& value, bool bytes) {
  char e = at(p + 1);
  if (p + 1 >= src_.size()) {
    value += '\\';
    return p + 1;
  }
  auto append_code = [&](uint32_t cp) {
    if (bytes) {
      value += static_cast<char>(cp & 0xFF);
    } else {
      append_utf8(value, cp);
    }
  };
  auto hex_escape = [&](int digits, const char* shape) -> size_t {
    uint32_t cp = 0;
    for (int i = 0; i < digits; ++i) {
      int d = digit_value(at(p + 2 + i));
      if (d < 0 || d >= 16) {
        error(loc(p), loc(p + 2 + i), fmt::format("truncated {} escape in string literal", shape));
        return p + 2 + i;
      }
      cp = cp * 16 + static_cast<uint32_t>(d);
    }
    if (cp > 0x10FFFF) {
      error(loc(p), loc(p + 2 + digits), "illegal unicode character in string literal escape");
      return p + 2 + digits;
    }
    append_code(cp);
    return p + 2 + digits;
  };
  switch (e) {
    case '\n': start_new_line(p + 1); return p + 2;
    case '\r':
      if (at(p + 2) == '\n') {
        start_new_line(p + 2);
        return p + 3;
      }
      break;
    case '\\': case '\'': case '"': value += e; return p + 2;
    case 'a': value += '\a'; return p + 2;
    case 'b': value += '\b'; return p + 2;
    case 'f': value += '\f'; return p + 2;
    case 'n': value += '\n'; return p + 2;
    case 'r': value += '\r'; return p + 2;
    case 't': value += '\t'; return p + 2;
    case 'v': value += '\v'; return p + 2;
    case 'x': return hex_escape(2, "\\xXX");
    case 'u':
      if (!bytes) return hex_escape(4, "\\uXXXX");
      break;
    case 'U':
      if (!bytes) return hex_escape(8, "\\UXXXXXXXX");
      break;
    default:
      if (e >= '0' && e <= '7') {
        uint32_t cp = 0;
        size_t q = p + 1;
        for (int i = 0; i < 3 && at(q) >= '0' && at(q) <= '7'; ++i, ++q) cp = cp * 8 + (at(q) - '0');
        append_code(cp);
        return q;
      }
      break;
  }
  value += '\\';
  return p + 1;
}

// Reads digit (['_'] digit)* from p; returns the end. A '_' not followed by a digit is left unread.
size_t Lexer::read_digits(size_t p) const {
  while (true) {
    if (is_digit(at(p))) {
      ++p;
    } else if (at(p) == '_' && p > 0 && is_digit(at(p - 1)) && is_digit(at(p + 1))) {
      p += 2;
    } else {
      return p;
    }
  }
}

void Lexer::lex_prefixed_int(size_t begin) {
  char marker = static_cast<char>(src_[begin + 1] | 0x20);
  int base = marker == 'x' ? 16 : marker == 'o' ? 8 : 2;
  const char* name = marker == 'x' ? "hexadecimal" : marker == 'o' ? "octal" : "binary";
  size_t p = begin + 2;
  uint64_t value = 0;
  bool overflow = false, any = false;
  for (;;) {
    if (at(p) == '_' && digit_value(at(p + 1)) >= 0 && digit_value(at(p + 1)) < 16) ++p;
    int d = digit_value(at(p));
    if (d < 0 || d >= 16) break;
    if (d >= base) {
      error(loc(p), loc(p + 1), fmt::format("invalid digit '{}' in {} literal", at(p), name));
      pos_ = skip_ident_chars(p);
      return;
    }
    if (value > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) overflow = true;
    value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    any = true;
    ++p;
  }
  if (!any || is_ident_char(at(p))) {
    size_t end = skip_ident_chars(p);
    error(loc(begin), loc(end), fmt::format("invalid {} literal", name));
    pos_ = end;
    return;
  }
  push(TokenKind::Int, begin, p);
  tokens_.back().int_value = overflow ? 0 : value;
  tokens_.back().int_overflow = overflow;
  pos_ = p;
}

void Lexer::lex_number() {
  size_t begin = pos_;
  char marker = static_cast<char>(at(begin + 1) | 0x20);
  if (at(begin) == '0' && (marker == 'x' || marker == 'o' || marker == 'b')) {
    lex_prefixed_int(begin);
    return;
  }
  size_t p = read_digits(begin);
  bool is_float = false;
  if (at(p) == '.') {
    is_float = true;
    p = read_digits(p + 1);
  }
  char e = at(p);
  if ((e == 'e' || e == 'E') &&
      (is_digit(at(p + 1)) || ((at(p + 1) == '+' || at(p + 1) == '-') && is_digit(at(p + 2))))) {
    is_float = true;
    p = read_digits(at(p + 1) == '+' || at(p + 1) == '-' ? p + 2 : p + 1);
  }
  bool imaginary = false;
  if (at(p) == 'j' || at(p) == 'J') {
    imaginary = true;
    ++p;
  }
  if (is_ident_char(at(p))) {
    // A keyword right after a number (`1if x else 2`) is accepted by Python; anything else is not.
    size_t end = skip_ident_chars(p);
    TokenKind kw;
    if (is_digit(at(p)) || !keyword_kind(std::string_view(src_.data() + p, end - p), &kw)) {
      error(loc(begin), loc(end), "invalid decimal literal");
      pos_ = end;
      return;
    }
  }
  std::string digits;
  for (size_t i = begin; i < p; ++i) {
    char c = src_[i];
    if (c != '_' && c != 'j' && c != 'J') digits += c;
  }
  if (!is_float && !imaginary) {
    if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos) {
      error(loc(begin), loc(p),
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
      pos_ = p;
      return;
    }
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    push(TokenKind::Int, begin, p);
    tokens_.back().int_overflow = ec == std::errc::result_out_of_range;
    tokens_.back().int_value = ec == std::errc() ? value : 0;
    pos_ = p;
    return;
  }
  double value = 0.0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // Python rounds an out-of-range literal to inf, or to 0 when the exponent is very negative.
    size_t epos = digits.find_first_of("eE");
    bool negative_exponent = epos != std::string::npos && epos + 1 < digits.size() && digits[epos + 1] == '-';
    value = negative_exponent ? 0.0 : HUGE_VAL;
  }
  push(imaginary ? TokenKind::Imaginary : TokenKind::Float, begin, p);
  tokens_.back().float_value = value;
  pos_ = p;
}

bool Lexer::lex_operator() {
  for (size_t len = 3; len >= 1; --len) {
    if (pos_ + len > src_.size()) continue;
    std::string_view text(src_.data() + pos_, len);
    for (const Spelling& op : kOperators) {
      if (op.text != text) continue;
      char c = text[0];
      if (len == 1 && (c == '(' || c == '[' || c == '{')) {
        open_.push_back({c, loc(pos_)});
      } else if (len == 1 && (c == ')' || c == ']' || c == '}')) {
        if (open_.empty()) {
          error(loc(pos_), loc(pos_ + 1), fmt::format("unmatched '{}'", c));
        } else {
          char want = open_.back().c == '(' ? ')' : open_.back().c == '[' ? ']' : '}';
          if (c != want) {
            error(loc(pos_), loc(pos_ + 1),
                  fmt::format("closing parenthesis '{}' does not match opening parenthesis '{}' on line {}", c,
                              open_.back().c, open_.back().loc.line));
          }
          open_.pop_back();
        }
      }
      push(op.kind, pos_, pos_ + len);
      pos_ += len;
      return true;
    }
  }
  return false;
}

void Lexer::finish() {
  if (!fatal_ && !open_.empty()) {
    const OpenBracket& open = open_.back();
    error(open.loc, {open.loc.line, open.loc.col + 1}, fmt::format("'{}' was never closed", open.c));
  }
  SourceLoc end = loc(pos_);
  if (!tokens_.empty() && !tokens_.back().is(TokenKind::Newline)) push_layout(TokenKind::Newline, end, end);
  for (size_t i = 1; i < levels_.size(); ++i) push_layout(TokenKind::Dedent, end, end);
  push_layout(TokenKind::EndOfFile, end, end);
}

std::string escape_for_dump(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

const char* spelling(TokenKind kind) {
  switch (kind) {
#define GPUJIT_SPELLING_CASE(k, text) \
  case TokenKind::k: return text;
    GPUJIT_KEYWORDS(GPUJIT_SPELLING_CASE)
    GPUJIT_OPERATORS(GPUJIT_SPELLING_CASE)
#undef GPUJIT_SPELLING_CASE
    default: return category(kind);
  }
}

bool is_keyword(TokenKind kind) { return kind >= TokenKind::KwFalse && kind <= TokenKind::KwYield; }

const char* category(TokenKind kind) {
  switch (kind) {
    case TokenKind::EndOfFile: return "EOF";
    case TokenKind::Newline: return "NEWLINE";
    case TokenKind::Indent: return "INDENT";
    case TokenKind::Dedent: return "DEDENT";
    case TokenKind::Name: return "NAME";
    case TokenKind::Int: return "INT";
    case TokenKind::Float: return "FLOAT";
    case TokenKind::Imaginary: return "IMAG";
    case TokenKind::String: return "STRING";
    case TokenKind::FString: return "FSTRING";
    default: return is_keyword(kind) ? "KEYWORD" : "OP";
  }
}

std::vector<Token> tokenize(const SourceFilePtr& file, Diagnostics& diags) {
  return Lexer(file, diags).run();
}

std::string dump_tokens(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    out += fmt::format("{}:{} {} '{}'\n", t.range.begin.line, t.range.begin.col, category(t.kind),
                       escape_for_dump(t.text));
  }
  return out;
}

}  // namespace gpujit
