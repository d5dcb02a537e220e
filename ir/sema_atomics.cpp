// Semantic analysis of cuda.atomic.*: which arrays and dtypes each operation takes, its index and the
// types its value operands convert to.
//
// The dtypes follow numba-cuda's typing (cudadecl.py): add, sub, max, min, nanmax and nanmin take int32,
// uint32, int64, uint64, float32 and float64 arrays; and_, or_, xor, cas and compare_and_swap the four
// integer types; inc and dec uint32 and uint64 only. exch also takes float32/float64 (CUDA's atomicExch
// does; numba-cuda restricts it to integers). The index is an integer for a 1-D array and a tuple of ndim
// integers otherwise; values convert to the array's dtype, and every operation returns the element's old
// value, of that dtype. Arrays in constant memory are read-only and rejected.
//
// operand_types[call] records, per argument: the array type, the index type (int64 or a tuple of int64),
// then the dtype for each value operand (one for the read-modify-write ops, two for cas: old and val).
#include <fmt/format.h>

#include <algorithm>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

enum DTypeSet : unsigned { kSigned = 1, kUnsigned = 2, kFloat = 4 };

bool is_atomic_int(ScalarKind k) {
  return k == ScalarKind::Int32 || k == ScalarKind::UInt32 || k == ScalarKind::Int64 ||
         k == ScalarKind::UInt64;
}

/// The dtypes an atomic operation takes, as a DTypeSet mask over int32/64, uint32/64, float32/64.
unsigned atomic_dtypes(BuiltinId id) {
  switch (id) {
    case BuiltinId::AtomicAnd:
    case BuiltinId::AtomicOr:
    case BuiltinId::AtomicXor:
    case BuiltinId::AtomicCas:
    case BuiltinId::AtomicCompareAndSwap:
      return kSigned | kUnsigned;
    case BuiltinId::AtomicInc:
    case BuiltinId::AtomicDec:
      return kUnsigned;
    default:
      return kSigned | kUnsigned | kFloat;
  }
}

bool dtype_allowed(unsigned set, ScalarKind k) {
  if (k == ScalarKind::Float32 || k == ScalarKind::Float64) return (set & kFloat) != 0;
  if (!is_atomic_int(k)) return false;
  return (set & (is_signed(k) ? kSigned : kUnsigned)) != 0;
}

std::string dtypes_text(unsigned set) {
  std::vector<const char*> names;
  if (set & kSigned) names.push_back("int32");
  if (set & kUnsigned) names.push_back("uint32");
  if (set & kSigned) names.push_back("int64");
  if (set & kUnsigned) names.push_back("uint64");
  if (set & kFloat) names.insert(names.end(), {"float32", "float64"});
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += fmt::format("{}{}", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  return s;
}

// bfloat16 is not among them: it has its own operators and functions (numba.cuda.bf16) and converts only
// explicitly, see ir/type_rules.h.
bool is_number(const Type& t) {
  return t.is_scalar() && !t.is_complex() && !t.is_bfloat16() && !t.is_npdatetime() && !t.is_fp8();
}

}  // namespace

bool FunctionAnalyzer::atomic_target(const CallExpr& e, const BuiltinInfo& b,
                                     const std::vector<ExprResult>& args, const Expr* idx_expr,
                                     const Type* idx, Type* idx_type) {
  std::string name = path_of(*e.func);
  const Type& ary = args[0].type;
  if (!ary.is_array()) {
    error(e.args[0]->range,
          fmt::format("{}() argument 1 must be an array, got {}{}", name, ary.str(), origin_of(*e.args[0])));
    return false;
  }
  unsigned set = atomic_dtypes(b.id);
  if (ary.record || !dtype_allowed(set, ary.scalar)) {
    error(e.args[0]->range, fmt::format("{}() does not support arrays of {}{}; it takes arrays of {}", name,
                                        ary.element().str(), origin_of(*e.args[0]), dtypes_text(set)));
    return false;
  }
  if (reject_const_array_write(*e.args[0], "an atomic operation")) return false;
  const Type i64 = Type::scalar_of(ScalarKind::Int64);
  if (!idx) {  // compare_and_swap: element 0 of a 1-D array
    if (ary.ndim != 1) {
      error(e.args[0]->range,
            fmt::format("{}() takes a 1-dimensional array, got {}; use atomic.cas(ary, idx, "
                        "old, val) for other arrays",
                        name, ary.str()));
      return false;
    }
    *idx_type = i64;
    return true;
  }
  std::vector<Type> parts = idx->is_tuple() ? idx->elements : std::vector<Type>{*idx};
  bool ints = std::all_of(parts.begin(), parts.end(), [](const Type& t) { return t.is_integer(); });
  if (!ints || parts.size() != ary.ndim) {
    error(idx_expr->range,
          fmt::format("{}() index must be {} for a {}-dimensional array, got {}{}", name,
                      ary.ndim == 1 ? "an integer" : fmt::format("a tuple of {} integers", ary.ndim),
                      ary.ndim, idx->str(), origin_of(*idx_expr)));
    return false;
  }
  *idx_type = idx->is_tuple() ? Type::tuple_of(std::vector<Type>(ary.ndim, i64)) : i64;
  return true;
}

ExprResult FunctionAnalyzer::atomic_call(const CallExpr& e, const BuiltinInfo& b,
                                         const std::vector<ExprResult>& args) {
  Type idx_type;
  if (!atomic_target(e, b, args, e.args[1].get(), &args[1].type, &idx_type)) return ExprResult::error();
  if (!is_number(args[2].type)) {
    error(e.args[2]->range, fmt::format("{}() value must be a number, got {}{}", path_of(*e.func),
                                        args[2].type.str(), origin_of(*e.args[2])));
    return ExprResult::error();
  }
  Type dtype = Type::scalar_of(args[0].type.scalar);
  if (checking_) fn_.operand_types[&e] = {args[0].type, idx_type, dtype};
  return record(e, ExprResult::of_value(dtype));
}

ExprResult FunctionAnalyzer::atomic_cas_call(const CallExpr& e, const BuiltinInfo& b,
                                             const std::vector<ExprResult>& args) {
  const bool with_index = b.id == BuiltinId::AtomicCas;
  Type idx_type;
  if (!atomic_target(e, b, args, with_index ? e.args[1].get() : nullptr, with_index ? &args[1].type : nullptr,
                     &idx_type)) {
    return ExprResult::error();
  }
  const char* names[] = {"old", "val"};
  for (size_t i = 0; i < 2; ++i) {
    size_t k = args.size() - 2 + i;
    if (!is_number(args[k].type)) {
      error(e.args[k]->range, fmt::format("{}() {} must be a number, got {}{}", path_of(*e.func), names[i],
                                          args[k].type.str(), origin_of(*e.args[k])));
      return ExprResult::error();
    }
  }
  Type dtype = Type::scalar_of(args[0].type.scalar);
  if (checking_) {
    fn_.operand_types[&e] = with_index ? std::vector<Type>{args[0].type, idx_type, dtype, dtype}
                                       : std::vector<Type>{args[0].type, dtype, dtype};
  }
  return record(e, ExprResult::of_value(dtype));
}

}  // namespace gpujit
