// Semantic analysis of subscripts: indexing and slicing arrays, tuples, records and constant arrays, with the
// bounds of constant slices folded (split from sema_expr.cpp, which types the rest of the expressions).
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "ir/const_eval.h"
#include "ir/sema_internal.h"

namespace gpujit {

ExprResult FunctionAnalyzer::subscript(const SubscriptExpr& e, bool is_store) {
  if (const auto* key = e.index->as<StringLitExpr>(); key && !is_store) {
    // RequestError['not_found']: an IntEnum member by its name, as Enum's class subscript gives it.
    ExprResult cls = expr(*e.value);
    if (cls.what == ExprResult::What::Namespace && cls.members) {
      auto it = cls.members->find(key->value);
      if (it == cls.members->end()) {
        std::vector<std::string_view> names;
        for (const auto& [name, member] : *cls.members) names.push_back(name);
        error(e.index->range, fmt::format("'{}' has no member '{}'{}", path_of(*e.value), key->value,
                                          suggest(key->value, names)));
        return ExprResult::error();
      }
      return record(e, ExprResult::of_const(it->second));
    }
  }
  ExprResult base = value(*e.value);
  const auto* tuple_index = e.index->as<TupleExpr>();
  bool has_slice = e.index->kind == ExprKind::Slice;
  if (tuple_index) {
    for (const ExprPtr& elt : tuple_index->elts) has_slice = has_slice || elt->kind == ExprKind::Slice;
  }
  if (has_slice) {
    // Each component is typed on its own: a slice has no value of its own to type.
    std::vector<IndexPart> parts;
    bool unknown = base.what == ExprResult::What::Unknown, failed = !base.ok();
    auto add = [&](const Expr& x) {
      IndexPart p{&x, x.as<SliceExpr>(), Type()};
      if (!p.slice) {
        ExprResult r = value(x);
        unknown = unknown || r.what == ExprResult::What::Unknown;
        failed = failed || (r.ok() && !r.is_value()) || r.what == ExprResult::What::Error;
        p.type = r.type;
      } else if (!slice_bounds(*p.slice)) {
        failed = true;
      }
      parts.push_back(p);
    };
    if (tuple_index) {
      for (const ExprPtr& elt : tuple_index->elts) add(*elt);
    } else {
      add(*e.index);
    }
    if (unknown) return ExprResult::unknown();
    if (failed || !base.is_value()) return ExprResult::error();
    if (!base.type.is_array()) {
      error(e.index->range, base.type.is_tuple()
                                ? fmt::format("slicing a tuple is not supported; index its elements{}",
                                              origin_of(*e.value))
                                : fmt::format("only arrays can be sliced, got {}{}", base.type.str(),
                                              origin_of(*e.value)));
      return ExprResult::error();
    }
    if (is_store && reject_const_array_write(*e.value, "a store")) return ExprResult::error();
    return array_subscript(e, base.type, parts, nullptr);
  }
  if (const auto* field = e.index->as<StringLitExpr>(); field && base.is_value() && base.type.is_record()) {
    return record_field(e, base.type, field->value, e.index->range);
  }
  if (const auto* field = e.index->as<StringLitExpr>();
      field && base.is_value() && base.type.is_array() && base.type.element().is_record()) {
    return record_field_view(e, base.type, field->value, e.index->range);
  }
  ExprResult idx = value(*e.index);
  if (base.what == ExprResult::What::Unknown || idx.what == ExprResult::What::Unknown)
    return ExprResult::unknown();
  if (!base.is_value() || !idx.is_value()) return ExprResult::error();
  const Type& t = base.type;
  if (t.is_record()) {  // rec[k]: the k-th field, as NumPy indexes a structured scalar
    const auto n = int64_t(t.record->fields.size());
    int64_t k = idx.value && idx.value->kind == ConstValue::Kind::Int ? idx.value->i : n;
    if (k < 0) k += n;
    if (!idx.type.is_integer() || !idx.value || k < 0 || k >= n) {
      error(e.index->range,
            fmt::format("a record is indexed by a field name or a constant field position below {}; its fields "
                        "are {}",
                        n, t.record->field_names()));
      return ExprResult::error();
    }
    return record_field(e, t, t.record->fields[size_t(k)].name, e.index->range);
  }
  if (t.is_array()) {
    if (is_store && reject_const_array_write(*e.value, "a store")) return ExprResult::error();
    std::vector<IndexPart> parts;
    if (idx.type.is_tuple()) {
      for (const Type& elt : idx.type.elements) parts.push_back({e.index.get(), nullptr, elt});
    } else {
      parts.push_back({e.index.get(), nullptr, idx.type});
    }
    return array_subscript(e, t, parts, &idx.type);
  }
  if (t.is_pointer()) {  // p[i]: the element i places past the address, as numba indexes a CPointer
    if (t.void_pointee) {
      error(e.range, fmt::format("a void* has no element type to index{}; make an array of it with "
                                 "carray(p, shape, dtype), or declare the parameter with its element type "
                                 "(float32*)",
                                 origin_of(*e.value)));
      return ExprResult::error();
    }
    if (!idx.type.is_integer()) {
      error(e.index->range, fmt::format("a pointer ({}) is indexed by one integer, got {}{}", t.str(),
                                        idx.type.str(), origin_of(*e.index)));
      return ExprResult::error();
    }
    if (checking_) fn_.operand_types[&e] = {Type::scalar_of(ScalarKind::Int64)};
    return record(e, ExprResult::of_value(Type::scalar_of(t.scalar)));
  }
  if (t.is_tuple()) {
    if (is_store) {
      error(e.range, "tuples are immutable; cannot assign to a tuple element");
      return ExprResult::error();
    }
    if (!idx.type.is_integer() && !idx.type.is_bool()) {
      error(e.index->range,
            fmt::format("tuple index must be an integer, got {}{}", idx.type.str(), origin_of(*e.index)));
      return ExprResult::error();
    }
    int64_t n = static_cast<int64_t>(t.elements.size());
    if (idx.value) {
      int64_t k = idx.value->i;
      if (is_unsigned(idx.value->scalar) && k < 0) k = n;  // huge unsigned: out of range below
      if (k < 0) k += n;
      if (k < 0 || k >= n) {
        error(e.index->range,
              fmt::format("tuple index {} is out of range for a tuple of {}", idx.value->str(),
                          plural(static_cast<size_t>(n), "element", "elements")));
        return ExprResult::error();
      }
      if (base.value) return record(e, ExprResult::of_const(base.value->elements[static_cast<size_t>(k)]));
      return record(e, ExprResult::of_value(t.elements[static_cast<size_t>(k)]));
    }
    bool uniform = n > 0 && std::all_of(t.elements.begin(), t.elements.end(),
                                        [&](const Type& x) { return x == t.elements[0]; });
    if (!uniform) {
      error(e.index->range,
            fmt::format("a tuple of elements of different types ({}) can only be indexed by a constant",
                        t.str()));
      return ExprResult::error();
    }
    if (checking_) fn_.operand_types[&e] = {Type::scalar_of(ScalarKind::Int64)};
    return record(e, ExprResult::of_value(t.elements[0]));
  }
  error(e.value->range, fmt::format("'{}' is not subscriptable{}", t.str(), origin_of(*e.value)));
  return ExprResult::error();
}

bool FunctionAnalyzer::slice_bounds(const SliceExpr& s) {
  bool ok = true;
  for (const ExprPtr* part : {&s.lower, &s.upper, &s.step}) {
    if (!*part) continue;
    const Expr& x = **part;
    ExprResult r = value(x);
    if (!r.ok()) {
      ok = false;
      continue;
    }
    if (!r.is_value() || (!r.type.is_integer() && r.type.kind != Type::Kind::None)) {
      error(x.range, fmt::format("slice {} must be an integer or None, got {}{}",
                                 part == &s.step ? "step" : "bound", r.type.str(), origin_of(x)));
      ok = false;
    } else if (part == &s.step && r.value && r.value->kind == ConstValue::Kind::Int && r.value->i == 0) {
      error(x.range, "slice step cannot be zero");
      ok = false;
    }
  }
  return ok;
}

ExprResult FunctionAnalyzer::array_subscript(const SubscriptExpr& e, const Type& array_type,
                                             const std::vector<IndexPart>& parts, const Type* index_type) {
  for (const IndexPart& p : parts) {
    if (p.slice || p.type.is_integer()) continue;
    if (index_type) {  // an index without slices: name the whole index, as written
      error(e.index->range, fmt::format("array index must be an integer{}, got {}{}",
                                        index_type->is_tuple() ? " or a tuple of integers" : "",
                                        index_type->str(), origin_of(*e.index)));
    } else {
      error(p.expr->range, fmt::format("array index must be an integer or a slice, got {}{}", p.type.str(),
                                       origin_of(*p.expr)));
    }
    return ExprResult::error();
  }
  const size_t ndim = array_type.ndim;
  if (parts.size() > ndim) {
    std::string base = path_of(*e.value);
    std::string what = base.empty() ? "the array" : fmt::format("array '{}'", base);
    error(e.index->range, fmt::format("too many indices: {} has {} but {} given", what,
                                      plural(ndim, "dimension", "dimensions"),
                                      plural(parts.size(), "index was", "indices were")));
    return ExprResult::error();
  }
  const size_t integers =
      size_t(std::count_if(parts.begin(), parts.end(), [](const IndexPart& p) { return !p.slice; }));
  if (integers == ndim) {
    if (checking_) fn_.operand_types[&e] = std::vector<Type>(ndim, Type::scalar_of(ScalarKind::Int64));
    return record(e, ExprResult::of_value(array_type.element()));
  }
  // A view (numba's typing of getitem): integers drop their axis, slices keep theirs, missing trailing
  // indices mean ':'. A C array stays C only when every index but the last given is an integer and the last
  // is an integer or a slice without a step; the view spans no more than its base, so index32 carries over.
  bool contiguous = array_type.layout == Layout::C;
  for (size_t k = 0; k < parts.size() && contiguous; ++k) {
    const SliceExpr* s = parts[k].slice;
    bool stepped = s && s->step && s->step->kind != ExprKind::NoneLit;
    contiguous = !s || (k + 1 == parts.size() && !stepped);
  }
  return record(e, ExprResult::of_value(Type::array_of(array_type.element(), unsigned(ndim - integers),
                                                       contiguous ? Layout::C : Layout::Any,
                                                       array_type.index32)));
}

}  // namespace gpujit
