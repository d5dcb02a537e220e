// Tokens of the kernel language, which are Python's tokens.
//
// A token keeps its kind, its spelling in the source and its SourceRange in the user's file; literals also
// keep their decoded value, so the parser never re-reads source text. Layout tokens (Newline, Indent, Dedent,
// EndOfFile) have an empty spelling. Every Python keyword has its own kind, so the parser can name any
// construct it rejects; the soft keywords (match, case, type, _) are ordinary names.
#pragma once

#include <cstdint>
#include <string>

#include "frontend/source.h"

namespace gpujit {

// X(kind, spelling) for every keyword.
#define GPUJIT_KEYWORDS(X)                                                                                   \
  X(KwFalse, "False") X(KwNone, "None") X(KwTrue, "True") X(KwAnd, "and") X(KwAs, "as")                   \
  X(KwAssert, "assert") X(KwAsync, "async") X(KwAwait, "await") X(KwBreak, "break") X(KwClass, "class")   \
  X(KwContinue, "continue") X(KwDef, "def") X(KwDel, "del") X(KwElif, "elif") X(KwElse, "else")           \
  X(KwExcept, "except") X(KwFinally, "finally") X(KwFor, "for") X(KwFrom, "from") X(KwGlobal, "global")   \
  X(KwIf, "if") X(KwImport, "import") X(KwIn, "in") X(KwIs, "is") X(KwLambda, "lambda")                   \
  X(KwNonlocal, "nonlocal") X(KwNot, "not") X(KwOr, "or") X(KwPass, "pass") X(KwRaise, "raise")           \
  X(KwReturn, "return") X(KwTry, "try") X(KwWhile, "while") X(KwWith, "with") X(KwYield, "yield")

// X(kind, spelling) for every operator and delimiter.
#define GPUJIT_OPERATORS(X)                                                                                  \
  X(Plus, "+") X(Minus, "-") X(Star, "*") X(DoubleStar, "**") X(Slash, "/") X(DoubleSlash, "//")          \
  X(Percent, "%") X(At, "@") X(LShift, "<<") X(RShift, ">>") X(Amp, "&") X(Pipe, "|") X(Caret, "^")       \
  X(Tilde, "~") X(ColonEqual, ":=") X(Less, "<") X(Greater, ">") X(LessEqual, "<=")                       \
  X(GreaterEqual, ">=") X(EqEqual, "==") X(NotEqual, "!=") X(LParen, "(") X(RParen, ")")                  \
  X(LBracket, "[") X(RBracket, "]") X(LBrace, "{") X(RBrace, "}") X(Comma, ",") X(Colon, ":")             \
  X(Dot, ".") X(Semicolon, ";") X(Equal, "=") X(Arrow, "->") X(Ellipsis, "...") X(PlusEqual, "+=")        \
  X(MinusEqual, "-=") X(StarEqual, "*=") X(SlashEqual, "/=") X(DoubleSlashEqual, "//=")                   \
  X(PercentEqual, "%=") X(AtEqual, "@=") X(AmpEqual, "&=") X(PipeEqual, "|=") X(CaretEqual, "^=")         \
  X(RShiftEqual, ">>=") X(LShiftEqual, "<<=") X(DoubleStarEqual, "**=")

enum class TokenKind : uint8_t {
  EndOfFile,
  Newline,    // end of a logical line
  Indent,     // the line is indented deeper than the one before
  Dedent,     // one per indentation level closed
  Name,
  Int,        // decimal, 0x, 0o, 0b, with underscores
  Float,      // 1.0, 1., .5, 1e-3
  Imaginary,  // 1j, 1.5j (the parser rejects them)
  String,     // '...', "...", '''...''', """...""", with prefixes r, b, u
  FString,    // f'...' (the parser rejects them)
#define GPUJIT_TOKEN_ENUM(kind, spelling) kind,
  GPUJIT_KEYWORDS(GPUJIT_TOKEN_ENUM) GPUJIT_OPERATORS(GPUJIT_TOKEN_ENUM)
#undef GPUJIT_TOKEN_ENUM
};

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  SourceRange range;
  std::string text;  // the spelling in the source; strings include prefix and quotes

  // Literal values; only the field matching the kind is meaningful.
  uint64_t int_value = 0;
  bool int_overflow = false;  // an Int over 2**64-1 (int_value is then 0)
  double float_value = 0.0;   // Float, and the magnitude of an Imaginary
  std::string str_value;      // String: the contents, escapes decoded; FString: the raw contents
  bool is_bytes = false;      // a b'...' literal

  bool is(TokenKind k) const { return kind == k; }
};

/// The fixed spelling of a keyword or operator ("def", "**="), or the category name of other kinds.
const char* spelling(TokenKind kind);
/// The category of a kind as shown by dump_tokens: NAME, KEYWORD, OP, INT, FLOAT, IMAG, STRING, FSTRING,
/// NEWLINE, INDENT, DEDENT, EOF.
const char* category(TokenKind kind);
bool is_keyword(TokenKind kind);

}  // namespace gpujit
