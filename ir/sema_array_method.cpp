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
//
// a.copy() allocates in numba-cuda (its NRT's device heap); gpujit kernels have no heap, so a copy is made
// in the calling thread's local memory, which needs the shape at compile time: the receiver must name a
// captured global array (constant memory, whose shape the capture fixed). The copy is a C-contiguous array of
// the same dtype and shape, written and read as any local array. Each `.copy()` in the source has one buffer
// per thread: a copy made again by a later pass of a loop reuses it (the earlier copy's contents are lost).
//
// Also here, numba's carray(ptr, shape, dtype=None) and farray: an array over the memory a pointer parameter
// (`float32*` in the signature) points to, C-ordered or Fortran-ordered; a dtype, if given, must be the
// pointer's own.
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
  if (method == "copy") return array_copy(e, receiver, t);
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

ExprResult FunctionAnalyzer::array_copy(const CallExpr& e, const Expr& receiver, const Type& t) {
  if (!e.args.empty() || !e.keywords.empty()) {
    error(e.range, "a.copy() takes no arguments in a kernel: the copy is C-contiguous");
    return ExprResult::error();
  }
  const auto* n = receiver.as<NameExpr>();
  const GlobalValue* g = nullptr;
  if (n && !is_local_name(n->id) && !static_params_.count(n->id)) {
    auto it = program_.globals().find(n->id);
    if (it != program_.globals().end() && it->second.kind == GlobalValue::Kind::ConstArray) g = &it->second;
  }
  if (!g) {
    error(e.range,
          fmt::format("a.copy() of {}{} needs an allocation: numba-cuda makes it on its device heap, "
                      "which gpujit kernels do not have. A captured global array can be copied (into "
                      "local memory); else copy into a cuda.local.array of a constant shape",
                      t.str(), origin_of(receiver)));
    return ExprResult::error();
  }
  ArrayMethodCall c;
  c.kind = ArrayMethodCall::Kind::Copy;
  c.array = &receiver;
  c.copy_shape = g->shape;
  if (checking_) fn_.array_method_calls[&e] = c;
  return record(e, ExprResult::of_value(Type::array_of(t.element(), t.ndim, Layout::C, t.index32)));
}

ExprResult FunctionAnalyzer::pointer_array_call(const CallExpr& e, const BuiltinInfo& b) {
  const std::string name = path_of(*e.func);
  const bool fortran = b.id == BuiltinId::FArray;
  const Expr* dtype_arg = e.args.size() > 2 ? e.args[2].get() : nullptr;
  for (const Keyword& k : e.keywords) {
    if (k.name != "dtype" || dtype_arg) {
      error(k.name_range, fmt::format("{}() got an unexpected keyword argument '{}'", name, k.name));
      return ExprResult::error();
    }
    dtype_arg = k.value.get();
  }
  if (e.args.size() < 2 || e.args.size() > 3) {
    error(e.range, fmt::format("{}() takes a pointer, a shape and optionally a dtype, got {} arguments", name,
                               e.args.size()));
    return ExprResult::error();
  }
  ExprResult p = value(*e.args[0]);
  if (!p.is_value()) return p;
  if (!p.type.is_pointer()) {
    error(e.args[0]->range, fmt::format("{}() takes a pointer parameter (declared float32* ... in the signature), "
                                        "got {}{}",
                                        name, p.type.str(), origin_of(*e.args[0])));
    return ExprResult::error();
  }
  ExprResult s = value(*e.args[1]);
  if (!s.is_value()) return s;
  unsigned ndim = 1;
  bool ok = s.type.is_integer();
  if (s.type.is_tuple()) {
    ok = true;
    for (const Type& element : s.type.elements) ok = ok && element.is_integer();
    ndim = unsigned(s.type.elements.size());
  }
  if (!ok || ndim > kMaxArrayDims) {
    error(e.args[1]->range, fmt::format("{}() takes the shape as an integer or a tuple of integers, got {}{}",
                                        name, s.type.str(), origin_of(*e.args[1])));
    return ExprResult::error();
  }
  ScalarKind element = p.type.scalar;
  if (p.type.void_pointee && !dtype_arg) {
    error(e.range, fmt::format("{}() of a void* needs the dtype of its elements: {}(p, shape, np.float32){}", name,
                               name, origin_of(*e.args[0])));
    return ExprResult::error();
  }
  if (dtype_arg) {
    ExprResult d = expr(*dtype_arg);
    if (!d.ok()) return d;
    if (d.what != ExprResult::What::DType || d.record) {
      error(dtype_arg->range, fmt::format("{}(): dtype must be a NumPy scalar dtype such as np.float32{}", name,
                                          origin_of(*dtype_arg)));
      return ExprResult::error();
    }
    if (p.type.void_pointee) {
      element = d.dtype;  // numba's carray(voidptr, shape, dtype): the dtype gives the elements
    } else if (d.dtype != p.type.scalar) {
      error(dtype_arg->range, fmt::format("{}(): dtype {} differs from the pointer's, {}; they must agree",
                                          name, scalar_name(d.dtype), scalar_name(p.type.scalar)));
      return ExprResult::error();
    }
  }
  if (checking_) {
    ArrayMethodCall c;
    c.kind = fortran ? ArrayMethodCall::Kind::FArray : ArrayMethodCall::Kind::CArray;
    c.array = e.args[0].get();
    c.shape.push_back(e.args[1].get());
    fn_.array_method_calls[&e] = c;
  }
  // Fortran order is C order for one axis; for more, an array with its own strides.
  Layout layout = fortran && ndim > 1 ? Layout::Any : Layout::C;
  return record(e, ExprResult::of_value(Type::array_of(element, ndim, layout)));
}

}  // namespace gpujit
