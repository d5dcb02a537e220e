// The free-name environment of a whole file, for the CLI: what each module-level name of a parsed file
// denotes when a kernel of that file uses it.
//
// Bindings apply in source order, as running the file would: an import binds a module (or a module's
// member, resolved when used), a module-level assignment binds a folded constant, a dtype, a module or a
// NumPy array (np.array([...]), np.arange(n)... evaluated by ir/numpy_arrays.cpp, for const.array_like), and
// a function definition binds a device function. A later binding of a name replaces an earlier one. A
// module-level value outside the kernel subset (a call to np.linspace, a list) is not an error here: it
// binds GlobalValue::Unsupported with the reason, reported only if a kernel uses the name.
#include "ir/globals.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/builtins.h"
#include "ir/const_eval.h"
#include "ir/numpy_arrays.h"

namespace gpujit {

namespace {

// The canonical name of an importable module: the kernel namespace is "gpujit" or "numba.cuda".
std::string canonical_module(const std::string& name) {
  if (name == "gpujit.random" || name == "gpujit.libdevice" || name == "gpujit.fp16" || name == "gpujit.bf16" ||
      name == "gpujit.fp8")
    return name;  // namespaces of their own
  if (name == "gpujit" || name.rfind("gpujit.", 0) == 0) return "gpujit";
  return name;
}

// The attribute `attr` of a module, as a global value (module-level code such as `dt = np.float32`).
std::optional<GlobalValue> module_member(const std::string& module, const std::string& attr) {
  if (module == "numba" && attr == "cuda") return GlobalValue::of_module("numba.cuda");
  if (module == "numba" && attr == "types") return GlobalValue::of_module("numba.types");
  if (module == "numpy" || module == "numba" || module == "numba.types" || module == "gpujit" ||
      module == "numba.cuda") {
    if (module == "numpy" && attr == "float_") return GlobalValue::of_dtype(ScalarKind::Float64);
    if (std::optional<ScalarKind> k = parse_scalar_name(attr)) return GlobalValue::of_dtype(*k);
  }
  const BuiltinInfo* b = nullptr;
  if (module == "math") b = find_builtin(BuiltinScope::Math, attr);
  if (module == "numpy") b = find_numpy_builtin(attr);
  if (b && b->typing == BuiltinTyping::MathConstant)
    return GlobalValue::of_constant(ConstValue::of_float(b->constant));
  return std::nullopt;
}

// What `from module import name` binds: a submodule, dtype or constant we know, or a member (a builtin
// function, a namespace) resolved on use.
GlobalValue import_from(const std::string& module, const std::string& name) {
  std::string canon = canonical_module(module);
  if (canon == "gpujit" && name == "cuda") return GlobalValue::of_module("gpujit");
  if (std::optional<GlobalValue> m = module_member(canon, name)) return *m;
  return GlobalValue::of_member(canon, name);
}

std::string dotted(const Expr& e) {
  if (const auto* n = e.as<NameExpr>()) return n->id;
  if (const auto* a = e.as<AttributeExpr>()) return dotted(*a->value) + "." + a->attr;
  return "";
}

// Folds a module-level right-hand side; nullopt with *why set when it is outside the kernel subset.
std::optional<GlobalValue> fold(const Expr& e, const GlobalEnv& env, std::string* why) {
  auto constant = [](ConstValue c) {
    return std::optional<GlobalValue>(GlobalValue::of_constant(std::move(c)));
  };
  auto as_constant = [&](const Expr& sub) -> std::optional<ConstValue> {
    std::optional<GlobalValue> g = fold(sub, env, why);
    if (!g) return std::nullopt;
    if (g->kind != GlobalValue::Kind::Constant) {
      *why = fmt::format("'{}' is not a number", dotted(sub).empty() ? "an operand" : dotted(sub));
      return std::nullopt;
    }
    return g->constant;
  };
  switch (e.kind) {
    case ExprKind::IntLit: {
      uint64_t v = e.as<IntLitExpr>()->value;
      ScalarKind k = v > static_cast<uint64_t>(INT64_MAX) ? ScalarKind::UInt64 : ScalarKind::Int64;
      return constant(ConstValue::of_int(static_cast<int64_t>(v), k));
    }
    case ExprKind::FloatLit:
      if (e.as<FloatLitExpr>()->imaginary) {
        *why = "complex constants cannot be captured; write the literal inside the kernel";
        return std::nullopt;
      }
      return constant(ConstValue::of_float(e.as<FloatLitExpr>()->value));
    case ExprKind::BoolLit:
      return constant(ConstValue::of_bool(e.as<BoolLitExpr>()->value));
    case ExprKind::NoneLit:
      return constant(ConstValue());
    case ExprKind::StringLit:
      return constant(ConstValue::of_string(e.as<StringLitExpr>()->value, e.as<StringLitExpr>()->is_bytes));
    case ExprKind::Name: {
      const std::string& id = e.as<NameExpr>()->id;
      auto it = env.find(id);
      if (it == env.end()) {
        *why = fmt::format("its value uses '{}', which is not defined above it at module level", id);
        return std::nullopt;
      }
      if (it->second.kind == GlobalValue::Kind::Unsupported) {
        *why = it->second.reason;
        return std::nullopt;
      }
      return it->second;
    }
    case ExprKind::Attribute: {
      const auto& a = *e.as<AttributeExpr>();
      std::optional<GlobalValue> base = fold(*a.value, env, why);
      if (!base) return std::nullopt;
      if (base->kind == GlobalValue::Kind::Module) {
        if (std::optional<GlobalValue> m = module_member(base->module_name, a.attr)) return m;
        return GlobalValue::of_member(base->module_name, a.attr);
      }
      *why = fmt::format("its value '{}' is not a compile-time constant", dotted(e));
      return std::nullopt;
    }
    case ExprKind::UnaryOp: {
      const auto& u = *e.as<UnaryOpExpr>();
      std::optional<ConstValue> v = as_constant(*u.operand);
      if (!v) return std::nullopt;
      if (std::optional<ConstValue> r = fold_unary(u.op, *v)) return constant(*r);
      *why = fmt::format("'{}' cannot be applied to {} at compile time", to_string(u.op), v->str());
      return std::nullopt;
    }
    case ExprKind::BinOp: {
      const auto& b = *e.as<BinOpExpr>();
      std::optional<ConstValue> l = as_constant(*b.lhs);
      if (!l) return std::nullopt;
      std::optional<ConstValue> r = as_constant(*b.rhs);
      if (!r) return std::nullopt;
      if (std::optional<ConstValue> v = fold_binary(b.op, *l, *r)) return constant(*v);
      *why = fmt::format("{} {} {} cannot be computed at compile time", l->str(), to_string(b.op), r->str());
      return std::nullopt;
    }
    case ExprKind::Tuple: {
      if (e.as<TupleExpr>()->is_list) {
        *why = "its value is a list; kernels read tuples (1, 2, 3) and NumPy arrays (np.array([1, 2, 3]))";
        return std::nullopt;
      }
      std::vector<ConstValue> elts;
      for (const ExprPtr& x : e.as<TupleExpr>()->elts) {
        std::optional<ConstValue> v = as_constant(*x);
        if (!v) return std::nullopt;
        elts.push_back(*v);
      }
      return constant(ConstValue::of_tuple(std::move(elts)));
    }
    case ExprKind::Call: {
      const auto& c = *e.as<CallExpr>();
      std::string callee = dotted(*c.func);
      GlobalFolder folder = [&env](const Expr& x, std::string* w) { return fold(x, env, w); };
      // arr.astype(np.float32), arr.reshape(2, 3) on an array evaluated above.
      if (const auto* method = c.func->as<AttributeExpr>()) {
        std::string ignored;
        std::optional<GlobalValue> base = fold(*method->value, env, &ignored);
        if (base && base->kind == GlobalValue::Kind::ConstArray)
          return evaluate_array_method(c, *base, method->attr, folder, why);
      }
      std::string ignored;
      std::optional<GlobalValue> f = fold(*c.func, env, &ignored);
      if (f && f->kind == GlobalValue::Kind::ModuleMember && f->module_name == "numpy") {
        if (is_numpy_array_function(f->member)) return evaluate_numpy_call(c, f->member, folder, why);
        *why = fmt::format(
            "its value is a call to '{}', which the gpujit CLI does not evaluate (it reads np.array, "
            "np.asarray, np.arange, np.zeros, np.ones and np.full with constant arguments); compile the "
            "kernel from Python to capture this array",
            callee.empty() ? "numpy." + f->member : callee);
        return std::nullopt;
      }
      if (f && f->kind == GlobalValue::Kind::DType && c.args.size() == 1 && c.keywords.empty()) {
        std::optional<ConstValue> v = as_constant(*c.args[0]);
        if (!v) return std::nullopt;
        if (std::optional<ConstValue> r = fold_cast(*v, f->dtype)) return constant(*r);
      }
      *why = fmt::format("its value is a call to '{}'", callee.empty() ? "a function" : callee);
      return std::nullopt;
    }
    default:
      *why = "its value is not a number, a tuple of numbers, a dtype or a module";
      return std::nullopt;
  }
}

}  // namespace

GlobalEnv globals_from_module(const Module& module, Diagnostics& diags) {
  (void)diags;  // module-level code is host code: nothing here is an error until a kernel uses it
  enum class What { Import, Assign, Function };
  struct Binding {
    SourceLoc at;
    What what;
    size_t index;
  };
  std::vector<Binding> order;
  for (size_t i = 0; i < module.imports.size(); ++i)
    order.push_back({module.imports[i].range.begin, What::Import, i});
  for (size_t i = 0; i < module.globals.size(); ++i)
    order.push_back({module.globals[i].range.begin, What::Assign, i});
  for (size_t i = 0; i < module.functions.size(); ++i) {
    order.push_back({module.functions[i]->range.begin, What::Function, i});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const Binding& a, const Binding& b) { return a.at < b.at; });

  GlobalEnv env;
  for (const Binding& b : order) {
    switch (b.what) {
      case What::Import: {
        const Import& imp = module.imports[b.index];
        if (!imp.name.empty()) {
          env[imp.alias] = import_from(imp.module, imp.name);
        } else if (imp.alias != imp.module && imp.module.rfind(imp.alias + ".", 0) == 0) {
          env[imp.alias] =
              GlobalValue::of_module(canonical_module(imp.alias));  // `import numba.cuda` binds numba
        } else {
          env[imp.alias] = GlobalValue::of_module(canonical_module(imp.module));
        }
        break;
      }
      case What::Assign: {
        const GlobalAssign& g = module.globals[b.index];
        if (!g.value) {
          // A dict, a comprehension, a lambda ...: host code the CLI does not read.
          env[g.name] = GlobalValue::of_unsupported(
              "its value is outside the kernel language (the gpujit CLI reads module-level numbers, tuples, "
              "dtypes, modules and NumPy arrays made by np.array, np.arange, np.zeros, np.ones or np.full "
              "with constant arguments; compile the kernel from Python to capture other values)");
          break;
        }
        std::string why;
        std::optional<GlobalValue> v = fold(*g.value, env, &why);
        env[g.name] = v ? *v : GlobalValue::of_unsupported(why);
        break;
      }
      case What::Function: {
        const FunctionDef* f = module.functions[b.index].get();
        env[f->name] = GlobalValue::of_function(f);
        break;
      }
    }
  }
  return env;
}

}  // namespace gpujit
