// dump_typed(): a typed function as stable text for `--emit typed` and golden tests.
//
// Format: a header with the signature and the mangled name, the locals one per line, then the body with the
// source line of each statement. Every value expression is written `text:type`; a composite expression is
// parenthesized; a folded constant adds `=value`; a conversion to an operand, argument or destination type
// is written `->type` after the converted operand. Callees show how they resolved in angle brackets:
// `math.sqrt<math.sqrt>`, `np.float32<cast float32>`, `dev<device _gpujit_dev_...>`. The names of modules
// and namespaces (`gpu.`, `math.`) have no type. Nothing depends on hash-map order.
#include <fmt/format.h>

#include "ir/builtins.h"
#include "ir/sema.h"

namespace gpujit {

namespace {

class Dumper {
 public:
  explicit Dumper(const TypedFunction& fn) : fn_(fn) {}

  std::string run() {
    std::string params;
    for (size_t i = 0; i < fn_.signature.params.size(); ++i) {
      if (i) params += ", ";
      std::string pname =
          fn_.def && i < fn_.def->params.size() ? fn_.def->params[i].name : fmt::format("arg{}", i);
      params += fmt::format("{}: {}", pname, fn_.signature.params[i].str());
    }
    out_ += fmt::format("{} {}({}) -> {}\n", fn_.is_kernel ? "kernel" : "device", fn_.name, params,
                        fn_.signature.ret.str());
    out_ += fmt::format("  mangled: {}\n", fn_.mangled_name);
    if (!fn_.callees.empty()) {
      std::string calls;
      for (const TypedFunction* c : fn_.callees) calls += (calls.empty() ? "" : ", ") + c->mangled_name;
      out_ += fmt::format("  calls: {}\n", calls);
    }
    out_ += "  locals:\n";
    for (const auto& [name, type] : fn_.locals) out_ += fmt::format("    {}: {}\n", name, type.str());
    out_ += "  body:\n";
    if (fn_.def) block(fn_.def->body, 2);
    return out_;
  }

 private:
  void line(const Stmt& s, int depth, const std::string& text) {
    out_ += fmt::format("{:>4}|{}{}\n", s.range.begin.line, std::string(static_cast<size_t>(depth) * 2, ' '),
                        text);
  }

  void block(const Block& b, int depth) {
    for (const StmtPtr& s : b) stmt(*s, depth);
  }

  void stmt(const Stmt& s, int depth) {
    switch (s.kind) {
      case StmtKind::Expr: {
        const Expr& e = *s.as<ExprStmt>()->value;
        if (e.kind == ExprKind::StringLit) return line(s, depth, "<string>");
        return line(s, depth, expr(e));
      }
      case StmtKind::Assign: {
        const auto& a = *s.as<AssignStmt>();
        std::string text;
        for (const ExprPtr& t : a.targets) text += expr(*t) + " = ";
        const Type* dest =
            fn_.expr_types.count(a.targets[0].get()) ? &fn_.expr_types.at(a.targets[0].get()) : nullptr;
        text += converted(*a.value, dest);
        return line(s, depth, text);
      }
      case StmtKind::AugAssign: {
        const auto& a = *s.as<AugAssignStmt>();
        auto op_type = fn_.stmt_operand_types.find(&s);
        std::string in = op_type == fn_.stmt_operand_types.end() ? "" : " (in " + op_type->second.str() + ")";
        return line(s, depth,
                    fmt::format("{} {}= {}{}", expr(*a.target), to_string(a.op), expr(*a.value), in));
      }
      case StmtKind::If: {
        const auto& i = *s.as<IfStmt>();
        line(s, depth, "if " + expr(*i.test) + ":");
        std::optional<bool> taken = static_branch(fn_, i);
        if (taken && !*taken) {
          out_ += fmt::format("    |{}(not compiled: the condition is always false)\n",
                              std::string(static_cast<size_t>(depth + 1) * 2, ' '));
        } else {
          block(i.body, depth + 1);
        }
        if (taken && *taken && !i.orelse.empty()) {
          out_ += fmt::format("    |{}else:\n    |{}(not compiled: the condition is always true)\n",
                              std::string(static_cast<size_t>(depth) * 2, ' '),
                              std::string(static_cast<size_t>(depth + 1) * 2, ' '));
        } else if (!i.orelse.empty()) {
          out_ += fmt::format("    |{}else:\n", std::string(static_cast<size_t>(depth) * 2, ' '));
          block(i.orelse, depth + 1);
        }
        return;
      }
      case StmtKind::For: {
        const auto& f = *s.as<ForStmt>();
        line(s, depth, fmt::format("for {} in {}:", expr(*f.target), expr(*f.iter)));
        block(f.body, depth + 1);
        if (!f.orelse.empty()) {
          out_ += fmt::format("    |{}else:\n", std::string(static_cast<size_t>(depth) * 2, ' '));
          block(f.orelse, depth + 1);
        }
        return;
      }
      case StmtKind::While: {
        const auto& w = *s.as<WhileStmt>();
        line(s, depth, "while " + expr(*w.test) + ":");
        block(w.body, depth + 1);
        if (!w.orelse.empty()) {
          out_ += fmt::format("    |{}else:\n", std::string(static_cast<size_t>(depth) * 2, ' '));
          block(w.orelse, depth + 1);
        }
        return;
      }
      case StmtKind::Break:
        return line(s, depth, "break");
      case StmtKind::Continue:
        return line(s, depth, "continue");
      case StmtKind::Pass:
        return line(s, depth, "pass");
      case StmtKind::Raise: {
        const auto& r = *s.as<RaiseStmt>();
        return line(s, depth, r.exc ? "raise " + expr(*r.exc) : "raise");
      }
      case StmtKind::Return: {
        const auto& r = *s.as<ReturnStmt>();
        if (!r.value) return line(s, depth, "return");
        return line(s, depth, "return " + converted(*r.value, fn_.is_kernel ? nullptr : &fn_.signature.ret));
      }
    }
  }

  // `e` followed by `->dest` when its type differs from dest.
  std::string converted(const Expr& e, const Type* dest) {
    std::string s = expr(e);
    auto t = fn_.expr_types.find(&e);
    if (dest && t != fn_.expr_types.end() && t->second != *dest) s += "->" + dest->str();
    return s;
  }

  std::string operands(const Expr& parent, size_t i, const Expr& e) {
    auto ops = fn_.operand_types.find(&parent);
    if (ops == fn_.operand_types.end() || ops->second.empty()) return expr(e);
    const Type& dest = ops->second[std::min(i, ops->second.size() - 1)];
    return converted(e, &dest);
  }

  std::string typed(const Expr& e, const std::string& text) {
    auto t = fn_.expr_types.find(&e);
    if (t == fn_.expr_types.end()) return text;  // not a value: a module, a dtype, a namespace, a function
    std::string s = text + ":" + t->second.str();
    const ConstValue* c = fn_.constant_of(&e);
    bool literal = e.kind == ExprKind::IntLit || e.kind == ExprKind::FloatLit ||
                   e.kind == ExprKind::BoolLit || e.kind == ExprKind::NoneLit;
    if (c && !literal) s += fmt::format("={}", c->str());
    return s;
  }

  std::string callee(const CallExpr& c) {
    std::string text = function_text(*c.func);
    const Symbol* s = fn_.symbol_of(c.func.get());
    if (!s) return text;
    switch (s->kind) {
      case Symbol::Kind::Builtin:
        return fmt::format("{}<{}>", text, s->builtin->qualified_name());
      case Symbol::Kind::DType:
        return fmt::format("{}<cast {}>", text, scalar_name(s->dtype));
      case Symbol::Kind::DeviceFunction:
        return fmt::format("{}<device {}>", text, s->callee->mangled_name);
      default:
        return text;
    }
  }

  // The callee as written, without types for modules and namespaces.
  std::string function_text(const Expr& e) {
    if (const auto* n = e.as<NameExpr>()) return n->id;
    if (const auto* a = e.as<AttributeExpr>()) return base(*a->value) + "." + a->attr;
    return expr(e);
  }

  // The base of an attribute or subscript: a local name bare (its type is in the locals), else the expression.
  std::string base(const Expr& e) {
    if (const auto* n = e.as<NameExpr>()) {
      const Symbol* s = fn_.symbol_of(&e);
      if (!s || s->kind != Symbol::Kind::Constant) return n->id;
    }
    if (const auto* a = e.as<AttributeExpr>(); a && !fn_.expr_types.count(&e))
      return base(*a->value) + "." + a->attr;
    return expr(e);
  }

  std::string expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name:
        return typed(e, e.as<NameExpr>()->id);
      case ExprKind::IntLit:
      case ExprKind::FloatLit:
      case ExprKind::BoolLit:
      case ExprKind::NoneLit: {
        const ConstValue* c = fn_.constant_of(&e);
        if (const auto* f = e.as<FloatLitExpr>(); f && f->imaginary)
          return typed(e, ConstValue::of_float(f->value).str() + "j");
        return typed(e, c ? c->str() : "?");
      }
      case ExprKind::StringLit:
        return fmt::format("'{}'", e.as<StringLitExpr>()->value);
      case ExprKind::UnaryOp: {
        const auto& u = *e.as<UnaryOpExpr>();
        const char* sep = u.op == UnaryOpKind::Not ? " " : "";
        return typed(e, fmt::format("({}{}{})", to_string(u.op), sep, operands(e, 0, *u.operand)));
      }
      case ExprKind::BinOp: {
        const auto& b = *e.as<BinOpExpr>();
        return typed(
            e, fmt::format("({} {} {})", operands(e, 0, *b.lhs), to_string(b.op), operands(e, 1, *b.rhs)));
      }
      case ExprKind::BoolOp: {
        const auto& b = *e.as<BoolOpExpr>();
        auto t = fn_.expr_types.find(&e);
        std::string s;
        for (const ExprPtr& v : b.values) {
          if (!s.empty()) s += fmt::format(" {} ", to_string(b.op));
          s += converted(*v, t == fn_.expr_types.end() ? nullptr : &t->second);
        }
        return typed(e, "(" + s + ")");
      }
      case ExprKind::Compare: {
        const auto& c = *e.as<CompareExpr>();
        std::string s = operands(e, 0, *c.left);
        for (size_t i = 0; i < c.ops.size(); ++i) {
          // Each comparator is converted for the comparison on its left (and the next one's, if chained).
          s += fmt::format(" {} {}", to_string(c.ops[i]), operands(e, i, *c.comparators[i]));
        }
        return typed(e, "(" + s + ")");
      }
      case ExprKind::Call: {
        const auto& c = *e.as<CallExpr>();
        std::string args;
        for (size_t i = 0; i < c.args.size(); ++i) {
          if (i) args += ", ";
          args += operands(e, i, *c.args[i]);
        }
        for (const Keyword& k : c.keywords) {
          if (!args.empty()) args += ", ";
          args += k.name + "=" + expr(*k.value);
        }
        std::string text = fmt::format("{}({})", callee(c), args);
        auto shape = fn_.array_shapes.find(&e);
        if (shape != fn_.array_shapes.end()) {
          std::string dims;
          for (int64_t d : shape->second) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
          text += " shape=(" + dims + ")";
        }
        if (auto align = fn_.array_alignments.find(&e); align != fn_.array_alignments.end())
          text += " align=" + std::to_string(align->second);
        return typed(e, text);
      }
      case ExprKind::Attribute: {
        const auto& a = *e.as<AttributeExpr>();
        return typed(e, base(*a.value) + "." + a.attr);
      }
      case ExprKind::Subscript: {
        const auto& s = *e.as<SubscriptExpr>();
        std::string index;
        auto ops = fn_.operand_types.find(&e);
        const auto* tup = s.index->as<TupleExpr>();
        if (tup && ops != fn_.operand_types.end() && ops->second.size() == tup->elts.size()) {
          for (size_t i = 0; i < tup->elts.size(); ++i) {
            index += (i ? ", " : "") + converted(*tup->elts[i], &ops->second[i]);
          }
        } else if (ops != fn_.operand_types.end() && ops->second.size() == 1) {
          index = converted(*s.index, &ops->second[0]);
        } else if (tup) {  // a view's index: its slices and integers as written
          for (size_t i = 0; i < tup->elts.size(); ++i) index += (i ? ", " : "") + expr(*tup->elts[i]);
        } else {
          index = expr(*s.index);
        }
        return typed(e, fmt::format("{}[{}]", base(*s.value), index));
      }
      case ExprKind::Slice: {
        const auto& sl = *e.as<SliceExpr>();
        std::string text = (sl.lower ? expr(*sl.lower) : "") + ":" + (sl.upper ? expr(*sl.upper) : "");
        return sl.step ? text + ":" + expr(*sl.step) : text;
      }
      case ExprKind::Tuple: {
        const auto& t = *e.as<TupleExpr>();
        std::string s;
        for (const ExprPtr& x : t.elts) s += (s.empty() ? "" : ", ") + expr(*x);
        if (t.elts.size() == 1) s += ",";
        return typed(e, "(" + s + ")");
      }
      case ExprKind::IfExp: {
        const auto& i = *e.as<IfExpExpr>();
        auto t = fn_.expr_types.find(&e);
        const Type* dest = t == fn_.expr_types.end() ? nullptr : &t->second;
        return typed(e, fmt::format("({} if {} else {})", converted(*i.body, dest), expr(*i.test),
                                    converted(*i.orelse, dest)));
      }
    }
    return "?";
  }

  const TypedFunction& fn_;
  std::string out_;
};

}  // namespace

std::string dump_typed(const TypedFunction& fn) { return Dumper(fn).run(); }

std::string dump_typed(const TypedProgram& program) {
  std::string out;
  for (const auto& f : program.functions) {
    if (!out.empty()) out += "\n";
    out += dump_typed(*f);
  }
  return out;
}

}  // namespace gpujit
