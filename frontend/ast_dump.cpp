// The AST dump (frontend/ast_dump.h).
//
// A small recursive printer. Floats print in their shortest round-trip form with a ".0" added to whole
// numbers (as Python's repr does), and strings print single-quoted with escapes, so a dump is one line per
// node whatever the literal holds.
#include "frontend/ast_dump.h"

#include <fmt/format.h>

namespace gpujit {
namespace {

std::string quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += fmt::format("\\x{:02x}", u);
        } else {
          out += c;
        }
    }
  }
  return out + "'";
}

std::string format_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n': inf and nan
  return s;
}

std::string at(SourceRange r) { return fmt::format("@{}:{}", r.begin.line, r.begin.col); }

class Dumper {
 public:
  std::string take() { return std::move(out_); }

  void function(const FunctionDef& fn, int indent) {
    std::string params;
    for (const Param& p : fn.params) params += (params.empty() ? "" : ", ") + p.name;
    if (fn.vararg) params += (params.empty() ? "*" : ", *") + fn.vararg->name;
    line(indent, "", fmt::format("FunctionDef {} ({}) {}", fn.name, params, at(fn.range)));
    for (const ExprPtr& d : fn.decorators) expr(*d, indent + 1, "decorator");
    if (fn.docstring) line(indent + 1, "", "docstring " + quote(*fn.docstring));
    for (const StmtPtr& s : fn.body) stmt(*s, indent + 1);
    for (const Diagnostic& d : fn.errors.all()) {
      line(indent + 1, "", fmt::format("error {} {}", at(d.range), d.message));
    }
  }

  void module(const Module& m) {
    line(0, "", fmt::format("Module {}", m.file ? m.file->name() : "<none>"));
    for (const Diagnostic& d : m.errors.all()) line(1, "", fmt::format("error {} {}", at(d.range), d.message));
    for (const Import& i : m.imports) {
      if (i.name.empty()) {
        line(1, "", fmt::format("Import {} as {} {}", i.module, i.alias, at(i.range)));
      } else {
        line(1, "", fmt::format("ImportFrom {} name {} as {} {}", i.module, i.name, i.alias, at(i.range)));
      }
    }
    for (const GlobalAssign& g : m.globals) {
      if (g.value) {
        line(1, "", fmt::format("Global {} {}", g.name, at(g.range)));
        expr(*g.value, 2, "value");
      } else {
        line(1, "", fmt::format("Global {} <not a kernel expression> {}", g.name, at(g.range)));
      }
    }
    for (const FunctionDefPtr& fn : m.functions) function(*fn, 1);
  }

  void expr(const Expr& e, int indent, std::string_view role) {
    switch (e.kind) {
      case ExprKind::Name:
        line(indent, role, fmt::format("Name {} {}", e.as<NameExpr>()->id, at(e.range)));
        return;
      case ExprKind::IntLit:
        line(indent, role, fmt::format("IntLit {} {}", e.as<IntLitExpr>()->value, at(e.range)));
        return;
      case ExprKind::FloatLit:
        line(indent, role,
             fmt::format("FloatLit {}{} {}", format_float(e.as<FloatLitExpr>()->value),
                         e.as<FloatLitExpr>()->imaginary ? "j" : "", at(e.range)));
        return;
      case ExprKind::BoolLit:
        line(indent, role, fmt::format("BoolLit {} {}", e.as<BoolLitExpr>()->value ? "True" : "False", at(e.range)));
        return;
      case ExprKind::NoneLit:
        line(indent, role, fmt::format("NoneLit {}", at(e.range)));
        return;
      case ExprKind::StringLit:
        line(indent, role, fmt::format("StringLit {} {}", quote(e.as<StringLitExpr>()->value), at(e.range)));
        return;
      case ExprKind::UnaryOp: {
        const auto* u = e.as<UnaryOpExpr>();
        line(indent, role, fmt::format("UnaryOp {} {}", to_string(u->op), at(e.range)));
        expr(*u->operand, indent + 1, "");
        return;
      }
      case ExprKind::BinOp: {
        const auto* b = e.as<BinOpExpr>();
        line(indent, role, fmt::format("BinOp {} {}", to_string(b->op), at(e.range)));
        expr(*b->lhs, indent + 1, "");
        expr(*b->rhs, indent + 1, "");
        return;
      }
      case ExprKind::BoolOp: {
        const auto* b = e.as<BoolOpExpr>();
        line(indent, role, fmt::format("BoolOp {} {}", to_string(b->op), at(e.range)));
        for (const ExprPtr& v : b->values) expr(*v, indent + 1, "");
        return;
      }
      case ExprKind::Compare: {
        const auto* c = e.as<CompareExpr>();
        std::string ops;
        for (CmpOpKind op : c->ops) ops += fmt::format("{}[{}]", ops.empty() ? "" : " ", to_string(op));
        line(indent, role, fmt::format("Compare {} {}", ops, at(e.range)));
        expr(*c->left, indent + 1, "");
        for (const ExprPtr& v : c->comparators) expr(*v, indent + 1, "");
        return;
      }
      case ExprKind::Call: {
        const auto* c = e.as<CallExpr>();
        line(indent, role, fmt::format("Call {}", at(e.range)));
        expr(*c->func, indent + 1, "func");
        for (size_t i = 0; i < c->args.size(); ++i) expr(*c->args[i], indent + 1, c->is_starred(i) ? "arg *" : "arg");
        for (const Keyword& k : c->keywords) expr(*k.value, indent + 1, "keyword " + k.name + " =");
        return;
      }
      case ExprKind::Attribute: {
        const auto* a = e.as<AttributeExpr>();
        line(indent, role, fmt::format("Attribute {} {}", a->attr, at(e.range)));
        expr(*a->value, indent + 1, "");
        return;
      }
      case ExprKind::Subscript: {
        const auto* s = e.as<SubscriptExpr>();
        line(indent, role, fmt::format("Subscript {}", at(e.range)));
        expr(*s->value, indent + 1, "value");
        expr(*s->index, indent + 1, "index");
        return;
      }
      case ExprKind::Slice: {
        const auto* s = e.as<SliceExpr>();
        line(indent, role, fmt::format("Slice {}", at(e.range)));
        if (s->lower) expr(*s->lower, indent + 1, "lower");
        if (s->upper) expr(*s->upper, indent + 1, "upper");
        if (s->step) expr(*s->step, indent + 1, "step");
        return;
      }
      case ExprKind::Tuple: {
        const auto* t = e.as<TupleExpr>();
        line(indent, role, fmt::format("{} {}", t->is_list ? "List" : "Tuple", at(e.range)));
        for (const ExprPtr& v : t->elts) expr(*v, indent + 1, "");
        return;
      }
      case ExprKind::IfExp: {
        const auto* i = e.as<IfExpExpr>();
        line(indent, role, fmt::format("IfExp {}", at(e.range)));
        expr(*i->test, indent + 1, "test");
        expr(*i->body, indent + 1, "body");
        expr(*i->orelse, indent + 1, "orelse");
        return;
      }
    }
    throw InternalError("dump: unknown expression kind");
  }

  void stmt(const Stmt& s, int indent) {
    switch (s.kind) {
      case StmtKind::Expr:
        line(indent, "", fmt::format("Expr {}", at(s.range)));
        expr(*s.as<ExprStmt>()->value, indent + 1, "value");
        return;
      case StmtKind::Assign: {
        const auto* a = s.as<AssignStmt>();
        line(indent, "", fmt::format("Assign {}", at(s.range)));
        for (const ExprPtr& t : a->targets) expr(*t, indent + 1, "target");
        expr(*a->value, indent + 1, "value");
        return;
      }
      case StmtKind::AugAssign: {
        const auto* a = s.as<AugAssignStmt>();
        line(indent, "", fmt::format("AugAssign {}= {}", to_string(a->op), at(s.range)));
        expr(*a->target, indent + 1, "target");
        expr(*a->value, indent + 1, "value");
        return;
      }
      case StmtKind::If: {
        const auto* i = s.as<IfStmt>();
        line(indent, "", fmt::format("If {}", at(s.range)));
        expr(*i->test, indent + 1, "test");
        block("body", i->body, indent + 1);
        block("orelse", i->orelse, indent + 1);
        return;
      }
      case StmtKind::For: {
        const auto* f = s.as<ForStmt>();
        line(indent, "", fmt::format("For {}", at(s.range)));
        expr(*f->target, indent + 1, "target");
        expr(*f->iter, indent + 1, "iter");
        block("body", f->body, indent + 1);
        block("orelse", f->orelse, indent + 1);
        return;
      }
      case StmtKind::While: {
        const auto* w = s.as<WhileStmt>();
        line(indent, "", fmt::format("While {}", at(s.range)));
        expr(*w->test, indent + 1, "test");
        block("body", w->body, indent + 1);
        block("orelse", w->orelse, indent + 1);
        return;
      }
      case StmtKind::Break: line(indent, "", fmt::format("Break {}", at(s.range))); return;
      case StmtKind::Continue: line(indent, "", fmt::format("Continue {}", at(s.range))); return;
      case StmtKind::Pass: line(indent, "", fmt::format("Pass {}", at(s.range))); return;
      case StmtKind::Raise: {
        const auto* r = s.as<RaiseStmt>();
        line(indent, "", fmt::format("Raise {}", at(s.range)));
        if (r->exc) expr(*r->exc, indent + 1, "exc");
        return;
      }
      case StmtKind::Return: {
        const auto* r = s.as<ReturnStmt>();
        line(indent, "", fmt::format("Return {}", at(s.range)));
        if (r->value) expr(*r->value, indent + 1, "value");
        return;
      }
    }
    throw InternalError("dump: unknown statement kind");
  }

 private:
  // An empty orelse is left out; an empty body (only a docstring, or an error) still shows its role line.
  void block(std::string_view role, const Block& b, int indent) {
    if (b.empty() && role == "orelse") return;
    line(indent, "", std::string(role));
    for (const StmtPtr& s : b) stmt(*s, indent + 1);
  }

  void line(int indent, std::string_view role, std::string_view text) {
    out_.append(static_cast<size_t>(indent) * 2, ' ');
    if (!role.empty()) {
      out_ += role;
      out_ += ' ';
    }
    out_ += text;
    out_ += '\n';
  }

  std::string out_;
};

}  // namespace

std::string dump_ast(const FunctionDef& fn) {
  Dumper d;
  d.function(fn, 0);
  return d.take();
}

std::string dump_module(const Module& module) {
  Dumper d;
  d.module(module);
  return d.take();
}

std::string dump_expr(const Expr& e, int indent) {
  Dumper d;
  d.expr(e, indent, "");
  return d.take();
}

}  // namespace gpujit
