// Semantic analysis of the array methods that give a view of the same memory: a.reshape(shape) and
// a.view(dtype), as numba-cuda types them (numba's arrayobj.py: reshape of a contiguous array, view as
// another dtype). Nothing is copied or allocated, so both need a C-contiguous array: its elements are one
// run of memory in row-major order, which a new shape or a new element size reads again.
//
// a.reshape(n), a.reshape((n, m)), a.reshape(n, m): integers, constants or run-time values, one of them -1
// at most (its extent is what the others leave); the result is a C-contiguous array of that many
// dimensions. a.view(np.int32): the last axis holds as many elements of the new dtype as its bytes give.
// A shape whose size differs from the array's, or a last axis whose bytes the new itemsize does not divide,
// is undefined behaviour, as an out-of-bounds index is (numba-cuda raises only with exceptions enabled).
#include <fmt/format.h>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

constexpr unsigned kMaxArrayDims = 32;  // NumPy 1.x's NPY_MAXDIMS

}  // namespace

ExprResult FunctionAnalyzer::array_method_call(const CallExpr& e, const std::string& method) {
  const Expr& receiver = *e.func->as<AttributeExpr>()->value;
  ExprResult a = value(receiver);
  if (!a.is_value()) {
    for (const ExprPtr& arg : e.args) expr(*arg);
    return a;
  }
  const Type& t = a.type;
  const std::string name = fmt::format("a.{}", method);
  if (!e.keywords.empty()) {
    error(e.keywords[0].name_range,
          fmt::format("{}() takes no keyword arguments in a kernel ('{}'){}", name, e.keywords[0].name,
                      method == "reshape" ? ": the order is always C" : ""));
    return ExprResult::error();
  }
  if (t.layout != Layout::C) {
    error(e.range, fmt::format("{}() needs a C-contiguous array, got {}{}: the view reads the same memory in "
                               "row-major order; index the array instead, or pass a contiguous one",
                               name, t.str(), origin_of(receiver)));
    return ExprResult::error();
  }
  ArrayMethodCall c;
  c.array = &receiver;
  Type result;
  if (method == "reshape") {
    c.kind = ArrayMethodCall::Kind::Reshape;
    if (e.args.empty()) {
      error(e.range, fmt::format("{}() takes the new shape: an integer, a tuple of integers, or integers", name));
      return ExprResult::error();
    }
    unsigned ndim = 0;
    for (const ExprPtr& arg : e.args) {
      ExprResult s = value(*arg);
      if (!s.is_value()) return s;
      bool ok = s.type.is_integer();
      unsigned count = 1;
      if (s.type.is_tuple() && e.args.size() == 1) {
        ok = true;
        for (const Type& element : s.type.elements) ok = ok && element.is_integer();
        count = unsigned(s.type.elements.size());
      }
      if (!ok) {
        error(arg->range, fmt::format("{}() takes the new shape as integers or one tuple of integers, got {}{}",
                                      name, s.type.str(), origin_of(*arg)));
        return ExprResult::error();
      }
      ndim += count;
      c.shape.push_back(arg.get());
    }
    if (ndim > kMaxArrayDims) {
      error(e.range, fmt::format("{}() to {} dimensions: arrays have at most {}", name, ndim, kMaxArrayDims));
      return ExprResult::error();
    }
    result = Type::array_of(t.element(), ndim, Layout::C, t.index32);
  } else {
    c.kind = ArrayMethodCall::Kind::View;
    if (e.args.size() != 1) {
      error(e.range, fmt::format("{}() takes one dtype (np.int32 ...), got {} arguments", name, e.args.size()));
      return ExprResult::error();
    }
    ExprResult d = expr(*e.args[0]);
    if (!d.ok()) return d;
    if (d.what != ExprResult::What::DType || d.record) {
      error(e.args[0]->range, fmt::format("{}() takes a NumPy scalar dtype such as np.int32{}", name,
                                          origin_of(*e.args[0])));
      return ExprResult::error();
    }
    Type to = Type::array_of(d.dtype, t.ndim, Layout::C, t.index32);
    if (t.ndim == 0 && to.itemsize() != t.itemsize()) {
      error(e.range, fmt::format("{}() of a 0-dimensional array must keep the itemsize ({} bytes), as in "
                                 "NumPy; {} has {}",
                                 name, t.itemsize(), scalar_name(d.dtype), to.itemsize()));
      return ExprResult::error();
    }
    result = to;
  }
  if (checking_) fn_.array_method_calls[&e] = c;
  return record(e, ExprResult::of_value(result));
}

}  // namespace gpujit
