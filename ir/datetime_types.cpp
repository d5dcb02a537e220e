// Units and names of datetime64 and timedelta64, and numba's rules for converting between units (see
// ir/datetime_types.h).
#include "ir/datetime_types.h"

#include <array>

namespace gpujit {

namespace {

constexpr unsigned index_of(DateUnit u) { return static_cast<unsigned>(u); }

constexpr std::array<const char*, kDateUnitCount> kUnitCodes = {
    "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "",
};
constexpr std::array<const char*, kDateUnitCount> kDatetimeNames = {
    "datetime64[Y]",  "datetime64[M]",  "datetime64[W]",  "datetime64[D]",  "datetime64[h]",
    "datetime64[m]",  "datetime64[s]",  "datetime64[ms]", "datetime64[us]", "datetime64[ns]",
    "datetime64[ps]", "datetime64[fs]", "datetime64[as]", "datetime64[]",
};
constexpr std::array<const char*, kDateUnitCount> kTimedeltaNames = {
    "timedelta64[Y]",  "timedelta64[M]",  "timedelta64[W]",  "timedelta64[D]",  "timedelta64[h]",
    "timedelta64[m]",  "timedelta64[s]",  "timedelta64[ms]", "timedelta64[us]", "timedelta64[ns]",
    "timedelta64[ps]", "timedelta64[fs]", "timedelta64[as]", "timedelta64[]",
};

// The factor from each unit to the next finer one, where it is whole (numba's _factors, NumPy's
// get_datetime_units_factor); 0 where there is none: months to weeks, and past attoseconds.
constexpr std::array<int64_t, kDateUnitCount> kStepFactor = {
    12, 0, 7, 24, 60, 60, 1000, 1000, 1000, 1000, 1000, 1000, 0, 0,
};

bool is_calendar(DateUnit u) { return u == DateUnit::Years || u == DateUnit::Months; }

}  // namespace

DateUnit date_unit(ScalarKind k) {
  unsigned base = unsigned(is_datetime64(k) ? ScalarKind::DatetimeYears : ScalarKind::TimedeltaYears);
  return static_cast<DateUnit>(unsigned(k) - base);
}

ScalarKind datetime64_of(DateUnit u) {
  return static_cast<ScalarKind>(unsigned(ScalarKind::DatetimeYears) + index_of(u));
}

ScalarKind timedelta64_of(DateUnit u) {
  return static_cast<ScalarKind>(unsigned(ScalarKind::TimedeltaYears) + index_of(u));
}

const char* date_unit_code(DateUnit u) { return kUnitCodes[index_of(u)]; }

const char* npdatetime_name(ScalarKind k) {
  return is_datetime64(k) ? kDatetimeNames[index_of(date_unit(k))] : kTimedeltaNames[index_of(date_unit(k))];
}

bool is_npdatetime_word(std::string_view name) {
  return name == "datetime64" || name == "timedelta64" || name == "M8" || name == "m8";
}

std::optional<ScalarKind> parse_npdatetime_name(std::string_view name) {
  if (!name.empty() && (name[0] == '<' || name[0] == '=' || name[0] == '|')) name.remove_prefix(1);
  std::string_view base = name.substr(0, name.find('['));
  if (!is_npdatetime_word(base)) return std::nullopt;
  const bool datetime = base == "datetime64" || base == "M8";
  std::string_view unit;
  if (base.size() < name.size()) {
    std::string_view rest = name.substr(base.size());
    if (rest.size() < 2 || rest.back() != ']') return std::nullopt;
    unit = rest.substr(1, rest.size() - 2);
  }
  for (unsigned i = 0; i < kDateUnitCount; ++i) {
    if (unit == kUnitCodes[i]) {
      DateUnit u = static_cast<DateUnit>(i);
      return datetime ? datetime64_of(u) : timedelta64_of(u);
    }
  }
  return std::nullopt;
}

std::optional<int64_t> date_unit_factor(DateUnit from, DateUnit to) {
  if (from == DateUnit::Generic || from == to) return 1;
  if (to == DateUnit::Generic || index_of(to) < index_of(from)) return std::nullopt;
  int64_t factor = 1;
  for (unsigned u = index_of(from); u < index_of(to); ++u) {
    if (kStepFactor[u] == 0 || __builtin_mul_overflow(factor, kStepFactor[u], &factor)) return std::nullopt;
  }
  return factor;
}

bool can_cast_timedelta(DateUnit from, DateUnit to) {
  if (from == to || from == DateUnit::Generic) return true;
  if (to == DateUnit::Generic || index_of(to) < index_of(from)) return false;
  return is_calendar(from) == is_calendar(to);
}

DateUnit finer_unit(DateUnit a, DateUnit b) {
  if (a == DateUnit::Generic) return b;
  if (b == DateUnit::Generic) return a;
  return index_of(b) > index_of(a) ? b : a;
}

std::optional<DateUnit> datetime_timedelta_unit(DateUnit dt, DateUnit td) {
  if (dt == DateUnit::Generic) return td;
  if (td == DateUnit::Generic) return dt;
  if (is_calendar(td) && !is_calendar(dt)) return std::nullopt;
  return finer_unit(dt, td);
}

}  // namespace gpujit
