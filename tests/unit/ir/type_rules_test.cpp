// numba's promotion rules (ir/type_rules.h), one test per rule gpujit relies on, and constant folding
// (ir/const_eval.h), which must agree with them.
#include <gtest/gtest.h>

#include "ir/const_eval.h"
#include "ir/type_rules.h"

namespace gpujit {
namespace {

Type S(ScalarKind k) { return Type::scalar_of(k); }
using K = ScalarKind;

std::string unify_str(K a, K b) { return unify(S(a), S(b)).str(); }

// The result type of `a op b` for two non-constant operands, or the error.
std::string bin(BinOpKind op, K a, K b) {
  OpTyping t = type_binary(op, Operand{S(a)}, Operand{S(b)});
  return t.ok() ? t.result.str() : t.error;
}

TEST(Unify, NumpyPromotion) {
  EXPECT_EQ(unify_str(K::Int64, K::Float64), "float64");  // int64 then float64 -> float64
  EXPECT_EQ(unify_str(K::Int32, K::Int64), "int64");
  EXPECT_EQ(unify_str(K::Int64, K::Float32), "float64");
  EXPECT_EQ(unify_str(K::Int16, K::Float32), "float32");
  EXPECT_EQ(unify_str(K::Int8, K::Float16), "float16");
  EXPECT_EQ(unify_str(K::UInt64, K::Int64), "float64");
  EXPECT_EQ(unify_str(K::UInt32, K::Int32), "int64");
  EXPECT_EQ(unify_str(K::UInt8, K::Int8), "int16");
  EXPECT_EQ(unify_str(K::UInt16, K::Int32), "int32");
  EXPECT_EQ(unify_str(K::Bool, K::Int8), "int8");
  EXPECT_EQ(unify_str(K::Bool, K::Bool), "bool");
  EXPECT_EQ(unify_str(K::Float32, K::Float64), "float64");
  EXPECT_EQ(unify_str(K::Int32, K::Int32), "int32");  // no widening when unifying
  EXPECT_EQ(unify_str(K::Complex64, K::Float64), "complex128");
}

TEST(Unify, ArraysAndTuples) {
  Type c = Type::array_of(K::Float32, 2, Layout::C), a = Type::array_of(K::Float32, 2, Layout::Any);
  EXPECT_EQ(unify(c, c), c);
  EXPECT_EQ(unify(c, a), a);
  EXPECT_FALSE(unify(c, Type::array_of(K::Float64, 2, Layout::C)).is_valid());
  EXPECT_FALSE(unify(c, Type::array_of(K::Float32, 1, Layout::C)).is_valid());
  EXPECT_FALSE(unify(c, S(K::Int64)).is_valid());  // an array then an int: no unification
  Type t1 = Type::tuple_of({S(K::Int32), S(K::Float32)}), t2 = Type::tuple_of({S(K::Int64), S(K::Float32)});
  EXPECT_EQ(unify(t1, t2).str(), "Tuple(int64, float32)");
  EXPECT_FALSE(unify(t1, Type::tuple_of({S(K::Int64)})).is_valid());
}

TEST(BinaryOps, IntegerArithmeticRunsAt64Bits) {
  EXPECT_EQ(bin(BinOpKind::Add, K::Int32, K::Int64), "int64");
  EXPECT_EQ(bin(BinOpKind::Add, K::Int32, K::Int32), "int64");  // numba's choose_result_int
  EXPECT_EQ(bin(BinOpKind::Mul, K::UInt8, K::UInt8), "uint64");
  EXPECT_EQ(bin(BinOpKind::Sub, K::UInt32, K::Int32), "int64");
  EXPECT_EQ(bin(BinOpKind::Add, K::UInt64, K::Int64), "int64");  // numba-cuda's int64 case, not NumPy's float64
  EXPECT_EQ(bin(BinOpKind::Add, K::UInt64, K::UInt32), "uint64");
  EXPECT_EQ(bin(BinOpKind::Add, K::Bool, K::Bool), "int64");  // bool arithmetic promotes to int64
  EXPECT_EQ(bin(BinOpKind::Add, K::Bool, K::Float32), "float32");
}

TEST(BinaryOps, FloatsAndMixedOperands) {
  EXPECT_EQ(bin(BinOpKind::Add, K::Float32, K::Float32), "float32");
  EXPECT_EQ(bin(BinOpKind::Mul, K::Float32, K::Float64), "float64");
  EXPECT_EQ(bin(BinOpKind::Add, K::Int32, K::Float32), "float64");
  EXPECT_EQ(bin(BinOpKind::Add, K::Int64, K::Float32), "float64");
  EXPECT_EQ(bin(BinOpKind::Add, K::Int16, K::Float32), "float32");
  EXPECT_EQ(bin(BinOpKind::Add, K::Float16, K::Float16), "float16");
}

TEST(BinaryOps, Bfloat16OnlyWithBfloat16) {
  EXPECT_EQ(bin(BinOpKind::Add, K::BFloat16, K::BFloat16), "bfloat16");
  EXPECT_EQ(bin(BinOpKind::Div, K::BFloat16, K::BFloat16), "bfloat16");
  EXPECT_NE(bin(BinOpKind::Add, K::BFloat16, K::Float32).find("convert the other with bfloat16(x)"),
            std::string::npos);
  EXPECT_EQ(bin(BinOpKind::FloorDiv, K::BFloat16, K::BFloat16),
            "unsupported operand types for //: 'bfloat16' and 'bfloat16'");
  EXPECT_FALSE(unify(S(K::BFloat16), S(K::Float32)).is_valid());
  EXPECT_EQ(unify_str(K::BFloat16, K::BFloat16), "bfloat16");
  OpTyping neg = type_unary(UnaryOpKind::Neg, S(K::BFloat16));
  EXPECT_EQ(neg.result.str(), "bfloat16");
  EXPECT_FALSE(type_unary(UnaryOpKind::Invert, S(K::BFloat16)).ok());
  EXPECT_EQ(type_compare(CmpOpKind::Lt, Operand{S(K::BFloat16)}, Operand{S(K::BFloat16)}).result.str(), "bool");
  EXPECT_FALSE(type_compare(CmpOpKind::Lt, Operand{S(K::BFloat16)}, Operand{S(K::Float64)}).ok());
  // Conversions where the destination is fixed: to and from real numbers and bool, never complex.
  EXPECT_TRUE(can_convert(S(K::Int16), S(K::BFloat16)));
  EXPECT_TRUE(can_convert(S(K::BFloat16), S(K::Float32)));
  EXPECT_TRUE(can_convert(S(K::BFloat16), S(K::Bool)));
  EXPECT_FALSE(can_convert(S(K::BFloat16), S(K::Complex64)));
  EXPECT_FALSE(can_convert(S(K::Complex64), S(K::BFloat16)));
  EXPECT_TRUE(has_truth_value(S(K::BFloat16)));
  std::string error;
  EXPECT_EQ(parse_type("bfloat16", &error).str(), "bfloat16");
}

TEST(BinaryOps, TrueDivision) {
  EXPECT_EQ(bin(BinOpKind::Div, K::Int64, K::Int64), "float64");
  EXPECT_EQ(bin(BinOpKind::Div, K::Int32, K::Int32), "float64");
  EXPECT_EQ(bin(BinOpKind::Div, K::Float32, K::Float32), "float32");
  EXPECT_EQ(bin(BinOpKind::Div, K::Bool, K::Bool), "float64");
}

TEST(BinaryOps, FloorDivisionAndModulo) {
  EXPECT_EQ(bin(BinOpKind::FloorDiv, K::Int32, K::Int32), "int64");
  EXPECT_EQ(bin(BinOpKind::Mod, K::UInt32, K::UInt32), "uint64");
  EXPECT_EQ(bin(BinOpKind::FloorDiv, K::Float32, K::Float32), "float32");
  EXPECT_EQ(bin(BinOpKind::Mod, K::Float64, K::Int64), "float64");
}

TEST(BinaryOps, Power) {
  EXPECT_EQ(bin(BinOpKind::Pow, K::Int64, K::Int64), "int64");  // numba: int ** int stays an integer
  EXPECT_EQ(bin(BinOpKind::Pow, K::Int32, K::Int32), "int64");
  EXPECT_EQ(bin(BinOpKind::Pow, K::UInt32, K::UInt32), "uint64");
  EXPECT_EQ(bin(BinOpKind::Pow, K::Float32, K::Int64), "float32");  // float32 ** int stays float32
  EXPECT_EQ(bin(BinOpKind::Pow, K::Int64, K::Float64), "float64");
  EXPECT_EQ(bin(BinOpKind::Pow, K::Int32, K::Float32), "float64");
}

TEST(BinaryOps, ShiftsAndBitwise) {
  EXPECT_EQ(bin(BinOpKind::LShift, K::Int32, K::Int64), "int64");
  EXPECT_EQ(bin(BinOpKind::RShift, K::UInt32, K::Int64), "uint64");  // the left operand's signedness decides
  EXPECT_EQ(bin(BinOpKind::LShift, K::Bool, K::Bool), "int64");
  EXPECT_EQ(bin(BinOpKind::BitAnd, K::Bool, K::Bool), "bool");
  EXPECT_EQ(bin(BinOpKind::BitOr, K::Bool, K::Int32), "int64");
  EXPECT_EQ(bin(BinOpKind::BitXor, K::UInt16, K::UInt8), "uint64");
  EXPECT_EQ(bin(BinOpKind::BitAnd, K::Float32, K::Int32),
            "unsupported operand types for &: 'float32' and 'int32'");
  EXPECT_EQ(bin(BinOpKind::LShift, K::Int64, K::Float64),
            "unsupported operand types for <<: 'int64' and 'float64'");
}

TEST(BinaryOps, NonScalarsAreErrors) {
  OpTyping t =
      type_binary(BinOpKind::Add, Operand{Type::array_of(K::Float32, 1, Layout::Any)}, Operand{S(K::Int64)});
  EXPECT_EQ(t.error, "unsupported operand types for +: 'float32[:]' and 'int64'");
  t = type_binary(BinOpKind::BitAnd, Operand{S(K::Complex64)}, Operand{S(K::Int64)});
  EXPECT_EQ(t.error, "unsupported operand types for &: 'complex64' and 'int64'");
}

TEST(Constants, ArithmeticTypesThemAsNumbaDoes) {
  // Checked against numba-cuda 0.30.4's compile_ptx: a float literal is float64 and an int literal int64
  // beside a float32, so x * 0.5 and x * 2 compute in float64; a literal beside a uint64 runs in int64.
  ConstValue half = ConstValue::of_float(0.5), two = ConstValue::of_int(2), one = ConstValue::of_int(1);
  EXPECT_EQ(type_binary(BinOpKind::Mul, Operand{S(K::Float32)}, Operand{S(K::Float64), &half}).result.str(),
            "float64");
  EXPECT_EQ(type_binary(BinOpKind::Mul, Operand{S(K::Int64), &two}, Operand{S(K::Float32)}).result.str(),
            "float64");
  EXPECT_EQ(type_binary(BinOpKind::Add, Operand{S(K::UInt64)}, Operand{S(K::Int64), &one}).result.str(), "int64");
  EXPECT_EQ(type_binary(BinOpKind::Add, Operand{S(K::UInt32)}, Operand{S(K::Int64), &one}).result.str(), "int64");
  // A float32 constant (np.float32(0.5)) keeps float32 arithmetic float32.
  ConstValue strong = ConstValue::of_float(0.5, K::Float32);
  EXPECT_FALSE(is_weak_constant(strong));
  EXPECT_EQ(type_binary(BinOpKind::Mul, Operand{S(K::Float32)}, Operand{S(K::Float32), &strong}).result.str(),
            "float32");
  // float ** int keeps the float type; shifts keep the left operand's signedness.
  EXPECT_EQ(type_binary(BinOpKind::Pow, Operand{S(K::Float32)}, Operand{S(K::Int64), &two}).result.str(),
            "float32");
  EXPECT_EQ(type_binary(BinOpKind::RShift, Operand{S(K::UInt64)}, Operand{S(K::Int64), &one}).result.str(),
            "uint64");
}

TEST(Compare, RunsInTheUnifiedTypeAndGivesBool) {
  OpTyping t = type_compare(CmpOpKind::Lt, Operand{S(K::Int32)}, Operand{S(K::Int32)});
  EXPECT_EQ(t.operand.str(), "int32");
  EXPECT_EQ(t.result.str(), "bool");
  EXPECT_EQ(type_compare(CmpOpKind::Lt, Operand{S(K::Int32)}, Operand{S(K::Int64)}).operand.str(), "int64");
  EXPECT_EQ(type_compare(CmpOpKind::Eq, Operand{S(K::UInt64)}, Operand{S(K::Int64)}).operand.str(),
            "float64");
  // Constants adapt only where exact: x == 0.1 compares in float64 as Python does, x > 0.5 in float32.
  ConstValue tenth = ConstValue::of_float(0.1), half = ConstValue::of_float(0.5);
  EXPECT_EQ(type_compare(CmpOpKind::Eq, Operand{S(K::Float32)}, Operand{S(K::Float64), &tenth}).operand.str(),
            "float64");
  EXPECT_EQ(type_compare(CmpOpKind::Gt, Operand{S(K::Float32)}, Operand{S(K::Float64), &half}).operand.str(),
            "float32");
  EXPECT_EQ(type_compare(CmpOpKind::Is, Operand{S(K::Int64)}, Operand{Type::none()}).error,
            "'is' comparisons are not supported; use '==' or '!='");
}

TEST(UnaryOps, NumbaResults) {
  EXPECT_EQ(type_unary(UnaryOpKind::Neg, S(K::Int32)).result.str(), "int64");
  EXPECT_EQ(type_unary(UnaryOpKind::Neg, S(K::UInt8)).result.str(), "uint64");
  EXPECT_EQ(type_unary(UnaryOpKind::Neg, S(K::Bool)).result.str(), "int64");
  EXPECT_EQ(type_unary(UnaryOpKind::Neg, S(K::Float32)).result.str(), "float32");
  EXPECT_EQ(type_unary(UnaryOpKind::Invert, S(K::Bool)).result.str(), "bool");  // numba follows NumPy here
  EXPECT_EQ(type_unary(UnaryOpKind::Invert, S(K::Int16)).result.str(), "int64");
  EXPECT_EQ(type_unary(UnaryOpKind::Invert, S(K::Float64)).error, "bad operand type for unary ~: 'float64'");
  EXPECT_EQ(type_unary(UnaryOpKind::Not, S(K::Float32)).result.str(), "bool");
  EXPECT_EQ(type_unary(UnaryOpKind::Not, Type::array_of(K::Float32, 1, Layout::C)).error,
            "'float32[::1]' has no truth value; 'not' needs a number or a bool");
}

TEST(Conversions, ImplicitConversions) {
  Type f32a = Type::array_of(K::Float32, 1, Layout::Any), f32c = Type::array_of(K::Float32, 1, Layout::C);
  EXPECT_TRUE(can_convert(S(K::Float64), S(K::Float32)));  // storing float64 into a float32 element casts
  EXPECT_TRUE(can_convert(S(K::Bool), S(K::Float32)));
  EXPECT_FALSE(can_convert(f32a, S(K::Float32)));  // an array is never a scalar
  EXPECT_FALSE(can_convert(S(K::Float32), f32a));
  EXPECT_TRUE(can_convert(f32c, f32a));
  EXPECT_FALSE(can_convert(f32a, f32c));
  EXPECT_TRUE(can_convert(Type::tuple_of({S(K::Int32)}), Type::tuple_of({S(K::Int64)})));
  EXPECT_FALSE(can_convert(Type::tuple_of({S(K::Int32)}), Type::tuple_of({S(K::Int64), S(K::Int64)})));
  EXPECT_TRUE(has_truth_value(S(K::Float32)));
  EXPECT_FALSE(has_truth_value(Type::tuple_of({})));
}

TEST(MathFloatKind, NumbaCudaMathCases) {
  ConstValue two = ConstValue::of_float(2.0);
  EXPECT_EQ(math_float_kind({Operand{S(K::Float32)}}), K::Float32);
  EXPECT_EQ(math_float_kind({Operand{S(K::Int64)}}), K::Float64);  // ints compute in float64
  EXPECT_EQ(math_float_kind({Operand{S(K::Int32)}}), K::Float64);
  EXPECT_EQ(math_float_kind({Operand{S(K::Float32)}, Operand{S(K::Float64), &two}}), K::Float64);
  EXPECT_EQ(math_float_kind({Operand{S(K::Float32)}, Operand{S(K::Int32)}}), K::Float64);
  EXPECT_EQ(math_float_kind({Operand{S(K::Float32)}, Operand{S(K::Int16)}}), K::Float32);
  EXPECT_EQ(common_numeric_type({Operand{S(K::Float32)}, Operand{S(K::Float64), &two}}).str(), "float64");
  EXPECT_EQ(common_numeric_type({Operand{S(K::Int32)}, Operand{S(K::Int32)}}).str(), "int32");
}

std::string fold(BinOpKind op, ConstValue a, ConstValue b) {
  std::optional<ConstValue> r = fold_binary(op, a, b);
  return r ? r->str() + ":" + r->type().str() : "nullopt";
}

TEST(ConstEval, PythonSemantics) {
  using C = ConstValue;
  EXPECT_EQ(fold(BinOpKind::FloorDiv, C::of_int(-7), C::of_int(2)), "-4:int64");
  EXPECT_EQ(fold(BinOpKind::Mod, C::of_int(-7), C::of_int(2)), "1:int64");
  EXPECT_EQ(fold(BinOpKind::Mod, C::of_int(7), C::of_int(-3)), "-2:int64");
  EXPECT_EQ(fold(BinOpKind::Mod, C::of_float(-7.5), C::of_float(2.0)), "0.5:float64");
  EXPECT_EQ(fold(BinOpKind::FloorDiv, C::of_float(-7.5), C::of_float(2.0)), "-4.0:float64");
  EXPECT_EQ(fold(BinOpKind::Div, C::of_int(1), C::of_int(4)), "0.25:float64");
  EXPECT_EQ(fold(BinOpKind::Pow, C::of_int(2), C::of_int(10)), "1024:int64");
  EXPECT_EQ(fold(BinOpKind::Pow, C::of_int(2), C::of_int(-1)), "nullopt");
  EXPECT_EQ(fold(BinOpKind::FloorDiv, C::of_int(1), C::of_int(0)), "nullopt");
  EXPECT_EQ(fold(BinOpKind::LShift, C::of_int(1), C::of_int(64)), "nullopt");
  EXPECT_EQ(fold(BinOpKind::RShift, C::of_int(-8), C::of_int(1)), "-4:int64");
  EXPECT_EQ(fold(BinOpKind::Add, C::of_int(INT64_MAX), C::of_int(1)), "-9223372036854775808:int64");  // wraps
  EXPECT_EQ(fold(BinOpKind::BitAnd, C::of_bool(true), C::of_bool(false)), "False:bool");
  EXPECT_EQ(
      fold(BinOpKind::Mul, C::of_float(0.1, ScalarKind::Float32), C::of_float(3.0, ScalarKind::Float32)),
      "0.30000001192092896:float32");
  EXPECT_EQ(fold_unary(UnaryOpKind::Neg, C::of_int(5))->str(), "-5");
  EXPECT_EQ(fold_unary(UnaryOpKind::Invert, C::of_bool(true))->str(), "False");
  EXPECT_EQ(fold_cast(C::of_float(-2.7), ScalarKind::Int32)->str(), "-2");
  EXPECT_EQ(fold_cast(C::of_int(300), ScalarKind::UInt8)->str(), "44");
  EXPECT_EQ(fold_cast(C::of_int(-1), ScalarKind::UInt32)->str(), "4294967295");
  EXPECT_FALSE(fold_cast(C::of_float(1e30), ScalarKind::Int64).has_value());
  EXPECT_EQ(fold_compare(CmpOpKind::Lt, C::of_int(-1), C::of_float(0.5))->str(), "True");
}

}  // namespace
TEST(Unify, Index32ArraysMeetAsTheGeneralArray) {
  const Type narrow = Type::array_of(ScalarKind::Float32, 2, Layout::C, true);
  const Type wide = Type::array_of(ScalarKind::Float32, 2, Layout::C);
  EXPECT_EQ(unify(narrow, narrow), narrow);
  EXPECT_EQ(unify(narrow, wide), wide);  // same layout kept, index32 only if both have it
  EXPECT_EQ(unify(narrow, Type::array_of(ScalarKind::Float32, 2, Layout::Any, true)),
            Type::array_of(ScalarKind::Float32, 2, Layout::Any, true));
  EXPECT_TRUE(can_convert(narrow, wide));
  EXPECT_FALSE(can_convert(wide, narrow));
  // Users see numba's spelling; specializations are told apart by key().
  EXPECT_EQ(narrow.str(), wide.str());
  EXPECT_NE(narrow.key(), wide.key());
  EXPECT_EQ(wide.key(), wide.str());
  EXPECT_NE((Signature{Type::void_(), {narrow}}.key()), (Signature{Type::void_(), {wide}}.key()));
}

}  // namespace gpujit
