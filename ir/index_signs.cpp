// Never-negative integer locals and expressions (see index_signs.h).
#include "ir/index_signs.h"

#include <vector>

#include "ir/builtins.h"
#include "ir/typed_function.h"

namespace gpujit {
namespace {

/// One way a local variable gets a value.
struct Definition {
  enum class Kind { Value, Element, Augmented, RangeLoop, Unknown };
  Kind kind = Kind::Unknown;
  std::string name;
  const Expr* value = nullptr;           // Value, Element (the tuple), Augmented (the right operand)
  size_t element = 0;                    // Element: which element of `value`
  BinOpKind op = BinOpKind::Add;         // Augmented
  const CallExpr* range = nullptr;       // RangeLoop: the range(...) call
};

const BuiltinInfo* builtin_of(const TypedFunction& fn, const Expr& e) {
  const Symbol* s = fn.symbol_of(&e);
  return s && s->kind == Symbol::Kind::Builtin ? s->builtin : nullptr;
}

/// The builtin a call calls, or nullptr.
const BuiltinInfo* called_builtin(const TypedFunction& fn, const CallExpr& c) {
  if (const BuiltinInfo* b = builtin_of(fn, *c.func)) return b;
  return builtin_of(fn, c);
}

bool is_int_like(const TypedFunction& fn, const Expr& e) {
  auto it = fn.expr_types.find(&e);
  return it != fn.expr_types.end() && (it->second.is_integer() || it->second.is_bool());
}

class Signs {
 public:
  Signs(const TypedFunction& fn, const std::set<std::string>& locals) : fn_(fn), locals_(locals) {}

  bool never_negative(const Expr& e) const {
    if (!is_int_like(fn_, e)) return false;
    if (const ConstValue* c = fn_.constant_of(&e)) {
      if (c->kind == ConstValue::Kind::Bool) return true;
      return c->kind == ConstValue::Kind::Int && (!is_signed(c->scalar) || c->i >= 0);
    }
    switch (e.kind) {
      case ExprKind::IntLit:
      case ExprKind::BoolLit:
        return true;
      case ExprKind::Name: {
        const Symbol* s = fn_.symbol_of(&e);
        return s && s->kind == Symbol::Kind::Local && locals_.count(s->name) > 0;
      }
      case ExprKind::UnaryOp: {
        auto& u = static_cast<const UnaryOpExpr&>(e);
        return u.op == UnaryOpKind::Pos && never_negative(*u.operand);
      }
      case ExprKind::BinOp: {
        auto& b = static_cast<const BinOpExpr&>(e);
        return combines(b.op, never_negative(*b.lhs), never_negative(*b.rhs));
      }
      case ExprKind::IfExp: {
        auto& i = static_cast<const IfExpExpr&>(e);
        return never_negative(*i.body) && never_negative(*i.orelse);
      }
      case ExprKind::Attribute: {
        // cuda.threadIdx.x and the other special registers; a.size.
        const BuiltinInfo* b = builtin_of(fn_, e);
        return b && (b->lowering == BuiltinLowering::SpecialRegister || b->id == BuiltinId::ArraySize);
      }
      case ExprKind::Subscript: {
        // a.shape[k]
        auto& s = static_cast<const SubscriptExpr&>(e);
        const BuiltinInfo* b = builtin_of(fn_, *s.value);
        return b && b->id == BuiltinId::ArrayShape;
      }
      case ExprKind::Call:
        return call_never_negative(static_cast<const CallExpr&>(e));
      default:
        return false;
    }
  }

  /// Whether element `k` of the tuple `e` is never negative: cuda.grid(n), cuda.gridsize(n), a.shape, or a
  /// tuple written out.
  bool element_never_negative(const Expr& e, size_t k) const {
    if (auto* t = e.as<TupleExpr>()) return k < t->elts.size() && never_negative(*t->elts[k]);
    if (auto* c = e.as<CallExpr>()) {
      const BuiltinInfo* b = called_builtin(fn_, *c);
      return b && (b->id == BuiltinId::Grid || b->id == BuiltinId::GridSize);
    }
    const BuiltinInfo* b = builtin_of(fn_, e);
    return b && b->id == BuiltinId::ArrayShape;
  }

  bool defines_never_negative(const Definition& d) const {
    switch (d.kind) {
      case Definition::Kind::Value:
        return never_negative(*d.value);
      case Definition::Kind::Element:
        return element_never_negative(*d.value, d.element);
      case Definition::Kind::Augmented:
        return locals_.count(d.name) > 0 && combines(d.op, true, never_negative(*d.value));
      case Definition::Kind::RangeLoop: {
        // range(stop) counts up from 0; range(start, stop[, step]) from start, upwards for a positive step.
        const std::vector<ExprPtr>& args = d.range->args;
        if (!d.range->keywords.empty() || args.empty()) return false;
        if (args.size() >= 2 && !never_negative(*args[0])) return false;
        if (args.size() == 3) {
          const ConstValue* step = fn_.constant_of(args[2].get());
          return step && step->kind == ConstValue::Kind::Int && (!is_signed(step->scalar) || step->i > 0);
        }
        return true;
      }
      case Definition::Kind::Unknown:
        return false;
    }
    return false;
  }

 private:
  /// Whether `lhs op rhs` is never negative, given whether each operand is.
  static bool combines(BinOpKind op, bool lhs, bool rhs) {
    switch (op) {
      case BinOpKind::Add:
      case BinOpKind::Mul:
      case BinOpKind::FloorDiv:
      case BinOpKind::Mod:
      case BinOpKind::Pow:
      case BinOpKind::BitOr:
      case BinOpKind::BitXor:
      case BinOpKind::LShift:
        return lhs && rhs;
      case BinOpKind::BitAnd:
        return lhs || rhs;
      case BinOpKind::RShift:
        return lhs;
      default:  // Sub, and Div (a float)
        return false;
    }
  }

  bool call_never_negative(const CallExpr& c) const {
    const BuiltinInfo* b = called_builtin(fn_, c);
    if (!b) return false;
    switch (b->id) {
      case BuiltinId::Grid:  // grid(1) and gridsize(1): an int
      case BuiltinId::GridSize:
      case BuiltinId::Len:
        return true;
      case BuiltinId::Min:
        for (const ExprPtr& a : c.args)
          if (!never_negative(*a)) return false;
        return !c.args.empty();
      case BuiltinId::Max:
        for (const ExprPtr& a : c.args)
          if (never_negative(*a)) return true;
        return false;
      default:
        return false;
    }
  }

  const TypedFunction& fn_;
  const std::set<std::string>& locals_;
};

/// Every way the statements of `block` give a local a value, appended to `out`.
void collect(const Block& block, const TypedFunction& fn, std::vector<Definition>& out);

void collect_unknown(const Expr& target, std::vector<Definition>& out);

/// `target = value` (or element `element` of the tuple `value` when `element_of` is set).
void collect_target(const Expr& target, const Expr& value, const Expr* element_of, size_t element,
                    std::vector<Definition>& out) {
  if (auto* n = target.as<NameExpr>()) {
    Definition d;
    d.name = n->id;
    d.value = &value;
    d.kind = element_of ? Definition::Kind::Element : Definition::Kind::Value;
    d.element = element;
    out.push_back(d);
    return;
  }
  if (auto* t = target.as<TupleExpr>()) {
    if (element_of) {  // a tuple inside an element of a tuple value: not followed
      collect_unknown(target, out);
      return;
    }
    auto* written = value.as<TupleExpr>();
    for (size_t i = 0; i < t->elts.size(); ++i) {
      if (written && written->elts.size() == t->elts.size()) {
        collect_target(*t->elts[i], *written->elts[i], nullptr, 0, out);
      } else {
        collect_target(*t->elts[i], value, &value, i, out);
      }
    }
  }
  // a[i] = ..., obj.attr = ...: no local variable.
}

/// Every name bound by `target`, as a definition nothing is known of.
void collect_unknown(const Expr& target, std::vector<Definition>& out) {
  if (auto* n = target.as<NameExpr>()) {
    Definition d;
    d.name = n->id;
    out.push_back(d);
  } else if (auto* t = target.as<TupleExpr>()) {
    for (const ExprPtr& e : t->elts) collect_unknown(*e, out);
  }
}

void collect(const Block& block, const TypedFunction& fn, std::vector<Definition>& out) {
  for (const StmtPtr& s : block) {
    switch (s->kind) {
      case StmtKind::Assign: {
        auto& a = static_cast<const AssignStmt&>(*s);
        for (const ExprPtr& t : a.targets) collect_target(*t, *a.value, nullptr, 0, out);
        break;
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssignStmt&>(*s);
        if (auto* n = a.target->as<NameExpr>()) {
          Definition d;
          d.kind = Definition::Kind::Augmented;
          d.name = n->id;
          d.op = a.op;
          d.value = a.value.get();
          out.push_back(d);
        }
        break;
      }
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(*s);
        collect(i.body, fn, out);
        collect(i.orelse, fn, out);
        break;
      }
      case StmtKind::For: {
        auto& f = static_cast<const ForStmt&>(*s);
        auto* call = f.iter->as<CallExpr>();
        const BuiltinInfo* b = call ? called_builtin(fn, *call) : nullptr;
        if (b && b->id == BuiltinId::Range && f.target->as<NameExpr>()) {
          Definition d;
          d.kind = Definition::Kind::RangeLoop;
          d.name = f.target->as<NameExpr>()->id;
          d.range = call;
          out.push_back(d);
        } else {
          collect_unknown(*f.target, out);
        }
        collect(f.body, fn, out);
        collect(f.orelse, fn, out);
        break;
      }
      case StmtKind::While: {
        auto& w = static_cast<const WhileStmt&>(*s);
        collect(w.body, fn, out);
        collect(w.orelse, fn, out);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

std::set<std::string> find_non_negative_locals(const TypedFunction& fn) {
  std::set<std::string> locals;
  if (!fn.def) return locals;
  for (const auto& [name, type] : fn.locals) {
    if (type.is_integer() || type.is_bool()) locals.insert(name);
  }
  for (const Param& p : fn.def->params) locals.erase(p.name);
  std::vector<Definition> defs;
  collect(fn.def->body, fn, defs);
  Signs signs(fn, locals);
  for (bool changed = true; changed;) {
    changed = false;
    for (const Definition& d : defs) {
      if (locals.count(d.name) && !signs.defines_never_negative(d)) {
        locals.erase(d.name);
        changed = true;
      }
    }
  }
  return locals;
}

bool never_negative(const TypedFunction& fn, const Expr& e) {
  return Signs(fn, fn.non_negative_locals).never_negative(e);
}

}  // namespace gpujit
