// Inner functions and keyword arguments of device-function calls (part of part three, ir/sema_call.cpp).
//
// A `def` inside a kernel or device function (FunctionDef::nested, taken out of the body by the parser) is a
// compile-time function value, like a module-level device function: the enclosing body calls it or passes it
// by its name, and each call specializes it on its argument types. What it reads of the enclosing function is
// fixed when the enclosing specialization names it: a Closure holds the compile-time values it may read
// (constants assigned once, compile-time arguments, functions and dtypes, and what the enclosing function
// itself captured) and, for every other local of the enclosing function, why it may not (numba's words
// first: numba captures constants only in a closure that escapes, and so does gpujit in every closure).
// Closures are interned, so a specialization's key names one by address and equal views share code.
#include <fmt/format.h>

#include <algorithm>

#include "ir/sema_internal.h"

namespace gpujit {

const Closure* ProgramAnalyzer::intern_closure(Closure c) {
  c.key = fmt::format("{}", static_cast<const void*>(c.scope));
  for (const auto& [n, r] : c.captured) c.key += fmt::format(";{}={}", n, static_key(r));
  for (const auto& [n, why] : c.refused) c.key += ";!" + n;
  auto it = closures_.find(c.key);
  if (it != closures_.end()) return it->second.get();
  std::string key = c.key;
  auto owned = std::make_unique<Closure>(std::move(c));
  const Closure* p = owned.get();
  closures_.emplace(std::move(key), std::move(owned));
  return p;
}

const Closure* FunctionAnalyzer::make_closure() {
  Closure c;
  c.scope = &def_.origin();  // a rewritten copy has no `nested` of its own
  if (closure_) {  // what this function captured, unless its own names hide it
    for (const auto& [n, r] : closure_->captured)
      if (!is_local_name(n) && !static_params_.count(n)) c.captured[n] = r;
    for (const auto& [n, why] : closure_->refused)
      if (!is_local_name(n) && !static_params_.count(n)) c.refused[n] = why;
  }
  for (const auto& [n, r] : static_params_) c.captured[n] = r;
  for (const std::string& n : local_names_) {
    if (static_params_.count(n)) continue;
    auto var = vars_.find(n);
    if (var != vars_.end() && var->second.is_param) {
      c.refused[n] = fmt::format("Cannot capture the non-constant value associated with variable '{}': it is "
                                 "an argument of '{}', and an inner function reads constants of the function "
                                 "that defines it only; pass '{}' to it as an argument",
                                 n, def_.name, n);
      continue;
    }
    auto once = assigned_once_.find(n);
    if (once == assigned_once_.end()) {
      c.refused[n] = fmt::format("Cannot capture a constant value for variable '{}' as there are multiple "
                                 "definitions present (or a loop or an unpacking binds it) in '{}'; pass it "
                                 "to the inner function as an argument",
                                 n, def_.name);
      continue;
    }
    ExprResult v;
    if (!making_closure_) {  // `y = inner(1)` would make inner's closure again while making it
      bool checking = checking_;  // the assignment itself reports its errors, once
      making_closure_ = true;
      checking_ = false;
      v = expr(*once->second);
      checking_ = checking;
      making_closure_ = false;
    }
    if (v.ok() && (v.value || v.what == ExprResult::What::Device || v.what == ExprResult::What::DType)) {
      c.captured[n] = v;
    } else {
      c.refused[n] = fmt::format("Cannot capture the non-constant value associated with variable '{}': '{}' "
                                 "is not a compile-time constant in '{}', and an inner function reads "
                                 "constants of the function that defines it only; pass it as an argument",
                                 n, n, def_.name);
    }
  }
  return program_.intern_closure(std::move(c));
}

std::optional<ExprResult> FunctionAnalyzer::closure_name(const NameExpr& e) {
  if (is_local_name(e.id)) return std::nullopt;
  auto device = [&](const FunctionDef* f, const Closure* view) {
    ExprResult r;
    r.what = ExprResult::What::Device;
    r.function = f;
    r.closure = view;
    program_.note_home_env(f);
    return r;
  };
  // A function defined in this body.
  const FunctionDef* found = nullptr;
  for (const auto& f : def_.origin().nested) {
    if (f->name != e.id) continue;
    if (found) {
      error(e.range, fmt::format("Cannot capture a constant value for variable '{}' as there are multiple "
                                 "definitions present: '{}' defines it at lines {} and {}; give each inner "
                                 "function a name of its own",
                                 e.id, def_.name, found->name_range.begin.line, f->name_range.begin.line));
      return ExprResult::error();
    }
    found = f.get();
  }
  if (found) return device(found, make_closure());
  if (!closure_) return std::nullopt;
  // A sibling (or this function itself): it sees what this function sees.
  for (const auto& f : closure_->scope->nested)
    if (f->name == e.id) return device(f.get(), closure_);
  if (auto it = closure_->captured.find(e.id); it != closure_->captured.end()) return it->second;
  if (auto it = closure_->refused.find(e.id); it != closure_->refused.end()) {
    if (checking_) error(e.range, it->second);
    return checking_ ? ExprResult::error() : ExprResult::unknown();
  }
  return std::nullopt;
}

bool FunctionAnalyzer::place_keywords(const CallExpr& e, const FunctionDef& callee, std::vector<ExprResult>& args) {
  std::vector<std::optional<ExprResult>> placed(args.begin(), args.end());
  for (const Keyword& k : e.keywords) {
    auto p = std::find_if(callee.params.begin(), callee.params.end(),
                          [&](const Param& q) { return q.name == k.name; });
    if (p == callee.params.end()) {
      error(k.name_range, fmt::format("{}() got an unexpected keyword argument '{}'", callee.name, k.name));
      return false;
    }
    size_t i = static_cast<size_t>(p - callee.params.begin());
    if (i < placed.size() && placed[i]) {
      error(k.name_range, fmt::format("{}() got multiple values for argument '{}'", callee.name, k.name));
      return false;
    }
    ExprResult r = expr(*k.value);
    bool static_ok = r.what == ExprResult::What::Builtin || r.what == ExprResult::What::DType ||
                     r.what == ExprResult::What::Device;
    if (!static_ok) r = value(*k.value);
    if (!r.ok()) return false;
    if (placed.size() <= i) placed.resize(i + 1);
    placed[i] = r;
  }
  args.clear();
  for (size_t i = 0; i < placed.size(); ++i) {
    if (placed[i]) {
      args.push_back(*placed[i]);
      continue;
    }
    if (!callee.params[i].default_value) {
      error(e.range, fmt::format("{}() missing required argument '{}'", callee.name, callee.params[i].name));
      return false;
    }
    std::optional<ExprResult> d = default_argument(e, callee, i);
    if (!d) return false;
    args.push_back(*d);
  }
  return true;
}

}  // namespace gpujit
