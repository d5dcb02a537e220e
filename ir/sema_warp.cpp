// Semantic analysis of the warp-level builtins: shfl_*_sync, all/any/eq/ballot_sync, match_any/all_sync,
// activemask and lanemask_lt, with numba-cuda's signatures and result types.
//
// What each call converts its arguments to (operand_types[call]) is fixed here, so codegen only bitcasts:
// - the lane mask is any integer (or bool, except for the votes, as in numba), converted to uint32 (numba
//   truncates it to 32 bits);
// - shfl_*_sync(mask, value, lane): value is int32, int64, uint32, uint64, float32 or float64 and the
//   result has its type (numba accepts the signed and float ones; CUDA C the unsigned ones too); lane,
//   delta or lane_mask is any integer, converted to int32;
// - all_sync/any_sync/eq_sync(mask, pred) give bool, ballot_sync gives int32 (as numba types them); pred is
//   an integer or a bool, converted to bool;
// - match_any_sync(mask, value) gives int32 and match_all_sync a tuple (int32, bool); value is an integer,
//   bool or float, compared by its bits at 32 bits (integers of 4 bytes or fewer, float16 and float32 as
//   float32) or 64 bits (8-byte integers, float64);
// - activemask() and lanemask_lt() give uint32.
#include <fmt/format.h>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

bool is_shuffle(BuiltinId id) {
  return id == BuiltinId::ShflSync || id == BuiltinId::ShflUpSync || id == BuiltinId::ShflDownSync ||
         id == BuiltinId::ShflXorSync;
}

bool shuffles(ScalarKind k) {
  return k == ScalarKind::Int32 || k == ScalarKind::Int64 || k == ScalarKind::UInt32 ||
         k == ScalarKind::UInt64 || k == ScalarKind::Float32 || k == ScalarKind::Float64;
}

/// The type match_*_sync compares a value of kind `k` in.
ScalarKind match_kind(ScalarKind k) {
  if (is_float(k)) return k == ScalarKind::Float64 ? ScalarKind::Float64 : ScalarKind::Float32;
  return scalar_size(k) == 8 ? ScalarKind::Int64 : ScalarKind::Int32;
}

}  // namespace

ExprResult FunctionAnalyzer::warp_call(const CallExpr& e, const BuiltinInfo& b,
                                       const std::vector<ExprResult>& args) {
  std::string name = path_of(*e.func);
  const Type u32 = Type::scalar_of(ScalarKind::UInt32);
  const Type i32 = Type::scalar_of(ScalarKind::Int32);
  const Type boolean = Type::scalar_of(ScalarKind::Bool);
  auto done = [&](std::vector<Type> operands, Type result) {
    if (checking_) fn_.operand_types[&e] = std::move(operands);
    return record(e, ExprResult::of_value(std::move(result)));
  };
  // numba's words follow where its programs match them: the votes check their mask and predicate so.
  const bool vote = b.id == BuiltinId::AllSync || b.id == BuiltinId::AnySync || b.id == BuiltinId::EqSync ||
                    b.id == BuiltinId::BallotSync;
  auto integer_arg = [&](size_t i, const char* what) {
    const Type& t = args[i].type;
    bool is_mask = i == 0;
    if (t.is_integer() || (t.is_bool() && !(vote && is_mask))) return true;  // numba's votes refuse a bool mask
    error(e.args[i]->range, fmt::format("{}() takes an integer {}, got {}{}{}", name, what, t.str(),
                                        origin_of(*e.args[i]),
                                        vote && is_mask ? " (numba: Mask type must be an integer)" : ""));
    return false;
  };

  if (b.id == BuiltinId::ActiveMask || b.id == BuiltinId::LanemaskLt) return done({}, u32);
  if (!integer_arg(0, "lane mask")) return ExprResult::error();

  if (is_shuffle(b.id)) {
    const Type& v = args[1].type;
    if (!v.is_scalar() || !shuffles(v.scalar)) {
      error(e.args[1]->range, fmt::format("{}() shuffles 32- and 64-bit integers and floats, got {}{}", name,
                                          v.str(), origin_of(*e.args[1])));
      return ExprResult::error();
    }
    const char* what = b.id == BuiltinId::ShflSync      ? "source lane"
                       : b.id == BuiltinId::ShflXorSync ? "lane mask to xor with"
                                                        : "lane delta";
    if (!integer_arg(2, what)) return ExprResult::error();
    return done({u32, v, i32}, v);
  }

  const Type& v = args[1].type;
  if (b.id == BuiltinId::MatchAnySync || b.id == BuiltinId::MatchAllSync) {
    if (!v.is_scalar() || v.is_complex()) {
      error(e.args[1]->range, fmt::format("{}() compares an integer or a float, got {}{}", name, v.str(),
                                          origin_of(*e.args[1])));
      return ExprResult::error();
    }
    Type compared = Type::scalar_of(match_kind(v.scalar));
    if (b.id == BuiltinId::MatchAnySync) return done({u32, compared}, i32);
    return done({u32, compared}, Type::tuple_of({i32, boolean}));
  }

  // The votes: all_sync, any_sync, eq_sync, ballot_sync.
  if (!v.is_integer() && !v.is_bool()) {
    error(e.args[1]->range, fmt::format("{}() takes an integer or bool predicate, got {}{} (numba: Predicate "
                                        "must be an integer or boolean)", name, v.str(), origin_of(*e.args[1])));
    return ExprResult::error();
  }
  return done({u32, boolean}, b.id == BuiltinId::BallotSync ? i32 : boolean);
}

}  // namespace gpujit
