// Argument codes, parameter flattening, the specialization cache and array views.
#include "runtime/kernel_args.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ir/opaque_type.h"
#include "ir/record_type.h"
#include "runtime/device_array.h"
#include "runtime/kernel_cache.h"

namespace gpujit::rt {
namespace {

TEST(ArgCode, RoundTripsScalarAndArrayTypes) {
  for (Type t : {Type::scalar_of(ScalarKind::Float32), Type::scalar_of(ScalarKind::Bool),
                 Type::scalar_of(ScalarKind::Complex128), Type::array_of(ScalarKind::Int8, 1, Layout::C),
                 Type::array_of(ScalarKind::Float64, 8, Layout::Any), Type::array_of(ScalarKind::UInt16, 0, Layout::C),
                 Type::pointer_to(ScalarKind::Float16), Type::pointer_to(ScalarKind::UInt64), Type::void_pointer()}) {
    ArgCode code = code_of_type(t);
    ASSERT_NE(code, kArgInvalid) << t.str();
    EXPECT_EQ(type_of_code(code), t) << t.str();
  }
  EXPECT_EQ(code_of_type(Type::tuple_of({Type::scalar_of(ScalarKind::Int64)})), kArgInvalid);
  EXPECT_NE(array_code(ScalarKind::Float32, 2, Layout::C), array_code(ScalarKind::Float32, 2, Layout::Any));
  EXPECT_NE(pointer_code(ScalarKind::Int32), scalar_code(ScalarKind::Int32));
  EXPECT_TRUE(is_pointer_code(pointer_code(ScalarKind::Int32)));
  EXPECT_TRUE(is_pointer_code(void_pointer_code()));
  EXPECT_NE(void_pointer_code(), pointer_code(ScalarKind::UInt8));
  EXPECT_FALSE(is_pointer_code(scalar_code(ScalarKind::Complex128)));
}

TEST(ArgCode, DtypeClassesRoundTripAndPassNoParameter) {
  // numba's NumberClass (a dtype passed as an argument): a code of its own per dtype, never a pointer or a
  // namedtuple header, no parameter, and not inside a tuple.
  for (ScalarKind k : {ScalarKind::Int32, ScalarKind::Float64, ScalarKind::Bool, ScalarKind::TimedeltaNanos}) {
    Type t = Type::class_of(k);
    ArgCode code = code_of_type(t);
    ASSERT_NE(code, kArgInvalid) << t.str();
    EXPECT_TRUE(is_class_code(code));
    EXPECT_FALSE(is_pointer_code(code) || is_named_tuple_code(code) || is_header_code(code));
    EXPECT_EQ(type_of_code(code), t) << t.str();
    EXPECT_NE(code, scalar_code(k));
    EXPECT_NE(code, pointer_code(k));
    std::vector<unsigned> sizes;
    append_param_sizes(t, &sizes);
    EXPECT_TRUE(sizes.empty());
  }
  EXPECT_FALSE(is_class_code(pointer_code(ScalarKind::Int32)) || is_class_code(named_tuple_code(3)));
  std::vector<ArgCode> key;
  EXPECT_FALSE(append_codes(Type::tuple_of({Type::class_of(ScalarKind::Int32)}), &key));
  EXPECT_EQ(Type::class_of(ScalarKind::Int32).str(), "class(int32)");
}

TEST(ArgCode, OpaqueTypesRoundTripAndPassNoParameter) {
  // A library's opaque type (ir/opaque_type.h): a code per type, told apart from every dtype class's code, no
  // parameter, and not inside a tuple. The ids reach past 16 into the code's high bits.
  std::vector<ArgCode> codes;
  for (int i = 0; i < 20; ++i) {
    std::string error;
    const OpaqueType* o = intern_opaque("kernel_args_test_widget#" + std::to_string(i), &error);
    ASSERT_NE(o, nullptr) << error;
    Type t = Type::opaque_of(o);
    ArgCode code = code_of_type(t);
    ASSERT_NE(code, kArgInvalid) << t.str();
    EXPECT_TRUE(is_opaque_code(code));
    EXPECT_FALSE(is_class_code(code) || is_pointer_code(code) || is_named_tuple_code(code) ||
                 is_header_code(code));
    EXPECT_EQ(type_of_code(code), t) << t.str();
    std::vector<unsigned> sizes;
    append_param_sizes(t, &sizes);
    EXPECT_TRUE(sizes.empty());
    std::vector<ArgCode> key;
    EXPECT_FALSE(append_codes(Type::tuple_of({t}), &key));
    codes.push_back(code);
  }
  for (ScalarKind k : {ScalarKind::Int32, ScalarKind::Float64, ScalarKind::Bool, ScalarKind::TimedeltaNanos})
    EXPECT_FALSE(is_opaque_code(class_code(k)));
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(std::unique(codes.begin(), codes.end()), codes.end());
  std::string error;
  EXPECT_EQ(intern_opaque("kernel_args_test_widget#3", &error),
            intern_opaque("kernel_args_test_widget#3", &error));
  EXPECT_EQ(Type::opaque_of(intern_opaque("w", &error)).str(), "opaque(w)");
}

TEST(ArgCode, FortranOrderRoundTripsAndIsItsOwnKey) {
  // Bit 15 marks Fortran order; the kinds' high bits below it stay the kind's, for every kind.
  for (ScalarKind k : {ScalarKind::Int32, ScalarKind::Fp8E8M0, ScalarKind::TimedeltaGeneric}) {
    for (bool index32 : {false, true}) {
      Type f = Type::array_of(k, 3, Layout::F, index32);
      ArgCode code = code_of_type(f);
      EXPECT_EQ(type_of_code(code), f) << f.str();
      EXPECT_EQ(kind_of_code(code), k) << f.str();
      EXPECT_NE(code, array_code(k, 3, Layout::Any, index32));
      EXPECT_NE(code, array_code(k, 3, Layout::C, index32));
    }
  }
  EXPECT_EQ(Type::array_of(ScalarKind::Int32, 1, Layout::F).layout, Layout::C);  // one axis: C order
}

TEST(ArgCode, DatetimeKindsPastSixteenRoundTrip) {
  // datetime64 and timedelta64 have a kind per unit, past the 4 bits scalar kinds had: the rest of the kind
  // goes into the code's high bits, and no two units share a code.
  std::vector<ArgCode> codes;
  for (ScalarKind k : {ScalarKind::DatetimeYears, ScalarKind::DatetimeDays, ScalarKind::TimedeltaNanos,
                       ScalarKind::TimedeltaGeneric, ScalarKind::BFloat16, ScalarKind::Int64}) {
    for (Type t : {Type::scalar_of(k), Type::array_of(k, 3, Layout::C, true), Type::array_of(k, 15, Layout::Any)}) {
      ArgCode code = code_of_type(t);
      ASSERT_NE(code, kArgInvalid) << t.str();
      EXPECT_EQ(type_of_code(code), t) << t.str();
      EXPECT_EQ(kind_of_code(code), k) << t.str();
      EXPECT_EQ(std::count(codes.begin(), codes.end(), code), 0) << t.str();
      codes.push_back(code);
    }
  }
  EXPECT_FALSE(is_tuple_code(scalar_code(ScalarKind::TimedeltaGeneric)));
  EXPECT_FALSE(is_record_code(array_code(ScalarKind::TimedeltaGeneric, 2, Layout::C)));
}

TEST(ArgCode, TupleKeysRoundTripAndTellShapesApart) {
  const Type i64 = Type::scalar_of(ScalarKind::Int64), f64 = Type::scalar_of(ScalarKind::Float64);
  const std::vector<Type> args = {Type::array_of(ScalarKind::Float32, 1, Layout::C),
                                  Type::tuple_of({i64, Type::tuple_of({f64, Type::scalar_of(ScalarKind::Int32)})}),
                                  f64};
  std::vector<ArgCode> key;
  for (const Type& t : args) ASSERT_TRUE(append_codes(t, &key)) << t.str();
  EXPECT_EQ(key.size(), 7u);  // array, tuple(2), int64, tuple(2), float64, int32, float64
  EXPECT_EQ(types_of_key(key.data(), key.size()), args);

  std::vector<ArgCode> ints, floats, triple;
  ASSERT_TRUE(append_codes(Type::tuple_of({i64, i64}), &ints));
  ASSERT_TRUE(append_codes(Type::tuple_of({f64, f64}), &floats));
  ASSERT_TRUE(append_codes(Type::tuple_of({i64, i64, i64}), &triple));
  EXPECT_NE(ints, floats);
  EXPECT_NE(ints.size(), triple.size());

  // A tuple of arrays (numba's tuple-of-arrays argument) round-trips too.
  std::vector<ArgCode> arrays;
  std::vector<Type> with_arrays = {Type::tuple_of({Type::array_of(ScalarKind::Float32, 1, Layout::C), i64})};
  ASSERT_TRUE(append_codes(with_arrays[0], &arrays));
  EXPECT_EQ(types_of_key(arrays.data(), arrays.size()), with_arrays);
}

TEST(ParamSizes, FollowTheArrayAbi) {
  std::vector<unsigned> sizes;
  append_param_sizes(Type::array_of(ScalarKind::Float32, 2, Layout::C), &sizes);
  EXPECT_EQ(sizes, (std::vector<unsigned>{8, 8, 8, 8, 8}));
  sizes.clear();
  append_param_sizes(Type::scalar_of(ScalarKind::Complex64), &sizes);
  append_param_sizes(Type::scalar_of(ScalarKind::Bool), &sizes);
  append_param_sizes(Type::scalar_of(ScalarKind::Int16), &sizes);
  EXPECT_EQ(sizes, (std::vector<unsigned>{4, 4, 1, 2}));
  sizes.clear();
  append_param_sizes(Type::pointer_to(ScalarKind::Int8), &sizes);  // an address, whatever it points to
  EXPECT_EQ(sizes, (std::vector<unsigned>{8}));
}

TEST(ParamSizes, Index32ArraysPassShapesAndStridesIn32Bits) {
  std::vector<unsigned> sizes;
  append_param_sizes(Type::array_of(ScalarKind::Float32, 2, Layout::Any, true), &sizes);
  EXPECT_EQ(sizes, (std::vector<unsigned>{8, 4, 4, 4, 4}));
}

ArrayView view_of(ScalarKind dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  ArrayView v;
  v.data = 1 << 20;
  v.dtype = dtype;
  v.ndim = int(shape.size());
  for (int d = 0; d < v.ndim; ++d) v.shape[d] = shape[size_t(d)], v.strides[d] = strides[size_t(d)];
  return v;
}

bool index32_of(const ArrayView& v) { return type_of_code(array_code_of(v)).index32; }

TEST(ArgCode, Index32IsSetForArraysSpanningUnder2GiB) {
  EXPECT_TRUE(index32_of(view_of(ScalarKind::Float32, {1024, 1024}, {4096, 4})));
  // 2**29 float32 elements are exactly 2 GiB: the last byte's offset is 2**31 - 1, still below the limit.
  EXPECT_FALSE(index32_of(view_of(ScalarKind::Float32, {int64_t{1} << 29}, {4})));
  EXPECT_TRUE(index32_of(view_of(ScalarKind::Float32, {(int64_t{1} << 29) - 1}, {4})));
  // Negative strides reach below the data pointer; the span is what counts.
  EXPECT_TRUE(index32_of(view_of(ScalarKind::Int16, {1000}, {-2})));
  EXPECT_FALSE(index32_of(view_of(ScalarKind::Int8, {2}, {-(int64_t{1} << 31)})));
  // A broadcast (stride 0) spans one element, but its extent must still fit in int32.
  EXPECT_TRUE(index32_of(view_of(ScalarKind::Float64, {int64_t{1} << 30}, {0})));
  EXPECT_FALSE(index32_of(view_of(ScalarKind::Float64, {int64_t{1} << 31}, {0})));
  // Huge strides do not overflow the span computation.
  EXPECT_FALSE(index32_of(view_of(ScalarKind::Float32, {1 << 20, 1 << 20}, {int64_t{1} << 42, 4})));
  // Empty arrays have no in-bounds element at all.
  EXPECT_TRUE(index32_of(view_of(ScalarKind::Float32, {0, 7}, {28, 4})));
  EXPECT_THROW(array_code_of(view_of(ScalarKind::Float32, {int64_t{1} << 62}, {0})), std::invalid_argument);
  // The code keeps dtype, rank and layout, and explicit-signature keys drop the bit.
  ArgCode code = array_code_of(view_of(ScalarKind::Float32, {4, 4}, {16, 4}));
  EXPECT_EQ(type_of_code(code), Type::array_of(ScalarKind::Float32, 2, Layout::C, true));
  EXPECT_EQ(without_index32(code), array_code(ScalarKind::Float32, 2, Layout::C));
  EXPECT_EQ(without_index32(scalar_code(ScalarKind::Int64)), scalar_code(ScalarKind::Int64));
}

TEST(ParamLayoutCheck, AcceptsTheFlattenedLayoutAndReportsAMismatch) {
  CompileResult r;
  r.params.push_back({Type::array_of(ScalarKind::Float32, 1, Layout::C), 0, 3});
  r.params.push_back({Type::scalar_of(ScalarKind::Complex128), 3, 2});
  EXPECT_EQ(check_param_layout(r), "");
  r.params.back().count = 1;
  EXPECT_NE(check_param_layout(r).find("'complex128' as 1 parameters from 3"), std::string::npos)
      << check_param_layout(r);
}

TEST(ParamBuffer, PointsAtEachValueAndGrows) {
  ParamBuffer p;
  p.begin(2);
  p.push_u64(7);
  float f = 1.5f;
  p.push_bytes(&f, 4);
  p.reserve_more(3);
  for (uint64_t i = 0; i < 3; ++i) p.push_u64(100 + i);
  ASSERT_EQ(p.count(), 5u);
  EXPECT_EQ(*static_cast<uint64_t*>(p.pointers()[0]), 7u);
  EXPECT_EQ(*static_cast<float*>(p.pointers()[1]), 1.5f);
  EXPECT_EQ(*static_cast<uint64_t*>(p.pointers()[4]), 102u);
  // Laid out as a kernel's parameters: the float at 8, the next 8-byte value aligned up to 16.
  auto offset = [&](int i) {
    return static_cast<unsigned char*>(p.pointers()[i]) - static_cast<const unsigned char*>(p.data());
  };
  EXPECT_EQ(offset(1), 8);
  EXPECT_EQ(offset(2), 16);
  EXPECT_EQ(p.size_bytes(), 40u);
  p.begin(1);
  EXPECT_EQ(p.count(), 0u);
  EXPECT_EQ(p.size_bytes(), 0u);
}

// The two writers lay out the same values the same way; the Writer also points at each (kernelParams), the
// BytesWriter leaves the pointers unbuilt (a launch that hands the driver the buffer alone).
TEST(ParamBuffer, BytesWriterWritesWhatWriterWritesWithoutPointers) {
  auto fill = [](auto& w) {
    w.u32(3);
    w.vector_index32(0x1122334455667788u, 1000, 4);
    w.u64(9);
    w.u32(5);
    w.u32(6);
    w.vector_index32(0xAB, 7, 0xFFFFFFFCu);  // a negative stride's two's complement
  };
  ParamBuffer a, b;
  ParamBuffer::Writer wa = a.start(10);
  fill(wa);
  a.finish(wa);
  ParamBuffer::BytesWriter wb = b.start_bytes(10);
  fill(wb);
  b.finish(wb);
  ASSERT_EQ(a.size_bytes(), 56u);  // 4, padding to 8, 16, 8, 4 + 4, 16
  ASSERT_EQ(b.size_bytes(), a.size_bytes());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size_bytes()), 0);
  EXPECT_EQ(a.count(), 10u);
  EXPECT_EQ(b.count(), 0u);
  // vector_index32 is u64(data), u32(extent), u32(stride): its pointers say so.
  auto at = [&](int i) {
    return static_cast<unsigned char*>(a.pointers()[i]) - static_cast<const unsigned char*>(a.data());
  };
  EXPECT_EQ(at(1), 8);
  EXPECT_EQ(at(2), 16);
  EXPECT_EQ(at(3), 20);
  EXPECT_EQ(*static_cast<uint32_t*>(a.pointers()[2]), 1000u);
  EXPECT_EQ(*static_cast<uint32_t*>(a.pointers()[9]), 0xFFFFFFFCu);
}

TEST(KernelCache, FindsByKeyAndDevice) {
  KernelCache cache;
  auto* dev_a = reinterpret_cast<const Device*>(0x10);
  auto* dev_b = reinterpret_cast<const Device*>(0x20);
  std::vector<ArgCode> key1 = {scalar_code(ScalarKind::Float64)};
  std::vector<ArgCode> key2 = {scalar_code(ScalarKind::Float32)};
  auto k1 = std::make_shared<LoadedKernel>();
  auto k2 = std::make_shared<LoadedKernel>();
  cache.add_loaded(key1, dev_a, k1);
  cache.add_loaded(key2, dev_a, k2);
  EXPECT_EQ(cache.find(key1.data(), 1, dev_a), k1.get());
  EXPECT_EQ(cache.find(key2.data(), 1, dev_a), k2.get());
  EXPECT_EQ(cache.find(key1.data(), 1, dev_b), nullptr);
  EXPECT_EQ(cache.find(key1.data(), 0, dev_a), nullptr);
  auto result = std::make_shared<CompileResult>();
  cache.add_compiled(key1, "sm_90", result);
  EXPECT_EQ(cache.find_compiled(key1, "sm_90"), result);
  EXPECT_EQ(cache.find_compiled(key1, "sm_80"), nullptr);
}

ArrayView matrix(int rows, int cols) {
  ArrayView v;
  v.data = 0x10000;
  v.dtype = ScalarKind::Float32;
  v.ndim = 2;
  v.shape[0] = rows;
  v.shape[1] = cols;
  v.set_c_strides();
  return v;
}

TEST(ArrayView, ContiguityAndExtent) {
  ArrayView m = matrix(3, 4);
  EXPECT_EQ(m.strides[0], 16);
  EXPECT_EQ(m.strides[1], 4);
  EXPECT_TRUE(m.is_c_contiguous());
  EXPECT_FALSE(m.is_f_contiguous());
  EXPECT_EQ(m.nbytes(), 48);
  EXPECT_EQ(m.type(), Type::array_of(ScalarKind::Float32, 2, Layout::C));
  ArrayView f = m;  // the same memory read as a 4x3 Fortran-ordered array: numba's typeof says 'F'
  f.shape[0] = 4, f.shape[1] = 3, f.strides[0] = 4, f.strides[1] = 16;
  EXPECT_EQ(f.layout(), Layout::F);
  EXPECT_EQ(f.type().str(), "float32[::1, :]");
  int64_t lo, hi;
  m.extent(&lo, &hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 48);
}

TEST(ArrayView, SlicingMakesStridedViews) {
  ArrayView m = matrix(3, 4);
  ArrayView cols = m.sliced(1, 1, 2, 2);  // m[:, 1::2]
  EXPECT_EQ(cols.data, 0x10004u);
  EXPECT_EQ(cols.shape[1], 2);
  EXPECT_EQ(cols.strides[1], 8);
  EXPECT_FALSE(cols.is_c_contiguous());
  EXPECT_EQ(cols.layout(), Layout::Any);
  ArrayView row = m.indexed(0, -1);  // m[-1]
  EXPECT_EQ(row.ndim, 1);
  EXPECT_EQ(row.data, 0x10000u + 32);
  EXPECT_TRUE(row.is_c_contiguous());
  EXPECT_THROW(m.indexed(1, 4), std::out_of_range);
  ArrayView reversed = m.sliced(0, 2, -1, 3);  // m[::-1]
  int64_t lo, hi;
  reversed.extent(&lo, &hi);
  EXPECT_EQ(lo, -32);
  EXPECT_EQ(hi, 16);
  ArrayView empty = m.sliced(0, 0, 1, 0);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.is_c_contiguous());
}

TEST(KernelArgs, RecordCodesCarryTheRecord) {
  std::string error;
  const RecordType* r = intern_record({RecordField{"a", Type::scalar_of(ScalarKind::Float64), {}, 0}}, 8, 8, true, &error);
  ASSERT_NE(r, nullptr) << error;
  Type scalar = Type::record_of(r);
  Type array = Type::array_of(scalar, 3, Layout::Any, true);
  rt::ArgCode sc = rt::code_of_type(scalar), ac = rt::code_of_type(array);
  EXPECT_TRUE(rt::is_record_code(sc));
  EXPECT_TRUE(rt::is_record_code(ac));
  EXPECT_EQ(rt::type_of_code(sc), scalar);
  EXPECT_EQ(rt::type_of_code(ac), array);
  EXPECT_EQ(rt::type_of_code(rt::without_index32(ac)), Type::array_of(scalar, 3, Layout::Any, false));
  std::vector<unsigned> sizes;
  rt::append_param_sizes(scalar, &sizes);
  EXPECT_EQ(sizes, std::vector<unsigned>{8});
  std::vector<rt::ArgCode> key;
  EXPECT_FALSE(rt::append_codes(Type::tuple_of({scalar}), &key));  // records are not passed inside tuples
}

}  // namespace
}  // namespace gpujit::rt
