// The parser's private half, shared by frontend/parser.cpp (module level and statements) and
// frontend/parser_expressions.cpp (expressions): the recursive-descent class Parser, its token cursor, its
// error recovery and the limits both halves check. Included by those two files only; everything else parses
// through frontend/parser.h. A syntax error is reported to the current Diagnostics and then thrown as
// SyntaxFailure, which never leaves the two files: the statement loop catches it and skips to the next
// statement.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/source.h"
#include "frontend/token.h"

namespace gpujit::parse_detail {

inline constexpr int kMaxNesting = 200;  // nested expressions; CPython's limit on nested parentheses
// Operators and trailers applied in a row (a + b + ..., a[i][j]..., f(x)(y)...) and elif clauses: each one
// puts the tree built so far one level deeper, and every later stage walks the tree recursively, so a long enough chain would
// overflow the stack in analysis, lowering or the AST's destructor.
inline constexpr int kMaxChain = 1000;

// Thrown after a syntax error has been reported; caught at statement level.
struct SyntaxFailure {};

inline constexpr const char* kWalrusMessage =
    "assignment expressions (':=') are not supported in kernels; assign in a separate statement";

inline bool is_opening(TokenKind k) { return k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace; }
inline bool is_closing(TokenKind k) { return k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace; }

class Parser {
 public:
  Parser(SourceFilePtr file, std::vector<Token> tokens) : file_(std::move(file)), toks_(std::move(tokens)) {}

  void parse_into(Module& m);

 private:
  // Counts expression nesting so a pathological input reports an error instead of overflowing the stack.
  class NestingGuard {
   public:
    explicit NestingGuard(Parser& p) : p_(p) {
      if (p_.depth_ >= kMaxNesting) p_.fail(p_.peek().range, "expression is too deeply nested");
      ++p_.depth_;
    }
    ~NestingGuard() { --p_.depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser& p_;
  };

  // Counts the operators and trailers of the chains being parsed (kMaxChain); one per loop of them.
  class ChainGuard {
   public:
    explicit ChainGuard(Parser& p) : p_(p) {}
    ~ChainGuard() { p_.chain_ -= added_; }
    void deepen(SourceRange where) {
      if (p_.chain_ >= kMaxChain) {
        p_.fail(where, fmt::format("too long a chain: more than {} operators, calls, subscripts, attributes or "
                                   "elif clauses in a row; split it over several statements", kMaxChain));
      }
      ++p_.chain_;
      ++added_;
    }
    ChainGuard(const ChainGuard&) = delete;
    ChainGuard& operator=(const ChainGuard&) = delete;

   private:
    Parser& p_;
    int added_ = 0;
  };

  // Token access. toks_ always ends with EndOfFile, and advance() never moves past it.
  const Token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  bool at(TokenKind k) const { return peek().kind == k; }
  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  const Token& expect(TokenKind k, std::string_view context);
  bool at_statement_end() const {
    return at(TokenKind::Newline) || at(TokenKind::Semicolon) || at(TokenKind::EndOfFile);
  }
  // From the first token of a construct to the last non-layout token consumed.
  SourceRange span_from(size_t start) const;
  SourceRange span(size_t first, size_t last) const { return {toks_[first].range.begin, toks_[last].range.end}; }
  size_t matching_close(size_t open) const;

  void report(SourceRange r, std::string message) { diags_->error(file_, r, std::move(message)); }
  [[noreturn]] void fail(SourceRange r, std::string message) {
    report(r, std::move(message));
    throw SyntaxFailure{};
  }
  [[noreturn]] void fail_unexpected(std::string expected);

  // Recovery.
  void skip_to_line_end();
  void skip_indented_block();
  void skip_statement(bool compound);
  bool is_match_statement(size_t index) const;
  bool starts_compound(size_t index) const;

  // Module level.
  void parse_top_level_statement(Module& m);
  void parse_decorated(Module& m);
  void parse_function(Module& m, std::vector<ExprPtr> decorators);
  /// `def name(params): body` from the `def` on; null (after an error in `name_errors`) without a name.
  FunctionDefPtr parse_function_def(std::vector<ExprPtr> decorators, Diagnostics& name_errors);
  /// A `def` inside a function's body: parsed whole into current_fn_->nested.
  void parse_nested_function();
  void parse_import(Module& m);
  void parse_import_names(std::vector<Import>& out);
  void parse_from_import(std::vector<Import>& out);
  std::string parse_dotted_name();
  std::string expect_name();
  void parse_global(Module& m);

  // Statements.
  void parse_params(FunctionDef& fn);
  Block parse_block(const std::string& owner, const Token& keyword);
  void parse_statement_recovering(Block& out);
  void parse_statement(Block& out);
  void parse_simple_statements(Block& out);
  StmtPtr parse_small_statement();
  StmtPtr parse_expr_or_assign();
  StmtPtr parse_if();
  void parse_for(Block& out);
  ExprPtr iteration_item(ExprPtr iter, const std::string& counter, Block& out, std::vector<std::string>& leaves);
  StmtPtr parse_while();
  Block parse_else_clause();
  void check_target(const Expr& e, bool augmented);

  // Expressions, loosest to tightest.
  ExprPtr parse_testlist_star_expr();
  ExprPtr parse_target_list();
  ExprPtr parse_star_or_test();
  ExprPtr parse_namedexpr_test();
  ExprPtr parse_test();
  ExprPtr parse_or_test();
  ExprPtr parse_and_test();
  ExprPtr parse_not_test();
  ExprPtr parse_comparison();
  bool at_comparison(CmpOpKind* op) const;
  ExprPtr parse_binary(int level);
  ExprPtr parse_factor();
  ExprPtr parse_power();
  ExprPtr parse_primary();
  ExprPtr parse_call(ExprPtr func, size_t start);
  ExprPtr parse_subscript(ExprPtr value, size_t start);
  ExprPtr parse_subscript_item();
  ExprPtr parse_atom();
  ExprPtr parse_paren();
  ExprPtr parse_list();
  [[noreturn]] void fail_display();
  [[noreturn]] void fail_starred();

  SourceFilePtr file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  int chain_ = 0;
  Diagnostics discard_;            // errors in host code nobody compiles
  Diagnostics* diags_ = &discard_;  // where syntax errors go now
  int loops_ = 0;                   // for loops made into range() loops, for unique temporary names
  bool lists_allowed_ = false;      // parsing a module-level value or a decorator: `[a, b]` is host data
  FunctionDef* current_fn_ = nullptr;  // the function whose body is being parsed (innermost)
};

}  // namespace gpujit::parse_detail
