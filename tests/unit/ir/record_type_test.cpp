// Record types (ir/record_type.h): interning, numba's spelling and its parser, layout checks, and the launch
// path's record codes (runtime/kernel_args.h).
#include <gtest/gtest.h>

#include "ir/record_type.h"
#include "ir/type_rules.h"

namespace gpujit {
namespace {

const RecordType* make(std::vector<RecordField> fields, uint64_t size, unsigned align, bool aligned) {
  std::string error;
  const RecordType* r = intern_record(std::move(fields), size, align, aligned, &error);
  EXPECT_NE(r, nullptr) << error;
  return r;
}

RecordField field(const char* name, ScalarKind k, uint64_t offset, std::vector<int64_t> shape = {}) {
  return RecordField{name, Type::scalar_of(k), std::move(shape), offset};
}

TEST(RecordType, EqualLayoutsAreOneTypeAndAnyDifferenceIsAnother) {
  const RecordType* a = make({field("x", ScalarKind::Int8, 0), field("y", ScalarKind::Int32, 4)}, 8, 4, true);
  const RecordType* same =
      make({field("x", ScalarKind::Int8, 0), field("y", ScalarKind::Int32, 4)}, 8, 4, true);
  const RecordType* packed =
      make({field("x", ScalarKind::Int8, 0), field("y", ScalarKind::Int32, 1)}, 5, 1, false);
  const RecordType* renamed =
      make({field("x", ScalarKind::Int8, 0), field("z", ScalarKind::Int32, 4)}, 8, 4, true);
  const RecordType* retyped =
      make({field("x", ScalarKind::UInt8, 0), field("y", ScalarKind::Int32, 4)}, 8, 4, true);
  EXPECT_EQ(a, same);
  EXPECT_NE(a, packed);
  EXPECT_NE(a, renamed);
  EXPECT_NE(a, retyped);
  EXPECT_EQ(Type::record_of(a), Type::record_of(same));
  EXPECT_NE(Type::record_of(a), Type::record_of(packed));
  EXPECT_EQ(record_by_id(a->id), a);
  EXPECT_TRUE(can_convert(Type::record_of(a), Type::record_of(a)));
  EXPECT_FALSE(can_convert(Type::record_of(a), Type::record_of(packed)));
  EXPECT_FALSE(can_convert(Type::scalar_of(ScalarKind::Int32), Type::record_of(a)));
}

TEST(RecordType, SpellingIsNumbasAndParsesBack) {
  const RecordType* inner =
      make({field("u", ScalarKind::Int16, 0), field("v", ScalarKind::Float32, 4)}, 8, 4, true);
  const RecordType* outer =
      make({field("id", ScalarKind::Int64, 0), RecordField{"in", Type::record_of(inner), {}, 8},
            field("grid", ScalarKind::Float32, 16, {3, 2}), field("d", ScalarKind::UInt8, 40, {5})},
           48, 8, true);
  EXPECT_EQ(
      outer->spelling,
      "Record(id[type=int64;offset=0],in[type=Record(u[type=int16;offset=0],v[type=float32;offset=4];8;True);"
      "offset=8],grid[type=nestedarray(float32, (3, 2));offset=16],d[type=nestedarray(uint8, "
      "(5,));offset=40];"
      "48;True)");
  std::string error;
  Type t = parse_type(outer->spelling + "[:, ::1]", &error);
  ASSERT_TRUE(t.is_array()) << error;
  EXPECT_EQ(t.record, outer);
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.layout, Layout::C);
  EXPECT_EQ(t.itemsize(), 48u);
  EXPECT_EQ(t.element_align(), 8u);
  EXPECT_EQ(parse_type(t.str(), &error), t);
  Type sub = outer->find("grid")->value_type();
  EXPECT_EQ(sub, Type::array_of(Type::scalar_of(ScalarKind::Float32), 2, Layout::C, true));
  EXPECT_EQ(outer->field_names(), "'id', 'in', 'grid', 'd'");
}

TEST(RecordType, KeysTellApartWhatTheSpellingDoesNot) {
  const RecordType* one = make({field("x", ScalarKind::Int8, 0)}, 2, 1, false);
  const RecordType* two = make({field("x", ScalarKind::Int8, 0)}, 2, 2, false);
  ASSERT_NE(one, two);
  EXPECT_EQ(Type::record_of(one).str(), Type::record_of(two).str());
  EXPECT_NE(Type::record_of(one).key(), Type::record_of(two).key());
  Signature a{Type::void_(), {Type::array_of(Type::record_of(one), 1, Layout::C)}};
  Signature b{Type::void_(), {Type::array_of(Type::record_of(two), 1, Layout::C)}};
  EXPECT_NE(a.key(), b.key());
  EXPECT_EQ(a.key(), a.str() + "<align:1>");
}

TEST(RecordType, StringFieldsAreSpelledAsNumbasAndNamedByTheRecord) {
  RecordField name = field("name", ScalarKind::UInt32, 0, {5});
  name.text = true;
  RecordField tags = field("tags", ScalarKind::UInt8, 20, {2, 3});
  tags.text = true;
  const RecordType* text = make({name, tags, field("n", ScalarKind::Int32, 28)}, 32, 4, true);
  EXPECT_EQ(text->spelling,
            "Record(name[type=[unichr x 5];offset=0],tags[type=nestedarray([char x 3], (2,));offset=20],"
            "n[type=int32;offset=28];32;True)");
  EXPECT_EQ(text->text_field, "name");
  // The same bytes as numbers are another type.
  const RecordType* numbers = make(
      {field("name", ScalarKind::UInt32, 0, {5}), field("tags", ScalarKind::UInt8, 20, {2, 3}),
       field("n", ScalarKind::Int32, 28)},
      32, 4, true);
  EXPECT_NE(text, numbers);
  EXPECT_EQ(numbers->text_field, "");
  const RecordType* outer =
      make({field("id", ScalarKind::Int64, 0), RecordField{"in", Type::record_of(text), {}, 8}}, 40, 8, true);
  EXPECT_EQ(outer->text_field, "in.name");
  std::string error;
  RecordField bad = field("s", ScalarKind::Float32, 0, {2});
  bad.text = true;
  EXPECT_EQ(intern_record({bad}, 8, 4, false, &error), nullptr);
  EXPECT_EQ(error, "string field 's' must have uint8 or uint32 characters and a length");
}

TEST(RecordType, BadLayoutsAreRefused) {
  std::string error;
  EXPECT_EQ(intern_record({field("x", ScalarKind::Int64, 4)}, 8, 8, true, &error), nullptr);
  EXPECT_EQ(error, "record field 'x' ends at byte 12, past the itemsize 8");
  EXPECT_EQ(
      intern_record({field("x", ScalarKind::Int8, 0), field("x", ScalarKind::Int8, 1)}, 2, 1, false, &error),
      nullptr);
  EXPECT_EQ(error, "record field 'x' appears twice");
  EXPECT_EQ(intern_record({field("x", ScalarKind::Int8, 0)}, 1, 3, false, &error), nullptr);
  EXPECT_EQ(error, "record alignment 3 is not a power of two");
  EXPECT_FALSE(parse_type("Record(x[type=int8;offset=0];1;Maybe)", &error).is_valid());
  EXPECT_NE(error.find("expected True or False"), std::string::npos) << error;
}

}  // namespace
}  // namespace gpujit
