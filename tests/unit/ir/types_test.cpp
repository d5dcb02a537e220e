// Scalar names, Type::str() in numba's spelling, parse_type and parse_signature (ir/types.h).
#include <gtest/gtest.h>

#include "ir/types.h"

namespace gpujit {
namespace {

Type parse_ok(const std::string& text) {
  std::string err;
  Type t = parse_type(text, &err);
  EXPECT_TRUE(t.is_valid()) << text << ": " << err;
  return t;
}

std::string parse_error(const std::string& text) {
  std::string err;
  Type t = parse_type(text, &err);
  EXPECT_FALSE(t.is_valid()) << text;
  return err;
}

TEST(TypeParse, DtypeClasses) {
  // numba's NumberClass, the type of a dtype passed as an argument (typeof(np.int32)).
  Type t = parse_ok("class(int32)");
  EXPECT_TRUE(t.is_class());
  EXPECT_EQ(t, Type::class_of(ScalarKind::Int32));
  EXPECT_NE(t, Type::class_of(ScalarKind::Float64));
  EXPECT_NE(t, Type::scalar_of(ScalarKind::Int32));
  EXPECT_EQ(parse_ok("class( f8 )").str(), "class(float64)");
  EXPECT_EQ(parse_error("class(float32[:])"), "invalid type 'class(float32[:])': class(...) takes a number type "
                                              "(a dtype such as int32), not 'float32[:]' (column 7)");
  EXPECT_EQ(parse_error("class(int32"), "invalid type 'class(int32': expected ')', found end of text (column 12)");
}

TEST(TypeParse, OpaqueTypes) {
  // A library's opaque type (ir/opaque_type.h): interned by its spelling, one type per spelling.
  Type t = parse_ok("opaque(types_test_widget)");
  EXPECT_TRUE(t.is_opaque());
  EXPECT_EQ(t.str(), "opaque(types_test_widget)");
  EXPECT_EQ(t, parse_ok("opaque(types_test_widget)"));
  EXPECT_NE(t, parse_ok("opaque(types_test_widget#2)"));
  EXPECT_EQ(parse_ok("UniTuple(opaque(types_test_widget), 2)").elements[1], t);
  EXPECT_EQ(parse_error("opaque(types_test_widget"),
            "invalid type 'opaque(types_test_widget': opaque(...) is missing its ')' (column 8)");
  EXPECT_EQ(parse_error("opaque()"), "invalid type 'opaque()': opaque(...) needs the type's name (column 8)");
}

TEST(ScalarNames, CanonicalNamesAndAliases) {
  EXPECT_STREQ(scalar_name(ScalarKind::Bool), "bool");
  EXPECT_STREQ(scalar_name(ScalarKind::UInt16), "uint16");
  EXPECT_STREQ(scalar_name(ScalarKind::Complex128), "complex128");
  struct Case {
    const char* name;
    ScalarKind kind;
  };
  for (const Case& c :
       {Case{"float32", ScalarKind::Float32}, Case{"f4", ScalarKind::Float32},
        Case{"single", ScalarKind::Float32}, Case{"float_", ScalarKind::Float32},
        Case{"double", ScalarKind::Float64}, Case{"f8", ScalarKind::Float64}, Case{"int_", ScalarKind::Int64},
        Case{"intp", ScalarKind::Int64}, Case{"intc", ScalarKind::Int32}, Case{"i2", ScalarKind::Int16},
        Case{"u1", ScalarKind::UInt8}, Case{"uintp", ScalarKind::UInt64}, Case{"boolean", ScalarKind::Bool},
        Case{"b1", ScalarKind::Bool}, Case{"bool_", ScalarKind::Bool}, Case{"half", ScalarKind::Float16},
        Case{"c8", ScalarKind::Complex64}}) {
    std::optional<ScalarKind> k = parse_scalar_name(c.name);
    ASSERT_TRUE(k.has_value()) << c.name;
    EXPECT_EQ(*k, c.kind) << c.name;
  }
  EXPECT_FALSE(parse_scalar_name("float").has_value());
  EXPECT_FALSE(parse_scalar_name("flaot32").has_value());
}

TEST(ScalarNames, SizesAndPredicates) {
  EXPECT_EQ(scalar_size(ScalarKind::Bool), 1u);
  EXPECT_EQ(scalar_size(ScalarKind::Int16), 2u);
  EXPECT_EQ(scalar_size(ScalarKind::Float16), 2u);
  EXPECT_EQ(scalar_size(ScalarKind::UInt64), 8u);
  EXPECT_EQ(scalar_size(ScalarKind::Complex128), 16u);
  EXPECT_TRUE(is_integer(ScalarKind::UInt8));
  EXPECT_FALSE(is_integer(ScalarKind::Bool));
  EXPECT_TRUE(is_signed(ScalarKind::Int64));
  EXPECT_FALSE(is_signed(ScalarKind::UInt64));
  EXPECT_TRUE(is_unsigned(ScalarKind::UInt32));
  EXPECT_FALSE(is_unsigned(ScalarKind::Float32));
  EXPECT_TRUE(is_float(ScalarKind::Float16));
  EXPECT_FALSE(is_float(ScalarKind::Complex64));
  EXPECT_TRUE(is_complex(ScalarKind::Complex64));
}

TEST(TypeStr, NumbaSpelling) {
  EXPECT_EQ(Type::scalar_of(ScalarKind::Float32).str(), "float32");
  EXPECT_EQ(Type::array_of(ScalarKind::Float32, 1, Layout::Any).str(), "float32[:]");
  EXPECT_EQ(Type::array_of(ScalarKind::Float32, 1, Layout::C).str(), "float32[::1]");
  EXPECT_EQ(Type::array_of(ScalarKind::Float32, 2, Layout::C).str(), "float32[:, ::1]");
  EXPECT_EQ(Type::array_of(ScalarKind::Int8, 3, Layout::Any).str(), "int8[:, :, :]");
  Type i64 = Type::scalar_of(ScalarKind::Int64);
  Type f32 = Type::scalar_of(ScalarKind::Float32);
  EXPECT_EQ(Type::tuple_of({i64, i64}).str(), "UniTuple(int64, 2)");
  EXPECT_EQ(Type::tuple_of({i64}).str(), "UniTuple(int64, 1)");
  EXPECT_EQ(Type::tuple_of({}).str(), "Tuple()");
  EXPECT_EQ(Type::tuple_of({i64, f32}).str(), "Tuple(int64, float32)");
  EXPECT_EQ(Type::tuple_of({Type::tuple_of({i64, f32}), Type::tuple_of({i64, f32})}).str(),
            "UniTuple(Tuple(int64, float32), 2)");
  EXPECT_EQ(Type::void_().str(), "void");
  EXPECT_EQ(Type::none().str(), "none");
}

TEST(TypeEquality, ComparesTheFieldsOfItsKind) {
  EXPECT_EQ(Type::array_of(ScalarKind::Float32, 2, Layout::C),
            Type::array_of(ScalarKind::Float32, 2, Layout::C));
  EXPECT_NE(Type::array_of(ScalarKind::Float32, 2, Layout::C),
            Type::array_of(ScalarKind::Float32, 2, Layout::Any));
  EXPECT_NE(Type::array_of(ScalarKind::Float32, 1, Layout::C),
            Type::array_of(ScalarKind::Float64, 1, Layout::C));
  EXPECT_NE(Type::scalar_of(ScalarKind::Int32), Type::scalar_of(ScalarKind::Int64));
  EXPECT_EQ(Type::void_(), Type::void_());
  EXPECT_NE(Type::void_(), Type::none());
}

TEST(ParseType, RoundTripsEveryPrintedType) {
  for (const char* text : {"float32", "uint8", "bool", "float32[:]", "float32[::1]", "float64[:, ::1]",
                           "int16[:, :, :]", "UniTuple(int64, 2)", "UniTuple(int64, 1)", "Tuple()",
                           "Tuple(float32[:], Tuple(int32, bool))", "UniTuple(UniTuple(float32, 2), 3)",
                           "float32*", "uint8*", "int32[::1, :, :]", "float64[::1, :]", "void*"}) {
    EXPECT_EQ(parse_ok(text).str(), text);
  }
}

TEST(ParseType, AcceptsNumbaForms) {
  EXPECT_EQ(parse_ok("UniTuple(int64 x 3)").str(), "UniTuple(int64, 3)");
  EXPECT_EQ(parse_ok("Tuple(int64, int64)").str(), "UniTuple(int64, 2)");  // numba's Tuple() does the same
  EXPECT_EQ(parse_ok("(int64, float32)").str(), "Tuple(int64, float32)");
  EXPECT_EQ(parse_ok("(f4, (i8,))").str(), "Tuple(float32, UniTuple(int64, 1))");
  EXPECT_EQ(parse_ok("()").str(), "Tuple()");
  EXPECT_EQ(parse_ok("array(float32, 2d, C)").str(), "float32[:, ::1]");
  EXPECT_EQ(parse_ok("array(f8, 1d, A)").str(), "float64[:]");
  EXPECT_EQ(parse_ok("array(f8, 3d, F)").str(), "float64[::1, :, :]");
  EXPECT_EQ(parse_ok("int32[::1,:,:]").layout, Layout::F);  // numba's Fortran order
  EXPECT_EQ(parse_ok("int32[::1]").layout, Layout::C);      // one axis: C
  EXPECT_EQ(parse_ok("array(f8, 1d, F)").str(), "float64[::1]");
  EXPECT_EQ(parse_ok("  f4 [ : ,  ::1 ] ").str(), "float32[:, ::1]");
  EXPECT_EQ(parse_ok("void"), Type::void_());
  EXPECT_EQ(parse_ok("f4 *"), Type::pointer_to(ScalarKind::Float32));  // numba's CPointer(float32)
  EXPECT_NE(parse_ok("int32*"), Type::pointer_to(ScalarKind::UInt32));
  EXPECT_NE(parse_ok("int32*"), Type::scalar_of(ScalarKind::Int32));
  EXPECT_EQ(parse_ok("none *"), Type::void_pointer());  // numba's CPointer(void); voidptr prints "void*"
  EXPECT_NE(Type::void_pointer(), Type::pointer_to(ScalarKind::UInt8));
}

TEST(ParseType, ErrorsNameTheProblemAndColumn) {
  EXPECT_EQ(parse_error("flaot32[:]"),
            "invalid type 'flaot32[:]': unknown type 'flaot32'; did you mean 'float32'? (column 1)");
  EXPECT_EQ(parse_error("float32[:, ::1, :]"),
            "invalid type 'float32[:, ::1, :]': '::1' must be on the last axis (C order, '[:, :, ::1]') or the "
            "first (Fortran order, '[::1, :, :]') (column 12)");
  EXPECT_EQ(parse_error("float32[::1, ::1]"),
            "invalid type 'float32[::1, ::1]': '::1' may appear on one axis only: the last for C order "
            "('[:, ::1]') or the first for Fortran order ('[::1, :]') (column 14)");
  EXPECT_EQ(parse_error("array(f8, 2d, X)"), "invalid type 'array(f8, 2d, X)': expected array layout 'C', 'F' or 'A' "
                                             "(column 15)");
  EXPECT_EQ(parse_error("float32[:"),
            "invalid type 'float32[:': expected ',' or ']' in array type, found end of text (column 10)");
  EXPECT_EQ(parse_error("float32 int32"),
            "invalid type 'float32 int32': unexpected 'i' after the type (column 9)");
  EXPECT_EQ(parse_error("UniTuple(int64)"),
            "invalid type 'UniTuple(int64)': expected ',' and a count in UniTuple, found ')' (column 15)");
  EXPECT_EQ(parse_error(""), "invalid type '': expected a type, found end of text (column 1)");
}

// Found by fuzz_sema: numbers past the range of std::stoi/stoull threw out of the parser, a huge sub-array
// extent wrapped the record's size check around, and deeply nested tuples overflowed the stack.
TEST(ParseType, HugeNumbersAndDeepNestingAreErrors) {
  EXPECT_EQ(parse_error("UniTuple(int64, 99999999999999999999999)"),
            "invalid type 'UniTuple(int64, 99999999999999999999999)': tuples have at most 64 elements (column 17)");
  EXPECT_EQ(parse_error("UniTuple(int64, 65)"), "invalid type 'UniTuple(int64, 65)': tuples have at most 64 elements "
                                                "(column 17)");
  EXPECT_EQ(parse_error("array(float32, 4294967297d, C)"),
            "invalid type 'array(float32, 4294967297d, C)': arrays have between 1 and 32 dimensions (column 16)");
  const std::string big_offset = "Record(a[type=int64;offset=99999999999999999999];8;False)";
  EXPECT_EQ(parse_error(big_offset), "invalid type '" + big_offset +
                                         "': record offsets, sizes and extents are at most 2147483647 (column 28)");
  const std::string wrapping = "Record(a[type=nestedarray(int64, (2147483647, 2147483647, 2147483647));offset=0];8;False)";
  EXPECT_EQ(parse_error(wrapping), "invalid type '" + wrapping + "': record field 'a' is too large (column 84)");
  std::string deep = "int64";
  for (int i = 0; i < 2000; ++i) deep = "(" + deep + ",)";
  EXPECT_NE(parse_error(deep).find("types nested more than 32 deep are not supported"), std::string::npos);
  std::string ok = "int64";
  for (int i = 0; i < 31; ++i) ok = "UniTuple(" + ok + ", 1)";
  EXPECT_TRUE(parse_ok(ok).is_tuple());
}

TEST(ParseSignature, WithAndWithoutReturnType) {
  std::string err;
  std::optional<Signature> s = parse_signature("void(float32[:], float32)", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->ret, Type::void_());
  ASSERT_EQ(s->params.size(), 2u);
  EXPECT_EQ(s->str(), "void(float32[:], float32)");

  s = parse_signature("float32[:, ::1], int64", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->str(), "void(float32[:, ::1], int64)");

  s = parse_signature("UniTuple(int64, 2)(int64, f8)", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->str(), "UniTuple(int64, 2)(int64, float64)");

  // The printed signature reads back: tuples as numba writes them in signature strings.
  s = parse_signature("void(UniTuple(int64, 2), Tuple(int64, float32), UniTuple(int64 x 3))", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->str(), "void(UniTuple(int64, 2), Tuple(int64, float32), UniTuple(int64, 3))");
  EXPECT_EQ(parse_signature(s->str(), &err), s);

  s = parse_signature("float32()", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->str(), "float32()");
}

TEST(ParseSignature, OneTrailingCommaAsInPython) {
  std::string err;
  std::optional<Signature> s = parse_signature("void(int64,)", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->str(), "void(int64)");
  s = parse_signature("void(int64, float32 , )", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->str(), "void(int64, float32)");
  s = parse_signature("int64,", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->str(), "void(int64)");
  // Python takes no comma alone and no two in a row.
  EXPECT_FALSE(parse_signature("void(,)", &err));
  EXPECT_EQ(err, "invalid signature 'void(,)': expected a type, found ',' (column 6)");
  EXPECT_FALSE(parse_signature("void(int64,,)", &err));
  EXPECT_EQ(err, "invalid signature 'void(int64,,)': expected a type, found ',' (column 12)");
}

TEST(ParseSignature, Errors) {
  std::string err;
  EXPECT_FALSE(parse_signature("void(float32[:], flot32)", &err));
  EXPECT_EQ(err,
            "invalid signature 'void(float32[:], flot32)': unknown type 'flot32'; did you mean 'float32'? "
            "(column 18)");
  EXPECT_FALSE(parse_signature("void(float32 float32)", &err));
  EXPECT_EQ(err,
            "invalid signature 'void(float32 float32)': expected ',' or ')' in the argument list, found 'f' "
            "(column 14)");
  EXPECT_FALSE(parse_signature("void(int64) extra", &err));
  EXPECT_EQ(err, "invalid signature 'void(int64) extra': unexpected 'e' after the signature (column 13)");
  EXPECT_FALSE(parse_signature("int64, void", &err));
  EXPECT_EQ(err, "invalid signature 'int64, void': an argument cannot be void (column 1)");
}

}  // namespace
}  // namespace gpujit
