// Semantic analysis, part one: the program (specializations of device functions, recursion, the order of
// TypedProgram::functions), the per-function driver (inference to a fixpoint, then the checking pass) and
// statements. Expressions are in sema_expr.cpp, calls and builtins in sema_call.cpp.
#include "ir/sema.h"

#include <fmt/format.h>
#include <llvm/Support/xxhash.h>

#include <algorithm>

#include "ir/const_eval.h"
#include "ir/index_signs.h"
#include "ir/sema_internal.h"

namespace gpujit {

// Collects the names a function body binds; Python makes each of them local to the whole function.
void collect_bound_names(const Expr& target, std::set<std::string>& out) {
  if (const auto* n = target.as<NameExpr>()) out.insert(n->id);
  if (const auto* t = target.as<TupleExpr>()) {
    for (const ExprPtr& e : t->elts) collect_bound_names(*e, out);
  }
}

void collect_bound_names(const Block& block, std::set<std::string>& out) {
  for (const StmtPtr& s : block) {
    if (const auto* a = s->as<AssignStmt>()) {
      for (const ExprPtr& t : a->targets) collect_bound_names(*t, out);
    } else if (const auto* a = s->as<AugAssignStmt>()) {
      collect_bound_names(*a->target, out);
    } else if (const auto* f = s->as<ForStmt>()) {
      collect_bound_names(*f->target, out);
      collect_bound_names(f->body, out);
      collect_bound_names(f->orelse, out);
    } else if (const auto* w = s->as<WhileStmt>()) {
      collect_bound_names(w->body, out);
      collect_bound_names(w->orelse, out);
    } else if (const auto* i = s->as<IfStmt>()) {
      collect_bound_names(i->body, out);
      collect_bound_names(i->orelse, out);
    }
  }
}

namespace {

// Variable types only widen, so inference converges in a few passes; a type that keeps growing (a tuple
// that contains itself) would not, and is reported.
constexpr int kMaxInferencePasses = 32;

/// True when `inner` is one of the elements of the tuple `t`, at any depth.
bool contains_type(const Type& t, const Type& inner) {
  if (!t.is_tuple()) return false;
  for (const Type& e : t.elements) {
    if (e == inner || contains_type(e, inner)) return true;
  }
  return false;
}

// Specializations of one function nested in the analysis at once: a recursion whose argument types change
// at every call (f(x) calling f((x, x))) would never end.
constexpr size_t kMaxNestedSpecializations = 8;
// literal_unroll loops within the bodies of literal_unroll loops, each depth a round of rewriting.
constexpr int kMaxRewriteRounds = 8;

// A PTX identifier unique per function and argument types: the file, line and name tell functions apart,
// the signature tells specializations apart. The hash is LLVM's XXH3-64 (a narrow exception to the layers:
// scripts/check-layers), stable across processes and builds as std::hash is not.
std::string mangle(const FunctionDef& def, const Signature& sig) {
  std::string key =
      fmt::format("{}:{}:{}:{}", def.file ? def.file->name() : "", def.range.begin.line, def.name, sig.key());
  return fmt::format("_gpujit_{}_{:016x}", def.name, llvm::xxh3_64bits(llvm::StringRef(key)));
}

std::string types_str(const std::vector<Type>& types) {
  std::string s;
  for (const Type& t : types) s += (s.empty() ? "" : ", ") + t.str();
  return s;
}

// Counts every binding of each name in `block` (as collect_bound_names walks it) and keeps the value of each
// plain `name = value` assignment, for names bound exactly once (assigned_once).
void count_bindings(const Expr& target, const Expr* value, std::map<std::string, int>& counts,
                    std::map<std::string, const Expr*>& values) {
  if (const auto* n = target.as<NameExpr>()) {
    ++counts[n->id];
    values[n->id] = value;
  }
  if (const auto* t = target.as<TupleExpr>()) {
    for (const ExprPtr& e : t->elts) count_bindings(*e, nullptr, counts, values);
  }
}

void count_bindings(const Block& block, std::map<std::string, int>& counts, std::map<std::string, const Expr*>& values) {
  for (const StmtPtr& s : block) {
    if (const auto* a = s->as<AssignStmt>()) {
      for (const ExprPtr& t : a->targets) count_bindings(*t, a->value.get(), counts, values);
    } else if (const auto* a = s->as<AugAssignStmt>()) {
      count_bindings(*a->target, nullptr, counts, values);
    } else if (const auto* f = s->as<ForStmt>()) {
      count_bindings(*f->target, nullptr, counts, values);  // no value: a loop variable is never a constant
      count_bindings(f->body, counts, values);
      count_bindings(f->orelse, counts, values);
    } else if (const auto* w = s->as<WhileStmt>()) {
      count_bindings(w->body, counts, values);
      count_bindings(w->orelse, counts, values);
    } else if (const auto* i = s->as<IfStmt>()) {
      count_bindings(i->body, counts, values);
      count_bindings(i->orelse, counts, values);
    }
  }
}

// Whether control can reach the end of `block` (a conservative answer: true unless every path returns or
// loops forever).
bool falls_through(const Block& block) {
  for (const StmtPtr& s : block) {
    if (s->kind == StmtKind::Return || s->kind == StmtKind::Raise) return false;
    if (const auto* i = s->as<IfStmt>()) {
      if (!falls_through(i->body) && !falls_through(i->orelse)) return false;
    }
    if (const auto* w = s->as<WhileStmt>()) {
      const auto* lit = w->test->as<BoolLitExpr>();
      bool has_break = false;
      std::vector<const Block*> todo = {&w->body};
      while (!todo.empty()) {  // a break in a nested loop leaves that loop only
        const Block* b = todo.back();
        todo.pop_back();
        for (const StmtPtr& t : *b) {
          if (t->kind == StmtKind::Break) has_break = true;
          if (const auto* ii = t->as<IfStmt>()) todo.push_back(&ii->body), todo.push_back(&ii->orelse);
        }
      }
      if (lit && lit->value && !has_break) return false;
    }
  }
  return true;
}

}  // namespace

bool is_kernel_module(const std::string& canonical) {
  return canonical == "gpujit" || canonical == "numba.cuda";
}

// ---------------------------------------------------------------------------------------------------------
// Program

// What tells one compile-time argument from another in a specialization's key.
std::string static_key(const ExprResult& r) {
  switch (r.what) {
    case ExprResult::What::Builtin:
      return std::string("builtin ") + r.builtin->qualified_name();
    case ExprResult::What::DType:
      return std::string("dtype ") + scalar_name(r.dtype);
    case ExprResult::What::Device:
      return fmt::format("function {} {} {}", r.function->name, static_cast<const void*>(r.function),
                         static_cast<const void*>(r.closure));
    default:
      return r.value ? "constant " + r.value->type().key() + " " + r.value->str() : "?";
  }
}

Specialization* ProgramAnalyzer::specialize(const FunctionDef& def, const std::vector<Type>& args,
                                            bool is_kernel, const std::map<size_t, ExprResult>& statics,
                                            const Closure* closure) {
  std::string sig_key = Signature{Type::void_(), args}.key();
  for (const auto& [i, r] : statics) sig_key += fmt::format(" [{}: {}]", i, static_key(r));
  if (closure) sig_key += fmt::format(" [closure {}]", static_cast<const void*>(closure));
  auto key = std::make_pair(&def, sig_key);
  auto it = specs_.find(key);
  if (it != specs_.end()) return it->second.get();  // not done yet: a recursive call (sema_recursion.cpp)
  if (size_t(std::count(stack_.begin(), stack_.end(), &def)) >= kMaxNestedSpecializations) return nullptr;
  auto spec = std::make_unique<Specialization>();
  Specialization* s = spec.get();
  specs_.emplace(key, std::move(spec));
  s->fn = std::make_unique<TypedFunction>();
  stack_.push_back(&def);
  if (def.errors.has_errors()) {
    // Syntax errors inside the function: report them (once per function) instead of analysing it.
    if (syntax_errors_reported_.insert(&def).second)
      s->diags.append(def.errors);
    else
      s->diags.error(def.file, def.name_range, fmt::format("'{}' has syntax errors", def.name));
    s->fn->def = &def;
    s->fn->name = def.name;
    s->fn->is_kernel = is_kernel;
  } else {
    // An overload implementation is analysed in its own free names, and so are the functions it calls; a
    // function passed as an argument in the names of the function that named it (note_home_env).
    const GlobalEnv* env = &globals();
    if (auto own = impl_envs_.find(&def); own != impl_envs_.end())
      env = own->second;
    else if (auto home = home_envs_.find(&def); home != home_envs_.end())
      env = home->second;
    envs_.push_back(env);
    const bool float64_warned = float64_warned_;  // a rewrite's analysis warns again (its diags are new)
    FunctionAnalyzer(*this, *s, def, args, is_kernel, statics, closure).run();
    // literal_unroll loops over tuples of mixed types, `*t` in builtin calls: analyse again a copy with
    // those rewritten (a loop's body may hold more, found in its copies, hence the rounds).
    std::vector<std::shared_ptr<const FunctionDef>> rewritten;
    for (int round = 0; !s->rewrites.empty(); ++round) {
      if (round == kMaxRewriteRounds) {
        SourceRange at = s->rewrites.loops.empty() ? s->rewrites.star_calls.begin()->first->range
                                                   : s->rewrites.loops.begin()->first->range;
        s->diags.error(def.file, at,
                       fmt::format("literal_unroll() loops nested more than {} deep are not supported",
                                   kMaxRewriteRounds));
        break;
      }
      rewritten.push_back(rewrite_function(rewritten.empty() ? def : *rewritten.back(), s->rewrites));
      s->rewrites = Rewrites();
      float64_warned_ = float64_warned;
      s->fn = std::make_unique<TypedFunction>();
      s->diags = Diagnostics();
      s->callees.clear();
      FunctionAnalyzer(*this, *s, *rewritten.back(), args, is_kernel, statics, closure).run();
    }
    s->fn->rewritten_defs = std::move(rewritten);
    envs_.pop_back();
    s->fn->non_negative_locals = find_non_negative_locals(*s->fn);
  }
  stack_.pop_back();
  s->done = true;
  return s;
}

void ProgramAnalyzer::commit(Specialization* s, TypedProgram& out, Diagnostics& diags) {
  if (s->committed) return;
  s->committed = true;
  for (Specialization* c : s->callees) commit(c, out, diags);
  diags.append(s->diags);
  out.functions.push_back(std::move(s->fn));
}

std::unique_ptr<TypedProgram> analyze(const FunctionDef& kernel, const std::vector<Type>& arg_types,
                                      const GlobalEnv& globals, Diagnostics& diags, bool warn_float64,
                                      const EntrySpec& entry, OverloadResolver* overloads) {
  size_t errors_before = diags.error_count();
  ProgramAnalyzer program(globals, overloads);
  // The warning is for float32 kernels: at least one floating-point array, and every one float32/float16.
  bool narrow_arrays = false, wide_arrays = false;
  for (const Type& t : arg_types) {
    if (!t.is_array() || !(is_float(t.scalar) || is_complex(t.scalar))) continue;
    bool narrow = t.scalar == ScalarKind::Float32 || t.scalar == ScalarKind::Float16 ||
                  t.scalar == ScalarKind::Complex64;
    (narrow ? narrow_arrays : wide_arrays) = true;
  }
  program.set_float64_warning(warn_float64 && narrow_arrays && !wide_arrays);
  if (entry.device && entry.return_type.is_valid() && !entry.return_type.is_void())
    program.set_entry_return(&kernel, entry.return_type);
  Specialization* s = program.specialize(kernel, arg_types, !entry.device);
  auto out = std::make_unique<TypedProgram>();
  program.commit(s, *out, diags);
  if (diags.error_count() > errors_before) return nullptr;
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// One function

FunctionAnalyzer::FunctionAnalyzer(ProgramAnalyzer& program, Specialization& spec, const FunctionDef& def,
                                   const std::vector<Type>& args, bool is_kernel,
                                   const std::map<size_t, ExprResult>& statics, const Closure* closure)
    : program_(program), closure_(closure), spec_(spec), fn_(*spec.fn), def_(def), file_(def.file), is_kernel_(is_kernel) {
  for (const auto& [i, r] : statics) {
    if (i < def.params.size()) static_params_[def.params[i].name] = r;
  }
  // A dtype argument (numba's NumberClass, a kernel's "class(int32)") names its dtype at compile time, as a
  // dtype a device function is passed does (statics): `cuda.local.array(n, dty)`, `dty(x)`.
  for (size_t i = 0; i < args.size() && i < def.params.size(); ++i) {
    if (!args[i].is_class() || statics.count(i)) continue;
    ExprResult r;
    r.what = ExprResult::What::DType;
    r.dtype = args[i].scalar;
    static_params_[def.params[i].name] = r;
  }
  fn_.def = &def;
  fn_.name = def.name;
  fn_.is_kernel = is_kernel;
  fn_.signature.params = args;
  fn_.signature.ret = Type::void_();
}

void FunctionAnalyzer::error(SourceRange r, std::string message) {
  if (checking_) spec_.diags.error(file_, r, std::move(message));
}

void FunctionAnalyzer::run() {
  const char* what = is_kernel_ ? "kernel" : "function";
  if (is_kernel_ && def_.vararg) {
    checking_ = true;
    error(def_.vararg->range, fmt::format("kernel '{}' takes '*{}'; a kernel's arguments are fixed: only device "
                                          "functions take a varying number of arguments",
                                          def_.name, def_.vararg->name));
    return;
  }
  // A function with `*args` has one more entry in its signature: the tuple of its extra arguments.
  const size_t fixed = fn_.signature.params.size() - (def_.vararg && !fn_.signature.params.empty() ? 1 : 0);
  if (def_.params.size() != fixed) {
    checking_ = true;
    error(def_.name_range, fmt::format("{} '{}' takes {} argument{} but was given {} ({})", what, def_.name,
                                       def_.params.size(), def_.params.size() == 1 ? "" : "s",
                                       fn_.signature.params.size(), types_str(fn_.signature.params)));
    return;
  }
  bool bad_param = false;
  for (size_t i = 0; i < def_.params.size(); ++i) {
    const Param& p = def_.params[i];
    if (is_kernel_ && p.default_value) {  // a device function's default is a compile-time argument
      checking_ = true;
      error(p.default_value->range,
            fmt::format("default value for parameter '{}' is not supported in kernels", p.name));
      checking_ = false;
      bad_param = true;
      continue;
    }
    const Type& t = fn_.signature.params[i];
    if (static_params_.count(p.name)) continue;  // bound at compile time, not a variable
    checking_ = true;
    if (!t.is_valid() || t.is_void() || t.kind == Type::Kind::None) {
      error(p.range, fmt::format("argument '{}' has no usable type ({})", p.name, t.str()));
      bad_param = true;
    }
    checking_ = false;
    local_names_.insert(p.name);
    vars_[p.name] = VarInfo{t, p.range, true, static_cast<int>(i)};
  }
  if (def_.vararg) {
    const Type t = fn_.signature.params.size() == fixed + 1 ? fn_.signature.params.back() : Type::invalid();
    if (!t.is_tuple()) {
      checking_ = true;
      error(def_.vararg->range, fmt::format("'*{}' has no usable type ({})", def_.vararg->name, t.str()));
      checking_ = false;
      bad_param = true;
    }
    local_names_.insert(def_.vararg->name);
    vars_[def_.vararg->name] = VarInfo{t, def_.vararg->range, true, static_cast<int>(fixed)};
  }
  if (bad_param) return;
  collect_bound_names(def_.body, local_names_);
  {
    std::map<std::string, int> counts;
    std::map<std::string, const Expr*> values;
    count_bindings(def_.body, counts, values);
    for (const auto& [name, n] : counts) {
      if (n == 1 && values[name] && !vars_.count(name)) assigned_once_[name] = values[name];
    }
  }
  if (!is_kernel_) {
    declared_return_ = program_.entry_return(def_);
    if (!declared_return_.is_valid()) declared_return_ = declared_return_type(def_);
  }

  // Inference: walk until no variable changes type.
  checking_ = false;
  int pass = 0;
  for (;; ++pass) {
    changed_ = false;
    block(def_.body);
    if (!changed_) break;
    if (pass == kMaxInferencePasses) {
      checking_ = true;
      error(def_.name_range,
            fmt::format("the types of the variables of '{}' do not settle; a variable's type "
                        "keeps growing (a tuple that contains itself?)",
                        def_.name));
      return;
    }
  }

  if (!is_kernel_ && declared_return_.is_valid()) fn_.signature.ret = declared_return_;
  else if (!is_kernel_ && return_type_.is_valid()) fn_.signature.ret = return_type_;
  fn_.mangled_name = mangle(def_, fn_.signature);
  for (const auto& [n, v] : vars_) {
    if (v.type.is_valid()) fn_.locals[n] = v.type;
  }

  // Checking: report errors and record the tables.
  checking_ = true;
  loop_depth_ = 0;
  block(def_.body);
  if (!is_kernel_ && return_type_.is_valid() && bare_return_.valid()) {
    error(bare_return_,
          fmt::format("'{}' returns a value at line {} but nothing here; return a value on every path",
                      def_.name, return_origin_.begin.line));
  } else if (!is_kernel_ && return_type_.is_valid() && falls_through(def_.body)) {
    error(def_.name_range,
          fmt::format("'{}' returns a value at line {} but can reach its end without returning "
                      "one; add a return statement at the end",
                      def_.name, return_origin_.begin.line));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Statements

void FunctionAnalyzer::block(const Block& b) {
  // The parser binds a loop's iterable just before the loop: `$forN_0 = literal_unroll(t)`.
  for (size_t i = 1; i < b.size(); ++i) {
    const auto* f = b[i]->as<ForStmt>();
    const auto* bind = b[i - 1]->as<AssignStmt>();
    if (f && f->literal_unroll && bind) unroll_iterables_.insert(bind->value.get());
  }
  for (const StmtPtr& s : b) stmt(*s);
}

ExprResult FunctionAnalyzer::check_condition(const Expr& test, const char* construct) {
  ExprResult r = value(test);
  if (r.is_value() && !has_truth_value(r.type)) {
    error(test.range, fmt::format("the condition of '{}' must be a number or a bool, got {}{}", construct,
                                  r.type.str(), origin_of(test)));
  }
  return r;
}

std::optional<bool> static_branch(const TypedFunction& fn, const IfStmt& s) {
  const ConstValue* c = fn.constant_of(s.test.get());
  return c ? const_truth(*c) : std::nullopt;
}

void FunctionAnalyzer::stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Expr: {
      const Expr& e = *s.as<ExprStmt>()->value;
      if (e.kind == ExprKind::StringLit) return;  // a string used as a comment
      ExprResult r = expr(e);
      if (r.ok() && !r.is_value()) {
        error(e.range, fmt::format("'{}' is not a value; this statement does nothing", path_of(e)));
      }
      return;
    }
    case StmtKind::Assign:
      return assign(*s.as<AssignStmt>());
    case StmtKind::AugAssign:
      return aug_assign(*s.as<AugAssignStmt>());
    case StmtKind::If: {
      const auto& i = *s.as<IfStmt>();
      ExprResult test = check_condition(*i.test, "if");
      // A constant test (a literal argument, a module constant, arithmetic on them) decides the branch
      // now: only the live block is analysed, as numba prunes the dead one (static_branch).
      std::optional<bool> taken = test.is_value() && test.constant() ? const_truth(*test.constant()) : std::nullopt;
      if (!taken || *taken) block(i.body);
      if (!taken || !*taken) block(i.orelse);
      return;
    }
    case StmtKind::For:
      return for_stmt(*s.as<ForStmt>());
    case StmtKind::While: {
      const auto& w = *s.as<WhileStmt>();
      check_condition(*w.test, "while");
      ++loop_depth_;
      block(w.body);
      --loop_depth_;
      block(w.orelse);
      return;
    }
    case StmtKind::Break:
      if (loop_depth_ == 0) error(s.range, "'break' outside loop");
      return;
    case StmtKind::Continue:
      if (loop_depth_ == 0) error(s.range, "'continue' not properly in loop");
      return;
    case StmtKind::Return:
      return return_stmt(*s.as<ReturnStmt>());
    case StmtKind::Raise:
      return raise_stmt(*s.as<RaiseStmt>());
    case StmtKind::Pass:
      return;
  }
}

void FunctionAnalyzer::assign(const AssignStmt& s) {
  ExprResult v = value(*s.value);  // value() rejects calls that return nothing
  if (v.is_value() && v.type.kind == Type::Kind::None) {
    error(s.value->range, "cannot assign None; variables hold numbers, arrays or tuples");
    v = ExprResult::error();
  }
  // The parser makes a for loop over an iterable into one over range() that indexes `$forN_i`, the
  // iterable, or adds `$forN_sK`, enumerate's start (parser.cpp, parse_for): check them here, where their
  // types are known, so the error names the loop and not the indexing.
  const auto* temp = s.targets.size() == 1 ? s.targets[0]->as<NameExpr>() : nullptr;
  if (temp && temp->id.rfind("$for", 0) == 0 && v.is_value()) {
    bool start = temp->id.find("_s") != std::string::npos;
    if (start && !v.type.is_integer() && !v.type.is_bool()) {
      error(s.value->range, fmt::format("enumerate() start must be an integer, got {}{}", v.type.str(),
                                        origin_of(*s.value)));
      v = ExprResult::error();
    } else if (!start && !v.type.is_array() && !v.type.is_tuple()) {
      error(s.value->range, fmt::format("a for loop iterates over range(), an array, a tuple, enumerate() or "
                                        "zip(); got {}{}",
                                        v.type.str(), origin_of(*s.value)));
      v = ExprResult::error();
    }
  }
  for (const ExprPtr& target : s.targets) {
    assign_target(*target, v.is_value() ? v.type : Type::invalid(), s.value.get());
  }
}

void FunctionAnalyzer::assign_target(const Expr& target, const Type& t, const Expr* value_expr) {
  if (const auto* n = target.as<NameExpr>()) {
    if (value_expr && is_const_array(*value_expr)) const_array_vars_.insert(n->id);
    if (const char* memory = value_expr ? block_memory_of(*value_expr) : nullptr)
      block_memory_vars_[n->id] = memory;
    auto it = vars_.find(n->id);
    if (it != vars_.end() && it->second.is_param && it->second.type.is_array()) {
      error(n->range, fmt::format("cannot assign to array argument '{}'; store into its elements instead "
                                  "('{}[i] = ...')",
                                  n->id, n->id));
    } else if (t.is_valid()) {
      bind_var(n->id, t, *n);
    } else if (checking_) {
      failed_vars_.insert(n->id);  // its value had an error: reads of it stay quiet
    }
    if (checking_) {
      auto v = vars_.find(n->id);
      Symbol sym;
      sym.kind = Symbol::Kind::Local;
      sym.name = n->id;
      fn_.symbols[n] = sym;
      if (v != vars_.end() && v->second.type.is_valid()) fn_.expr_types[n] = v->second.type;
    }
    return;
  }
  if (const auto* sub = target.as<SubscriptExpr>()) {
    ExprResult r = subscript(*sub, true);
    if (!r.is_value() || !t.is_valid()) return;
    store_check(r.type, t, value_expr ? *value_expr : target);
    return;
  }
  if (const auto* tup = target.as<TupleExpr>()) {
    if (t.is_valid() && (!t.is_tuple() || t.elements.size() != tup->elts.size())) {
      error(value_expr ? value_expr->range : target.range,
            t.is_tuple()
                ? fmt::format("cannot unpack a tuple of {} values into {} targets", t.elements.size(),
                              tup->elts.size())
                : fmt::format("cannot unpack a value of type {} into {} targets", t.str(), tup->elts.size()));
      for (const ExprPtr& e : tup->elts) assign_target(*e, Type::invalid(), nullptr);
      return;
    }
    std::vector<Type> elts;
    for (size_t i = 0; i < tup->elts.size(); ++i) {
      assign_target(*tup->elts[i], t.is_valid() ? t.elements[i] : Type::invalid(), nullptr);
    }
    if (checking_ && t.is_valid()) fn_.expr_types[tup] = t;
    return;
  }
  if (const auto* a = target.as<AttributeExpr>()) {
    ExprResult base = value(*a->value);
    if (!base.is_value()) return;
    if (base.type.is_vector()) {
      error(a->attr_range,
            fmt::format("cannot assign to '{}' of a {} value: its lanes are read-only; make a new {}{}", a->attr,
                        base.type.str(), base.type.dim3 ? "value" : "vector", origin_of(*a->value)));
      return;
    }
    if (!base.type.is_record()) {
      error(a->attr_range, fmt::format("cannot assign to attribute '{}' of a {} value; only record fields can "
                                       "be assigned{}",
                                       a->attr, base.type.str(), origin_of(*a->value)));
      return;
    }
    ExprResult r = attribute(*a);
    if (r.is_value() && t.is_valid()) store_check(r.type, t, value_expr ? *value_expr : target);
    return;
  }
  error(target.range,
        "cannot assign to this expression; assign to a name, an array element or a tuple of them");
}

void FunctionAnalyzer::store_check(const Type& place, const Type& t, const Expr& value_expr) {
  if (place.is_array()) {
    slice_store(place, t, value_expr);
  } else if (!can_convert(t, place)) {
    error(value_expr.range,
          place.is_charseq() || t.is_charseq()  // ir/charseq.h
              ? charseq_store_error(t, place)
              : fmt::format("cannot store a value of type {} into an element of type {}", t.str(),
                            place.str()));
  }
}

void FunctionAnalyzer::slice_store(const Type& view, const Type& t, const Expr& value_expr) {
  // numba's setitem on a view: a scalar fills it, an array of the same rank is copied into it.
  const Type elem = view.element();
  if (t.is_scalar() && !can_convert(t, elem)) {
    error(value_expr.range,
          fmt::format("cannot store a value of type {} into a slice of {}", t.str(), view.str()));
  } else if (t.is_array() && (t.ndim != view.ndim || !can_convert(t.element(), elem))) {
    error(value_expr.range,
          fmt::format("cannot assign an array of type {} to a slice of type {}; the source must be a "
                      "scalar or an array with as many dimensions ({})",
                      t.str(), view.str(), int(view.ndim)));
  } else if (t.is_charseq()) {  // a string fills the slice
    if (!can_convert(t, elem)) error(value_expr.range, charseq_store_error(t, elem));
  } else if (t.is_record() && t != elem) {
    error(value_expr.range, fmt::format("cannot store a record of type {} into a slice of {}", t.str(), view.str()));
  } else if (!t.is_scalar() && !t.is_array() && !t.is_record()) {
    error(value_expr.range,
          fmt::format("cannot assign a value of type {} to an array slice; assign a scalar or an array",
                      t.str()));
  }
}

void FunctionAnalyzer::bind_var(const std::string& name, const Type& t, const NameExpr& target) {
  auto it = vars_.find(name);
  if (it == vars_.end() || !it->second.type.is_valid()) {
    vars_[name] = VarInfo{t, target.range, false, -1};
    changed_ = true;
    return;
  }
  VarInfo& v = it->second;
  Type u = unify(v.type, t);
  if (!u.is_valid()) {
    if (checking_ && reported_conflicts_.insert(name).second) {
      std::string first =
          v.is_param ? "as an argument" : fmt::format("assigned at line {}", v.origin.begin.line);
      error(target.range,
            fmt::format("cannot unify the types of variable '{}': {} ({}) and {} (assigned at line {})",
                        user_name(name), v.type.str(), first, t.str(), target.range.begin.line));
    }
    return;
  }
  if (u != v.type) {
    if (checking_) throw InternalError(fmt::format("variable '{}' widened after inference", name));
    v.type = u;
    changed_ = true;
  }
}

void FunctionAnalyzer::aug_assign(const AugAssignStmt& s) {
  ExprResult v = value(*s.value);
  std::string op = std::string(to_string(s.op)) + "=";
  if (const auto* n = s.target->as<NameExpr>()) {
    ExprResult cur = name(*n);
    if (!cur.is_value() || !v.is_value()) {
      if (cur.ok() && !cur.is_value()) error(n->range, fmt::format("'{}' is not a variable", n->id));
      if (checking_) failed_vars_.insert(n->id);
      return;
    }
    auto var = vars_.find(n->id);
    if (var != vars_.end() && var->second.is_param && var->second.type.is_array()) {
      error(n->range, fmt::format("cannot assign to array argument '{}'; store into its elements instead "
                                  "('{}[i] {} ...')",
                                  n->id, n->id, op));
      return;
    }
    OpTyping t = type_binary(s.op, operand(cur), operand(v));
    if (!t.ok()) {
      error(s.range,
            fmt::format("unsupported operand types for {}: '{}' and '{}'", op, cur.type.str(), v.type.str()));
      if (checking_) failed_vars_.insert(n->id);
      return;
    }
    if (checking_) record_aug_operands(s, t);
    if (!is_local_name(n->id)) return;
    bind_var(n->id, t.result, *n);
    return;
  }
  const auto* field = s.target->as<AttributeExpr>();
  if (field) {
    ExprResult base = value(*field->value);
    if (base.is_value() && !base.type.is_record()) field = nullptr;  // reported below
  }
  if (s.target->as<SubscriptExpr>() || field) {
    const auto* sub = s.target->as<SubscriptExpr>();
    ExprResult cur = sub ? subscript(*sub, true) : attribute(*field);
    if (!cur.is_value() || !v.is_value()) return;
    if (cur.type.is_array()) {
      error(s.range,
            fmt::format("'{}' on an array slice is not supported; use a loop over its elements", op));
      return;
    }
    OpTyping t = type_binary(s.op, operand(cur), operand(v));
    if (!t.ok()) {
      error(s.range,
            fmt::format("unsupported operand types for {}: '{}' and '{}'", op, cur.type.str(), v.type.str()));
      return;
    }
    if (t.result.is_npdatetime() && !can_convert(t.result, cur.type)) {  // datetime64[D] += timedelta64[h]
      error(s.range, fmt::format("'{}' gives {}, which cannot be stored into an element of type {}; a datetime64 "
                                 "or timedelta64 converts to no other unit implicitly",
                                 op, t.result.str(), cur.type.str()));
      return;
    }
    if (checking_) record_aug_operands(s, t);
    return;
  }
  error(s.target->range, fmt::format("cannot use '{}' on this target; use a name, an array element or a record field", op));
}

void FunctionAnalyzer::record_aug_operands(const AugAssignStmt& s, const OpTyping& t) {
  fn_.stmt_operand_types[&s] = t.operand;
  if (t.rhs_operand.is_valid()) fn_.stmt_mixed_operands[&s] = {t.rhs_operand, t.result};  // ir/datetime_rules.h
}

bool FunctionAnalyzer::defer_unroll(const ForStmt& s) {
  // The parser's loop is `for $forN in range(len($forN_0))` (frontend/parser.cpp, parse_for).
  const auto* range = s.iter->as<CallExpr>();
  const auto* len = range && range->args.size() == 1 ? range->args[0]->as<CallExpr>() : nullptr;
  const auto* leaf = len && len->args.size() == 1 ? len->args[0]->as<NameExpr>() : nullptr;
  auto v = leaf ? vars_.find(leaf->id) : vars_.end();
  if (v == vars_.end() || !v->second.type.is_tuple()) {
    spec_.rewrites.loops.erase(&s);
    return false;
  }
  const std::vector<Type>& elements = v->second.type.elements;
  if (std::all_of(elements.begin(), elements.end(), [&](const Type& t) { return t == elements[0]; })) {
    spec_.rewrites.loops.erase(&s);  // one type: the loop indexes the tuple, as any loop over one
    return false;
  }
  spec_.rewrites.loops[&s] = elements.size();
  return true;
}

void FunctionAnalyzer::for_stmt(const ForStmt& s) {
  if (s.literal_unroll && defer_unroll(s)) return;
  Type elem;
  const auto* call = s.iter->as<CallExpr>();
  ExprResult callee = call ? expr(*call->func) : ExprResult::error();
  if (call && callee.what == ExprResult::What::Builtin && callee.builtin->id == BuiltinId::Range) {
    ExprResult r = range_call(*call);
    if (r.is_value()) elem = r.type;
  } else if (call && !callee.ok()) {
    for (const ExprPtr& a : call->args) value(*a);
  } else {
    ExprResult it = value(*s.iter);
    if (it.is_value()) {
      error(s.iter->range, fmt::format("for loops can only iterate over range(...); got {}{}", it.type.str(),
                                       origin_of(*s.iter)));
    }
  }
  const auto* n = s.target->as<NameExpr>();
  if (n) {
    assign_target(*n, elem, nullptr);
    auto v = vars_.find(n->id);
    // The loop counter is the variable itself, so it must stay an integer.
    if (checking_ && elem.is_valid() && v != vars_.end() && v->second.type.is_valid() &&
        !v->second.type.is_integer()) {
      error(n->range,
            fmt::format("the loop variable '{}' of range() must stay an integer, but other assignments "
                        "in the function make it {}",
                        n->id, v->second.type.str()));
    }
  } else {
    error(s.target->range, "the target of a for loop must be a single name");
  }
  ++loop_depth_;
  block(s.body);
  --loop_depth_;
  block(s.orelse);
}

void FunctionAnalyzer::return_stmt(const ReturnStmt& s) {
  bool has_value = s.value && s.value->kind != ExprKind::NoneLit;
  if (s.value && !has_value && checking_) fn_.expr_types[s.value.get()] = Type::none();
  // `return f()` of a function that returns nothing returns nothing too (numba's None): a bare return after
  // the call, which codegen lowers for its effects.
  ExprResult returned = has_value ? expr(*s.value) : ExprResult::error();
  if (has_value && !returned.ok()) return;
  if (has_value && returned.what == ExprResult::What::Value && returned.type.is_void()) has_value = false;
  if (is_kernel_) {
    if (has_value) {
      value_of(*s.value, returned);
      error(s.range,
            "a kernel cannot return a value (it must have void return type); write results into an "
            "array argument instead");
    }
    return;
  }
  if (!has_value) {
    if (!bare_return_.valid()) bare_return_ = s.range;
    return;
  }
  ExprResult r = value_of(*s.value, returned);
  if (!r.is_value()) return;
  if (declared_return_.is_valid()) {
    // The decorator's signature fixes the return type; each returned value converts to it.
    if (!can_convert(r.type, declared_return_)) {
      error(s.value->range, fmt::format("'{}' returns {} here, which does not convert to {}, the return type "
                                        "its signature declares",
                                        def_.name, r.type.str(), declared_return_.str()));
    }
    if (!return_type_.is_valid()) {
      return_type_ = declared_return_;
      return_origin_ = s.range;
    }
    return;
  }
  if (!return_type_.is_valid()) {
    return_type_ = r.type;
    return_origin_ = s.range;
    changed_ = true;
    return;
  }
  Type u = unify(return_type_, r.type);
  if (!u.is_valid() && calls_itself_ && contains_type(r.type, return_type_)) {
    error(s.value->range,
          fmt::format("Return type of recursive function does not converge: '{}' returns {} here when its "
                      "own call returns {}, so each call nests the type deeper; return one type on every "
                      "path",
                      def_.name, r.type.str(), return_type_.str()));
    return;
  }
  if (!u.is_valid()) {
    error(s.value->range,
          fmt::format("'{}' returns {} at line {} and {} here; the return values must unify", def_.name,
                      return_type_.str(), return_origin_.begin.line, r.type.str()));
    return;
  }
  if (u != return_type_) {
    if (checking_) throw InternalError("return type widened after inference");
    return_type_ = u;
    changed_ = true;
  }
}

}  // namespace gpujit
