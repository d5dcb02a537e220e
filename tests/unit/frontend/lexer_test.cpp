// The lexer: layout tokens, line joining, every literal form, operators, and errors at exact positions.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/lexer.h"
#include "frontend_test_util.h"

namespace gpujit {
namespace {

struct Lexed {
  std::vector<Token> tokens;
  Diagnostics diags;
  std::vector<std::string> errors() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags.all()) {
      out.push_back(std::to_string(d.range.begin.line) + ":" + std::to_string(d.range.begin.col) + ": " + d.message);
    }
    return out;
  }
};

Lexed lex(std::string text, uint32_t first_line = 1) {
  Lexed l;
  l.tokens = tokenize(test::make_source(std::move(text), first_line), l.diags);
  return l;
}

// Tokens as one string: spellings for ordinary tokens, <NL> <IN> <DE> <EOF> for layout.
std::string compact(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokenKind::Newline: out += "<NL>"; break;
      case TokenKind::Indent: out += "<IN>"; break;
      case TokenKind::Dedent: out += "<DE>"; break;
      case TokenKind::EndOfFile: out += "<EOF>"; break;
      default: out += t.text;
    }
  }
  return out;
}

std::string compact(const std::string& text) {
  Lexed l = lex(text);
  EXPECT_FALSE(l.diags.has_errors()) << l.diags.render();
  return compact(l.tokens);
}

Token single(const Lexed& l) {
  EXPECT_FALSE(l.diags.has_errors()) << l.diags.render();
  EXPECT_GE(l.tokens.size(), 2u);
  return l.tokens.front();
}

TEST(Lexer, SimpleStatementWithPositions) {
  Lexed l = lex("x = a+1\n");
  EXPECT_EQ(dump_tokens(l.tokens),
            "1:1 NAME 'x'\n"
            "1:3 OP '='\n"
            "1:5 NAME 'a'\n"
            "1:6 OP '+'\n"
            "1:7 INT '1'\n"
            "1:8 NEWLINE ''\n"
            "2:1 EOF ''\n");
  EXPECT_EQ(l.tokens[2].range.end, (SourceLoc{1, 6}));
}

TEST(Lexer, IndentAndDedent) {
  EXPECT_EQ(compact("if a:\n    if b:\n        x\n    y\nz\n"),
            "if a : <NL> <IN> if b : <NL> <IN> x <NL> <DE> y <NL> <DE> z <NL> <EOF>");
}

TEST(Lexer, SeveralDedentsAtOnceAndAtEndOfFile) {
  EXPECT_EQ(compact("def f():\n  if a:\n      x\ny\n"), "def f ( ) : <NL> <IN> if a : <NL> <IN> x <NL> <DE> <DE> y <NL> <EOF>");
  EXPECT_EQ(compact("def f():\n  if a:\n      x"), "def f ( ) : <NL> <IN> if a : <NL> <IN> x <NL> <DE> <DE> <EOF>");
}

TEST(Lexer, BlankAndCommentLinesProduceNothing) {
  EXPECT_EQ(compact("# header\n\nif a:  # trailing\n\n        # deeper comment\n    x\n   \n\ny\n"),
            "if a : <NL> <IN> x <NL> <DE> y <NL> <EOF>");
}

TEST(Lexer, TabsAndSpacesNestConsistently) {
  EXPECT_EQ(compact("if a:\n\tif b:\n\t    x\n\ty\n"), "if a : <NL> <IN> if b : <NL> <IN> x <NL> <DE> y <NL> <DE> <EOF>");
}

TEST(Lexer, InconsistentTabsAndSpacesIsAnError) {
  // A tab and eight spaces are both column 8, but only when tabs are 8 wide, so Python refuses the mix.
  EXPECT_EQ(lex("if a:\n\tx\n        y\n").errors(),
            std::vector<std::string>{"3:9: inconsistent use of tabs and spaces in indentation"});
  // Four spaces then a tab is column 8, like a tab, but only when tabs are 8 wide.
  Lexed l = lex("if a:\n\tx\n    \ty\n");
  EXPECT_EQ(l.errors(), std::vector<std::string>{"3:6: inconsistent use of tabs and spaces in indentation"});
}

TEST(Lexer, DedentToUnknownLevelIsAnError) {
  Lexed l = lex("if a:\n    x\n  y\n");
  EXPECT_EQ(l.errors(), std::vector<std::string>{"3:3: unindent does not match any outer indentation level"});
  // The token list is still well formed.
  EXPECT_EQ(l.tokens.back().kind, TokenKind::EndOfFile);
}

TEST(Lexer, IndentedFirstLineIsTheBaseLevel) {
  Lexed l = lex("    def f():\n        return 1\n    x\n", 10);
  EXPECT_FALSE(l.diags.has_errors());
  EXPECT_EQ(compact(l.tokens), "def f ( ) : <NL> <IN> return 1 <NL> <DE> x <NL> <EOF>");
  EXPECT_EQ(l.tokens.front().range.begin, (SourceLoc{10, 5}));
  Lexed below = lex("    x\n  y\n");
  EXPECT_EQ(below.errors(), std::vector<std::string>{"2:3: unindent does not match any outer indentation level"});
}

TEST(Lexer, ImplicitLineJoiningInsideBrackets) {
  EXPECT_EQ(compact("x = f(a,\n  b[1,\n2], {\n    c})\ny\n"), "x = f ( a , b [ 1 , 2 ] , { c } ) <NL> y <NL> <EOF>");
  Lexed l = lex("x = (1,\n     2)\n");
  EXPECT_EQ(l.tokens[5].range.begin, (SourceLoc{2, 6}));
}

TEST(Lexer, ExplicitLineContinuation) {
  Lexed l = lex("x = 1 + \\\n      2\n");
  EXPECT_EQ(compact(l.tokens), "x = 1 + 2 <NL> <EOF>");
  EXPECT_EQ(l.tokens[4].range.begin, (SourceLoc{2, 7}));
  EXPECT_EQ(lex("x = 1 \\ 2\n").errors(),
            std::vector<std::string>{"1:7: unexpected character after line continuation character"});
}

TEST(Lexer, DecimalIntegers) {
  EXPECT_EQ(single(lex("0")).int_value, 0u);
  EXPECT_EQ(single(lex("00")).int_value, 0u);
  EXPECT_EQ(single(lex("0_0")).int_value, 0u);
  EXPECT_EQ(single(lex("42")).int_value, 42u);
  EXPECT_EQ(single(lex("1_000_000")).int_value, 1000000u);
  EXPECT_EQ(single(lex("18446744073709551615")).int_value, UINT64_MAX);
  Token big = single(lex("18446744073709551616"));
  EXPECT_EQ(big.kind, TokenKind::Int);
  EXPECT_TRUE(big.int_overflow);
}

TEST(Lexer, PrefixedIntegers) {
  EXPECT_EQ(single(lex("0x2a")).int_value, 42u);
  EXPECT_EQ(single(lex("0XFF")).int_value, 255u);
  EXPECT_EQ(single(lex("0x_ff_ff")).int_value, 0xffffu);
  EXPECT_EQ(single(lex("0o17")).int_value, 15u);
  EXPECT_EQ(single(lex("0O7_7")).int_value, 63u);
  EXPECT_EQ(single(lex("0b101")).int_value, 5u);
  EXPECT_EQ(single(lex("0B_1_0")).int_value, 2u);
  EXPECT_EQ(single(lex("0xffffffffffffffff")).int_value, UINT64_MAX);
  EXPECT_TRUE(single(lex("0x1_0000_0000_0000_0000")).int_overflow);
  EXPECT_EQ(single(lex("0x10")).text, "0x10");
}

TEST(Lexer, MalformedIntegersAreErrors) {
  EXPECT_EQ(lex("x = 012\n").errors(),
            std::vector<std::string>{
                "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"});
  EXPECT_EQ(lex("x = 0b102\n").errors(), std::vector<std::string>{"1:9: invalid digit '2' in binary literal"});
  EXPECT_EQ(lex("x = 0o8\n").errors(), std::vector<std::string>{"1:7: invalid digit '8' in octal literal"});
  EXPECT_EQ(lex("x = 0x\n").errors(), std::vector<std::string>{"1:5: invalid hexadecimal literal"});
  EXPECT_EQ(lex("x = 0xfg\n").errors(), std::vector<std::string>{"1:5: invalid hexadecimal literal"});
  EXPECT_EQ(lex("x = 1__0\n").errors(), std::vector<std::string>{"1:5: invalid decimal literal"});
  EXPECT_EQ(lex("x = 1_\n").errors(), std::vector<std::string>{"1:5: invalid decimal literal"});
  EXPECT_EQ(lex("x = 12abc\n").errors(), std::vector<std::string>{"1:5: invalid decimal literal"});
}

TEST(Lexer, FloatLiterals) {
  struct Case {
    const char* text;
    double value;
  } cases[] = {{"1.", 1.0},      {".5", 0.5},   {"1.5", 1.5},    {"1e-3", 1e-3}, {"1E+5", 1e5},
               {"1_0.5", 10.5}, {"2.5e1_0", 2.5e10}, {"09.5", 9.5}, {"0e0", 0.0},  {"1.e2", 100.0}};
  for (const Case& c : cases) {
    Token t = single(lex(c.text));
    EXPECT_EQ(t.kind, TokenKind::Float) << c.text;
    EXPECT_DOUBLE_EQ(t.float_value, c.value) << c.text;
    EXPECT_EQ(t.text, c.text);
  }
  EXPECT_TRUE(std::isinf(single(lex("1e999")).float_value));
  EXPECT_EQ(single(lex("1e-999")).float_value, 0.0);
  // `1e` is not an exponent: the number is followed by a name.
  EXPECT_EQ(lex("x = 1e\n").errors(), std::vector<std::string>{"1:5: invalid decimal literal"});
}

TEST(Lexer, ImaginaryLiterals) {
  for (const char* text : {"1j", "1.5J", "1e3j", ".5j"}) {
    EXPECT_EQ(single(lex(text)).kind, TokenKind::Imaginary) << text;
  }
  EXPECT_DOUBLE_EQ(single(lex("2.5j")).float_value, 2.5);
}

TEST(Lexer, KeywordRightAfterNumberIsAllowedLikePython) {
  EXPECT_EQ(compact("x = 1if a else 2\n"), "x = 1 if a else 2 <NL> <EOF>");
}

TEST(Lexer, StringLiterals) {
  EXPECT_EQ(single(lex("'abc'")).str_value, "abc");
  EXPECT_EQ(single(lex("\"a'b\"")).str_value, "a'b");
  EXPECT_EQ(single(lex("'a\\'b'")).str_value, "a'b");
  EXPECT_EQ(single(lex("''")).str_value, "");
  EXPECT_EQ(single(lex("'''a\"\"b'''")).str_value, "a\"\"b");
  EXPECT_EQ(single(lex("u'x'")).str_value, "x");
}

TEST(Lexer, EscapesAreDecoded) {
  EXPECT_EQ(single(lex(R"('\n\t\\\"\a\b\f\v\r')")).str_value, "\n\t\\\"\a\b\f\v\r");
  EXPECT_EQ(single(lex(R"('\x41\101\0')")).str_value, std::string("AA\0", 3));
  EXPECT_EQ(single(lex(R"('\u00e9\U0001F600')")).str_value, "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(single(lex(R"('\q')")).str_value, "\\q");  // unknown escapes keep their backslash
  EXPECT_EQ(single(lex("'a\\\nb'")).str_value, "ab");   // backslash-newline continues the literal
  EXPECT_EQ(lex(R"(x = '\x4')").errors(), std::vector<std::string>{"1:6: truncated \\xXX escape in string literal"});
}

TEST(Lexer, RawAndBytesPrefixes) {
  Token raw = single(lex(R"(r'a\nb\'')"));
  EXPECT_EQ(raw.str_value, "a\\nb\\'");
  EXPECT_FALSE(raw.is_bytes);
  Token bytes = single(lex(R"(b'\x41\u0041')"));
  EXPECT_TRUE(bytes.is_bytes);
  EXPECT_EQ(bytes.str_value, "A\\u0041");
  for (const char* text : {"rb'x'", "BR'x'", "Rb'x'", "bR'x'", "R'x'", "U'x'"}) {
    EXPECT_EQ(single(lex(text)).kind, TokenKind::String) << text;
  }
  // Not prefixes: a name followed by a string.
  EXPECT_EQ(compact("ub'x'\n"), "ub 'x' <NL> <EOF>");
}

TEST(Lexer, FStringsHaveTheirOwnKind) {
  for (const char* text : {"f'{x}'", "F\"{x!r}\"", "rf'{x}\\n'", "fR'''{x}'''"}) {
    Token t = single(lex(text));
    EXPECT_EQ(t.kind, TokenKind::FString) << text;
    EXPECT_EQ(t.text, text);
  }
  EXPECT_EQ(single(lex("f'{a[\"k\"]}'")).kind, TokenKind::FString);
}

TEST(Lexer, TripleQuotedStringSpansLines) {
  Lexed l = lex("x = '''one\ntwo\n  three'''\ny\n", 5);
  ASSERT_FALSE(l.diags.has_errors());
  const Token& s = l.tokens[2];
  EXPECT_EQ(s.kind, TokenKind::String);
  EXPECT_EQ(s.str_value, "one\ntwo\n  three");
  EXPECT_EQ(s.range.begin, (SourceLoc{5, 5}));
  EXPECT_EQ(s.range.end, (SourceLoc{7, 11}));
  EXPECT_EQ(l.tokens[4].range.begin, (SourceLoc{8, 1}));  // y
}

TEST(Lexer, UnterminatedStrings) {
  EXPECT_EQ(lex("x = 'abc\ny = 1\n").errors(),
            std::vector<std::string>{"1:5: unterminated string literal (detected at line 1)"});
  EXPECT_EQ(lex("x = 1\ny = \"\"\"abc\n\nz\n").errors(),
            std::vector<std::string>{"2:5: unterminated triple-quoted string literal (detected at line 4)"});
}

TEST(Lexer, AllKeywords) {
  const char* keywords[] = {"False", "None",   "True",  "and",      "as",   "assert", "async", "await",
                            "break", "class",  "continue", "def",   "del",  "elif",   "else",  "except",
                            "finally", "for",  "from",  "global",   "if",   "import", "in",    "is",
                            "lambda", "nonlocal", "not", "or",      "pass", "raise",  "return", "try",
                            "while", "with",   "yield"};
  for (const char* kw : keywords) {
    Token t = single(lex(kw));
    EXPECT_TRUE(is_keyword(t.kind)) << kw;
    EXPECT_STREQ(spelling(t.kind), kw);
    EXPECT_STREQ(category(t.kind), "KEYWORD");
  }
  for (const char* soft : {"match", "case", "type", "_", "print", "self"}) {
    EXPECT_EQ(single(lex(soft)).kind, TokenKind::Name) << soft;
  }
  EXPECT_EQ(single(lex("True")).kind, TokenKind::KwTrue);
  EXPECT_EQ(single(lex("None")).kind, TokenKind::KwNone);
}

TEST(Lexer, OperatorsUseLongestMatch) {
  EXPECT_EQ(compact("a **= b //= c >>= d <<= e -> f := g @ h @= i ... j != k ** l // m\n"),
            "a **= b //= c >>= d <<= e -> f := g @ h @= i ... j != k ** l // m <NL> <EOF>");
  Lexed l = lex("a**=b");
  EXPECT_EQ(l.tokens[1].kind, TokenKind::DoubleStarEqual);
  EXPECT_EQ(lex("a->b").tokens[1].kind, TokenKind::Arrow);
  EXPECT_EQ(lex("a:=b").tokens[1].kind, TokenKind::ColonEqual);
  EXPECT_EQ(lex("a//=b").tokens[1].kind, TokenKind::DoubleSlashEqual);
  EXPECT_EQ(lex("a@b").tokens[1].kind, TokenKind::At);
  EXPECT_EQ(lex("a<=b").tokens[1].kind, TokenKind::LessEqual);
  EXPECT_EQ(lex("a<b").tokens[1].kind, TokenKind::Less);
}

TEST(Lexer, BracketErrors) {
  EXPECT_EQ(lex("x = (1,\n  2\n").errors(), std::vector<std::string>{"1:5: '(' was never closed"});
  EXPECT_EQ(lex("x = 1)\n").errors(), std::vector<std::string>{"1:6: unmatched ')'"});
  EXPECT_EQ(lex("x = (1]\n").errors(),
            std::vector<std::string>{"1:7: closing parenthesis ']' does not match opening parenthesis '(' on line 1"});
}

TEST(Lexer, InvalidCharacters) {
  EXPECT_EQ(lex("x = $y\n").errors(), std::vector<std::string>{"1:5: invalid character '$' in source"});
  EXPECT_EQ(lex("x = a ? b\n").errors(), std::vector<std::string>{"1:7: invalid character '?' in source"});
  EXPECT_EQ(lex(std::string("x\x01\n")).errors(), std::vector<std::string>{"1:2: invalid character (0x01) in source"});
}

TEST(Lexer, NonAsciiIdentifiersAreNames) {
  Token t = single(lex("\xc3\xa9t\xc3\xa9"));
  EXPECT_EQ(t.kind, TokenKind::Name);
}

TEST(Lexer, FirstLineOffsetsEveryPosition) {
  Lexed l = lex("def f():\n    return 1\n", 40);
  EXPECT_EQ(l.tokens[0].range.begin, (SourceLoc{40, 1}));
  EXPECT_EQ(l.tokens[7].text, "return");
  EXPECT_EQ(l.tokens[7].range.begin, (SourceLoc{41, 5}));
  EXPECT_EQ(lex("x = 1\ny = 'a\n", 40).errors(),
            std::vector<std::string>{"41:5: unterminated string literal (detected at line 41)"});
}

TEST(Lexer, CrLfLineEndings) {
  EXPECT_EQ(compact("if a:\r\n    x = '''p\r\nq'''\r\ny\r\n"), "if a : <NL> <IN> x = '''p\r\nq''' <NL> <DE> y <NL> <EOF>");
  Lexed l = lex("x = '''p\r\nq'''\r\n");
  EXPECT_EQ(l.tokens[2].str_value, "p\nq");
}

TEST(Lexer, EmptyInputIsJustEndOfFile) {
  EXPECT_EQ(compact(""), "<EOF>");
  EXPECT_EQ(compact("\n\n# only a comment\n"), "<EOF>");
}

TEST(Lexer, DumpTokensEscapesText) {
  Lexed l = lex("s = 'a\\n'\n");
  EXPECT_EQ(dump_tokens(l.tokens), "1:1 NAME 's'\n1:3 OP '='\n1:5 STRING '\\'a\\\\n\\''\n1:10 NEWLINE ''\n2:1 EOF ''\n");
}

}  // namespace
}  // namespace gpujit
