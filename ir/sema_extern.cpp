// Semantic analysis of calls of external functions (numba's cuda.declare_device, ir/extern_function.h).
//
// The declared signature is all there is to know: each argument converts to its parameter's type as it would
// for an assignment, and the call's value has the declared return type (none for void). Only scalars and
// pointers cross the boundary: an array would need numba's flattened array ABI, which gpujit's arrays do not
// have; the error says to pass a pointer (ffi.from_buffer) instead.
#include <fmt/format.h>

#include <algorithm>

#include "ir/sema_internal.h"
#include "ir/type_rules.h"

namespace gpujit {

namespace {

// Scalars by value (a complex number would be two in numba's ABI: not supported), pointers as addresses.
bool crosses_abi(const Type& t) { return (t.is_scalar() && !is_complex(t.scalar)) || t.is_pointer(); }

}  // namespace

ExprResult FunctionAnalyzer::extern_call(const CallExpr& e, const ExternFunction& callee,
                                         const std::vector<ExprResult>& args) {
  const Signature& sig = callee.signature;
  if (args.size() != sig.params.size()) {
    error(e.range, fmt::format("external function '{}' declared as {} takes {} argument{}, got {}", callee.name,
                               sig.str(), sig.params.size(), sig.params.size() == 1 ? "" : "s", args.size()));
    return ExprResult::error();
  }
  for (const Type& t : sig.params) {
    if (!crosses_abi(t)) {
      error(e.range, fmt::format("external function '{}' declared as {}: a parameter of type {} is not supported; "
                                 "declare it as a pointer (CPointer({}) / '{}*') and pass ffi.from_buffer(array)",
                                 callee.name, sig.str(), t.str(), t.is_array() ? scalar_name(t.scalar) : t.str(),
                                 t.is_array() ? scalar_name(t.scalar) : t.str()));
      return ExprResult::error();
    }
  }
  if (!sig.ret.is_void() && !crosses_abi(sig.ret)) {
    error(e.range, fmt::format("external function '{}' declared as {}: a return type of {} is not supported; "
                               "return a scalar or a pointer",
                               callee.name, sig.str(), sig.ret.str()));
    return ExprResult::error();
  }
  std::vector<Type> types;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type& from = args[i].type;
    const Type& to = sig.params[i];
    bool ok = to.is_pointer() ? from.is_pointer() && (from.scalar == to.scalar || to.scalar == ScalarKind::UInt8)
                              : can_convert(from, to);
    if (!ok) {
      error(e.args[i]->range,
            fmt::format("argument {} of external function '{}' is a {}, which does not convert to the declared {}",
                        i + 1, callee.name, from.str(), to.str()));
      return ExprResult::error();
    }
    types.push_back(to);
  }
  if (checking_) {
    if (std::find(fn_.externs.begin(), fn_.externs.end(), &callee) == fn_.externs.end())
      fn_.externs.push_back(&callee);
    fn_.operand_types[&e] = types;
  }
  return record(e, ExprResult::of_value(sig.ret));
}

}  // namespace gpujit
