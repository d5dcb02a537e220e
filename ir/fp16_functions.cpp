// The fp16 rows (see fp16_functions.h).
#include "ir/fp16_functions.h"

#include <deque>

namespace gpujit {

namespace {

struct Fn {
  const char* name;
  int8_t nargs;
  const char* f32;  // math: the float32 libdevice function it computes with, or nullptr
  const char* doc;
};

const Fn kFunctions[] = {
    {"hadd", 2, nullptr, "a + b"},          {"hsub", 2, nullptr, "a - b"},
    {"hmul", 2, nullptr, "a * b"},          {"hdiv", 2, nullptr, "a / b"},
    {"hneg", 1, nullptr, "-a"},             {"habs", 1, nullptr, "|a|"},
    {"hfma", 3, nullptr, "a * b + c, one rounding"},
    {"hmax", 2, nullptr, "the larger, a NaN loses"},
    {"hmin", 2, nullptr, "the smaller, a NaN loses"},
    {"heq", 2, nullptr, "a == b"},          {"hne", 2, nullptr, "a != b"},
    {"hgt", 2, nullptr, "a > b"},           {"hge", 2, nullptr, "a >= b"},
    {"hlt", 2, nullptr, "a < b"},           {"hle", 2, nullptr, "a <= b"},
    {"hsin", 1, "__nv_sinf", "sine"},       {"hcos", 1, "__nv_cosf", "cosine"},
    {"hlog", 1, "__nv_logf", "natural logarithm"},
    {"hlog2", 1, "__nv_log2f", "base-2 logarithm"},
    {"hlog10", 1, "__nv_log10f", "base-10 logarithm"},
    {"hexp", 1, "__nv_expf", "e ** a"},     {"hexp2", 1, "__nv_exp2f", "2 ** a"},
    {"hexp10", 1, "__nv_exp10f", "10 ** a"},
    {"hsqrt", 1, "__nv_sqrtf", "square root"},
    {"hrsqrt", 1, "__nv_rsqrtf", "1 / sqrt(a)"},
    {"hrcp", 1, nullptr, "1 / a"},          {"hrint", 1, nullptr, "a rounded to the nearest integer, halves to even"},
    {"htrunc", 1, nullptr, "a rounded toward zero"},
    {"hceil", 1, nullptr, "the smallest integer >= a"},
    {"hfloor", 1, nullptr, "the largest integer <= a"},
};

struct Table {
  std::deque<BuiltinInfo> rows;

  Table() {
    for (const Fn& f : kFunctions) {
      rows.push_back({BuiltinId::Fp16Call, BuiltinScope::Fp16, f.name, nullptr, true, f.nargs, f.nargs,
                      BuiltinTyping::Fp16, BuiltinLowering::Fp16, f.f32, nullptr, true, BuiltinReg::None, 0, 0,
                      true, f.doc});
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const BuiltinInfo* find_fp16_builtin(std::string_view name) {
  for (const BuiltinInfo& r : table().rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

std::vector<std::string_view> fp16_names() {
  std::vector<std::string_view> names;
  for (const Fn& f : kFunctions) names.emplace_back(f.name);
  return names;
}

bool fp16_is_comparison(std::string_view name) {
  return name == "heq" || name == "hne" || name == "hgt" || name == "hge" || name == "hlt" || name == "hle";
}

}  // namespace gpujit
