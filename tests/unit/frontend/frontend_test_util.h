// Helpers shared by the frontend tests: building sources, parsing snippets, and a compact S-expression
// printer for expressions, so that precedence tests read as (+ a (* b c)) rather than as dump text.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/parser.h"
#include "frontend/source.h"

namespace gpujit::test {

inline SourceFilePtr make_source(std::string text, uint32_t first_line = 1, std::string name = "kernel.py") {
  return std::make_shared<SourceFile>(std::move(name), std::move(text), first_line);
}

inline std::unique_ptr<Module> parse(std::string text, uint32_t first_line = 1) {
  return parse_module(make_source(std::move(text), first_line));
}

/// Every error of a module and its functions as "line:col: message", in order.
inline std::vector<std::string> all_errors(const Module& m) {
  std::vector<std::string> out;
  auto add = [&](const Diagnostics& d) {
    for (const Diagnostic& e : d.all()) {
      out.push_back(std::to_string(e.range.begin.line) + ":" + std::to_string(e.range.begin.col) + ": " +
                    e.message);
    }
  };
  add(m.errors);
  for (const FunctionDefPtr& fn : m.functions) add(fn->errors);
  return out;
}

inline std::string sexpr(const Expr& e);

inline std::string sexpr_list(const std::vector<ExprPtr>& v) {
  std::string out;
  for (const ExprPtr& x : v) out += " " + sexpr(*x);
  return out;
}

/// (op operands...) for operators, bare text for leaves.
inline std::string sexpr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name: return e.as<NameExpr>()->id;
    case ExprKind::IntLit: return std::to_string(e.as<IntLitExpr>()->value);
    case ExprKind::FloatLit: {
      std::string s = std::to_string(e.as<FloatLitExpr>()->value);
      return "f" + s;
    }
    case ExprKind::BoolLit: return e.as<BoolLitExpr>()->value ? "True" : "False";
    case ExprKind::NoneLit: return "None";
    case ExprKind::StringLit: return "'" + e.as<StringLitExpr>()->value + "'";
    case ExprKind::UnaryOp: {
      const auto* u = e.as<UnaryOpExpr>();
      return std::string("(") + (u->op == UnaryOpKind::Neg ? "neg" : to_string(u->op)) + " " + sexpr(*u->operand) + ")";
    }
    case ExprKind::BinOp: {
      const auto* b = e.as<BinOpExpr>();
      return std::string("(") + to_string(b->op) + " " + sexpr(*b->lhs) + " " + sexpr(*b->rhs) + ")";
    }
    case ExprKind::BoolOp: {
      const auto* b = e.as<BoolOpExpr>();
      return std::string("(") + to_string(b->op) + sexpr_list(b->values) + ")";
    }
    case ExprKind::Compare: {
      const auto* c = e.as<CompareExpr>();
      std::string out = "(cmp " + sexpr(*c->left);
      for (size_t i = 0; i < c->ops.size(); ++i) {
        out += std::string(" ") + to_string(c->ops[i]) + " " + sexpr(*c->comparators[i]);
      }
      return out + ")";
    }
    case ExprKind::Call: {
      const auto* c = e.as<CallExpr>();
      std::string out = "(call " + sexpr(*c->func) + sexpr_list(c->args);
      for (const Keyword& k : c->keywords) out += " " + k.name + "=" + sexpr(*k.value);
      return out + ")";
    }
    case ExprKind::Attribute: {
      const auto* a = e.as<AttributeExpr>();
      return "(. " + sexpr(*a->value) + " " + a->attr + ")";
    }
    case ExprKind::Subscript: {
      const auto* s = e.as<SubscriptExpr>();
      return "([] " + sexpr(*s->value) + " " + sexpr(*s->index) + ")";
    }
    case ExprKind::Slice: {
      const auto* s = e.as<SliceExpr>();
      auto part = [](const ExprPtr& p) { return p ? sexpr(*p) : std::string("_"); };
      return "(: " + part(s->lower) + " " + part(s->upper) + " " + part(s->step) + ")";
    }
    case ExprKind::Tuple: {
      const auto* t = e.as<TupleExpr>();
      return std::string(t->is_list ? "(list" : "(tuple") + sexpr_list(t->elts) + ")";
    }
    case ExprKind::IfExp: {
      const auto* i = e.as<IfExpExpr>();
      return "(if " + sexpr(*i->test) + " " + sexpr(*i->body) + " " + sexpr(*i->orelse) + ")";
    }
  }
  return "?";
}

}  // namespace gpujit::test
