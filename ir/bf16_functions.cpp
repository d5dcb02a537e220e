// The bf16 rows (see bf16_functions.h).
#include "ir/bf16_functions.h"

#include <deque>
#include <string>

namespace gpujit {

namespace {

using Op = Bf16Op;
using R = Bf16Rounding;
constexpr ScalarKind kBf = ScalarKind::BFloat16;

struct Table {
  std::deque<Bf16Function> functions;
  std::deque<std::string> strings;  // names and docs the rows point into
  std::deque<BuiltinInfo> rows;
  std::vector<std::string_view> names;

  const char* keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }

  // One function under its numba name and, if given, CUDA's name too.
  void add(std::string name, std::string cuda_name, int nargs, Bf16Function f, std::string doc) {
    size_t index = functions.size();
    functions.push_back(f);
    const char* d = keep(std::move(doc));
    for (std::string* n : {&name, &cuda_name}) {
      if (n->empty()) continue;
      const char* kept = keep(*n);
      rows.push_back({BuiltinId::Bf16Call, BuiltinScope::Bf16, kept, nullptr, true, int8_t(nargs),
                      int8_t(nargs), BuiltinTyping::Bf16, BuiltinLowering::Bf16, f.f32, nullptr, false,
                      BuiltinReg::None, uint8_t(index), 0, true, d});
      names.emplace_back(kept);
    }
  }
  void bf(std::string name, int nargs, Op op, std::string doc, R r = R::None, const char* f32 = nullptr) {
    add(std::move(name), "", nargs, {op, r, kBf, kBf, f32}, std::move(doc));
  }
  void cmp(std::string name, Op op, std::string doc) {
    add(std::move(name), "", 2, {op, R::None, kBf, ScalarKind::Bool, nullptr}, std::move(doc));
  }

  Table() {
    bf("habs", 1, Op::Abs, "abs(a)");
    bf("hneg", 1, Op::Neg, "-a");
    bf("hadd", 2, Op::Add, "a + b");
    bf("hsub", 2, Op::Sub, "a - b");
    bf("hmul", 2, Op::Mul, "a * b");
    bf("hdiv", 2, Op::Div, "a / b");
    bf("hadd_rn", 2, Op::Add, "a + b, never contracted into an fma", R::Nearest);
    bf("hsub_rn", 2, Op::Sub, "a - b, never contracted into an fma", R::Nearest);
    bf("hmul_rn", 2, Op::Mul, "a * b, never contracted into an fma", R::Nearest);
    bf("hadd_sat", 2, Op::AddSat, "a + b clamped to [0, 1] (NaN gives 0)");
    bf("hsub_sat", 2, Op::SubSat, "a - b clamped to [0, 1] (NaN gives 0)");
    bf("hmul_sat", 2, Op::MulSat, "a * b clamped to [0, 1] (NaN gives 0)");
    bf("hfma", 3, Op::Fma, "a * b + c, one rounding");
    bf("hfma_sat", 3, Op::FmaSat, "a * b + c clamped to [0, 1] (NaN gives 0)");
    bf("hfma_relu", 3, Op::FmaRelu, "a * b + c, a negative result gives 0");
    cmp("heq", Op::Eq, "a == b");
    cmp("hne", Op::Ne, "a != b, false if either is NaN");
    cmp("hge", Op::Ge, "a >= b");
    cmp("hgt", Op::Gt, "a > b");
    cmp("hle", Op::Le, "a <= b");
    cmp("hlt", Op::Lt, "a < b");
    cmp("hequ", Op::Equ, "a == b, true if either is NaN");
    cmp("hneu", Op::Neu, "a != b, true if either is NaN");
    cmp("hgeu", Op::Geu, "a >= b, true if either is NaN");
    cmp("hgtu", Op::Gtu, "a > b, true if either is NaN");
    cmp("hleu", Op::Leu, "a <= b, true if either is NaN");
    cmp("hltu", Op::Ltu, "a < b, true if either is NaN");
    bf("hmax", 2, Op::Max, "the larger, a NaN loses");
    bf("hmin", 2, Op::Min, "the smaller, a NaN loses");
    bf("hmax_nan", 2, Op::MaxNan, "the larger, a NaN wins");
    bf("hmin_nan", 2, Op::MinNan, "the smaller, a NaN wins");
    add("hisnan", "", 1, {Op::IsNan, R::None, kBf, ScalarKind::Bool, nullptr}, "whether a is NaN");
    add("hisinf", "", 1, {Op::IsInf, R::None, kBf, ScalarKind::Int32, nullptr},
        "int32: 1 for +inf, -1 for -inf, else 0");
    bf("htrunc", 1, Op::Trunc, "a rounded toward zero");
    bf("hceil", 1, Op::Ceil, "the smallest integer >= a");
    bf("hfloor", 1, Op::Floor, "the largest integer <= a");
    bf("hrint", 1, Op::Rint, "a rounded to the nearest integer, halves to even");
    bf("hsqrt", 1, Op::Sqrt, "square root");
    bf("hrsqrt", 1, Op::Rsqrt, "1 / sqrt(a)");
    bf("hrcp", 1, Op::Rcp, "1 / a");
    bf("hlog", 1, Op::Math, "natural logarithm", R::None, "__nv_logf");
    bf("hlog2", 1, Op::Math, "base-2 logarithm", R::None, "__nv_log2f");
    bf("hlog10", 1, Op::Math, "base-10 logarithm", R::None, "__nv_log10f");
    bf("hcos", 1, Op::Math, "cosine", R::None, "__nv_cosf");
    bf("hsin", 1, Op::Math, "sine", R::None, "__nv_sinf");
    bf("hexp", 1, Op::Math, "e ** a", R::None, "__nv_expf");
    bf("hexp2", 1, Op::Math, "2 ** a", R::None, "__nv_exp2f");
    bf("hexp10", 1, Op::Math, "10 ** a", R::None, "__nv_exp10f");
    bf("htanh", 1, Op::Math, "hyperbolic tangent", R::None, "__nv_tanhf");
    bf("htanh_approx", 1, Op::Math, "hyperbolic tangent", R::None, "__nv_tanhf");

    // Conversions, under NumPy-style names and CUDA's.
    const ScalarKind f32 = ScalarKind::Float32, f64 = ScalarKind::Float64;
    add("float32_to_bfloat16", "float2bfloat16", 1, {Op::FromFloat, R::Nearest, f32, kBf, nullptr},
        "float32 to bfloat16, to nearest even");
    add("float64_to_bfloat16", "double2bfloat16", 1, {Op::FromFloat, R::Nearest, f64, kBf, nullptr},
        "float64 to bfloat16, to nearest even (one rounding)");
    add("bfloat16_to_float32", "bfloat162float", 1, {Op::ToFloat, R::None, kBf, f32, nullptr},
        "bfloat16 to float32 (exact)");
    struct Mode {
      const char* suffix;
      R rounding;
      const char* words;
    };
    const Mode modes[] = {{"rn", R::Nearest, "to nearest even"},
                          {"rz", R::Zero, "toward zero"},
                          {"rd", R::Down, "down"},
                          {"ru", R::Up, "up"}};
    for (const Mode& m : modes) {
      add(std::string("float32_to_bfloat16_") + m.suffix, std::string("float2bfloat16_") + m.suffix, 1,
          {Op::FromFloat, m.rounding, f32, kBf, nullptr}, std::string("float32 to bfloat16, ") + m.words);
    }
    add("bfloat16_to_int8_rz", "bfloat162char_rz", 1, {Op::ToInt, R::Zero, kBf, ScalarKind::Int8, nullptr},
        "bfloat16 to int8, toward zero");
    add("bfloat16_to_uint8_rz", "bfloat162uchar_rz", 1, {Op::ToInt, R::Zero, kBf, ScalarKind::UInt8, nullptr},
        "bfloat16 to uint8, toward zero");
    struct Int {
      ScalarKind kind;
      const char* cuda;
    };
    const Int ints[] = {{ScalarKind::Int16, "short"}, {ScalarKind::UInt16, "ushort"},
                        {ScalarKind::Int32, "int"},   {ScalarKind::UInt32, "uint"},
                        {ScalarKind::Int64, "ll"},    {ScalarKind::UInt64, "ull"}};
    for (const Int& i : ints) {
      std::string n = scalar_name(i.kind);
      for (const Mode& m : modes) {
        add(n + "_to_bfloat16_" + m.suffix, std::string(i.cuda) + "2bfloat16_" + m.suffix, 1,
            {Op::FromInt, m.rounding, i.kind, kBf, nullptr}, n + " to bfloat16, " + m.words);
        add("bfloat16_to_" + n + "_" + m.suffix, std::string("bfloat162") + i.cuda + "_" + m.suffix, 1,
            {Op::ToInt, m.rounding, kBf, i.kind, nullptr},
            "bfloat16 to " + n + ", " + m.words + " (saturating, NaN gives 0)");
      }
    }
    add("bfloat16_as_int16", "bfloat16_as_short", 1, {Op::AsBits, R::None, kBf, ScalarKind::Int16, nullptr},
        "the bits of a bfloat16 as an int16");
    add("bfloat16_as_uint16", "bfloat16_as_ushort", 1,
        {Op::AsBits, R::None, kBf, ScalarKind::UInt16, nullptr}, "the bits of a bfloat16 as a uint16");
    add("int16_as_bfloat16", "short_as_bfloat16", 1, {Op::FromBits, R::None, ScalarKind::Int16, kBf, nullptr},
        "the bfloat16 whose bits an int16 holds");
    add("uint16_as_bfloat16", "ushort_as_bfloat16", 1,
        {Op::FromBits, R::None, ScalarKind::UInt16, kBf, nullptr}, "the bfloat16 whose bits a uint16 holds");
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const BuiltinInfo* find_bf16_builtin(std::string_view name) {
  for (const BuiltinInfo& r : table().rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

const Bf16Function& bf16_function(const BuiltinInfo& row) { return table().functions.at(row.axis); }

std::vector<std::string_view> bf16_names() { return table().names; }

const BuiltinInfo* bf16_math_builtin(BuiltinId math_id) {
  switch (math_id) {
    case BuiltinId::Trunc:
      return find_bf16_builtin("htrunc");
    case BuiltinId::Ceil:
      return find_bf16_builtin("hceil");
    case BuiltinId::Floor:
      return find_bf16_builtin("hfloor");
    case BuiltinId::Sqrt:
      return find_bf16_builtin("hsqrt");
    case BuiltinId::Log:
      return find_bf16_builtin("hlog");
    case BuiltinId::Log10:
      return find_bf16_builtin("hlog10");
    case BuiltinId::Cos:
      return find_bf16_builtin("hcos");
    case BuiltinId::Sin:
      return find_bf16_builtin("hsin");
    case BuiltinId::Tanh:
      return find_bf16_builtin("htanh");
    case BuiltinId::Exp:
      return find_bf16_builtin("hexp");
    case BuiltinId::Exp2:
      return find_bf16_builtin("hexp2");
    default:
      return nullptr;
  }
}

}  // namespace gpujit
