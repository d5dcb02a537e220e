// The launch path's codes for Enum members (a header with the class's id, then the value's codes) and arrays of
// fixed-width strings (their string dtype's record id), and the parameters each is passed as.
#include <gtest/gtest.h>

#include <vector>

#include "ir/enum_type.h"
#include "ir/record_type.h"
#include "runtime/kernel_args.h"

namespace gpujit::rt {
namespace {

int planet_identity, level_identity;

const EnumType& planet() {
  EnumDescription d;
  d.name = "Planet";
  d.module = "sky";
  d.members = {{"EARTH", ConstValue::of_tuple({ConstValue::of_float(5.976e24), ConstValue::of_float(6.37e6)})},
               {"MARS", ConstValue::of_tuple({ConstValue::of_float(6.421e23), ConstValue::of_float(3.39e6)})}};
  d.identity = &planet_identity;
  return *intern_enum(d, nullptr);
}

const EnumType& level() {
  EnumDescription d;
  d.name = "Level";
  d.module = "sky";
  d.is_int = true;
  d.members = {{"low", ConstValue::of_int(1)}, {"high", ConstValue::of_int(9)}};
  d.identity = &level_identity;
  return *intern_enum(d, nullptr);
}

TEST(EnumArgs, AHeaderThenTheValuesCodesRoundTrip) {
  for (const EnumType* e : {&planet(), &level()}) {
    const Type t = e->member_type();
    std::vector<ArgCode> key;
    ASSERT_TRUE(append_codes(t, &key));
    ASSERT_FALSE(key.empty());
    EXPECT_TRUE(is_enum_code(key[0]));
    EXPECT_FALSE(is_record_code(key[0]));
    EXPECT_FALSE(is_tuple_code(key[0]));
    EXPECT_EQ(key[0] >> 8, e->id);
    std::vector<ArgCode> value;
    ASSERT_TRUE(append_codes(e->value_type, &value));
    EXPECT_EQ(std::vector<ArgCode>(key.begin() + 1, key.end()), value);
    std::vector<Type> back = types_of_key(key.data(), key.size());
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0], t);
    EXPECT_EQ(code_of_type(t), kArgInvalid);  // several codes: append_codes only
  }
  // An IntEnum member is not its int: the two keys differ.
  std::vector<ArgCode> member, plain;
  append_codes(level().member_type(), &member);
  append_codes(Type::scalar_of(ScalarKind::Int64), &plain);
  EXPECT_NE(member, plain);
}

TEST(EnumArgs, PassedAsTheirValues) {
  std::vector<unsigned> sizes;
  append_param_sizes(planet().member_type(), &sizes);
  EXPECT_EQ(sizes, (std::vector<unsigned>{8, 8}));
  sizes.clear();
  append_param_sizes(level().member_type(), &sizes);
  EXPECT_EQ(sizes, (std::vector<unsigned>{8}));
}

TEST(StringArrayArgs, KeyedByTheirStringDtype) {
  const RecordType* s12 = intern_string_dtype(ScalarKind::UInt8, 12, nullptr);
  const RecordType* u12 = intern_string_dtype(ScalarKind::UInt32, 12, nullptr);
  ASSERT_TRUE(s12 && u12);
  EXPECT_EQ(s12, intern_string_dtype(ScalarKind::UInt8, 12, nullptr));
  EXPECT_NE(s12, u12);
  EXPECT_EQ((std::vector<uint64_t>{s12->size, u12->size}), (std::vector<uint64_t>{12, 48}));
  Type array = Type::array_of(Type::charseq_of(ScalarKind::UInt32, 12), 1, Layout::C);
  EXPECT_EQ(array.record, u12);
  EXPECT_EQ(array.str(), "[unichr x 12][::1]");
  EXPECT_EQ(array.element(), Type::charseq_of(ScalarKind::UInt32, 12));
  EXPECT_EQ(array.itemsize(), 48u);
  ArgCode code = code_of_type(array);
  EXPECT_TRUE(is_record_code(code));
  EXPECT_EQ(type_of_code(code), array);
}

}  // namespace
}  // namespace gpujit::rt
