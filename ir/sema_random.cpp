// Semantic analysis of gpu.random (numba.cuda.random's device functions) and of cooperative groups.
//
// - xoroshiro128p_*(states, index): `states` is the array gpu.random.create_xoroshiro128p_states() makes,
//   numba's 1-D array of (s0, s1) records of two uint64 (xoroshiro128p_dtype), or the same bytes as a 2-D
//   (n, 2) uint64 array; `index` is an integer, converted to int64. The results are numba's: uint64 for
//   xoroshiro128p_next, float32/float64 for the uniform and normal draws.
// - cg.this_grid() gives a value of type grid_group; g.sync() is a grid-wide barrier returning int32 0
//   (numba returns the cudaCGSynchronizeGrid status, 0 on success).
#include <fmt/format.h>

#include "ir/record_type.h"
#include "ir/sema_internal.h"

namespace gpujit {
namespace {

/// numba's xoroshiro128p_dtype: two uint64 fields, at bytes 0 and 8.
bool is_xoroshiro_state_record(const RecordType* r) {
  if (!r || r->fields.size() != 2) return false;
  for (size_t i = 0; i < 2; ++i) {
    const RecordField& f = r->fields[i];
    if (!f.type.is_scalar(ScalarKind::UInt64) || !f.shape.empty() || f.offset != 8 * i) return false;
  }
  return true;
}

}  // namespace

ExprResult FunctionAnalyzer::random_call(const CallExpr& e, const BuiltinInfo& b,
                                         const std::vector<ExprResult>& args) {
  std::string name = path_of(*e.func);
  const Type& states = args[0].type;
  bool records = states.is_array() && states.ndim == 1 && is_xoroshiro_state_record(states.record);
  bool pairs = states.is_array() && !states.record && states.scalar == ScalarKind::UInt64 && states.ndim == 2;
  if (!records && !pairs) {
    error(
        e.args[0]->range,
        fmt::format("{}() takes the generator states made by gpu.random.create_xoroshiro128p_states() (a 1-D "
                    "array of (s0, s1) uint64 records, or an (n, 2) uint64 array), got {}{}",
                    name, states.str(), origin_of(*e.args[0])));
    return ExprResult::error();
  }
  const Type& index = args[1].type;
  if (!index.is_integer()) {
    error(e.args[1]->range,
          fmt::format("{}() takes an integer index, got {}{}", name, index.str(), origin_of(*e.args[1])));
    return ExprResult::error();
  }
  ScalarKind result = ScalarKind::UInt64;
  switch (b.id) {
    case BuiltinId::RandomUniformF32:
    case BuiltinId::RandomNormalF32:
      result = ScalarKind::Float32;
      break;
    case BuiltinId::RandomUniformF64:
    case BuiltinId::RandomNormalF64:
      result = ScalarKind::Float64;
      break;
    default:
      break;
  }
  if (checking_) fn_.operand_types[&e] = {states, Type::scalar_of(ScalarKind::Int64)};
  return record(e, ExprResult::of_value(Type::scalar_of(result)));
}

ExprResult FunctionAnalyzer::grid_group_call(const CallExpr& e, const BuiltinInfo& b,
                                             const std::vector<ExprResult>& args) {
  (void)args;
  if (checking_) fn_.operand_types[&e] = {};
  Type result = b.id == BuiltinId::CgThisGrid ? Type::grid_group() : Type::scalar_of(ScalarKind::Int32);
  return record(e, ExprResult::of_value(result));
}

}  // namespace gpujit
