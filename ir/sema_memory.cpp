// Semantic analysis of constant memory: global NumPy arrays a kernel names and cuda.const.array_like.
//
// As in numba-cuda, a module-level NumPy array a kernel reads is frozen into the compiled code: its value
// is the array as it was at the first compile, placed in constant memory (`.const` in PTX, a read-only
// global on the host). const.array_like(a) is then `a` itself; the name is kept for numba compatibility.
// Constant arrays are read-only: a store or an atomic into one, directly or through a local variable
// assigned one, is an error. GPUs have 64 KiB of constant memory, so bigger arrays are rejected.
//
// Also here, the loads and stores with a PTX cache operator (cuda.ldcs(ary, idx), cuda.stcg(ary, idx, val)
// ...), typed as numba-cuda's cache_hints.py: the array's dtype must be an integer or float of 8, 16, 32 or
// 64 bits (not bool, not complex), the index an integer for a 1-D array or a tuple of ndim integers; a load
// gives the dtype, a store converts its value to it. The instructions are ld.global/st.global, so the array
// must live in global memory: constant, shared and local arrays are rejected where analysis can see them.
// operand_types[call] holds the array type, the index type (int64 or a tuple of int64) and, for a store,
// the dtype.
#include <fmt/format.h>

#include <algorithm>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

constexpr size_t kConstantMemoryBytes = 64 * 1024;

}  // namespace

ExprResult FunctionAnalyzer::device_array_global(const std::string& id, const GlobalValue& g, const Expr& e) {
  // C layout when the strides are C-contiguous ones, else any layout; 32-bit indexing when every byte
  // offset fits, as for arguments.
  bool c_order = true;
  const Type element = g.record ? Type::record_of(g.record) : Type::scalar_of(g.dtype);
  const int64_t itemsize = Type::array_of(element, 1, Layout::C).itemsize();
  int64_t expected = itemsize, extent = 0;
  for (size_t k = g.shape.size(); k-- > 0;) {
    if (g.shape[k] > 1 && g.strides[k] != expected) c_order = false;
    expected *= g.shape[k];
    if (g.shape[k] > 0) extent += (g.shape[k] - 1) * (g.strides[k] < 0 ? -g.strides[k] : g.strides[k]);
  }
  if (checking_) {
    Symbol s;
    s.kind = Symbol::Kind::ConstArray;  // a captured array either way; codegen reads the global's kind
    s.name = id;
    fn_.symbols[&e] = s;
  }
  bool index32 = extent + itemsize < (int64_t{1} << 31);
  return record(e, ExprResult::of_value(Type::array_of(element, unsigned(g.shape.size()),
                                                       c_order ? Layout::C : Layout::Any, index32)));
}

ExprResult FunctionAnalyzer::const_array(const std::string& id, const GlobalValue& g, const Expr& e) {
  if (g.bytes.size() > kConstantMemoryBytes) {
    error(e.range,
          fmt::format("global array '{}' is {} bytes, more than the {} bytes of GPU constant memory; pass "
                      "it to the kernel as an argument instead",
                      id, g.bytes.size(), kConstantMemoryBytes));
    return ExprResult::error();
  }
  if (checking_) {
    Symbol s;
    s.kind = Symbol::Kind::ConstArray;
    s.name = id;
    fn_.symbols[&e] = s;
  }
  bool index32 = g.bytes.size() < (size_t{1} << 31);  // always: constant memory holds 64 KiB
  const Type element = g.record ? Type::record_of(g.record) : Type::scalar_of(g.dtype);
  return record(e, ExprResult::of_value(Type::array_of(element, unsigned(g.shape.size()), Layout::C, index32)));
}

ExprResult FunctionAnalyzer::array_tuple(const std::string& id, const GlobalValue& g, const Expr& e) {
  std::vector<Type> elements;
  size_t bytes = 0;
  for (const std::string& name : g.element_globals) {
    auto it = program_.globals().find(name);
    if (it == program_.globals().end() || it->second.kind != GlobalValue::Kind::ConstArray)
      throw InternalError(fmt::format("global tuple '{}' without its array '{}'", id, name));
    const GlobalValue& a = it->second;
    bytes += a.bytes.size();
    const Type element = a.record ? Type::record_of(a.record) : Type::scalar_of(a.dtype);
    elements.push_back(Type::array_of(element, unsigned(a.shape.size()), Layout::C, true));
  }
  if (bytes > kConstantMemoryBytes) {
    error(e.range, fmt::format("the arrays of global '{}' are {} bytes together, more than the {} bytes of GPU "
                               "constant memory; pass them to the kernel as arguments instead",
                               id, bytes, kConstantMemoryBytes));
    return ExprResult::error();
  }
  if (checking_) {
    Symbol s;
    s.kind = Symbol::Kind::ConstArray;  // codegen reads the global's kind
    s.name = id;
    fn_.symbols[&e] = s;
  }
  return record(e, ExprResult::of_value(Type::tuple_of(std::move(elements))));
}

ExprResult FunctionAnalyzer::array_like_call(const CallExpr& e, const BuiltinInfo& b,
                                             const std::vector<ExprResult>& args) {
  const Type& t = args[0].type;
  if (!t.is_array()) {
    error(e.args[0]->range, fmt::format("{}() takes a NumPy array, got {}{}", path_of(*e.func), t.str(),
                                        origin_of(*e.args[0])));
    return ExprResult::error();
  }
  if (checking_) fn_.operand_types[&e] = {t};
  return record(e, ExprResult::of_value(t));
}

bool FunctionAnalyzer::is_const_array(const Expr& e) const {
  if (const auto* n = e.as<NameExpr>()) {
    if (is_local_name(n->id)) return const_array_vars_.count(n->id) != 0;
    auto g = program_.globals().find(n->id);
    return g != program_.globals().end() &&
           (g->second.kind == GlobalValue::Kind::ConstArray || g->second.kind == GlobalValue::Kind::ArrayTuple);
  }
  if (const auto* c = e.as<CallExpr>()) {
    std::string callee = path_of(*c->func);
    bool array_like =
        callee == "const.array_like" ||
        (callee.size() > 17 && callee.compare(callee.size() - 17, 17, ".const.array_like") == 0);
    return array_like && c->args.size() == 1 && is_const_array(*c->args[0]);
  }
  if (const auto* s = e.as<SubscriptExpr>()) return is_const_array(*s->value);  // a view of one
  return false;
}

const char* FunctionAnalyzer::block_memory_of(const Expr& e) const {
  if (const auto* n = e.as<NameExpr>()) {
    if (!is_local_name(n->id)) return nullptr;
    auto it = block_memory_vars_.find(n->id);
    return it == block_memory_vars_.end() ? nullptr : it->second;
  }
  if (const auto* c = e.as<CallExpr>()) {
    std::string callee = path_of(*c->func);
    auto ends_with = [&](std::string_view tail) {
      return callee == tail.substr(1) ||
             (callee.size() > tail.size() &&
              callee.compare(callee.size() - tail.size(), tail.size(), tail) == 0);
    };
    if (ends_with(".shared.array")) return "shared";
    if (ends_with(".local.array")) return "local";
    return nullptr;
  }
  if (const auto* s = e.as<SubscriptExpr>()) return block_memory_of(*s->value);  // a view of one
  return nullptr;
}

ExprResult FunctionAnalyzer::cache_hint_call(const CallExpr& e, const BuiltinInfo& b,
                                             const std::vector<ExprResult>& args) {
  const std::string name = path_of(*e.func);
  const std::string_view op = b.name;  // numba's messages name the instruction: "ldcs requires ..."
  const bool store = args.size() == 3;
  const Type& ary = args[0].type;
  if (ary.is_pointer() && ary.void_pointee) {
    error(e.args[0]->range, fmt::format("{}() needs the element type of the memory it reads or writes; argument 1 is "
                                        "a void*{}: declare the parameter with its element type (float32*)",
                                        name, origin_of(*e.args[0])));
    return ExprResult::error();
  }
  if (ary.is_pointer()) return cache_hint_on_pointer(e, b, args);
  if (!ary.is_array()) {
    error(e.args[0]->range,
          fmt::format("{}() operates on arrays; argument 1 is {}{}", name, ary.str(), origin_of(*e.args[0])));
    return ExprResult::error();
  }
  const ScalarKind k = ary.scalar;
  if (!is_integer(k) && !is_float(k)) {
    error(e.args[0]->range,
          fmt::format("{} requires array of integer or float type, got {}{}; cache hints move integers and "
                      "floats of 8, 16, 32 or 64 bits",
                      op, scalar_name(k), origin_of(*e.args[0])));
    return ExprResult::error();
  }
  const char* memory = is_const_array(*e.args[0]) ? "constant" : block_memory_of(*e.args[0]);
  if (memory) {
    std::string what = path_of(*e.args[0]);
    error(e.args[0]->range,
          fmt::format("{}() needs an array in global memory (a kernel argument); {} is in {} memory, which "
                      "{}.global cannot address: index it directly instead",
                      name, what.empty() ? "this array" : fmt::format("'{}'", what), memory,
                      store ? "st" : "ld"));
    return ExprResult::error();
  }
  const Type& idx = args[1].type;
  const Expr& idx_expr = *e.args[1];
  const Type i64 = Type::scalar_of(ScalarKind::Int64);
  Type idx_type;
  if (idx.is_integer()) {
    if (ary.ndim != 1) {
      error(idx_expr.range, fmt::format("{}() on a {}-dimensional array takes a tuple of {} integers as its "
                                        "index (Expected {} indices, got a scalar)",
                                        name, ary.ndim, ary.ndim, ary.ndim));
      return ExprResult::error();
    }
    idx_type = i64;
  } else if (idx.is_tuple() && !idx.elements.empty() &&
             std::all_of(idx.elements.begin(), idx.elements.end(),
                         [](const Type& t) { return t.is_integer(); })) {
    if (idx.elements.size() != ary.ndim) {
      error(
          idx_expr.range,
          fmt::format("{}() on a {}-dimensional array takes {} (Expected {} indices, got {})", name, ary.ndim,
                      ary.ndim == 1 ? std::string("an integer index")
                                    : fmt::format("a tuple of {} integers as its index", ary.ndim),
                      ary.ndim, idx.elements.size()));
      return ExprResult::error();
    }
    idx_type = Type::tuple_of(std::vector<Type>(ary.ndim, i64));
  } else {
    error(idx_expr.range,
          fmt::format(
              "{} is not a valid index{}; {}() takes {}", idx.str(), origin_of(idx_expr), name,
              ary.ndim == 1 ? std::string("an integer") : fmt::format("a tuple of {} integers", ary.ndim)));
    return ExprResult::error();
  }
  const Type dtype = Type::scalar_of(k);
  if (!store) {
    if (checking_) fn_.operand_types[&e] = {ary, idx_type};
    return record(e, ExprResult::of_value(dtype));
  }
  const Type& v = args[2].type;
  if (!v.is_scalar() || v.is_complex()) {
    error(e.args[2]->range,
          fmt::format("{}() value must be a number, got {}{}", name, v.str(), origin_of(*e.args[2])));
    return ExprResult::error();
  }
  if (checking_) fn_.operand_types[&e] = {ary, idx_type, dtype};
  return record(e, ExprResult::of_value(Type::void_()));
}

ExprResult FunctionAnalyzer::cache_hint_on_pointer(const CallExpr& e, const BuiltinInfo& b,
                                                   const std::vector<ExprResult>& args) {
  // numba's cache hints take a CPointer too: ptr[idx], idx one integer, through the same instruction.
  const std::string name = path_of(*e.func);
  const bool store = args.size() == 3;
  const Type& ptr = args[0].type;
  const ScalarKind k = ptr.scalar;
  if (!is_integer(k) && !is_float(k)) {
    error(e.args[0]->range, fmt::format("{} requires array of integer or float type, got {}{}", b.name, ptr.str(),
                                        origin_of(*e.args[0])));
    return ExprResult::error();
  }
  if (!args[1].type.is_integer()) {
    error(e.args[1]->range, fmt::format("{} is not a valid index{}; {}() on a pointer takes an integer",
                                        args[1].type.str(), origin_of(*e.args[1]), name));
    return ExprResult::error();
  }
  const Type i64 = Type::scalar_of(ScalarKind::Int64), dtype = Type::scalar_of(k);
  if (!store) {
    if (checking_) fn_.operand_types[&e] = {ptr, i64};
    return record(e, ExprResult::of_value(dtype));
  }
  const Type& v = args[2].type;
  if (!v.is_scalar() || v.is_complex()) {
    error(e.args[2]->range, fmt::format("{}() value must be a number, got {}{}", name, v.str(), origin_of(*e.args[2])));
    return ExprResult::error();
  }
  if (checking_) fn_.operand_types[&e] = {ptr, i64, dtype};
  return record(e, ExprResult::of_value(Type::void_()));
}

bool FunctionAnalyzer::reject_const_array_write(const Expr& target, const char* what) {
  if (!is_const_array(target)) return false;
  std::string name = path_of(target);
  error(target.range, fmt::format("{} is in constant memory, which is read-only; {} cannot write to it",
                                  name.empty() ? "this array" : fmt::format("'{}'", name), what));
  return true;
}

}  // namespace gpujit
