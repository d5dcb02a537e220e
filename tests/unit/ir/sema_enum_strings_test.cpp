// Enum members (ir/enum_type.h) and fixed-width strings (ir/charseq.h) in semantic analysis: their types, the
// interning of enum classes, constant folding, and the exact message and line:col of each wrong use.
#include <map>

#include "ir/charseq.h"
#include "ir/enum_type.h"
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

// Lines 1-3 are the imports, line 4 is blank; kernels in these tests start on line 5.
const char* kHeader = "import math\nimport numpy as np\nfrom numba import cuda\n";

int color_identity, shape_identity;

const EnumType& color() {
  EnumDescription d;
  d.name = "Color";
  d.module = "palette";
  d.members = {
      {"red", ConstValue::of_int(1)}, {"green", ConstValue::of_int(2)}, {"crimson", ConstValue::of_int(1)}};
  d.identity = &color_identity;
  std::string error;
  const EnumType* e = intern_enum(d, &error);
  EXPECT_TRUE(e) << error;
  return *e;
}

const EnumType& shape() {
  EnumDescription d;
  d.name = "Shape";
  d.module = "palette";
  d.is_int = true;
  d.members = {{"circle", ConstValue::of_int(2)}, {"square", ConstValue::of_int(500)}};
  d.identity = &shape_identity;
  std::string error;
  const EnumType* e = intern_enum(d, &error);
  EXPECT_TRUE(e) << error;
  return *e;
}

GlobalValue class_global(const EnumType& e) {
  return GlobalValue::of_constants(std::map<std::string, ConstValue>(e.members.begin(), e.members.end()));
}

/// Analyses kernel `k` of `body` with the classes Color and Shape as globals, for argument types `params`.
Analyzed run(const std::string& body, std::vector<Type> params) {
  Analyzed a;
  a.module = parse_module(std::make_shared<SourceFile>("kernel.py", std::string(kHeader) + body));
  EXPECT_FALSE(a.module->errors.has_errors()) << a.module->errors.render();
  a.globals = globals_from_module(*a.module, a.diags);
  a.globals["Color"] = class_global(color());
  a.globals["Shape"] = class_global(shape());
  a.program = analyze(*a.module->find_function("k"), params, a.globals, a.diags);
  return a;
}

Type array(ScalarKind k) { return Type::array_of(k, 1, Layout::Any); }

TEST(EnumTypes, OneTypePerClassObjectSpelledAsNumba) {
  const EnumType& c = color();
  EXPECT_EQ(&c, &color());  // the same class object: the same type
  EXPECT_EQ(c.member_type().str(), "EnumMember(<enum 'Color'>, int64)");
  EXPECT_EQ(c.member_type().kind, Type::Kind::EnumMember);
  EXPECT_EQ(shape().member_type().str(), "IntEnumMember(<enum 'Shape'>, int64)");
  EXPECT_TRUE(shape().member_type().is_integer());
  EXPECT_NE(shape().member_type(), Type::scalar_of(ScalarKind::Int64));  // `is` tells them apart
  EXPECT_EQ(c.find("crimson")->str(), "Color.red");                      // an alias is its member
  EXPECT_EQ(c.key, "palette.Color");

  int other;  // another class object of the same module and name: another type, keyed apart
  EnumDescription d;
  d.name = "Color";
  d.module = "palette";
  d.members = {{"red", ConstValue::of_int(1)}};
  d.identity = &other;
  const EnumType* again = intern_enum(d, nullptr);
  ASSERT_TRUE(again);
  EXPECT_NE(again, &c);
  EXPECT_EQ(again->key, "palette.Color#1");
  EXPECT_NE(again->member_type().key(), c.member_type().key());
}

TEST(EnumTypes, MembersOfOneValueTypeOnly) {
  int id1, id2;
  EnumDescription mixed;
  mixed.name = "Mixed";
  mixed.members = {{"one", ConstValue::of_int(1)}, {"half", ConstValue::of_float(0.5)}};
  mixed.identity = &id1;
  std::string error;
  EXPECT_FALSE(intern_enum(mixed, &error));
  EXPECT_EQ(error,
            "the members of Enum 'Mixed' have values of different types (int64 for 'one', float64 for "
            "'half'); kernels, as numba, need one type for all of them");
  EnumDescription named;
  named.name = "Named";
  named.members = {{"a", ConstValue::of_string("apple", false)}};
  named.identity = &id2;
  EXPECT_FALSE(intern_enum(named, &error));
  EXPECT_EQ(error,
            "the value 'apple' of member 'a' of Enum 'Named' is not a number, a bool or a tuple of them; "
            "kernels hold an Enum member as its value");
}

TEST(EnumSema, MembersAreTypedByTheirClassAndFold) {
  Analyzed a = run(R"(
def k(c, s, out):
    x = Color.red
    v = c.value
    t = s + 1
    out[0] = Color.red == Color["crimson"]
    out[1] = c is Shape.circle
)",
                   {color().member_type(), shape().member_type(), array(ScalarKind::Bool)});
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "x"), "EnumMember(<enum 'Color'>, int64)");
  EXPECT_EQ(local_type(a, "v"), "int64");
  EXPECT_EQ(local_type(a, "t"), "int64");  // an IntEnum member's arithmetic gives a plain int
  // Color.red == Color["crimson"] folds to True; `c is Shape.circle` is decided by the classes, not folded.
  int folded = 0;
  for (const auto& [expr, value] : a.kernel().constants)
    folded += expr->kind == ExprKind::Compare && value.kind == ConstValue::Kind::Bool && value.i == 1;
  EXPECT_EQ(folded, 1);
}

TEST(EnumSema, WrongUsesAreErrorsAtTheirPlace) {
  const std::vector<Type> params{color().member_type(), array(ScalarKind::Int64)};
  EXPECT_EQ(
      only_error_of(run("\ndef k(c, out):\n    out[0] = c < Color.green\n", params)),
      "6:14: '<' not supported between instances of 'Color' and 'Color'; Enum members compare with == and "
      "!= only (or order their .value) ('c' is an argument)");
  EXPECT_EQ(
      only_error_of(run("\ndef k(c, out):\n    out[0] = c.name\n", params)),
      "6:16: '.name' of an Enum member is a string, which kernels do not hold; compare the member itself "
      "('c == Color.red') ('c' is an argument)");
  EXPECT_EQ(
      only_error_of(run("\ndef k(c, out):\n    out[0] = c + 1\n", params)),
      "6:16: unsupported operand types for +: 'EnumMember(<enum 'Color'>, int64)' and 'int64' ('c' is an "
      "argument)");
  EXPECT_EQ(
      only_error_of(run("\ndef k(c, out):\n    out[0] = c\n", params)),
      "6:14: cannot store a value of type EnumMember(<enum 'Color'>, int64) into an element of type int64");
}

TEST(CharSeqSema, LiteralsAreStringsOfTheirOwnLength) {
  Analyzed a = analyze_source(std::string(kHeader) + R"(
def k(out):
    s = "héllo"
    b = b"ab\x00"
    n = len(s)
    t = s if n > 2 else "x"
    out[0] = n
)",
                              "k", "int64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "s"), "[unichr x 5]");
  EXPECT_EQ(local_type(a, "b"), "[char x 3]");
  EXPECT_EQ(local_type(a, "t"), "[unichr x 5]");  // two strings unify to the longer
  EXPECT_EQ(code_units(ConstValue::of_string("hé", false)), (std::vector<uint32_t>{'h', 0xE9}));
  EXPECT_EQ(constant_length(ConstValue::of_string("日本", false)), 2);
}

TEST(CharSeqSema, WrongUsesAreErrorsAtTheirPlace) {
  auto error = [](const std::string& body, const std::string& sig) {
    return only_error_of(analyze_source(std::string(kHeader) + body, "k", sig));
  };
  EXPECT_EQ(error("\ndef k(a):\n    a[0] = \"abc\"\n", "float32[:]"),
            "6:12: cannot store a string ([unichr x 3]) into an element of type float32");
  EXPECT_EQ(error("\ndef k(a):\n    a[0] = \"abc\" < \"abd\"\n", "bool[:]"),
            "6:12: strings are compared with '==' and '!=' in kernels, not '<'");
  EXPECT_EQ(
      error("\ndef k(a):\n    a[0] = b\"abc\" == \"abc\"\n", "bool[:]"),
      "6:12: cannot compare a bytes ([char x 3]) with a str ([unichr x 3]); compare str with str and bytes "
      "with bytes");
  EXPECT_EQ(error("\ndef k(a):\n    a[0] = \"abc\" is \"abc\"\n", "bool[:]"),
            "6:12: 'is' is not supported for strings; compare them with '==' or '!='");
  EXPECT_EQ(error("\ndef k(a):\n    a[0] = \"abc\" + 1\n", "bool[:]"),
            "6:18: unsupported operand types for +: '[unichr x 3]' and 'int64'");
}

}  // namespace
}  // namespace gpujit::test
