// Semantic analysis, part two: expressions, names and attributes (what a name denotes: a local, a global
// constant, a module, a dtype, a builtin, a device function), operators with numba's typing rules and tuples
// (subscripts and slices: sema_subscript.cpp). Constant expressions are folded here, so shapes and tuple
// indices are known.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "ir/const_eval.h"
#include "ir/sema_internal.h"

namespace gpujit {

namespace {

constexpr const char* kNamespaces[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "shared",
                                       "local",     "const",    "atomic",   "random",  "cg"};

BuiltinScope namespace_scope(const std::string& ns) {
  if (ns == "threadIdx") return BuiltinScope::ThreadIdx;
  if (ns == "blockIdx") return BuiltinScope::BlockIdx;
  if (ns == "blockDim") return BuiltinScope::BlockDim;
  if (ns == "gridDim") return BuiltinScope::GridDim;
  if (ns == "shared") return BuiltinScope::Shared;
  if (ns == "local") return BuiltinScope::Local;
  if (ns == "const") return BuiltinScope::Const;
  if (ns == "random") return BuiltinScope::Random;
  if (ns == "cg") return BuiltinScope::Cg;
  return BuiltinScope::Atomic;
}

// Edit distance counting an adjacent transposition as one edit (optimal string alignment): typos such as
// 'valeu' for 'value' are one edit away.
unsigned edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<unsigned>> d(a.size() + 1, std::vector<unsigned>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<unsigned>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<unsigned>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// NumPy's own dtype spellings where they differ from numba's (np.float_ is float64).
std::optional<ScalarKind> numpy_dtype(const std::string& name) {
  if (name == "float_") return ScalarKind::Float64;
  if (name == "complex_") return ScalarKind::Complex128;
  return parse_scalar_name(name);
}

bool allocates(const std::string& numpy_attr) {
  static const char* kAllocating[] = {"zeros",    "ones",       "empty",     "full",       "array",
                                      "arange",   "zeros_like", "ones_like", "empty_like", "full_like",
                                      "linspace", "asarray",    "copy"};
  return std::any_of(std::begin(kAllocating), std::end(kAllocating),
                     [&](const char* n) { return numpy_attr == n; });
}

}  // namespace

// "; did you mean 'sqrt'?" for the closest candidate, else "". Short names allow one edit, longer ones two;
// a one-letter name is never a typo of another.
std::string suggest(std::string_view wrong, const std::vector<std::string_view>& candidates) {
  if (wrong.size() < 2) return "";
  unsigned limit = wrong.size() <= 3 ? 1 : 2;
  std::string_view best;
  unsigned best_distance = limit + 1;
  for (std::string_view c : candidates) {
    unsigned d = edit_distance(wrong, c);
    if (d < best_distance && c != wrong) best_distance = d, best = c;
  }
  return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

std::string plural(size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string FunctionAnalyzer::path_of(const Expr& e) {
  if (const auto* n = e.as<NameExpr>()) return n->id;
  if (const auto* a = e.as<AttributeExpr>()) {
    std::string base = path_of(*a->value);
    return base.empty() ? "" : base + "." + a->attr;
  }
  if (const auto* c = e.as<CallExpr>()) {
    std::string f = path_of(*c->func);
    return f.empty() ? "" : f + "()";
  }
  return "";
}

std::string FunctionAnalyzer::origin_of(const Expr& e) const {
  const auto* n = e.as<NameExpr>();
  if (!n || !is_local_name(n->id)) return "";
  auto it = vars_.find(n->id);
  if (it == vars_.end()) return "";
  if (it->second.is_param) return fmt::format(" ('{}' is an argument)", n->id);
  return fmt::format(" ('{}' was assigned at line {})", user_name(n->id), it->second.origin.begin.line);
}

ExprResult FunctionAnalyzer::record(const Expr& e, ExprResult r) {
  if (checking_ && r.is_value()) {
    fn_.expr_types[&e] = r.type;
    if (r.value) fn_.constants[&e] = *r.value;
  }
  return r;
}

namespace {

Symbol symbol_for(const ExprResult& r, const std::string& name) {
  Symbol s;
  s.name = name;
  switch (r.what) {
    case ExprResult::What::Module:
      s.kind = Symbol::Kind::Module;
      s.name = r.module;
      break;
    case ExprResult::What::DType:
      s.kind = Symbol::Kind::DType;
      s.dtype = r.dtype;
      break;
    case ExprResult::What::Namespace:
      s.kind = Symbol::Kind::BuiltinNamespace;
      s.name = r.module;
      break;
    case ExprResult::What::Builtin:
      s.kind = Symbol::Kind::Builtin;
      s.builtin = r.builtin;
      break;
    case ExprResult::What::Device:
      s.kind = Symbol::Kind::DeviceFunction;
      break;
    case ExprResult::What::Extern:
      s.kind = Symbol::Kind::ExternFunction;
      s.name = r.extern_fn->name;
      s.extern_fn = r.extern_fn;
      break;
    default:
      if (r.builtin && r.builtin->typing != BuiltinTyping::MathConstant) {
        s.kind = Symbol::Kind::Builtin;
        s.builtin = r.builtin;
      } else {
        s.kind = Symbol::Kind::Constant;
        s.builtin = r.builtin;
        if (r.value) s.constant = *r.value;
      }
  }
  return s;
}

}  // namespace

ExprResult FunctionAnalyzer::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      return name(*e.as<NameExpr>());
    case ExprKind::IntLit: {
      uint64_t v = e.as<IntLitExpr>()->value;
      // Python ints beyond int64 are typed uint64, as numba types such literals.
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return record(e,
                      ExprResult::of_const(ConstValue::of_int(static_cast<int64_t>(v), ScalarKind::UInt64)));
      }
      return record(e, ExprResult::of_const(ConstValue::of_int(static_cast<int64_t>(v))));
    }
    case ExprKind::FloatLit:
      // An imaginary literal is a complex128 value; complex numbers are never compile-time constants.
      if (e.as<FloatLitExpr>()->imaginary) return record(e, ExprResult::of_value(Type::scalar_of(ScalarKind::Complex128)));
      return record(e, ExprResult::of_const(ConstValue::of_float(e.as<FloatLitExpr>()->value)));
    case ExprKind::BoolLit:
      return record(e, ExprResult::of_const(ConstValue::of_bool(e.as<BoolLitExpr>()->value)));
    case ExprKind::NoneLit:
      return record(e, ExprResult::of_const(ConstValue()));
    case ExprKind::StringLit: {  // a CharSeq constant of its own length (ir/types.h)
      const auto* s = e.as<StringLitExpr>();
      return record(e, ExprResult::of_const(ConstValue::of_string(s->value, s->is_bytes)));
    }
    case ExprKind::UnaryOp:
      return unary(*e.as<UnaryOpExpr>());
    case ExprKind::BinOp:
      return binop(*e.as<BinOpExpr>());
    case ExprKind::BoolOp:
      return boolop(*e.as<BoolOpExpr>());
    case ExprKind::Compare:
      return compare(*e.as<CompareExpr>());
    case ExprKind::Call:
      return call(*e.as<CallExpr>());
    case ExprKind::Attribute:
      return attribute(*e.as<AttributeExpr>());
    case ExprKind::Subscript:
      return subscript(*e.as<SubscriptExpr>(), false);
    case ExprKind::Slice:
      error(e.range, "a slice can only appear as an array index ('a[1:n]')");
      return ExprResult::error();
    case ExprKind::Tuple:
      return tuple(*e.as<TupleExpr>());
    case ExprKind::IfExp:
      return ifexp(*e.as<IfExpExpr>());
  }
  throw InternalError("unknown expression kind");
}

ExprResult FunctionAnalyzer::value(const Expr& e) { return value_of(e, expr(e)); }

ExprResult FunctionAnalyzer::value_of(const Expr& e, ExprResult r) {
  if (!r.ok()) return r;
  std::string p = path_of(e);
  switch (r.what) {
    case ExprResult::What::Value:
      if (r.type.is_void()) {
        error(e.range, fmt::format("'{}' does not return a value", p.empty() ? "this call" : p));
        return ExprResult::error();
      }
      return r;
    case ExprResult::What::Module:
      error(e.range, fmt::format("module '{}' is not a value", r.module));
      break;
    case ExprResult::What::DType:
      error(e.range, fmt::format("dtype '{}' is not a value; call it to convert a number: {}(x)",
                                 scalar_name(r.dtype), p.empty() ? scalar_name(r.dtype) : p));
      break;
    case ExprResult::What::Namespace:
      // cuda.threadIdx read whole is numba's Dim3 value; the symbol stays the namespace's (codegen reads
      // its three registers).
      if (!r.members && (r.module == "threadIdx" || r.module == "blockIdx" || r.module == "blockDim" ||
                         r.module == "gridDim"))
        return record(e, ExprResult::of_value(Type::dim3_()));
      error(e.range, fmt::format("'{}' is not a value; use one of its attributes", p));
      break;
    case ExprResult::What::Builtin:
    case ExprResult::What::Device:
    case ExprResult::What::Extern:
    case ExprResult::What::Reduction:
    case ExprResult::What::ArrayMethod:
    case ExprResult::What::Overload:
      error(e.range, fmt::format("'{}' is a function; call it", p));
      break;
    default:
      break;
  }
  return ExprResult::error();
}

ExprResult FunctionAnalyzer::name(const NameExpr& e) {
  if (auto st = static_params_.find(e.id); st != static_params_.end()) {
    const ExprResult& r = st->second;
    if (r.what == ExprResult::What::Device) return r;  // the call records the symbol with its specialization
    if (checking_) fn_.symbols[&e] = symbol_for(r, e.id);
    return record(e, r);
  }
  if (std::optional<ExprResult> c = closure_name(e)) {  // inner functions (ir/sema_closure.cpp)
    if (c->what == ExprResult::What::Device || !c->ok()) return *c;
    if (checking_) fn_.symbols[&e] = symbol_for(*c, e.id);
    return record(e, *c);
  }
  if (is_local_name(e.id)) {
    auto it = vars_.find(e.id);
    if (it != vars_.end() && it->second.type.is_valid()) {
      if (checking_) {
        Symbol s;
        s.kind = Symbol::Kind::Local;
        s.name = e.id;
        fn_.symbols[&e] = s;
      }
      return record(e, ExprResult::of_value(it->second.type));
    }
    if (!checking_) return ExprResult::unknown();
    if (failed_vars_.insert(e.id).second) {  // once per variable
      error(e.range, fmt::format("local variable '{}' is used before it is assigned a value", e.id));
    }
    return ExprResult::error();
  }
  auto g = program_.globals().find(e.id);
  if (g != program_.globals().end()) return global(e.id, g->second, e);
  if (const BuiltinInfo* b = find_builtin(BuiltinScope::Python, e.id)) {
    if (!b->supported) {
      error(e.range, fmt::format("{}() is not supported in kernels yet", e.id));
      return ExprResult::error();
    }
    ExprResult r;
    r.what = ExprResult::What::Builtin;
    r.builtin = b;
    if (checking_) fn_.symbols[&e] = symbol_for(r, e.id);
    return r;
  }
  std::vector<std::string_view> candidates;
  for (const std::string& n : local_names_) candidates.push_back(n);
  for (const auto& [n, v] : program_.globals()) candidates.push_back(n);
  for (std::string_view n : builtin_names(BuiltinScope::Python)) candidates.push_back(n);
  error(e.range, fmt::format("name '{}' is not defined{}", e.id, suggest(e.id, candidates)));
  return ExprResult::error();
}

ExprResult FunctionAnalyzer::global(const std::string& id, const GlobalValue& g, const Expr& e) {
  ExprResult r;
  switch (g.kind) {
    case GlobalValue::Kind::Constant:
      r = ExprResult::of_const(g.constant);  // a string is a CharSeq constant
      break;
    case GlobalValue::Kind::Module:
      r.what = ExprResult::What::Module;
      r.module = g.module_name;
      break;
    case GlobalValue::Kind::DType:
      r.what = ExprResult::What::DType;
      r.dtype = g.dtype;
      r.record = g.record;
      break;
    case GlobalValue::Kind::DeviceFunction:
      r.what = ExprResult::What::Device;
      r.function = g.function;
      if (!g.signatures.empty()) r.signatures = &g.signatures;
      program_.note_home_env(g.function);
      return r;  // the call records the symbol with its specialization
    case GlobalValue::Kind::ExternFunction:
      r.what = ExprResult::What::Extern;
      r.extern_fn = g.extern_fn.get();
      break;
    case GlobalValue::Kind::Overloaded:
      r.what = ExprResult::What::Overload;  // each call asks the resolver (sema_overload.cpp)
      r.overload_key = g.member;
      return r;
    case GlobalValue::Kind::ConstArray:
      return const_array(id, g, e);
    case GlobalValue::Kind::ArrayTuple:
      return array_tuple(id, g, e);
    case GlobalValue::Kind::DeviceArray:
      return device_array_global(id, g, e);
    case GlobalValue::Kind::ModuleMember:
      return module_attribute(g.module_name, g.member, e, e.range);
    case GlobalValue::Kind::Unsupported:
      error(e.range, fmt::format("global '{}' cannot be used in a kernel: {}", id, g.reason));
      return ExprResult::error();
    case GlobalValue::Kind::ExceptionClass:
      error(e.range,
            fmt::format("'{}' is an exception class; a kernel can only raise it ('raise {}(...)')", id, id));
      return ExprResult::error();
    case GlobalValue::Kind::Constants:
      r.what = ExprResult::What::Namespace;
      r.module = id;
      r.members = &g.members;
      break;
  }
  if (checking_) fn_.symbols[&e] = symbol_for(r, id);
  return record(e, r);
}

ExprResult FunctionAnalyzer::module_attribute(const std::string& module, const std::string& attr,
                                              const Expr& e, SourceRange attr_range) {
  ExprResult r;
  std::string p = path_of(e);
  auto no_attribute = [&](const std::vector<std::string_view>& candidates) {
    error(attr_range,
          fmt::format("module '{}' has no attribute '{}'{}", module, attr, suggest(attr, candidates)));
    return ExprResult::error();
  };
  auto from_row = [&](const BuiltinInfo* b) {
    if (!b->supported) {
      error(e.range, fmt::format("'{}' is not supported yet", p));
      return ExprResult::error();
    }
    if (b->typing == BuiltinTyping::MathConstant) {
      r = ExprResult::of_const(ConstValue::of_float(b->constant));
    } else if (b->callable) {
      r.what = ExprResult::What::Builtin;
    } else {
      r = ExprResult::of_value(Type::scalar_of(ScalarKind::Int32));
    }
    r.builtin = b;
    return r;
  };

  if (module == "math") {
    const BuiltinInfo* b = find_builtin(BuiltinScope::Math, attr);
    if (!b) return no_attribute(builtin_names(BuiltinScope::Math));
    r = from_row(b);
  } else if (module == "numpy") {
    if (std::optional<ScalarKind> k = numpy_dtype(attr)) {
      r.what = ExprResult::What::DType;
      r.dtype = *k;
    } else if (const BuiltinInfo* b = find_numpy_builtin(attr)) {
      r = from_row(b);
      r.ufunc = find_ufunc(attr);
    } else if (const ArrayReduction* red = find_reduction(attr)) {
      r.what = ExprResult::What::Reduction;
      r.reduction = red;
    } else if (allocates(attr)) {
      error(e.range,
            fmt::format("'numpy.{}' cannot be used in a kernel (it allocates); use cuda.local.array or "
                        "cuda.shared.array, or pass the array in as an argument",
                        attr));
      return ExprResult::error();
    } else {
      return no_attribute({});
    }
  } else if (module == "gpujit.fp16" || module == "numba.cuda.fp16") {
    const BuiltinInfo* b = find_builtin(BuiltinScope::Fp16, attr);
    if (!b) return no_attribute(builtin_names(BuiltinScope::Fp16));
    r = from_row(b);
  } else if (module == "gpujit.bf16" || module == "numba.cuda.bf16") {
    if (attr == "bfloat16") {
      r.what = ExprResult::What::DType;
      r.dtype = ScalarKind::BFloat16;
    } else {
      const BuiltinInfo* b = find_builtin(BuiltinScope::Bf16, attr);
      if (!b) return no_attribute(builtin_names(BuiltinScope::Bf16));
      r = from_row(b);
    }
  } else if (module == "gpujit.fp8" || module == "numba.cuda.fp8") {
    std::optional<ScalarKind> k = parse_scalar_name(attr);
    if (k && is_fp8(*k)) {
      r.what = ExprResult::What::DType;
      r.dtype = *k;
    } else {
      const BuiltinInfo* b = find_builtin(BuiltinScope::Fp8, attr);
      if (!b) return no_attribute(builtin_names(BuiltinScope::Fp8));
      r = from_row(b);
    }
  } else if (module == "cffi") {  // a cffi.FFI object (python/gpujit/_source.py): ffi.from_buffer(ary)
    const BuiltinInfo* b = attr == "from_buffer" ? find_builtin(BuiltinScope::Kernel, "from_buffer") : nullptr;
    if (!b) return no_attribute({"from_buffer"});
    r = from_row(b);
  } else if (module == "operator") {
    const BuiltinInfo* b = find_builtin(BuiltinScope::Operator, attr);
    if (!b) return no_attribute(builtin_names(BuiltinScope::Operator));
    r = from_row(b);
  } else if (module == "gpujit.libdevice" || module == "numba.cuda.libdevice") {
    const BuiltinInfo* b = find_builtin(BuiltinScope::Libdevice, attr);
    if (!b) return no_attribute(builtin_names(BuiltinScope::Libdevice));
    r = from_row(b);
  } else if (module == "gpujit.random" || module == "numba.cuda.random") {
    const BuiltinInfo* b = find_builtin(BuiltinScope::Random, attr);
    if (!b) return no_attribute(builtin_names(BuiltinScope::Random));
    r = from_row(b);
  } else if (is_kernel_module(module) && attr.rfind("fp16.", 0) == 0) {
    const BuiltinInfo* b = find_builtin(BuiltinScope::Fp16, attr.substr(5));
    if (!b) return no_attribute(builtin_names(BuiltinScope::Fp16));
    r = from_row(b);
  } else if (is_kernel_module(module) && attr.rfind("bf16.", 0) == 0) {
    return module_attribute(module + ".bf16", attr.substr(5), e, attr_range);
  } else if (is_kernel_module(module) && attr.rfind("fp8.", 0) == 0) {
    return module_attribute(module + ".fp8", attr.substr(4), e, attr_range);
  } else if (is_kernel_module(module) && attr.rfind("libdevice.", 0) == 0) {
    // `sin = libdevice.sin` at module level, or `from gpujit.libdevice import sin`.
    const BuiltinInfo* b = find_builtin(BuiltinScope::Libdevice, attr.substr(10));
    if (!b) return no_attribute(builtin_names(BuiltinScope::Libdevice));
    r = from_row(b);
  } else if (is_kernel_module(module) && attr.find('.') != std::string::npos &&
             std::find(std::begin(kNamespaces), std::end(kNamespaces), attr.substr(0, attr.find('.'))) !=
                 std::end(kNamespaces)) {
    // A namespaced name bound at module level: `add = cuda.atomic.add`, `from gpujit.random import ...`.
    const BuiltinInfo* b = find_builtin(namespace_scope(attr.substr(0, attr.find('.'))),
                                        attr.substr(attr.find('.') + 1));
    if (!b) return no_attribute({});
    r = from_row(b);
  } else if (is_kernel_module(module)) {
    if (std::find(std::begin(kNamespaces), std::end(kNamespaces), attr) != std::end(kNamespaces)) {
      r.what = ExprResult::What::Namespace;
      r.module = attr;
    } else if (attr == "libdevice" || attr == "fp16" || attr == "bf16" || attr == "fp8") {
      r.what = ExprResult::What::Module;
      r.module = module + "." + attr;
    } else if (const BuiltinInfo* b = find_builtin(BuiltinScope::Kernel, attr)) {
      r = from_row(b);
    } else if (std::optional<ScalarKind> k = parse_scalar_name(attr)) {
      r.what = ExprResult::What::DType;
      r.dtype = *k;
    } else if (attr == "jit") {
      error(e.range, fmt::format("'{}' cannot be used inside a kernel", p));
      return ExprResult::error();
    } else {
      std::vector<std::string_view> candidates = builtin_names(BuiltinScope::Kernel);
      candidates.insert(candidates.end(), std::begin(kNamespaces), std::end(kNamespaces));
      return no_attribute(candidates);
    }
  } else if (module == "numba" || module == "numba.types") {
    if (module == "numba" && attr == "cuda") {
      r.what = ExprResult::What::Module;
      r.module = "numba.cuda";
    } else if (module == "numba" && attr == "types") {
      r.what = ExprResult::What::Module;
      r.module = "numba.types";
    } else if (std::optional<ScalarKind> k = parse_scalar_name(attr)) {
      r.what = ExprResult::What::DType;
      r.dtype = *k;
    } else {
      return no_attribute({});
    }
  } else if (module == "cmath") {
    const BuiltinInfo* b = find_builtin(BuiltinScope::Cmath, attr);
    const BuiltinInfo* constant = find_builtin(BuiltinScope::Math, attr);  // cmath.pi, cmath.e, cmath.inf
    if (!b && constant && constant->typing == BuiltinTyping::MathConstant) b = constant;
    if (!b) return no_attribute(builtin_names(BuiltinScope::Cmath));
    r = from_row(b);
  } else {
    error(e.range, fmt::format("module '{}' cannot be used in a kernel", module));
    return ExprResult::error();
  }
  if (checking_) fn_.symbols[&e] = symbol_for(r, p);
  return record(e, r);
}

ExprResult FunctionAnalyzer::attribute(const AttributeExpr& e) {
  ExprResult base = expr(*e.value);
  if (!base.ok()) return base;
  std::string base_path = path_of(*e.value);
  ExprResult r;
  switch (base.what) {
    case ExprResult::What::Module:
      return module_attribute(base.module, e.attr, e, e.attr_range);
    case ExprResult::What::Namespace: {
      if (base.members) {  // RequestError.not_found: a member of an IntEnum, a constant
        auto it = base.members->find(e.attr);
        if (it == base.members->end()) {
          // A module of the user's: the attributes the kernel reads are globals named "module.attribute".
          auto g = program_.globals().find(base.module + "." + e.attr);
          if (g != program_.globals().end()) return global(g->first, g->second, e);
          std::vector<std::string_view> names;
          for (const auto& [name, value] : *base.members) names.push_back(name);
          error(e.attr_range, fmt::format("'{}' has no attribute '{}'{}", base_path, e.attr, suggest(e.attr, names)));
          return ExprResult::error();
        }
        r = ExprResult::of_const(it->second);
        break;
      }
      BuiltinScope scope = namespace_scope(base.module);
      const BuiltinInfo* b = find_builtin(scope, e.attr);
      if (!b) {
        error(e.attr_range, fmt::format("'{}' has no attribute '{}'{}", base_path, e.attr,
                                        suggest(e.attr, builtin_names(scope))));
        return ExprResult::error();
      }
      if (!b->supported) {
        error(e.range, fmt::format("'{}' is not supported yet", path_of(e)));
        return ExprResult::error();
      }
      if (b->callable) {
        r.what = ExprResult::What::Builtin;
      } else {
        r = ExprResult::of_value(Type::scalar_of(ScalarKind::Int32));
      }
      r.builtin = b;
      break;
    }
    case ExprResult::What::Value: {
      const Type& t = base.type;
      if (std::optional<ExprResult> m = overloaded_member(e, base)) return *m;  // sema_overload.cpp
      if (t.is_record()) return record_field(e, t, e.attr, e.attr_range);  // a value, not a symbol
      if (t.is_enum()) return enum_attribute(e, base);  // Color.red.value (sema_enum.cpp)
      if (t.is_vector()) return vector_lane(e, t);
      if (t.is_tuple() && t.named) return named_tuple_field(e, t);  // p.x (sema_named_tuple.cpp)
      if (!t.is_array()) {
        r = member(e, base);  // z.real, z.conjugate, g.sync (sema_complex.cpp)
        if (!r.ok()) return r;
        break;
      }
      const BuiltinInfo* b = find_builtin(BuiltinScope::Array, e.attr);
      if (const ArrayReduction* red = b ? nullptr : find_reduction(e.attr); red && red->method) {
        r.what = ExprResult::What::Reduction;  // a.sum(): the call reads the receiver again
        r.reduction = red;
        r.method = true;
        break;
      }
      if (!b && (e.attr == "reshape" || e.attr == "view" || e.attr == "copy")) {
        r.what = ExprResult::What::ArrayMethod;  // a.reshape(shape), a.view(dtype), a.copy(): sema_array_method.cpp
        r.array_method = e.attr;
        break;
      }
      if (!b && t.element().is_record()) return record_field_view(e, t, e.attr, e.attr_range);  // not a.size
      if (!b) {
        error(e.attr_range,
              fmt::format("'{}' has no attribute '{}'{}{}", t.str(), e.attr,
                          t.is_array() ? suggest(e.attr, builtin_names(BuiltinScope::Array)) : "",
                          origin_of(*e.value)));
        return ExprResult::error();
      }
      std::vector<Type> per_axis(t.ndim, Type::scalar_of(ScalarKind::Int64));
      switch (b->id) {
        case BuiltinId::ArrayShape:
        case BuiltinId::ArrayStrides:
          r = ExprResult::of_value(Type::tuple_of(per_axis));
          break;
        case BuiltinId::ArraySize:
          r = ExprResult::of_value(Type::scalar_of(ScalarKind::Int64));
          break;
        case BuiltinId::ArrayNdim:
          r = ExprResult::of_const(ConstValue::of_int(t.ndim));
          break;
        case BuiltinId::ArrayReal:
        case BuiltinId::ArrayImag:
          if (!is_complex(t.scalar)) {
            if (b->id == BuiltinId::ArrayReal) {
              r = ExprResult::of_value(t);
              break;
            }
            error(e.attr_range, fmt::format("'{}' has no imaginary parts to view: '.imag' is for complex arrays "
                                            "only{}",
                                            t.str(), origin_of(*e.value)));
            return ExprResult::error();
          }
          // Every other element of the memory: strided even where the complex array is contiguous.
          r = ExprResult::of_value(Type::array_of(t.scalar == ScalarKind::Complex64 ? ScalarKind::Float32
                                                                                    : ScalarKind::Float64,
                                                  t.ndim, Layout::Any));
          break;
        default:
          r.what = ExprResult::What::DType;
          r.dtype = t.scalar;
          r.record = t.record;
          break;
      }
      r.builtin = b;
      break;
    }
    default:
      error(e.attr_range, fmt::format("'{}' has no attribute '{}'", base_path, e.attr));
      return ExprResult::error();
  }
  if (checking_) fn_.symbols[&e] = symbol_for(r, path_of(e));
  return record(e, r);
}

ExprResult FunctionAnalyzer::record_field(const Expr& e, const Type& rec, const std::string& name,
                                          SourceRange name_range) {
  const RecordField* f = rec.record->find(name);
  if (!f) {
    std::vector<std::string_view> names;
    for (const RecordField& field : rec.record->fields) names.push_back(field.name);
    error(name_range, fmt::format("record has no field '{}'{}; its fields are {}", name, suggest(name, names),
                                  rec.record->field_names()));
    return ExprResult::error();
  }
  return record(e, ExprResult::of_value(f->value_type()));
}

ExprResult FunctionAnalyzer::record_field_view(const Expr& e, const Type& array, const std::string& name,
                                               SourceRange name_range) {
  ExprResult f = record_field(e, Type::record_of(array.record), name, name_range);
  if (!f.is_value()) return f;
  const RecordField& field = *array.record->find(name);  // a string field's elements are CharSeqs
  Type element = field.value_type().is_array() ? field.value_type().element() : field.value_type();
  const unsigned ndim = array.ndim + unsigned(field.array_shape().size());
  return record(e, ExprResult::of_value(Type::array_of(element, ndim, Layout::Any, array.index32)));
}

ExprResult FunctionAnalyzer::binop(const BinOpExpr& e) {
  ExprResult l = value(*e.lhs), r = value(*e.rhs);
  if (!l.is_value() || !r.is_value()) {
    return l.what == ExprResult::What::Unknown || r.what == ExprResult::What::Unknown ? ExprResult::unknown()
                                                                                      : ExprResult::error();
  }
  OpTyping t = type_binary(e.op, operand(l), operand(r));
  if (!t.ok()) {
    error(e.op_range.valid() ? e.op_range : e.range, t.error + origin_of(*e.lhs) + origin_of(*e.rhs));
    return ExprResult::error();
  }
  if (checking_) fn_.operand_types[&e] = t.operand_types();  // two with a datetime64 (ir/datetime_rules.h)
  if (l.value && r.value) {
    if (std::optional<ConstValue> c = fold_binary(e.op, *l.value, *r.value))
      return record(e, ExprResult::of_const(*c));
  }
  note_float64(e.op_range.valid() ? e.op_range : e.range, t.operand, {{e.lhs.get(), l}, {e.rhs.get(), r}});
  return record(e, ExprResult::of_value(t.result));
}

void FunctionAnalyzer::note_float64(SourceRange at, const Type& computed,
                                    const std::vector<std::pair<const Expr*, ExprResult>>& operands) {
  if (!checking_ || !(computed.is_scalar(ScalarKind::Float64) || computed.is_scalar(ScalarKind::Complex128)))
    return;
  auto narrow = [](const Type& t) {
    return t.is_scalar(ScalarKind::Float32) || t.is_scalar(ScalarKind::Float16) ||
           t.is_scalar(ScalarKind::Complex64);
  };
  const Expr* wide = nullptr;
  const ExprResult* wide_result = nullptr;
  bool has_narrow = false;
  for (const auto& [expr, r] : operands) {
    if (narrow(r.type)) has_narrow = true;
    bool widening = r.type.is_scalar(ScalarKind::Float64) || r.type.is_scalar(ScalarKind::Int64) ||
                    r.type.is_scalar(ScalarKind::Complex128);
    if (widening && !wide) wide = expr, wide_result = &r;
  }
  if (!has_narrow || !wide || !program_.take_float64_warning()) return;
  std::string what, fix;
  std::string type = wide_result->type.str();
  const char* article = type[0] == 'i' ? "an" : "a";
  std::string p = path_of(*wide);  // a name (SOFTENING, k) or a dotted path, if the user wrote one
  if (const ConstValue* c = wide_result->constant()) {
    what = p.empty() ? fmt::format("the {} constant {}", type, c->str())
                     : fmt::format("'{}', {} {} constant ({}),", p, article, type, c->str());
    fix = fmt::format("write np.float32({}) to stay in float32", p.empty() ? c->str() : p);
  } else {
    what = p.empty() ? fmt::format("{} {} operand", article, type)
                     : fmt::format("'{}', {} {} value{},", p, article, type, origin_of(*wide));
    fix = p.empty() ? "convert it with np.float32(...) to stay in float32"
                    : fmt::format("convert it with np.float32({}) to stay in float32", p);
  }
  spec_.diags.warning(file_, at,
                      fmt::format("float64 arithmetic in a float32 kernel: {} makes this compute in {}, as "
                                  "numba types it; {}, or pass warn_float64=False to jit()",
                                  what, computed.str(), fix));
}

ExprResult FunctionAnalyzer::unary(const UnaryOpExpr& e) {
  ExprResult v = value(*e.operand);
  if (!v.is_value()) return v.what == ExprResult::What::Unknown ? v : ExprResult::error();
  OpTyping t = type_unary(e.op, v.type);
  if (!t.ok()) {
    error(e.range, t.error + origin_of(*e.operand));
    return ExprResult::error();
  }
  if (checking_) fn_.operand_types[&e] = {t.operand};
  if (v.value) {
    if (std::optional<ConstValue> c = fold_unary(e.op, *v.value)) return record(e, ExprResult::of_const(*c));
  }
  return record(e, ExprResult::of_value(t.result));
}

ExprResult FunctionAnalyzer::boolop(const BoolOpExpr& e) {
  Type result;
  bool unknown = false, failed = false;
  for (const ExprPtr& v : e.values) {
    ExprResult r = value(*v);
    if (r.what == ExprResult::What::Unknown) unknown = true;
    if (!r.is_value()) {
      failed = true;
      continue;
    }
    if (!has_truth_value(r.type)) {
      error(v->range, fmt::format("the operands of '{}' must be numbers or bools, got {}{}", to_string(e.op),
                                  r.type.str(), origin_of(*v)));
      failed = true;
      continue;
    }
    result = result.is_valid() ? unify(result, r.type) : r.type;
  }
  if (unknown) return ExprResult::unknown();
  if (failed) return ExprResult::error();
  return record(e, ExprResult::of_value(result));
}

ExprResult FunctionAnalyzer::compare(const CompareExpr& e) {
  ExprResult lhs = value(*e.left);
  std::vector<Type> operands;
  bool unknown = lhs.what == ExprResult::What::Unknown, failed = !lhs.is_value();
  bool all_folded = true, folded_value = true;
  const Expr* lhs_expr = e.left.get();
  for (size_t i = 0; i < e.ops.size(); ++i) {
    ExprResult rhs = value(*e.comparators[i]);
    if (rhs.what == ExprResult::What::Unknown) unknown = true;
    if (lhs.is_value() && rhs.is_value()) {
      OpTyping t = type_compare(e.ops[i], operand(lhs), operand(rhs));
      if (!t.ok()) {
        error(e.range, t.error + origin_of(*lhs_expr) + origin_of(*e.comparators[i]));
        failed = true;
      } else {
        operands.push_back(t.operand);
        std::optional<ConstValue> c;
        if (lhs.value && rhs.value) c = fold_compare(e.ops[i], *lhs.value, *rhs.value);
        if (!c)
          all_folded = false;
        else if (!c->i)
          folded_value = false;
      }
    } else {
      failed = true;
    }
    lhs = rhs;
    lhs_expr = e.comparators[i].get();
  }
  if (unknown) return ExprResult::unknown();
  if (failed) return ExprResult::error();
  if (checking_) fn_.operand_types[&e] = operands;
  if (all_folded) return record(e, ExprResult::of_const(ConstValue::of_bool(folded_value)));
  return record(e, ExprResult::of_value(Type::scalar_of(ScalarKind::Bool)));
}

ExprResult FunctionAnalyzer::ifexp(const IfExpExpr& e) {
  ExprResult test = value(*e.test);
  if (test.is_value() && !has_truth_value(test.type)) {
    error(e.test->range,
          fmt::format("the condition of a conditional expression must be a number or a bool, got {}",
                      test.type.str()));
  }
  ExprResult a = value(*e.body), b = value(*e.orelse);
  if (a.what == ExprResult::What::Unknown || b.what == ExprResult::What::Unknown)
    return ExprResult::unknown();
  if (!a.is_value() || !b.is_value()) return ExprResult::error();
  // Two numbers take their common type with weak constants adapting (`x if c else 0.0` stays float32).
  Type t = a.type.is_scalar() && b.type.is_scalar() ? common_numeric_type({operand(a), operand(b)})
                                                    : unify(a.type, b.type);
  if (!t.is_valid()) t = unify(a.type, b.type);
  if (!t.is_valid()) {
    error(e.range,
          fmt::format("the two results of the conditional expression have types {} and {}, which do not "
                      "unify",
                      a.type.str(), b.type.str()));
    return ExprResult::error();
  }
  return record(e, ExprResult::of_value(t));
}

ExprResult FunctionAnalyzer::tuple(const TupleExpr& e) {
  std::vector<Type> types;
  std::vector<ConstValue> values;
  bool all_const = true, unknown = false, failed = false;
  for (const ExprPtr& elt : e.elts) {
    ExprResult r = value(*elt);
    if (r.what == ExprResult::What::Unknown) unknown = true;
    if (!r.is_value()) {
      failed = true;
      continue;
    }
    types.push_back(r.type);
    if (r.value)
      values.push_back(*r.value);
    else
      all_const = false;
  }
  if (unknown) return ExprResult::unknown();
  if (failed) return ExprResult::error();
  if (all_const) return record(e, ExprResult::of_const(ConstValue::of_tuple(std::move(values))));
  return record(e, ExprResult::of_value(Type::tuple_of(std::move(types))));
}

}  // namespace gpujit
