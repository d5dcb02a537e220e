// The parser (frontend/parser.h): module level and statements. The expressions are in
// frontend/parser_expressions.cpp, and the Parser class both halves share in frontend/parser_internal.h.
//
// Recursive descent, one function per grammar rule of Python's own grammar, over the token vector the lexer
// made. A syntax error is reported to the current Diagnostics (a function's, or a scratch one while
// speculatively parsing module-level host code) and then thrown as SyntaxFailure, which never leaves the
// parser: the statement loop catches it and skips to the next statement (the rest of the logical line, the
// indented block a compound header opens, and the elif/else/except/finally clauses that belong to it). The
// lexer guarantees brackets are balanced and that layout tokens come only after a Newline, which is what
// makes that skip safe. Constructs outside the kernel subset are recognised by their first token and
// rejected with a message that names them; their range covers the whole construct when it is bracketed.
#include "frontend/parser.h"

#include <fmt/format.h>

#include "frontend/lexer.h"
#include "frontend/parser_internal.h"
#include "frontend/token.h"

namespace gpujit {
namespace parse_detail {
namespace {

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::Newline: return "end of line";
    case TokenKind::EndOfFile: return "end of file";
    case TokenKind::Indent: return "an indented line";
    case TokenKind::Dedent: return "end of block";
    case TokenKind::String: return "a string literal";
    case TokenKind::FString: return "an f-string";
    default: return fmt::format("'{}'", t.text);
  }
}

bool augmented_op(TokenKind k, BinOpKind* op) {
  switch (k) {
    case TokenKind::PlusEqual: *op = BinOpKind::Add; return true;
    case TokenKind::MinusEqual: *op = BinOpKind::Sub; return true;
    case TokenKind::StarEqual: *op = BinOpKind::Mul; return true;
    case TokenKind::SlashEqual: *op = BinOpKind::Div; return true;
    case TokenKind::DoubleSlashEqual: *op = BinOpKind::FloorDiv; return true;
    case TokenKind::PercentEqual: *op = BinOpKind::Mod; return true;
    case TokenKind::DoubleStarEqual: *op = BinOpKind::Pow; return true;
    case TokenKind::LShiftEqual: *op = BinOpKind::LShift; return true;
    case TokenKind::RShiftEqual: *op = BinOpKind::RShift; return true;
    case TokenKind::AmpEqual: *op = BinOpKind::BitAnd; return true;
    case TokenKind::PipeEqual: *op = BinOpKind::BitOr; return true;
    case TokenKind::CaretEqual: *op = BinOpKind::BitXor; return true;
    default: return false;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Helpers

const Token& Parser::expect(TokenKind k, std::string_view context) {
  if (at(k)) return advance();
  std::string what = fmt::format("'{}'", spelling(k));
  if (!context.empty()) what = fmt::format("{} {}", what, context);
  fail_unexpected(what);
}

void Parser::fail_unexpected(std::string expected) {
  const Token& t = peek();
  if (t.is(TokenKind::ColonEqual)) fail(t.range, kWalrusMessage);
  fail(t.range, fmt::format("expected {}, found {}", expected, describe(t)));
}

SourceRange Parser::span_from(size_t start) const {
  size_t last = pos_ == 0 ? 0 : pos_ - 1;
  while (last > start && (toks_[last].is(TokenKind::Newline) || toks_[last].is(TokenKind::Indent) ||
                          toks_[last].is(TokenKind::Dedent))) {
    --last;
  }
  if (last < start) last = start;
  return span(start, last);
}

size_t Parser::matching_close(size_t open) const {
  int depth = 0;
  for (size_t i = open; i < toks_.size(); ++i) {
    if (is_opening(toks_[i].kind)) ++depth;
    if (is_closing(toks_[i].kind) && --depth == 0) return i;
  }
  return toks_.size() - 1;
}

void Parser::skip_to_line_end() {
  while (!at(TokenKind::Newline) && !at(TokenKind::EndOfFile) && !at(TokenKind::Indent) &&
         !at(TokenKind::Dedent)) {
    advance();
  }
  accept(TokenKind::Newline);
}

void Parser::skip_indented_block() {
  int depth = 0;
  do {
    if (at(TokenKind::EndOfFile)) return;
    if (at(TokenKind::Indent)) ++depth;
    if (at(TokenKind::Dedent)) --depth;
    advance();
  } while (depth > 0);
}

void Parser::skip_statement(bool compound) {
  skip_to_line_end();
  if (at(TokenKind::Indent)) skip_indented_block();
  if (!compound) return;
  while (at(TokenKind::KwElif) || at(TokenKind::KwElse) || at(TokenKind::KwExcept) ||
         at(TokenKind::KwFinally)) {
    skip_to_line_end();
    if (at(TokenKind::Indent)) skip_indented_block();
  }
}

// `match` is a soft keyword: a statement starting with the name `match` is a match statement when its
// logical line ends with ':', which no simple statement does.
bool Parser::is_match_statement(size_t index) const {
  const Token& t = toks_[index];
  if (!t.is(TokenKind::Name) || t.text != "match") return false;
  TokenKind next = toks_[std::min(index + 1, toks_.size() - 1)].kind;
  if (next == TokenKind::Colon || next == TokenKind::Equal || next == TokenKind::Newline) return false;
  TokenKind last = TokenKind::Name;
  for (size_t i = index; i < toks_.size(); ++i) {
    if (toks_[i].is(TokenKind::Newline) || toks_[i].is(TokenKind::EndOfFile)) break;
    last = toks_[i].kind;
  }
  return last == TokenKind::Colon;
}

bool Parser::starts_compound(size_t index) const {
  switch (toks_[index].kind) {
    case TokenKind::KwIf: case TokenKind::KwWhile: case TokenKind::KwFor: case TokenKind::KwTry:
    case TokenKind::KwWith: case TokenKind::KwDef: case TokenKind::KwClass: case TokenKind::KwAsync:
    case TokenKind::At: case TokenKind::KwElif: case TokenKind::KwElse: case TokenKind::KwExcept:
    case TokenKind::KwFinally:
      return true;
    default:
      return is_match_statement(index);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Module level

void Parser::parse_into(Module& m) {
  while (!at(TokenKind::EndOfFile)) {
    size_t before = pos_;
    try {
      parse_top_level_statement(m);
    } catch (SyntaxFailure&) {
      // Host code that is not Python we understand; it is not ours to report.
      diags_ = &discard_;
      skip_statement(starts_compound(before));
    }
    if (pos_ == before) advance();
  }
}

void Parser::parse_top_level_statement(Module& m) {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Newline: case TokenKind::Dedent:
      advance();
      return;
    case TokenKind::Indent:
      m.errors.error(file_, peek(1).range, "unexpected indent");
      skip_indented_block();
      return;
    case TokenKind::At:
      parse_decorated(m);
      return;
    case TokenKind::KwDef:
      parse_function(m, {});
      return;
    case TokenKind::KwImport: case TokenKind::KwFrom:
      parse_import(m);
      return;
    case TokenKind::Name:
      if (peek(1).is(TokenKind::Equal) || peek(1).is(TokenKind::Colon)) {
        parse_global(m);
        return;
      }
      break;
    default:
      break;
  }
  skip_statement(starts_compound(pos_));
}

// Decorators are evaluated by Python, never compiled, so any expression Python accepts is accepted here
// (`@cuda.jit(*sigs, link=[...])`, `@jit(**options)`, a lambda, a dict). One the expression grammar can read
// without an error is kept in the AST (semantic analysis reads a signature string from it); any other is
// skipped to the end of its line, and its errors are dropped: Python has already parsed the file.
void Parser::parse_decorated(Module& m) {
  std::vector<ExprPtr> decorators;
  lists_allowed_ = true;  // @cuda.jit(["void(float32[:])", "void(float64[:])"]): host code
  while (at(TokenKind::At)) {
    advance();
    size_t start = pos_;
    Diagnostics scratch;
    diags_ = &scratch;
    ExprPtr e;
    try {
      e = parse_namedexpr_test();
      if (!at(TokenKind::Newline)) e = nullptr;
    } catch (SyntaxFailure&) {
      e = nullptr;
    }
    diags_ = &discard_;
    if (e && !scratch.has_errors()) {
      advance();
      decorators.push_back(std::move(e));
    } else {
      pos_ = start;
      skip_to_line_end();
    }
  }
  lists_allowed_ = false;
  if (at(TokenKind::KwDef)) {
    parse_function(m, std::move(decorators));
  } else {
    skip_statement(true);  // a decorated class or async def: host code
  }
}

void Parser::parse_function(Module& m, std::vector<ExprPtr> decorators) {
  FunctionDefPtr fn = parse_function_def(std::move(decorators), m.errors);
  diags_ = &discard_;
  if (fn) m.functions.push_back(std::move(fn));
}

// A nested `def` is taken out of the body into the enclosing function's `nested` list; semantic analysis
// binds its name in the enclosing function (ir/sema_closure.cpp). Its syntax errors are its own, as a
// module-level function's are, and the enclosing function's diagnostics resume after it.
void Parser::parse_nested_function() {
  FunctionDef* outer = current_fn_;
  Diagnostics* outer_diags = diags_;
  FunctionDefPtr fn = parse_function_def({}, *outer_diags);
  diags_ = outer_diags;
  current_fn_ = outer;
  if (!fn) return;  // the error is reported and the statement skipped
  fn->enclosing = outer;
  outer->nested.push_back(std::move(fn));
}

FunctionDefPtr Parser::parse_function_def(std::vector<ExprPtr> decorators, Diagnostics& name_errors) {
  size_t start = pos_;
  const Token& def = advance();
  if (!at(TokenKind::Name)) {
    name_errors.error(file_, peek().range,
                      fmt::format("expected a function name after 'def', found {}", describe(peek())));
    skip_statement(true);
    return nullptr;
  }
  auto fn = std::make_unique<FunctionDef>();
  fn->file = file_;
  fn->decorators = std::move(decorators);
  const Token& name = advance();
  fn->name = name.text;
  fn->name_range = name.range;
  diags_ = &fn->errors;
  FunctionDef* outer = current_fn_;
  current_fn_ = fn.get();
  int loops = loops_;
  try {
    parse_params(*fn);
    if (accept(TokenKind::Arrow)) parse_test();  // a return annotation is accepted and ignored
    expect(TokenKind::Colon, "after the function signature");
    fn->body = parse_block("function definition", def);
  } catch (SyntaxFailure&) {
    skip_statement(true);
  }
  current_fn_ = outer;
  loops_ = loops;
  if (!fn->body.empty()) {
    if (const auto* stmt = fn->body.front()->as<ExprStmt>()) {
      if (const auto* doc = stmt->value->as<StringLitExpr>()) {
        fn->docstring = doc->value;
        fn->body.erase(fn->body.begin());
      }
    }
  }
  fn->range = span_from(start);
  return fn;
}

// Imports are host code as much as kernel context, so a malformed one is skipped, not reported.
void Parser::parse_import(Module& m) {
  std::vector<Import> found;
  try {
    if (at(TokenKind::KwImport)) {
      parse_import_names(found);
    } else {
      parse_from_import(found);
    }
    if (at_statement_end()) {
      for (Import& i : found) m.imports.push_back(std::move(i));
    }
  } catch (SyntaxFailure&) {
  }
  skip_to_line_end();
}

void Parser::parse_import_names(std::vector<Import>& out) {
  advance();  // import
  do {
    size_t start = pos_;
    Import i;
    i.module = parse_dotted_name();
    i.alias = i.module.substr(0, i.module.find('.'));  // `import a.b` binds `a`
    if (accept(TokenKind::KwAs)) i.alias = expect_name();
    i.range = span_from(start);
    out.push_back(std::move(i));
  } while (accept(TokenKind::Comma));
}

void Parser::parse_from_import(std::vector<Import>& out) {
  advance();  // from
  std::string module;
  for (;; advance()) {
    if (at(TokenKind::Dot)) {
      module += ".";
    } else if (at(TokenKind::Ellipsis)) {
      module += "...";
    } else {
      break;
    }
  }
  if (at(TokenKind::Name)) module += parse_dotted_name();
  if (module.empty()) fail_unexpected("a module name");
  expect(TokenKind::KwImport, "");
  if (accept(TokenKind::Star)) return;  // binds names we cannot know
  bool parenthesized = accept(TokenKind::LParen);
  do {
    if (parenthesized && at(TokenKind::RParen)) break;
    size_t start = pos_;
    Import i;
    i.module = module;
    i.name = expect_name();
    i.alias = accept(TokenKind::KwAs) ? expect_name() : i.name;
    i.range = span_from(start);
    out.push_back(std::move(i));
  } while (accept(TokenKind::Comma));
  if (parenthesized) expect(TokenKind::RParen, "");
}

std::string Parser::parse_dotted_name() {
  std::string name = expect_name();
  while (accept(TokenKind::Dot)) {
    name += '.';
    name += expect_name();
  }
  return name;
}

std::string Parser::expect_name() {
  if (!at(TokenKind::Name)) fail_unexpected("a name");
  return advance().text;
}

// NAME = expr, or NAME: annotation = expr. A value outside the kernel subset leaves the global with a null
// value and no error: it is host data unless a kernel uses it.
void Parser::parse_global(Module& m) {
  size_t start = pos_;
  GlobalAssign g;
  g.name = advance().text;
  bool declared_only = false;
  try {
    if (accept(TokenKind::Colon)) {
      parse_test();
      declared_only = !at(TokenKind::Equal);
    }
    if (!declared_only) {
      advance();  // '='
      lists_allowed_ = true;
      ExprPtr value = parse_testlist_star_expr();
      if (at_statement_end()) g.value = std::move(value);
    }
  } catch (SyntaxFailure&) {
  }
  lists_allowed_ = false;
  skip_to_line_end();
  g.range = span_from(start);
  if (!declared_only) m.globals.push_back(std::move(g));
}

// ---------------------------------------------------------------------------------------------------------
// Statements

void Parser::parse_params(FunctionDef& fn) {
  expect(TokenKind::LParen, "after the function name");
  while (!at(TokenKind::RParen)) {
    size_t start = pos_;
    const Token& t = peek();
    if (fn.vararg && !t.is(TokenKind::DoubleStar)) {
      // Python's keyword-only parameters: calls of device functions pass arguments by position.
      report(t.range, fmt::format("parameters after '*{}' (keyword-only) are not supported in kernels",
                                  fn.vararg->name));
    }
    if (t.is(TokenKind::Star) && peek(1).is(TokenKind::Name) && !fn.vararg) {
      // `*args`: a device function's extra positional arguments, as one tuple (ir/sema_call.cpp).
      advance();
      const Token& name = advance();
      if (accept(TokenKind::Colon)) parse_test();  // an annotation is accepted and ignored
      for (const Param& p : fn.params) {
        if (p.name == name.text) report(name.range, fmt::format("duplicate parameter '{}'", name.text));
      }
      fn.vararg = Param{name.text, span(start, pos_ - 1), nullptr};
    } else if (t.is(TokenKind::Star) || t.is(TokenKind::DoubleStar)) {
      advance();
      if (at(TokenKind::Name)) {
        const Token& name = advance();
        report(span(start, pos_ - 1), fmt::format("'{}{}' parameters are not supported in kernels", t.text, name.text));
        if (accept(TokenKind::Colon)) parse_test();
      } else {
        report(t.range, "keyword-only parameters are not supported in kernels");
      }
    } else if (t.is(TokenKind::Slash)) {
      advance();  // the positional-only marker changes nothing: kernel parameters are all positional
    } else if (t.is(TokenKind::Name)) {
      advance();
      if (accept(TokenKind::Colon)) parse_test();  // an annotation is accepted and ignored
      ExprPtr default_value;  // a device function's; semantic analysis checks it (ir/sema_overload.cpp)
      if (accept(TokenKind::Equal)) default_value = parse_test();
      for (const Param& p : fn.params) {
        if (p.name == t.text) report(t.range, fmt::format("duplicate parameter '{}'", t.text));
      }
      fn.params.push_back({t.text, t.range, std::move(default_value)});
    } else {
      fail_unexpected("a parameter name");
    }
    if (!accept(TokenKind::Comma)) break;
  }
  expect(TokenKind::RParen, "to close the parameter list");
}

Block Parser::parse_block(const std::string& owner, const Token& keyword) {
  Block block;
  if (!accept(TokenKind::Newline)) {
    parse_simple_statements(block);  // `if x: y = 1` on one line
    return block;
  }
  if (!at(TokenKind::Indent)) {
    report(peek().range,
           fmt::format("expected an indented block after {} on line {}", owner, keyword.range.begin.line));
    return block;
  }
  advance();
  while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile)) parse_statement_recovering(block);
  accept(TokenKind::Dedent);
  return block;
}

void Parser::parse_statement_recovering(Block& out) {
  size_t start = pos_;
  try {
    parse_statement(out);
  } catch (SyntaxFailure&) {
    skip_statement(starts_compound(start));
  }
  if (pos_ == start && !at(TokenKind::Dedent)) advance();
}

void Parser::parse_statement(Block& out) {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Newline:
      advance();
      return;
    case TokenKind::Indent:
      report(peek(1).range, "unexpected indent");
      skip_indented_block();
      return;
    case TokenKind::KwIf: out.push_back(parse_if()); return;
    case TokenKind::KwFor: parse_for(out); return;
    case TokenKind::KwWhile: out.push_back(parse_while()); return;
    case TokenKind::KwDef:
      if (!current_fn_) fail(t.range, "'def' is not supported here; define a device function at module level");
      parse_nested_function();
      out.push_back(std::make_unique<PassStmt>(t.range));  // `if c: def f(): ...` keeps a non-empty body
      return;
    case TokenKind::KwClass: fail(t.range, "'class' is not supported in kernels");
    case TokenKind::KwWith: fail(t.range, "'with' is not supported in kernels");
    case TokenKind::KwTry: fail(t.range, "'try' is not supported in kernels");
    case TokenKind::KwAsync: fail(t.range, "'async' is not supported in kernels");
    case TokenKind::KwElif: fail(t.range, "'elif' without a matching 'if'");
    case TokenKind::KwElse: fail(t.range, "'else' without a matching 'if', 'for' or 'while'");
    case TokenKind::KwExcept: case TokenKind::KwFinally:
      fail(t.range, fmt::format("'{}' without a matching 'try'", t.text));
    case TokenKind::At:
      while (at(TokenKind::At)) skip_to_line_end();
      if (!at(TokenKind::KwDef) && !at(TokenKind::KwClass)) {
        fail(t.range, "a decorator must be followed by a function or class definition");
      }
      parse_statement(out);
      return;
    default:
      break;
  }
  if (is_match_statement(pos_)) fail(t.range, "'match' is not supported in kernels; use if/elif");
  parse_simple_statements(out);
}

void Parser::parse_simple_statements(Block& out) {
  for (;;) {
    out.push_back(parse_small_statement());
    if (!accept(TokenKind::Semicolon) || at(TokenKind::Newline)) break;
  }
  if (!accept(TokenKind::Newline)) fail_unexpected("end of statement");
}

StmtPtr Parser::parse_small_statement() {
  size_t start = pos_;
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::KwPass: advance(); return std::make_unique<PassStmt>(t.range);
    case TokenKind::KwBreak: advance(); return std::make_unique<BreakStmt>(t.range);
    case TokenKind::KwContinue: advance(); return std::make_unique<ContinueStmt>(t.range);
    case TokenKind::KwReturn: {
      advance();
      ExprPtr value;
      if (!at_statement_end()) value = parse_testlist_star_expr();
      return std::make_unique<ReturnStmt>(span_from(start), std::move(value));
    }
    case TokenKind::KwGlobal:
      fail(t.range, "'global' is not supported in kernels; module-level constants can be read without it");
    case TokenKind::KwNonlocal: fail(t.range, "'nonlocal' is not supported in kernels");
    case TokenKind::KwDel: fail(t.range, "'del' is not supported in kernels");
    case TokenKind::KwAssert: fail(t.range, "'assert' is not supported in kernels");
    case TokenKind::KwRaise: {
      advance();
      ExprPtr exc;
      if (!at_statement_end()) exc = parse_test();
      if (at(TokenKind::KwFrom)) fail(peek().range, "'raise ... from' is not supported in kernels");
      return std::make_unique<RaiseStmt>(span_from(start), std::move(exc));
    }
    case TokenKind::KwImport: fail(t.range, "'import' is not supported in kernels; import at module level");
    case TokenKind::KwFrom: fail(t.range, "'from ... import' is not supported in kernels; import at module level");
    default:
      return parse_expr_or_assign();
  }
}

StmtPtr Parser::parse_expr_or_assign() {
  size_t start = pos_;
  ExprPtr first = parse_testlist_star_expr();
  BinOpKind op;
  if (at(TokenKind::Equal)) {
    std::vector<ExprPtr> targets;
    targets.push_back(std::move(first));
    while (accept(TokenKind::Equal)) {
      if (at(TokenKind::KwYield)) fail(peek().range, "'yield' is not supported in kernels");
      targets.push_back(parse_testlist_star_expr());
    }
    ExprPtr value = std::move(targets.back());
    targets.pop_back();
    for (const ExprPtr& target : targets) check_target(*target, false);
    return std::make_unique<AssignStmt>(span_from(start), std::move(targets), std::move(value));
  }
  if (at(TokenKind::AtEqual)) fail(peek().range, "the matrix multiplication operator '@=' is not supported in kernels");
  if (augmented_op(peek().kind, &op)) {
    advance();
    check_target(*first, true);
    if (at(TokenKind::KwYield)) fail(peek().range, "'yield' is not supported in kernels");
    ExprPtr value = parse_testlist_star_expr();
    return std::make_unique<AugAssignStmt>(span_from(start), std::move(first), op, std::move(value));
  }
  if (at(TokenKind::Colon)) {
    // x: T = v. The annotation is accepted and ignored: types come from the values.
    advance();
    parse_test();
    if (!accept(TokenKind::Equal)) {
      fail(span(start, pos_ - 1), "a variable annotation without a value is not supported in kernels; assign a value");
    }
    if (first->kind == ExprKind::Tuple) fail(first->range, "only a single target can be annotated");
    check_target(*first, false);
    ExprPtr value = parse_testlist_star_expr();
    std::vector<ExprPtr> targets;
    targets.push_back(std::move(first));
    return std::make_unique<AssignStmt>(span_from(start), std::move(targets), std::move(value));
  }
  if (at(TokenKind::ColonEqual)) fail(peek().range, kWalrusMessage);
  return std::make_unique<ExprStmt>(span_from(start), std::move(first));
}

void Parser::check_target(const Expr& e, bool augmented) {
  switch (e.kind) {
    case ExprKind::Name: case ExprKind::Subscript:
    case ExprKind::Attribute:  // a record field (rec.x = v); analysis rejects other attributes
      return;
    case ExprKind::Tuple:
      if (augmented) fail(e.range, "augmented assignment to a tuple is not supported; update each element");
      for (const ExprPtr& elt : e.as<TupleExpr>()->elts) check_target(*elt, false);
      return;
    case ExprKind::Call: fail(e.range, "cannot assign to a function call");
    case ExprKind::IntLit: case ExprKind::FloatLit: case ExprKind::BoolLit: case ExprKind::NoneLit:
    case ExprKind::StringLit:
      fail(e.range, "cannot assign to a literal");
    default:
      fail(e.range, "cannot assign to an expression");
  }
}

StmtPtr Parser::parse_if() {
  size_t start = pos_;
  const Token& keyword = advance();  // 'if' or 'elif'
  ExprPtr test = parse_namedexpr_test();
  expect(TokenKind::Colon, fmt::format("after the '{}' condition", keyword.text));
  Block body = parse_block(fmt::format("'{}' statement", keyword.text), keyword);
  Block orelse;
  ChainGuard chain(*this);  // each elif is an IfStmt in the else block of the one before
  if (at(TokenKind::KwElif)) {
    chain.deepen(peek().range);
    orelse.push_back(parse_if());
  } else {
    orelse = parse_else_clause();
  }
  return std::make_unique<IfStmt>(span_from(start), std::move(test), std::move(body), std::move(orelse));
}

// A for loop over anything but range() becomes a loop over range() that indexes, so the rest of the
// compiler knows one loop. Arrays (over their first axis), tuples, enumerate() and zip() of those iterate as
// in numba:
//
//   for i, (x, y) in enumerate(zip(a, b)):     $for0_0 = a
//       body                                   $for0_1 = b
//                                              for $for0 in range(min(len($for0_0), len($for0_1))):
//                                                  i, (x, y) = ($for0, ($for0_0[$for0], $for0_1[$for0]))
//                                                  body
//
// Each iterable (and enumerate's start) is evaluated once, before the loop, as Python evaluates them. The
// '$' names cannot clash with a user's; the new nodes carry the iterable's source range, so errors point at
// it. Semantic analysis checks that each `$forN_i` is an array or a tuple (sema.cpp, assign).
void Parser::parse_for(Block& out) {
  size_t start = pos_;
  const Token& keyword = advance();
  ExprPtr target = parse_target_list();
  check_target(*target, false);
  expect(TokenKind::KwIn, "after the 'for' target");
  ExprPtr iter = parse_testlist_star_expr();
  expect(TokenKind::Colon, "after the 'for' iterable");
  Block body = parse_block("'for' statement", keyword);
  Block orelse = parse_else_clause();
  SourceRange range = span_from(start);
  const auto* call = iter->as<CallExpr>();
  if (call && !call->starred.empty())
    report(iter->range, "'*' unpacking in the iterable of a 'for' loop is not supported; pass the arguments one by one");
  const auto* callee = call ? call->func->as<NameExpr>() : nullptr;
  if (callee && callee->id == "range") {
    out.push_back(std::make_unique<ForStmt>(range, std::move(target), std::move(iter), std::move(body),
                                            std::move(orelse)));
    return;
  }
  // literal_unroll(t) and its dotted spellings (numba.literal_unroll, cuda.literal_unroll): semantic analysis
  // unrolls the loop when t's elements differ in type (ForStmt::literal_unroll).
  const auto* unroll_attr = call ? call->func->as<AttributeExpr>() : nullptr;
  bool unroll =
      call && call->args.size() == 1 &&
      ((callee && callee->id == "literal_unroll") || (unroll_attr && unroll_attr->attr == "literal_unroll"));
  std::string counter = fmt::format("$for{}", loops_++);
  SourceRange at = iter->range;
  std::vector<std::string> leaves;
  ExprPtr item = iteration_item(std::move(iter), counter, out, leaves);
  auto name = [&](const std::string& id) { return std::make_unique<NameExpr>(at, id); };
  auto len = [&](const std::string& leaf) {
    std::vector<ExprPtr> args;
    args.push_back(name(leaf));
    return std::make_unique<CallExpr>(at, name("len"), std::move(args), std::vector<Keyword>{});
  };
  ExprPtr count = leaves.empty() ? ExprPtr(std::make_unique<IntLitExpr>(at, 0)) : ExprPtr(len(leaves[0]));
  for (size_t i = 1; i < leaves.size(); ++i) {  // zip stops at the shortest
    std::vector<ExprPtr> args;
    args.push_back(std::move(count));
    args.push_back(len(leaves[i]));
    count = std::make_unique<CallExpr>(at, name("min"), std::move(args), std::vector<Keyword>{});
  }
  std::vector<ExprPtr> range_args;
  range_args.push_back(std::move(count));
  auto range_call = std::make_unique<CallExpr>(at, name("range"), std::move(range_args), std::vector<Keyword>{});
  SourceRange target_range = target->range;
  std::vector<ExprPtr> targets;
  targets.push_back(std::move(target));
  Block loop_body;
  loop_body.push_back(std::make_unique<AssignStmt>(target_range, std::move(targets), std::move(item)));
  for (StmtPtr& s : body) loop_body.push_back(std::move(s));
  auto loop = std::make_unique<ForStmt>(range, name(counter), std::move(range_call), std::move(loop_body),
                                        std::move(orelse));
  loop->literal_unroll = unroll;
  out.push_back(std::move(loop));
}

ExprPtr Parser::iteration_item(ExprPtr iter, const std::string& counter, Block& out,
                               std::vector<std::string>& leaves) {
  SourceRange at = iter->range;
  auto name = [&](const std::string& id) { return std::make_unique<NameExpr>(at, id); };
  auto bind = [&](const std::string& id, ExprPtr value) {
    std::vector<ExprPtr> targets;
    targets.push_back(name(id));
    out.push_back(std::make_unique<AssignStmt>(at, std::move(targets), std::move(value)));
  };
  auto* call = iter->as<CallExpr>();
  const auto* callee = call ? call->func->as<NameExpr>() : nullptr;
  if (callee && callee->id == "enumerate") {
    ExprPtr start;
    for (Keyword& k : call->keywords) {
      if (k.name != "start") report(k.name_range, fmt::format("enumerate() got an unexpected keyword argument '{}'", k.name));
      start = std::move(k.value);
    }
    if (call->args.empty() || call->args.size() + (start ? 1 : 0) > 2) {
      report(at, "enumerate() takes an iterable and an optional start");
      return name(counter);
    }
    if (call->args.size() == 2) start = std::move(call->args[1]);
    ExprPtr index = name(counter);
    if (start) {
      std::string start_name = fmt::format("{}_s{}", counter, leaves.size());
      bind(start_name, std::move(start));
      index = std::make_unique<BinOpExpr>(at, BinOpKind::Add, std::move(index), name(start_name));
    }
    std::vector<ExprPtr> pair;
    pair.push_back(std::move(index));
    pair.push_back(iteration_item(std::move(call->args[0]), counter, out, leaves));
    return std::make_unique<TupleExpr>(at, std::move(pair));
  }
  if (callee && callee->id == "zip") {
    if (!call->keywords.empty()) report(call->keywords[0].name_range, "zip() takes no keyword arguments");
    if (call->args.empty()) {
      report(at, "zip() needs at least one iterable in a for loop");
      leaves.push_back(counter + "_empty");
      bind(leaves.back(), std::make_unique<TupleExpr>(at, std::vector<ExprPtr>{}));
      return name(counter);
    }
    std::vector<ExprPtr> items;
    for (ExprPtr& a : call->args) items.push_back(iteration_item(std::move(a), counter, out, leaves));
    return std::make_unique<TupleExpr>(at, std::move(items));
  }
  std::string leaf = fmt::format("{}_{}", counter, leaves.size());
  leaves.push_back(leaf);
  bind(leaf, std::move(iter));
  return std::make_unique<SubscriptExpr>(at, name(leaf), name(counter));
}

StmtPtr Parser::parse_while() {
  size_t start = pos_;
  const Token& keyword = advance();
  ExprPtr test = parse_namedexpr_test();
  expect(TokenKind::Colon, "after the 'while' condition");
  Block body = parse_block("'while' statement", keyword);
  Block orelse = parse_else_clause();
  return std::make_unique<WhileStmt>(span_from(start), std::move(test), std::move(body), std::move(orelse));
}

Block Parser::parse_else_clause() {
  if (!at(TokenKind::KwElse)) return {};
  const Token& keyword = advance();
  expect(TokenKind::Colon, "after 'else'");
  return parse_block("'else' statement", keyword);
}

}  // namespace parse_detail

std::unique_ptr<Module> parse_module(SourceFilePtr file) {
  auto module = std::make_unique<Module>();
  module->file = file;
  std::vector<Token> tokens = tokenize(file, module->errors);
  if (module->errors.has_errors()) return module;
  parse_detail::Parser(std::move(file), std::move(tokens)).parse_into(*module);
  return module;
}

}  // namespace gpujit