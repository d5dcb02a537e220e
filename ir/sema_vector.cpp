// Semantic analysis of CUDA vector types (ir/vector_types.h) and of numba's Dim3: constructor calls and
// lane attributes.
//
// A constructor's arguments are typed as numba-cuda's overloads take them: each is a number, converted to
// the base type (operand_types holds the base type), or a vector of the same base type, passed whole
// (operand_types holds that vector type), and the lanes they give add up to the vector's. Lanes are
// read-only, as numba's attribute wrappers are; sema.cpp refuses a store to one.
#include <fmt/format.h>

#include "ir/sema_internal.h"
#include "ir/type_rules.h"
#include "ir/vector_types.h"

namespace gpujit {

namespace {

/// "x, y and z"
std::string lane_names(unsigned lanes) {
  std::string s;
  for (unsigned k = 0; k < lanes; ++k) {
    s += fmt::format("{}'{}'", k == 0 ? "" : k + 1 == lanes ? " and " : ", ", vector_lane_name(k));
  }
  return s;
}

}  // namespace

ExprResult FunctionAnalyzer::vector_call(const CallExpr& e, const BuiltinInfo& b,
                                         const std::vector<ExprResult>& args) {
  const Type vector = vector_type_of(b);
  const Type base = Type::scalar_of(vector.scalar);
  const std::string name = path_of(*e.func);
  std::vector<Type> operands;
  unsigned lanes = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type& t = args[i].type;
    if (t.is_vector() && !t.dim3 && t.scalar == vector.scalar) {
      operands.push_back(t);
      lanes += t.lanes;
    } else if (t.is_scalar() && can_convert(t, base)) {
      operands.push_back(base);
      lanes += 1;
    } else {
      error(e.args[i]->range,
            fmt::format("{}() argument {} must be a number or a vector of {}, got {}{}", name, i + 1,
                        scalar_name(vector.scalar), t.str(), origin_of(*e.args[i])));
      return ExprResult::error();
    }
  }
  if (lanes != vector.lanes) {
    error(e.range, fmt::format("{}() needs {} lanes in all (numbers, and the lanes of {} vectors), got {}",
                               name, unsigned(vector.lanes), scalar_name(vector.scalar), lanes));
    return ExprResult::error();
  }
  if (checking_) fn_.operand_types[&e] = std::move(operands);
  return record(e, ExprResult::of_value(vector));
}

ExprResult FunctionAnalyzer::vector_lane(const AttributeExpr& e, const Type& vector) {
  int lane = vector_lane_of(e.attr);
  if (lane < 0 || lane >= int(vector.lanes)) {
    error(e.attr_range, fmt::format("'{}' has no attribute '{}'; its lanes are {}{}", vector.str(), e.attr,
                                    lane_names(vector.lanes), origin_of(*e.value)));
    return ExprResult::error();
  }
  return record(e, ExprResult::of_value(Type::scalar_of(vector.scalar)));
}

}  // namespace gpujit
