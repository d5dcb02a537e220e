// The parser's expressions (frontend/parser.h), loosest to tightest, one function per rule of Python's
// grammar; the statements that hold them are in frontend/parser.cpp, and the Parser class both halves share
// in frontend/parser_internal.h. Nesting and chains are bounded (kMaxNesting, kMaxChain), so a pathological
// input is reported instead of overflowing the stack.
#include <fmt/format.h>

#include "frontend/parser_internal.h"

namespace gpujit::parse_detail {
namespace {

constexpr const char* kStarredMessage = "starred expressions ('*x') are not supported in kernels";
constexpr const char* kGeneratorMessage = "generator expressions are not supported in kernels; use a loop";

bool starts_expression(TokenKind k) {
  switch (k) {
    case TokenKind::Name: case TokenKind::Int: case TokenKind::Float: case TokenKind::Imaginary:
    case TokenKind::String: case TokenKind::FString: case TokenKind::KwTrue: case TokenKind::KwFalse:
    case TokenKind::KwNone: case TokenKind::LParen: case TokenKind::LBracket: case TokenKind::LBrace:
    case TokenKind::Minus: case TokenKind::Plus: case TokenKind::Tilde: case TokenKind::KwNot:
    case TokenKind::KwLambda: case TokenKind::KwAwait: case TokenKind::KwYield: case TokenKind::Ellipsis:
    case TokenKind::Star: case TokenKind::DoubleStar:
      return true;
    default:
      return false;
  }
}

// The binary operators of one precedence level, loosest (0, '|') to tightest (5, '*').
constexpr int kBinaryLevels = 6;
bool binary_op(int level, TokenKind k, BinOpKind* op) {
  switch (level) {
    case 0: if (k == TokenKind::Pipe) { *op = BinOpKind::BitOr; return true; } return false;
    case 1: if (k == TokenKind::Caret) { *op = BinOpKind::BitXor; return true; } return false;
    case 2: if (k == TokenKind::Amp) { *op = BinOpKind::BitAnd; return true; } return false;
    case 3:
      if (k == TokenKind::LShift) { *op = BinOpKind::LShift; return true; }
      if (k == TokenKind::RShift) { *op = BinOpKind::RShift; return true; }
      return false;
    case 4:
      if (k == TokenKind::Plus) { *op = BinOpKind::Add; return true; }
      if (k == TokenKind::Minus) { *op = BinOpKind::Sub; return true; }
      return false;
    default:
      switch (k) {
        case TokenKind::Star: *op = BinOpKind::Mul; return true;
        case TokenKind::Slash: *op = BinOpKind::Div; return true;
        case TokenKind::DoubleSlash: *op = BinOpKind::FloorDiv; return true;
        case TokenKind::Percent: *op = BinOpKind::Mod; return true;
        default: return false;
      }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Expressions

// a, b, c as in `x = a, b` or `return a, b`: a tuple when there is a comma (a trailing one included).
ExprPtr Parser::parse_testlist_star_expr() {
  size_t start = pos_;
  ExprPtr first = parse_star_or_test();
  if (!at(TokenKind::Comma)) return first;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (accept(TokenKind::Comma) && starts_expression(peek().kind)) elts.push_back(parse_star_or_test());
  return std::make_unique<TupleExpr>(span_from(start), std::move(elts));
}

// The target of a for loop: bitwise-or expressions, so that `in` ends it.
ExprPtr Parser::parse_target_list() {
  size_t start = pos_;
  if (at(TokenKind::Star)) fail_starred();
  ExprPtr first = parse_binary(0);
  if (!at(TokenKind::Comma)) return first;
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (accept(TokenKind::Comma) && !at(TokenKind::KwIn)) {
    if (at(TokenKind::Star)) fail_starred();
    elts.push_back(parse_binary(0));
  }
  return std::make_unique<TupleExpr>(span_from(start), std::move(elts));
}

ExprPtr Parser::parse_star_or_test() {
  if (at(TokenKind::Star)) fail_starred();
  return parse_test();
}

ExprPtr Parser::parse_namedexpr_test() {
  ExprPtr e = parse_test();
  if (at(TokenKind::ColonEqual)) fail(peek().range, kWalrusMessage);
  return e;
}

ExprPtr Parser::parse_test() {
  if (at(TokenKind::KwLambda)) fail(peek().range, "'lambda' is not supported in kernels");
  NestingGuard guard(*this);
  size_t start = pos_;
  ExprPtr body = parse_or_test();
  if (!accept(TokenKind::KwIf)) return body;
  ExprPtr test = parse_or_test();
  if (!accept(TokenKind::KwElse)) fail_unexpected("'else' in the conditional expression");
  ExprPtr orelse = parse_test();
  return std::make_unique<IfExpExpr>(span_from(start), std::move(test), std::move(body), std::move(orelse));
}

ExprPtr Parser::parse_or_test() {
  size_t start = pos_;
  ExprPtr first = parse_and_test();
  if (!at(TokenKind::KwOr)) return first;
  std::vector<ExprPtr> values;
  values.push_back(std::move(first));
  while (accept(TokenKind::KwOr)) values.push_back(parse_and_test());
  return std::make_unique<BoolOpExpr>(span_from(start), BoolOpKind::Or, std::move(values));
}

ExprPtr Parser::parse_and_test() {
  size_t start = pos_;
  ExprPtr first = parse_not_test();
  if (!at(TokenKind::KwAnd)) return first;
  std::vector<ExprPtr> values;
  values.push_back(std::move(first));
  while (accept(TokenKind::KwAnd)) values.push_back(parse_not_test());
  return std::make_unique<BoolOpExpr>(span_from(start), BoolOpKind::And, std::move(values));
}

ExprPtr Parser::parse_not_test() {
  if (!at(TokenKind::KwNot)) return parse_comparison();
  NestingGuard guard(*this);
  size_t start = pos_;
  advance();
  ExprPtr operand = parse_not_test();
  return std::make_unique<UnaryOpExpr>(span_from(start), UnaryOpKind::Not, std::move(operand));
}

// The comparison operator at the cursor, if any; `not` counts only as the start of `not in`.
bool Parser::at_comparison(CmpOpKind* op) const {
  switch (peek().kind) {
    case TokenKind::Less: *op = CmpOpKind::Lt; return true;
    case TokenKind::Greater: *op = CmpOpKind::Gt; return true;
    case TokenKind::LessEqual: *op = CmpOpKind::LtE; return true;
    case TokenKind::GreaterEqual: *op = CmpOpKind::GtE; return true;
    case TokenKind::EqEqual: *op = CmpOpKind::Eq; return true;
    case TokenKind::NotEqual: *op = CmpOpKind::NotEq; return true;
    case TokenKind::KwIn: *op = CmpOpKind::In; return true;
    case TokenKind::KwIs: *op = peek(1).is(TokenKind::KwNot) ? CmpOpKind::IsNot : CmpOpKind::Is; return true;
    case TokenKind::KwNot: *op = CmpOpKind::NotIn; return peek(1).is(TokenKind::KwIn);
    default: return false;
  }
}

ExprPtr Parser::parse_comparison() {
  size_t start = pos_;
  ExprPtr left = parse_binary(0);
  std::vector<CmpOpKind> ops;
  std::vector<ExprPtr> comparators;
  CmpOpKind op;
  while (at_comparison(&op)) {
    advance();
    if (op == CmpOpKind::IsNot || op == CmpOpKind::NotIn) advance();
    ops.push_back(op);
    comparators.push_back(parse_binary(0));
  }
  if (ops.empty()) return left;
  return std::make_unique<CompareExpr>(span_from(start), std::move(left), std::move(ops), std::move(comparators));
}

ExprPtr Parser::parse_binary(int level) {
  if (level == kBinaryLevels) return parse_factor();
  size_t start = pos_;
  ExprPtr lhs = parse_binary(level + 1);
  ChainGuard chain(*this);
  for (;;) {
    if (level == kBinaryLevels - 1 && at(TokenKind::At)) {
      fail(peek().range, "the matrix multiplication operator '@' is not supported in kernels");
    }
    BinOpKind op;
    if (!binary_op(level, peek().kind, &op)) return lhs;
    chain.deepen(peek().range);
    const Token& op_token = advance();
    ExprPtr rhs = parse_binary(level + 1);
    auto node = std::make_unique<BinOpExpr>(span_from(start), op, std::move(lhs), std::move(rhs));
    node->op_range = op_token.range;
    lhs = std::move(node);
  }
}

// Unary minus binds looser than ** on its right: -2**2 is -(2**2), and 2**-1 is 2**(-1).
ExprPtr Parser::parse_factor() {
  UnaryOpKind op;
  switch (peek().kind) {
    case TokenKind::Minus: op = UnaryOpKind::Neg; break;
    case TokenKind::Plus: op = UnaryOpKind::Pos; break;
    case TokenKind::Tilde: op = UnaryOpKind::Invert; break;
    default: return parse_power();
  }
  NestingGuard guard(*this);
  size_t start = pos_;
  advance();
  ExprPtr operand = parse_factor();
  return std::make_unique<UnaryOpExpr>(span_from(start), op, std::move(operand));
}

ExprPtr Parser::parse_power() {
  size_t start = pos_;
  if (at(TokenKind::KwAwait)) fail(peek().range, "'await' is not supported in kernels");
  ExprPtr base = parse_primary();
  if (!at(TokenKind::DoubleStar)) return base;
  const Token& op_token = advance();
  NestingGuard guard(*this);
  ExprPtr exponent = parse_factor();
  auto node = std::make_unique<BinOpExpr>(span_from(start), BinOpKind::Pow, std::move(base), std::move(exponent));
  node->op_range = op_token.range;
  return node;
}

ExprPtr Parser::parse_primary() {
  size_t start = pos_;
  ExprPtr e = parse_atom();
  ChainGuard chain(*this);
  for (;;) {
    if (at(TokenKind::LParen) || at(TokenKind::LBracket) || at(TokenKind::Dot)) chain.deepen(peek().range);
    if (at(TokenKind::LParen)) {
      e = parse_call(std::move(e), start);
    } else if (at(TokenKind::LBracket)) {
      e = parse_subscript(std::move(e), start);
    } else if (accept(TokenKind::Dot)) {
      if (!at(TokenKind::Name)) fail_unexpected("an attribute name after '.'");
      const Token& name = advance();
      e = std::make_unique<AttributeExpr>(span_from(start), std::move(e), name.text, name.range);
    } else {
      return e;
    }
  }
}

ExprPtr Parser::parse_call(ExprPtr func, size_t start) {
  size_t open = pos_;
  advance();  // (
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  std::vector<bool> starred;
  while (!at(TokenKind::RParen)) {
    const Token& t = peek();
    if (t.is(TokenKind::Star)) {
      // `f(*t)`: the tuple's elements are positional arguments (semantic analysis allows it where the
      // callee is a device function).
      advance();
      ExprPtr e = parse_test();
      if (!keywords.empty()) report(e->range, "an unpacked '*' argument follows a keyword argument; put it first");
      starred.resize(args.size(), false);
      starred.push_back(true);
      args.push_back(std::move(e));
      if (!accept(TokenKind::Comma)) break;
      continue;
    }
    if (t.is(TokenKind::DoubleStar)) fail(t.range, "'**' argument unpacking is not supported in kernels");
    if (t.is(TokenKind::Name) && peek(1).is(TokenKind::Equal)) {
      advance();
      advance();
      ExprPtr value = parse_test();
      for (const Keyword& k : keywords) {
        if (k.name == t.text) report(t.range, fmt::format("keyword argument repeated: '{}'", t.text));
      }
      keywords.push_back({t.text, t.range, std::move(value)});
    } else {
      ExprPtr e = parse_test();
      if (at(TokenKind::KwFor)) fail(span(open, matching_close(open)), kGeneratorMessage);
      if (at(TokenKind::ColonEqual)) fail(peek().range, kWalrusMessage);
      if (at(TokenKind::Equal)) fail(e->range, "a keyword argument name must be a plain name");
      if (!keywords.empty()) report(e->range, "positional argument follows keyword argument");
      args.push_back(std::move(e));
    }
    if (!accept(TokenKind::Comma)) break;
  }
  if (!at(TokenKind::RParen)) fail_unexpected("',' or ')' in the call arguments");
  advance();
  auto call = std::make_unique<CallExpr>(span_from(start), std::move(func), std::move(args), std::move(keywords));
  if (!starred.empty()) {
    starred.resize(call->args.size(), false);
    call->starred = std::move(starred);
  }
  return call;
}

// x[i], x[i, j], x[a:b, ::2]: one index, or a tuple of them when there is a comma.
ExprPtr Parser::parse_subscript(ExprPtr value, size_t start) {
  advance();  // [
  size_t items_start = pos_;
  std::vector<ExprPtr> items;
  bool comma = false;
  for (;;) {
    items.push_back(parse_subscript_item());
    if (!accept(TokenKind::Comma)) break;
    comma = true;
    if (at(TokenKind::RBracket)) break;
  }
  if (!at(TokenKind::RBracket)) fail_unexpected("',' or ']' in the subscript");
  ExprPtr index;
  if (items.size() == 1 && !comma) {
    index = std::move(items.front());
  } else {
    index = std::make_unique<TupleExpr>(span_from(items_start), std::move(items));
  }
  advance();
  return std::make_unique<SubscriptExpr>(span_from(start), std::move(value), std::move(index));
}

ExprPtr Parser::parse_subscript_item() {
  size_t start = pos_;
  ExprPtr lower;
  if (!at(TokenKind::Colon)) {
    if (at(TokenKind::Star)) fail_starred();
    lower = parse_namedexpr_test();
    if (!at(TokenKind::Colon)) return lower;
  }
  advance();  // ':'
  auto slice_part_ends = [&] { return at(TokenKind::Colon) || at(TokenKind::Comma) || at(TokenKind::RBracket); };
  ExprPtr upper, step;
  if (!slice_part_ends()) upper = parse_test();
  if (accept(TokenKind::Colon) && !slice_part_ends()) step = parse_test();
  return std::make_unique<SliceExpr>(span_from(start), std::move(lower), std::move(upper), std::move(step));
}

ExprPtr Parser::parse_atom() {
  size_t start = pos_;
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Name:
      advance();
      return std::make_unique<NameExpr>(t.range, t.text);
    case TokenKind::Int:
      advance();
      if (t.int_overflow) report(t.range, fmt::format("integer literal '{}' does not fit in 64 bits", t.text));
      return std::make_unique<IntLitExpr>(t.range, t.int_value);
    case TokenKind::Float:
      advance();
      return std::make_unique<FloatLitExpr>(t.range, t.float_value);
    case TokenKind::Imaginary:
      advance();
      return std::make_unique<FloatLitExpr>(t.range, t.float_value, true);
    case TokenKind::KwTrue: advance(); return std::make_unique<BoolLitExpr>(t.range, true);
    case TokenKind::KwFalse: advance(); return std::make_unique<BoolLitExpr>(t.range, false);
    case TokenKind::KwNone: advance(); return std::make_unique<NoneLitExpr>(t.range);
    case TokenKind::String: case TokenKind::FString: {
      std::string value;
      const bool bytes = peek().is_bytes;
      while (at(TokenKind::String) || at(TokenKind::FString)) {
        const Token& s = peek();
        if (s.is(TokenKind::FString)) fail(s.range, "f-strings are not supported in kernels");
        if (s.is_bytes != bytes) fail(s.range, "cannot mix bytes and nonbytes literals");  // Python's words
        value += s.str_value;
        advance();
      }
      return std::make_unique<StringLitExpr>(span_from(start), std::move(value), bytes);
    }
    case TokenKind::LParen: return parse_paren();
    case TokenKind::LBracket:
      if (lists_allowed_) return parse_list();
      fail_display();
    case TokenKind::LBrace: fail_display();
    case TokenKind::Ellipsis: fail(t.range, "'...' (Ellipsis) is not supported in kernels");
    case TokenKind::KwLambda: fail(t.range, "'lambda' is not supported in kernels");
    case TokenKind::KwYield: fail(t.range, "'yield' is not supported in kernels");
    case TokenKind::KwAwait: fail(t.range, "'await' is not supported in kernels");
    case TokenKind::Star: fail_starred();
    case TokenKind::DoubleStar: fail(t.range, "'**' unpacking is not supported in kernels");
    default: fail_unexpected("an expression");
  }
}

// ( ) is the empty tuple, (x) is x, (x,) and (x, y) are tuples; (x for ...) is a generator expression.
ExprPtr Parser::parse_paren() {
  size_t open = pos_;
  advance();
  if (accept(TokenKind::RParen)) return std::make_unique<TupleExpr>(span_from(open), std::vector<ExprPtr>{});
  if (at(TokenKind::KwYield)) fail(peek().range, "'yield' is not supported in kernels");
  if (at(TokenKind::Star)) fail_starred();
  ExprPtr first = parse_namedexpr_test();
  if (at(TokenKind::KwFor)) fail(span(open, matching_close(open)), kGeneratorMessage);
  if (accept(TokenKind::RParen)) return first;
  if (!at(TokenKind::Comma)) fail_unexpected("')'");
  std::vector<ExprPtr> elts;
  elts.push_back(std::move(first));
  while (accept(TokenKind::Comma) && !at(TokenKind::RParen)) {
    if (at(TokenKind::Star)) fail_starred();
    elts.push_back(parse_namedexpr_test());
  }
  if (!at(TokenKind::RParen)) fail_unexpected("',' or ')' in the tuple");
  advance();
  return std::make_unique<TupleExpr>(span_from(open), std::move(elts));
}

// [a, b, ...] in a module-level value, as a TupleExpr marked is_list; a comprehension is still rejected.
ExprPtr Parser::parse_list() {
  size_t open = pos_;
  advance();
  std::vector<ExprPtr> elts;
  while (!at(TokenKind::RBracket)) {
    if (at(TokenKind::Star)) fail_starred();
    elts.push_back(parse_test());
    if (at(TokenKind::KwFor)) {
      pos_ = open;
      fail_display();
    }
    if (!accept(TokenKind::Comma)) break;
  }
  if (!at(TokenKind::RBracket)) fail_unexpected("',' or ']' in the list");
  advance();
  auto list = std::make_unique<TupleExpr>(span_from(open), std::move(elts));
  list->is_list = true;
  return list;
}

// A list, set or dict display or comprehension, rejected with a range covering the brackets.
void Parser::fail_display() {
  size_t open = pos_;
  size_t close = matching_close(open);
  bool brace = at(TokenKind::LBrace);
  bool comprehension = false, dict = brace && close == open + 1;
  int depth = 0;
  for (size_t i = open + 1; i < close; ++i) {
    TokenKind k = toks_[i].kind;
    if (is_opening(k)) ++depth;
    if (is_closing(k)) --depth;
    if (depth != 0) continue;
    if (k == TokenKind::KwFor) comprehension = true;
    if (brace && !comprehension && (k == TokenKind::Colon || k == TokenKind::DoubleStar)) dict = true;
  }
  const char* message;
  if (!brace) {
    message = comprehension ? "list comprehensions are not supported in kernels; use a loop"
                            : "lists are not supported in kernels; use a tuple or a local array (gpu.local.array)";
  } else if (dict) {
    message = comprehension ? "dict comprehensions are not supported in kernels; use a loop"
                            : "dicts are not supported in kernels";
  } else {
    message = comprehension ? "set comprehensions are not supported in kernels; use a loop"
                            : "sets are not supported in kernels";
  }
  fail(span(open, close), message);
}

void Parser::fail_starred() {
  size_t star = pos_;
  size_t last = peek(1).is(TokenKind::Name) ? star + 1 : star;
  fail(span(star, last), kStarredMessage);
}

}  // namespace gpujit::parse_detail
