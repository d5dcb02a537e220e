// The fp8 rows (see fp8_functions.h).
#include "ir/fp8_functions.h"

#include <deque>
#include <string>

namespace gpujit {

namespace {

using Op = Fp8Op;
constexpr ScalarKind kF32 = ScalarKind::Float32, kF64 = ScalarKind::Float64, kU8 = ScalarKind::UInt8,
                     kU16 = ScalarKind::UInt16;

struct Table {
  std::deque<Fp8Function> functions;
  std::deque<BuiltinInfo> rows;
  std::vector<std::string_view> names;

  void add(const char* name, int nargs, Fp8Function f, const char* doc) {
    size_t index = functions.size();
    functions.push_back(f);
    rows.push_back({BuiltinId::Fp8Call, BuiltinScope::Fp8, name, nullptr, true, int8_t(nargs), int8_t(nargs),
                    BuiltinTyping::Fp8, BuiltinLowering::Fp8, nullptr, nullptr, false, BuiltinReg::None,
                    uint8_t(index), 0, true, doc});
    names.emplace_back(name);
  }

  Table() {
    add("cvt_float_to_fp8", 3, {Op::ToFp8, kF32, 0, kU8, 0},
        "cvt_float_to_fp8(x, saturation, interpretation): float32 to e4m3/e5m2 storage (uint8), to nearest even");
    add("cvt_double_to_fp8", 3, {Op::ToFp8, kF64, 0, kU8, 0},
        "float64 to e4m3/e5m2 storage, one rounding to nearest even");
    add("cvt_bfloat16raw_to_fp8", 3, {Op::ToFp8, kU16, 1, kU8, 0},
        "a bfloat16_raw (uint16x1) to e4m3/e5m2 storage");
    add("cvt_float2_to_fp8x2", 3, {Op::ToFp8, kF32, 2, kU16, 0},
        "a float32x2 to two e4m3/e5m2 bytes (uint16, lane x in the low byte)");
    add("cvt_double2_to_fp8x2", 3, {Op::ToFp8, kF64, 2, kU16, 0},
        "a float64x2 to two e4m3/e5m2 bytes (uint16, lane x in the low byte)");
    add("cvt_float_to_e8m0", 3, {Op::ToE8m0, kF32, 0, kU8, 0},
        "cvt_float_to_e8m0(x, saturation, rounding): float32 to e8m0 storage, toward zero or up (the sign is dropped)");
    add("cvt_double_to_e8m0", 3, {Op::ToE8m0, kF64, 0, kU8, 0}, "float64 to e8m0 storage");
    add("cvt_bfloat16raw_to_e8m0", 3, {Op::ToE8m0, kU16, 1, kU8, 0}, "a bfloat16_raw (uint16x1) to e8m0 storage");
    add("cvt_float2_to_e8m0x2", 3, {Op::ToE8m0, kF32, 2, kU16, 0}, "a float32x2 to two e8m0 bytes (uint16)");
    add("cvt_double2_to_e8m0x2", 3, {Op::ToE8m0, kF64, 2, kU16, 0}, "a float64x2 to two e8m0 bytes (uint16)");
    add("cvt_e8m0_to_bf16raw", 1, {Op::E8m0ToBf16Raw, kU8, 0, kU16, 1},
        "e8m0 storage to the bfloat16_raw (uint16x1) of the same value (0 is 2^-127, 0xFF NaN)");
    add("cvt_fp8_to_halfraw", 2, {Op::ToHalfRaw, kU8, 0, kU16, 1},
        "cvt_fp8_to_halfraw(byte, interpretation): e4m3/e5m2 storage to the float16 bits (uint16x1) of its value "
        "(exact; gpujit's, not numba's)");
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const BuiltinInfo* find_fp8_builtin(std::string_view name) {
  for (const BuiltinInfo& r : table().rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

const Fp8Function& fp8_function(const BuiltinInfo& row) { return table().functions.at(row.axis); }

std::vector<std::string_view> fp8_names() { return table().names; }

Type fp8_value_type(ScalarKind k, uint8_t lanes) {
  return lanes == 0 ? Type::scalar_of(k) : Type::vector_of(k, lanes);
}

}  // namespace gpujit
