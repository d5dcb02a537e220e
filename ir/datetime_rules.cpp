// numba's typing of datetime64 and timedelta64 operators (see ir/datetime_rules.h for the table).
#include "ir/datetime_rules.h"

#include <fmt/format.h>

#include "ir/datetime_types.h"

namespace gpujit {

namespace {

bool is_dt(const Type& t) { return t.is_scalar() && is_datetime64(t.scalar); }
bool is_td(const Type& t) { return t.is_scalar() && is_timedelta64(t.scalar); }
// numba's types.Integer and types.Float: bool is neither, nor are complex numbers and bfloat16.
bool is_int(const Type& t) { return t.is_integer(); }
bool is_real(const Type& t) { return t.is_float(); }

const char* symbol(BinOpKind op) { return to_string(op); }

std::string unsupported(BinOpKind op, const Type& lhs, const Type& rhs, std::string_view hint) {
  return fmt::format("unsupported operand types for {}: '{}' and '{}'{}", symbol(op), lhs.str(), rhs.str(),
                     hint);
}

constexpr std::string_view kHint =
    "; datetime64 and timedelta64 take + and - with a timedelta64 (datetime64 - datetime64 gives the "
    "timedelta64 between them), and a timedelta64 takes *, / and // with an int or a float";

// Why a value of kind `from` cannot convert to unit `to` for an operation ("" if it can): the factor must be
// whole and fit in int64. A datetime of years or months first becomes the day (or week) it starts on.
std::string conversion_problem(ScalarKind from, DateUnit to) {
  DateUnit u = date_unit(from);
  const bool calendar = u == DateUnit::Years || u == DateUnit::Months;
  if (is_datetime64(from) && calendar && to != DateUnit::Years && to != DateUnit::Months &&
      to != DateUnit::Generic)
    u = to == DateUnit::Weeks ? DateUnit::Weeks : DateUnit::Days;
  if (date_unit_factor(u, to)) return "";
  const char* name = is_datetime64(from) ? "datetime64" : "timedelta64";
  return fmt::format("cannot convert {} to {}[{}]: the values would overflow int64", scalar_name(from), name,
                     date_unit_code(to));
}

OpTyping fail(std::string message) {
  OpTyping t;
  t.error = std::move(message);
  return t;
}

// An operation whose operands convert to `lhs` and `rhs` and whose result is `result`; checks the unit
// conversions the operands need.
OpTyping typed(const Type& from_lhs, const Type& from_rhs, Type lhs, Type rhs, Type result) {
  for (const auto& [from, to] : {std::pair{&from_lhs, &lhs}, std::pair{&from_rhs, &rhs}}) {
    if (from->is_npdatetime() && to->is_npdatetime() && *from != *to) {
      std::string problem = conversion_problem(from->scalar, date_unit(to->scalar));
      if (!problem.empty()) return fail(std::move(problem));
    }
  }
  OpTyping t;
  t.operand = std::move(lhs);
  t.rhs_operand = std::move(rhs);
  t.result = std::move(result);
  return t;
}

// The unit two timedeltas meet in: the finer one, if the coarser converts to it exactly.
std::optional<DateUnit> timedelta_unit(const Type& a, const Type& b) {
  DateUnit ua = date_unit(a.scalar), ub = date_unit(b.scalar);
  if (can_cast_timedelta(ua, ub)) return ub;
  if (can_cast_timedelta(ub, ua)) return ua;
  return std::nullopt;
}

std::string units_apart(const char* what, const Type& a, const Type& b) {
  return fmt::format("cannot {} '{}' and '{}': years and months do not convert to weeks, days or finer units",
                     what, a.str(), b.str());
}

// timedelta64 with an int or float, in either order for *; the timedelta64 keeps its type.
OpTyping timedelta_and_number(BinOpKind op, const Type& lhs, const Type& rhs) {
  const bool td_left = is_td(lhs);
  const Type& other = td_left ? rhs : lhs;
  const bool commutes = op == BinOpKind::Mul;
  if ((!td_left && !commutes) || !(is_int(other) || is_real(other)))
    return fail(unsupported(op, lhs, rhs, kHint));
  const Type& td = td_left ? lhs : rhs;
  // numba converts integers to int64 ("matches timedelta64 semantics better") and keeps a float's type.
  Type number = is_int(other) ? Type::scalar_of(ScalarKind::Int64) : other;
  return td_left ? typed(lhs, rhs, td, number, td) : typed(lhs, rhs, number, td, td);
}

}  // namespace

OpTyping type_npdatetime_binary(BinOpKind op, const Type& lhs, const Type& rhs) {
  if (!lhs.is_scalar() || !rhs.is_scalar()) return fail(unsupported(op, lhs, rhs, ""));
  switch (op) {
    case BinOpKind::Add:
    case BinOpKind::Sub: {
      const char* verb = op == BinOpKind::Add ? "add" : "subtract";
      if (is_td(lhs) && is_td(rhs)) {
        std::optional<DateUnit> u = timedelta_unit(lhs, rhs);
        if (!u) return fail(units_apart(verb, lhs, rhs));
        Type t = Type::scalar_of(timedelta64_of(*u));
        return typed(lhs, rhs, t, t, t);
      }
      if (op == BinOpKind::Sub && is_dt(lhs) && is_dt(rhs)) {
        DateUnit u = finer_unit(date_unit(lhs.scalar), date_unit(rhs.scalar));
        Type t = Type::scalar_of(datetime64_of(u));
        return typed(lhs, rhs, t, t, Type::scalar_of(timedelta64_of(u)));
      }
      // datetime64 +- timedelta64, and timedelta64 + datetime64.
      const bool dt_left = is_dt(lhs) && is_td(rhs);
      const bool dt_right = op == BinOpKind::Add && is_td(lhs) && is_dt(rhs);
      if (!dt_left && !dt_right) {
        if (is_dt(lhs) && is_dt(rhs))
          return fail(unsupported(op, lhs, rhs,
                                  "; two datetime64 values do not add: subtract them to get the timedelta64 "
                                  "between them, or add a timedelta64 to one"));
        return fail(unsupported(op, lhs, rhs, kHint));
      }
      const Type& dt = dt_left ? lhs : rhs;
      const Type& td = dt_left ? rhs : lhs;
      std::optional<DateUnit> u = datetime_timedelta_unit(date_unit(dt.scalar), date_unit(td.scalar));
      if (!u) return fail(units_apart(verb, lhs, rhs));
      Type d = Type::scalar_of(datetime64_of(*u)), t = Type::scalar_of(timedelta64_of(*u));
      return dt_left ? typed(lhs, rhs, d, t, d) : typed(lhs, rhs, t, d, d);
    }
    case BinOpKind::Mul:
      if (is_td(lhs) != is_td(rhs)) return timedelta_and_number(op, lhs, rhs);
      break;
    case BinOpKind::Div:
    case BinOpKind::FloorDiv:
      if (is_td(lhs) && is_td(rhs)) {
        std::optional<DateUnit> u = timedelta_unit(lhs, rhs);
        if (!u) return fail(units_apart("divide", lhs, rhs));
        Type t = Type::scalar_of(timedelta64_of(*u));
        return typed(lhs, rhs, t, t,
                     Type::scalar_of(op == BinOpKind::Div ? ScalarKind::Float64 : ScalarKind::Int64));
      }
      if (is_td(lhs)) return timedelta_and_number(op, lhs, rhs);
      break;
    default:
      break;
  }
  return fail(unsupported(op, lhs, rhs, kHint));
}

OpTyping type_npdatetime_unary(UnaryOpKind op, const Type& operand) {
  if (is_td(operand) && (op == UnaryOpKind::Neg || op == UnaryOpKind::Pos)) {
    OpTyping t;
    t.operand = t.result = operand;
    return t;
  }
  return fail(fmt::format("bad operand type for unary {}: '{}'{}", to_string(op), operand.str(),
                          is_td(operand) ? "; a timedelta64 takes unary - and +" : ""));
}

OpTyping type_npdatetime_compare(CmpOpKind op, const Type& lhs, const Type& rhs) {
  Type common;
  if (is_dt(lhs) && is_dt(rhs)) {
    common = Type::scalar_of(datetime64_of(finer_unit(date_unit(lhs.scalar), date_unit(rhs.scalar))));
  } else if (is_td(lhs) && is_td(rhs)) {
    std::optional<DateUnit> u = timedelta_unit(lhs, rhs);
    if (!u) return fail(units_apart("compare", lhs, rhs));
    common = Type::scalar_of(timedelta64_of(*u));
  } else {
    return fail(
        fmt::format("cannot compare '{}' and '{}' with '{}'; a datetime64 compares with a datetime64 and "
                    "a timedelta64 with a timedelta64",
                    lhs.str(), rhs.str(), to_string(op)));
  }
  OpTyping t = typed(lhs, rhs, common, common, Type::scalar_of(ScalarKind::Bool));
  t.rhs_operand = Type();  // both sides convert to `operand`, as every comparison's do
  return t;
}

}  // namespace gpujit
