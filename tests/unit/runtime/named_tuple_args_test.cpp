// The launch path's codes for namedtuple instances (a header with the class's id, then the tuple's codes),
// the id packed into the header, and numba's spelling and the cache key of a namedtuple type.
#include <gtest/gtest.h>

#include <vector>

#include "ir/named_tuple.h"
#include "runtime/kernel_args.h"

namespace gpujit::rt {
namespace {

int point_identity, point3_identity, other_point_identity, pair_identity;

const NamedTupleType& named(const char* name, std::vector<std::string> fields, const void* identity) {
  NamedTupleDescription d;
  d.name = name;
  d.qualname = name;
  d.module = "geometry";
  d.fields = std::move(fields);
  d.identity = identity;
  return *intern_named_tuple(d, nullptr);
}

const Type kI64 = Type::scalar_of(ScalarKind::Int64), kF64 = Type::scalar_of(ScalarKind::Float64);

TEST(NamedTupleArgs, AHeaderThenTheTuplesCodesRoundTrip) {
  const NamedTupleType& point = named("Point", {"x", "y", "r"}, &point3_identity);
  const Type t = named_tuple_of(&point, {kI64, kI64, kF64});
  std::vector<ArgCode> key;
  ASSERT_TRUE(append_codes(t, &key));
  ASSERT_EQ(key.size(), 5u);  // the class, the tuple's header, three elements
  EXPECT_TRUE(is_named_tuple_code(key[0]));
  EXPECT_TRUE(is_header_code(key[0]));
  EXPECT_EQ(named_tuple_id(key[0]), point.id);
  std::vector<ArgCode> plain;
  ASSERT_TRUE(append_codes(Type::tuple_of(t.elements), &plain));
  EXPECT_EQ(std::vector<ArgCode>(key.begin() + 1, key.end()), plain);
  std::vector<Type> back = types_of_key(key.data(), key.size());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], t);
  EXPECT_EQ(back[0].named, &point);
  EXPECT_NE(back[0], Type::tuple_of(t.elements));  // the class is part of the type
  EXPECT_EQ(type_of_code(key[0]), Type::invalid());
}

TEST(NamedTupleArgs, AHeaderWhoseTupleDoesNotFitTheClassDecodesInvalid) {
  const NamedTupleType& point = named("Point", {"x", "y", "r"}, &point3_identity);
  std::vector<ArgCode> key = {named_tuple_code(point.id), tuple_code(1), scalar_code(ScalarKind::Int64)};
  EXPECT_FALSE(types_of_key(key.data(), key.size())[0].is_valid());
  key = {named_tuple_code(kMaxNamedTupleTypes), tuple_code(0)};  // no class has that id (yet)
  EXPECT_FALSE(types_of_key(key.data(), key.size())[0].is_valid());
}

TEST(NamedTupleArgs, EveryIdPacksIntoACodeNoOtherKindHas) {
  for (unsigned id = 1; id <= kMaxNamedTupleTypes; ++id) {
    ArgCode code = named_tuple_code(id);
    ASSERT_EQ(named_tuple_id(code), id);
    ASSERT_TRUE(is_named_tuple_code(code));
    ASSERT_FALSE(is_tuple_code(code) || is_enum_code(code) || is_record_code(code) || is_pointer_code(code));
  }
  for (unsigned k = 0; k <= unsigned(ScalarKind::Fp8E8M0); ++k) {
    EXPECT_FALSE(is_named_tuple_code(scalar_code(ScalarKind(k))));
    EXPECT_FALSE(is_named_tuple_code(pointer_code(ScalarKind(k))));
    EXPECT_FALSE(is_named_tuple_code(array_code(ScalarKind(k), 15, Layout::C, true)));
  }
}

TEST(NamedTupleType, NumbasSpellingAndKeysTellClassesOfOneNameApart) {
  const NamedTupleType& point = named("Point", {"x", "y"}, &point_identity);
  const NamedTupleType& other = named("Point", {"x", "y"}, &other_point_identity);  // made anew, same name
  const NamedTupleType& pair = named("Pair", {"a", "b"}, &pair_identity);
  EXPECT_EQ(named_tuple_of(&point, {kI64, kI64}).str(), "Point(int64 x 2)");
  EXPECT_EQ(named_tuple_of(&point, {kI64, kF64}).str(), "Point(int64, float64)");
  EXPECT_EQ(named_tuple_of(&pair, {}).str(), "Pair()");
  Type a = named_tuple_of(&point, {kI64, kI64}), b = named_tuple_of(&other, {kI64, kI64});
  EXPECT_NE(a, b);
  EXPECT_EQ(a.str(), b.str());
  EXPECT_NE(a.key(), b.key());
  EXPECT_NE(a.key(), named_tuple_of(&pair, {kI64, kI64}).key());
  EXPECT_EQ(point.find("y"), 1u);
  EXPECT_FALSE(point.find("z"));
  EXPECT_EQ(point.field_list(), "'x', 'y'");
}

}  // namespace
}  // namespace gpujit::rt
