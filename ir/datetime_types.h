// NumPy's datetime64 and timedelta64: their units, their names, and how a value moves from one unit to another.
//
// Each pair of (datetime64 or timedelta64, unit) is a ScalarKind of its own (ir/types.h), so the unit goes
// wherever a dtype goes (array element types, launch keys, record fields, device arrays) with no field of
// its own, as numba's NPDatetime('D') is a type of its own. A value is an int64: a datetime64 counts units
// since 1970-01-01T00:00, a timedelta64 is a signed duration; INT64_MIN is NaT (not a time).
//
// Units, coarsest first, as NumPy and numba order them: Y (years), M (months), W (weeks), D (days), h, m, s,
// ms, us, ns, ps, fs, as, and the generic unit (no unit: "datetime64", numba's "datetime64[]"), which takes
// the other operand's. Months and years are not a whole number of days: a timedelta64 of Y or M never
// converts to days or finer, while a datetime64 of Y or M does (it names a calendar date: the first day of its
// year or month), as numba converts it. Multiples of units ("datetime64[5m]") are not supported, as in numba.
//
// The rules that say which unit an operation runs in (numba's npdatetime_helpers) are here; the operators
// that use them are typed in ir/datetime_rules.h and lowered in codegen/datetime_lowering.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ir/types.h"

namespace gpujit {

/// A datetime64 / timedelta64 unit, coarsest first; Generic last.
enum class DateUnit : uint8_t {
  Years,
  Months,
  Weeks,
  Days,
  Hours,
  Minutes,
  Seconds,
  Millis,
  Micros,
  Nanos,
  Picos,
  Femtos,
  Attos,
  Generic,
};
constexpr unsigned kDateUnitCount = 14;
/// NaT: the one int64 value that is not a time, in both types.
constexpr int64_t kNaT = INT64_MIN;

/// The unit of a datetime64 or timedelta64 kind.
DateUnit date_unit(ScalarKind k);
/// The datetime64 / timedelta64 kind of a unit.
ScalarKind datetime64_of(DateUnit u);
ScalarKind timedelta64_of(DateUnit u);
/// NumPy's code of a unit: "Y", "D", "ms", "" for the generic unit.
const char* date_unit_code(DateUnit u);
/// numba's name of a datetime64 or timedelta64 kind: "datetime64[D]", "timedelta64[ns]", "datetime64[]".
const char* npdatetime_name(ScalarKind k);
/// The kind a datetime name stands for: numba's and NumPy's spellings ("datetime64[D]", "timedelta64[ns]",
/// "datetime64" or "datetime64[]" for the generic unit) and the typestr forms ("M8[D]", "<m8[ns]", "<M8").
/// nullopt for anything else, multiples of units ("M8[5m]") and big-endian typestrs included.
std::optional<ScalarKind> parse_npdatetime_name(std::string_view name);
/// Whether `name` is one of the bare words that start a datetime name ("datetime64", "M8"...): a type
/// reader that stops at '[' reads the unit in brackets after it.
bool is_npdatetime_word(std::string_view name);

/// numba's can_cast_timedelta_units (NumPy's "safe" casting): whether a timedelta64 of `from` converts to
/// `to` exactly, by a whole factor: the same unit, a finer one of the same kind (Y and M among themselves,
/// W and finer among themselves), or from the generic unit to any.
bool can_cast_timedelta(DateUnit from, DateUnit to);
/// The whole factor that converts a count of `from` units into `to` units (12 from years to months, 86400
/// from days to seconds, 1 from the generic unit); nullopt when `to` is coarser or no whole factor exists
/// (months to days).
std::optional<int64_t> date_unit_factor(DateUnit from, DateUnit to);
/// numba's get_best_unit: the finer of two units; the generic unit gives way to the other.
DateUnit finer_unit(DateUnit a, DateUnit b);
/// numba's combine_datetime_timedelta_units: the unit of datetime64[dt] +- timedelta64[td], the finer of the
/// two; nullopt when a timedelta of years or months meets a datetime of weeks or finer.
std::optional<DateUnit> datetime_timedelta_unit(DateUnit dt, DateUnit td);

}  // namespace gpujit
