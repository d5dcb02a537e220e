// Calls and members typed by the embedder's @overload, @overload_method and @overload_attribute
// implementations (ir/overloads.h).
//
// A call of an Overloaded global, `x.m(...)` for a method some @overload_method declares, and `x.a` for an
// attribute some @overload_attribute declares, become a query with the argument types (the receiver first).
// The answer is a function definition that is then called as any device function is: specialised on the
// argument types (device_call), its errors reported as its own, its free names its own (ProgramAnalyzer keeps
// one environment per implementation). The built-in members win: an array's attributes and methods and a
// record's fields are never asked about.
#include <algorithm>

#include <fmt/format.h>

#include "ir/const_eval.h"
#include "ir/sema_internal.h"

namespace gpujit {
namespace {

std::string query_key(const OverloadQuery& q) {
  std::string k = fmt::format("{}|{}|", int(q.kind), q.key);
  for (size_t i = 0; i < q.args.size(); ++i) {
    k += q.args[i].str();
    if (i < q.constants.size() && q.constants[i]) k += "=" + q.constants[i]->str();
    if (i < q.functions.size() && !q.functions[i].empty()) k += "=function " + q.functions[i];
    k += ";";
  }
  for (const std::string& name : q.keywords) k += "|" + name;
  return k;
}

/// The value of a literal default (`b=1`, `s='x'`, `k=None`, `t=(1, -2.5)`), or nullopt.
std::optional<ConstValue> literal_value(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: {
      uint64_t v = e.as<IntLitExpr>()->value;
      if (v > uint64_t(INT64_MAX)) return ConstValue::of_int(int64_t(v), ScalarKind::UInt64);
      return ConstValue::of_int(int64_t(v));
    }
    case ExprKind::FloatLit:
      if (e.as<FloatLitExpr>()->imaginary) return std::nullopt;
      return ConstValue::of_float(e.as<FloatLitExpr>()->value);
    case ExprKind::BoolLit:
      return ConstValue::of_bool(e.as<BoolLitExpr>()->value);
    case ExprKind::NoneLit:
      return ConstValue{};
    case ExprKind::StringLit:
      return ConstValue::of_string(e.as<StringLitExpr>()->value, e.as<StringLitExpr>()->is_bytes);
    case ExprKind::UnaryOp: {
      const auto* u = e.as<UnaryOpExpr>();
      std::optional<ConstValue> v = literal_value(*u->operand);
      if (!v) return std::nullopt;
      return fold_unary(u->op, *v);
    }
    case ExprKind::Tuple: {
      std::vector<ConstValue> elts;
      for (const ExprPtr& x : e.as<TupleExpr>()->elts) {
        std::optional<ConstValue> v = literal_value(*x);
        if (!v) return std::nullopt;
        elts.push_back(std::move(*v));
      }
      return ConstValue::of_tuple(std::move(elts));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<ExprResult> FunctionAnalyzer::default_argument(const CallExpr& e, const FunctionDef& callee,
                                                             size_t i) {
  const Param& p = callee.params[i];
  if (!p.default_value) {
    error(e.range, fmt::format("{}() is missing the argument '{}'", callee.name, p.name));
    return std::nullopt;
  }
  std::optional<ConstValue> v = literal_value(*p.default_value);
  if (!v) {
    error(e.range, fmt::format("the default value of parameter '{}' of {}() must be a constant (a number, a "
                               "string, True, False, None or a tuple of them) for a call that leaves it out",
                               p.name, callee.name));
    return std::nullopt;
  }
  ExprResult r = ExprResult::of_const(*v);
  r.omitted = true;
  return r;
}

const OverloadAnswer* ProgramAnalyzer::resolve_overload(const OverloadQuery& q) {
  if (!overloads_) return nullptr;
  std::string key = query_key(q);
  auto it = answers_.find(key);
  if (it == answers_.end()) {
    auto answer = std::make_unique<OverloadAnswer>(overloads_->resolve(q));
    // Code generation finds captured arrays by name in the compile's own free names, which an
    // implementation's are not: its captured arrays are refused where it uses them.
    for (auto& [name, g] : answer->globals) {
      if (g.kind == GlobalValue::Kind::ConstArray || g.kind == GlobalValue::Kind::DeviceArray ||
          g.kind == GlobalValue::Kind::ArrayTuple)
        g = GlobalValue::of_unsupported("an @overload implementation cannot capture arrays yet; pass the "
                                        "array as an argument");
    }
    if (answer->function) impl_envs_.emplace(answer->function, &answer->globals);
    it = answers_.emplace(key, std::move(answer)).first;
  }
  return it->second.get();
}

ExprResult FunctionAnalyzer::overload_call(const CallExpr& e, const ExprResult& callee) {
  std::vector<ExprResult> args;
  if (callee.method) args.push_back(ExprResult::of_value(callee.type));
  bool unknown = false, failed = false;
  // A function (an inner def, a device function) is a compile-time argument, as at a device function's call
  // (sema_call.cpp). Anything else must be a value; an error is reported once, by expr() or, for what is no
  // value (a module, a dtype, a call that returns nothing), by value().
  auto argument = [&](const Expr& a) {
    ExprResult r = expr(a);
    bool keep = r.what == ExprResult::What::Device || !r.ok() || (r.is_value() && !r.type.is_void());
    if (!keep) r = value(a);
    if (r.what == ExprResult::What::Unknown)
      unknown = true;
    else if (!r.is_value() && r.what != ExprResult::What::Device)
      failed = true;
    args.push_back(std::move(r));
  };
  for (const ExprPtr& a : e.args) argument(*a);
  const size_t positional = args.size();
  for (const Keyword& k : e.keywords) argument(*k.value);
  if (unknown) return ExprResult::unknown();
  if (failed) return ExprResult::error();
  OverloadQuery q;
  q.kind = callee.method ? OverloadQuery::Kind::Method : OverloadQuery::Kind::Function;
  q.key = callee.overload_key;
  for (const ExprResult& a : args) {
    const bool function = a.what == ExprResult::What::Device;
    q.args.push_back(function ? Type::none() : a.type);
    q.constants.push_back(a.value);
    q.functions.push_back(function ? a.function->name : "");
  }
  for (const Keyword& k : e.keywords) q.keywords.push_back(k.name);
  const OverloadAnswer* answer = program_.resolve_overload(q);
  if (!answer || !answer->function) {
    std::string shown = callee.method ? fmt::format("method '{}' of {}", callee.overload_key, callee.type.str())
                                      : fmt::format("function '{}'", path_of(*e.func));
    std::string params;
    for (size_t i = callee.method ? 1 : 0; i < q.args.size(); ++i)
      params += (params.empty() ? "" : ", ") +
                (q.functions[i].empty() ? q.args[i].str() : fmt::format("function({})", q.functions[i]));
    error(e.range, fmt::format("No implementation of {} found for signature: {}({}){}", shown,
                               callee.method ? callee.overload_key : path_of(*e.func), params,
                               answer && !answer->error.empty() ? "; " + answer->error
                                                                : ": every overload's typing function declined "
                                                                  "these argument types"));
    return ExprResult::error();
  }
  // Keywords bind to the implementation's parameters by name, as code generation binds them.
  const FunctionDef& impl = *answer->function;
  std::vector<ExprResult> bound(args.begin(), args.begin() + long(positional));
  for (size_t i = 0; i < e.keywords.size(); ++i) {
    const Keyword& k = e.keywords[i];
    auto p = std::find_if(impl.params.begin(), impl.params.end(), [&](const Param& x) { return x.name == k.name; });
    if (p == impl.params.end() || size_t(p - impl.params.begin()) < positional) {
      error(k.name_range, fmt::format("the implementation '{}' of this call {} parameter '{}' to pass by keyword",
                                      impl.name, p == impl.params.end() ? "has no" : "already got its", k.name));
      return ExprResult::error();
    }
  }
  for (size_t i = positional; i < impl.params.size(); ++i) {
    auto k = std::find_if(e.keywords.begin(), e.keywords.end(),
                          [&](const Keyword& x) { return x.name == impl.params[i].name; });
    if (k == e.keywords.end()) {
      std::optional<ExprResult> d = default_argument(e, impl, i);
      if (!d) return ExprResult::error();
      bound.push_back(*d);
      continue;
    }
    bound.push_back(args[positional + size_t(k - e.keywords.begin())]);
  }
  if (bound.size() < args.size()) {
    error(e.range, fmt::format("the implementation '{}' takes {} arguments, the call passes {}", impl.name,
                               impl.params.size(), args.size()));
    return ExprResult::error();
  }
  if (callee.method && checking_) fn_.receivers[&e] = callee.receiver;
  return device_call(e, impl, bound);
}

std::optional<ExprResult> FunctionAnalyzer::overloaded_member(const AttributeExpr& e, const ExprResult& base) {
  OverloadResolver* resolver = program_.overloads();
  if (!resolver || !base.is_value()) return std::nullopt;
  const Type& t = base.type;
  if (t.is_array() && (find_builtin(BuiltinScope::Array, e.attr) || find_reduction(e.attr) ||
                       e.attr == "reshape" || e.attr == "view" || e.attr == "copy" ||
                       (t.element().is_record() && t.record && t.record->find(e.attr))))
    return std::nullopt;
  if (t.is_record() && t.record->find(e.attr)) return std::nullopt;
  if (resolver->declares_member(e.attr, OverloadQuery::Kind::Attribute)) {
    OverloadQuery q;
    q.kind = OverloadQuery::Kind::Attribute;
    q.key = e.attr;
    q.args = {t};
    q.constants = {base.value};
    const OverloadAnswer* answer = program_.resolve_overload(q);
    if (answer && !answer->error.empty()) {
      error(e.attr_range, fmt::format("attribute '{}' of {}: {}", e.attr, t.str(), answer->error));
      return ExprResult::error();
    }
    if (answer && answer->function) {
      const FunctionDef& def = *answer->function;
      if (def.params.size() != 1) {
        error(e.attr_range, fmt::format("the implementation of attribute '{}' must take one argument (the "
                                        "object), '{}' takes {}",
                                        e.attr, def.name, def.params.size()));
        return ExprResult::error();
      }
      Specialization* s = program_.specialize(def, {t}, false);
      if (!s || !s->done) {
        error(e.range, fmt::format("attribute '{}' is used inside its own implementation", e.attr));
        return ExprResult::error();
      }
      if (checking_) note_device_call(e, *s, def.name);
      const Type& ret = s->fn->signature.ret;
      if (s->diags.has_errors() || s->fn->mangled_name.empty() || !ret.is_valid()) return ExprResult::error();
      if (ret.is_void()) {
        error(e.attr_range, fmt::format("the implementation of attribute '{}' returns nothing", e.attr));
        return ExprResult::error();
      }
      return record(e, ExprResult::of_value(ret));
    }
  }
  if (resolver->declares_member(e.attr, OverloadQuery::Kind::Method)) {
    ExprResult m;  // a bound method: the call asks for the implementation (overload_call)
    m.what = ExprResult::What::Overload;
    m.method = true;
    m.overload_key = e.attr;
    m.type = t;
    m.receiver = e.value.get();
    return m;
  }
  return std::nullopt;
}

}  // namespace gpujit
