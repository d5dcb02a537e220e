// datetime64 and timedelta64: their names and type strings (ir/types.h), the units' rules
// (ir/datetime_types.h), numba's typing of their operators (ir/datetime_rules.h) and analysis' errors at
// their exact line:col.
#include <gtest/gtest.h>

#include "ir/datetime_types.h"
#include "ir/type_rules.h"
#include "ir_test_util.h"

namespace gpujit {
namespace {

using K = ScalarKind;
using U = DateUnit;
Type S(K k) { return Type::scalar_of(k); }
Type dt(U u) { return S(datetime64_of(u)); }
Type td(U u) { return S(timedelta64_of(u)); }

TEST(DatetimeTypes, NamesParseAndPrintAsNumbaWritesThem) {
  EXPECT_EQ(dt(U::Days).str(), "datetime64[D]");
  EXPECT_EQ(td(U::Nanos).str(), "timedelta64[ns]");
  EXPECT_EQ(dt(U::Generic).str(), "datetime64[]");
  EXPECT_EQ(scalar_size(datetime64_of(U::Attos)), 8u);
  for (const char* text : {"datetime64[D]", "timedelta64[ns]", "datetime64[]", "datetime64[Y][::1]",
                           "timedelta64[ms][:, :]", "datetime64[h][:, ::1]", "UniTuple(datetime64[s], 2)"}) {
    std::string error;
    Type t = parse_type(text, &error);
    ASSERT_TRUE(t.is_valid()) << text << ": " << error;
    EXPECT_EQ(t.str(), text);
  }
  std::string error;
  EXPECT_EQ(parse_type("datetime64[D][::1]", &error), Type::array_of(K::DatetimeDays, 1, Layout::C));
  EXPECT_EQ(parse_type("array(timedelta64[s], 2d, A)", &error),
            Type::array_of(K::TimedeltaSeconds, 2, Layout::Any));
  EXPECT_EQ(parse_type("datetime64", &error), dt(U::Generic));
  EXPECT_EQ(parse_type("datetime64[:]", &error), Type::array_of(K::DatetimeGeneric, 1, Layout::Any));
  // NumPy's spellings, where the binding reads dtypes and typestrs.
  EXPECT_EQ(parse_scalar_name("<M8[D]"), K::DatetimeDays);
  EXPECT_EQ(parse_scalar_name("m8[us]"), K::TimedeltaMicros);
  EXPECT_EQ(parse_scalar_name("<M8"), K::DatetimeGeneric);
  EXPECT_EQ(parse_scalar_name(">M8[D]"), std::nullopt);   // big-endian
  EXPECT_EQ(parse_scalar_name("<M8[5m]"), std::nullopt);  // multiples of units, as numba
  EXPECT_FALSE(parse_type("datetime64[fortnight]", &error).is_valid());
  EXPECT_EQ(error,
            "invalid type 'datetime64[fortnight]': unknown unit 'fortnight' of datetime64; the units are Y, "
            "M, W, D, h, m, s, ms, us, ns, ps, fs and as (column 12)");
}

TEST(DatetimeTypes, UnitFactorsAreWholeOrAbsent) {
  EXPECT_EQ(date_unit_factor(U::Days, U::Seconds), 86400);
  EXPECT_EQ(date_unit_factor(U::Years, U::Months), 12);
  EXPECT_EQ(date_unit_factor(U::Weeks, U::Hours), 168);
  EXPECT_EQ(date_unit_factor(U::Generic, U::Nanos), 1);
  EXPECT_EQ(date_unit_factor(U::Seconds, U::Attos), int64_t(1000000000000000000));
  EXPECT_EQ(date_unit_factor(U::Hours, U::Femtos), int64_t(3600) * 1000000000000000);
  EXPECT_EQ(date_unit_factor(U::Hours, U::Attos), std::nullopt);   // 3.6e21: past int64
  EXPECT_EQ(date_unit_factor(U::Months, U::Days), std::nullopt);   // not a whole number of days
  EXPECT_EQ(date_unit_factor(U::Seconds, U::Days), std::nullopt);  // coarser
  EXPECT_TRUE(can_cast_timedelta(U::Years, U::Months));
  EXPECT_FALSE(can_cast_timedelta(U::Months, U::Days));
  EXPECT_FALSE(can_cast_timedelta(U::Hours, U::Days));  // to a coarser unit
  EXPECT_TRUE(can_cast_timedelta(U::Weeks, U::Nanos));
  EXPECT_TRUE(can_cast_timedelta(U::Generic, U::Days));
  EXPECT_FALSE(can_cast_timedelta(U::Days, U::Generic));
  EXPECT_EQ(finer_unit(U::Days, U::Hours), U::Hours);
  EXPECT_EQ(finer_unit(U::Generic, U::Months), U::Months);
  EXPECT_EQ(datetime_timedelta_unit(U::Years, U::Days), U::Days);  // a year datetime becomes its first day
  EXPECT_EQ(datetime_timedelta_unit(U::Days, U::Months), std::nullopt);
  EXPECT_EQ(datetime_timedelta_unit(U::Months, U::Years), U::Months);
}

// "result; operand, rhs operand" of `a op b`, or the error.
std::string bin(BinOpKind op, const Type& a, const Type& b) {
  OpTyping t = type_binary(op, Operand{a}, Operand{b});
  if (!t.ok()) return t.error;
  return t.result.str() + "; " + t.operand.str() + ", " + t.rhs_operand.str();
}

TEST(DatetimeRules, ArithmeticRunsInTheFinerUnit) {
  EXPECT_EQ(bin(BinOpKind::Sub, dt(U::Days), dt(U::Hours)), "timedelta64[h]; datetime64[h], datetime64[h]");
  EXPECT_EQ(bin(BinOpKind::Sub, dt(U::Years), dt(U::Days)), "timedelta64[D]; datetime64[D], datetime64[D]");
  EXPECT_EQ(bin(BinOpKind::Add, dt(U::Years), td(U::Months)), "datetime64[M]; datetime64[M], timedelta64[M]");
  EXPECT_EQ(bin(BinOpKind::Add, td(U::Seconds), dt(U::Days)), "datetime64[s]; timedelta64[s], datetime64[s]");
  EXPECT_EQ(bin(BinOpKind::Sub, dt(U::Days), td(U::Weeks)), "datetime64[D]; datetime64[D], timedelta64[D]");
  EXPECT_EQ(bin(BinOpKind::Add, td(U::Days), td(U::Minutes)),
            "timedelta64[m]; timedelta64[m], timedelta64[m]");
  EXPECT_EQ(bin(BinOpKind::Mul, td(U::Days), S(K::Int32)), "timedelta64[D]; timedelta64[D], int64");
  EXPECT_EQ(bin(BinOpKind::Mul, S(K::Float32), td(U::Days)), "timedelta64[D]; float32, timedelta64[D]");
  EXPECT_EQ(bin(BinOpKind::FloorDiv, td(U::Days), S(K::UInt8)), "timedelta64[D]; timedelta64[D], int64");
  EXPECT_EQ(bin(BinOpKind::Div, td(U::Days), td(U::Hours)), "float64; timedelta64[h], timedelta64[h]");
  EXPECT_EQ(bin(BinOpKind::FloorDiv, td(U::Days), td(U::Hours)), "int64; timedelta64[h], timedelta64[h]");
  // What numba does not type.
  EXPECT_EQ(
      bin(BinOpKind::Add, td(U::Years), td(U::Days)),
      "cannot add 'timedelta64[Y]' and 'timedelta64[D]': years and months do not convert to weeks, days or "
      "finer units");
  EXPECT_EQ(
      bin(BinOpKind::Add, dt(U::Days), td(U::Months)),
      "cannot add 'datetime64[D]' and 'timedelta64[M]': years and months do not convert to weeks, days or "
      "finer units");
  EXPECT_NE(bin(BinOpKind::Add, td(U::Days), S(K::Int64)).find("unsupported operand types for +"),
            std::string::npos);
  EXPECT_NE(bin(BinOpKind::Div, S(K::Int64), td(U::Days)).find("unsupported operand types for /"),
            std::string::npos);
  EXPECT_NE(bin(BinOpKind::Mod, td(U::Days), td(U::Days)).find("unsupported operand types for %"),
            std::string::npos);
  EXPECT_NE(bin(BinOpKind::Mul, td(U::Days), S(K::Bool)).find("unsupported operand types for *"),
            std::string::npos);
  EXPECT_EQ(bin(BinOpKind::Sub, td(U::Days), td(U::Attos)),
            "cannot convert timedelta64[D] to timedelta64[as]: the values would overflow int64");
}

TEST(DatetimeRules, ComparisonsUnaryAndConversions) {
  OpTyping c = type_compare(CmpOpKind::Lt, Operand{dt(U::Months)}, Operand{dt(U::Seconds)});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.operand.str(), "datetime64[s]");
  EXPECT_FALSE(c.rhs_operand.is_valid());
  EXPECT_FALSE(type_compare(CmpOpKind::Eq, Operand{td(U::Years)}, Operand{td(U::Days)}).ok());
  EXPECT_FALSE(type_compare(CmpOpKind::Eq, Operand{dt(U::Days)}, Operand{td(U::Days)}).ok());
  EXPECT_EQ(type_unary(UnaryOpKind::Neg, td(U::Days)).result.str(), "timedelta64[D]");
  EXPECT_FALSE(type_unary(UnaryOpKind::Neg, dt(U::Days)).ok());
  EXPECT_FALSE(type_unary(UnaryOpKind::Not, td(U::Days)).ok());
  EXPECT_FALSE(has_truth_value(td(U::Days)));
  EXPECT_TRUE(can_convert(dt(U::Days), dt(U::Days)));
  EXPECT_FALSE(can_convert(dt(U::Days), dt(U::Hours)));
  EXPECT_FALSE(can_convert(td(U::Days), S(K::Int64)));
  EXPECT_FALSE(can_convert(S(K::Int64), td(U::Days)));
  EXPECT_FALSE(unify(td(U::Days), td(U::Hours)).is_valid());
  EXPECT_EQ(unify(td(U::Days), td(U::Days)), td(U::Days));
  EXPECT_EQ(scalar_conversion_rank(K::DatetimeDays, K::DatetimeSeconds), ConversionRank::None);
  EXPECT_FALSE(common_numeric_type({Operand{td(U::Days)}, Operand{S(K::Int64)}}).is_valid());
}

const char* kHeader =
    "import math\nimport numpy as np\nfrom numba import cuda\n";  // the kernel starts on line 5

std::string only_error(const std::string& body, const std::string& sig) {
  return test::only_error_of(test::analyze_source(std::string(kHeader) + body, "k", sig));
}

TEST(DatetimeSema, ErrorsPointAtTheOperation) {
  EXPECT_EQ(
      only_error(R"(
def k(a, out):
    i = cuda.grid(1)
    out[i] = a[i] + a[i]
)",
                 "datetime64[D][::1], datetime64[D][::1]"),
      "7:19: unsupported operand types for +: 'datetime64[D]' and 'datetime64[D]'; two datetime64 values do "
      "not add: subtract them to get the timedelta64 between them, or add a timedelta64 to one");
  EXPECT_EQ(
      only_error(R"(
def k(a, out):
    out[0] = a[0] - a[1] * 2.5
)",
                 "datetime64[s][::1], timedelta64[s][::1]"),
      "6:26: unsupported operand types for *: 'datetime64[s]' and 'float64'; datetime64 and timedelta64 take "
      "+ and - with a timedelta64 (datetime64 - datetime64 gives the timedelta64 between them), and a "
      "timedelta64 takes *, / and // with an int or a float");
  EXPECT_EQ(only_error(R"(
def k(a, out):
    out[0] = a[0] - a[1]
)",
                       "datetime64[s][::1], datetime64[s][::1]"),
            "6:14: cannot store a value of type timedelta64[s] into an element of type datetime64[s]");
  EXPECT_EQ(only_error(R"(
def k(a, t):
    a[0] += t
)",
                       "datetime64[D][::1], timedelta64[m]"),
            "6:5: '+=' gives datetime64[m], which cannot be stored into an element of type datetime64[D]; a "
            "datetime64 or timedelta64 converts to no other unit implicitly");
  EXPECT_EQ(
      only_error(R"(
def k(t, out):
    out[0] = np.int32(t)
)",
                 "timedelta64[D], int32[::1]"),
      "6:23: np.int32() cannot convert timedelta64[D] ('t' is an argument); a datetime64 or timedelta64 "
      "converts only to int64 or uint64 (its count of units)");
}

TEST(DatetimeSema, OperandTypesRecordEachSide) {
  test::Analyzed a = test::analyze_source(std::string(kHeader) + R"(
def k(d, t, out):
    out[0] = d + t
)",
                                          "k", "datetime64[D], timedelta64[h], datetime64[h][::1]");
  ASSERT_TRUE(a.program) << a.diags.render();
  const TypedFunction& f = a.kernel();
  bool found = false;
  for (const auto& [expr, types] : f.operand_types) {
    if (expr->kind != ExprKind::BinOp) continue;
    found = true;
    ASSERT_EQ(types.size(), 2u);
    EXPECT_EQ(types[0].str(), "datetime64[h]");
    EXPECT_EQ(types[1].str(), "timedelta64[h]");
    EXPECT_EQ(f.type_of(expr).str(), "datetime64[h]");
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace gpujit
