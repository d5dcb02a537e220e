// The builtins table (ir/builtins.h): lookups, the libdevice names codegen calls, and the docs table.
#include <gtest/gtest.h>

#include "ir/builtins.h"

namespace gpujit {
namespace {

TEST(BuiltinsTable, EveryIdHasItsRowAndNamesAreUnique) {
  for (const BuiltinInfo& r : all_builtins()) {
    EXPECT_EQ(&builtin_info(r.id), &r) << r.qualified_name();
    if (r.id != BuiltinId::Cast) {
      EXPECT_EQ(find_builtin(r.scope, r.name), &r) << r.qualified_name();
    }
    if (r.lowering == BuiltinLowering::Libdevice) {
      ASSERT_NE(r.f32, nullptr) << r.qualified_name();
      ASSERT_NE(r.f64, nullptr) << r.qualified_name();
      EXPECT_EQ(std::string(r.f32).rfind("__nv_", 0), 0u) << r.f32;
      EXPECT_EQ(std::string(r.f64).rfind("__nv_", 0), 0u) << r.f64;
    }
    if (!r.supported) {
      EXPECT_EQ(r.lowering, BuiltinLowering::None) << r.qualified_name();
    }
  }
}

TEST(BuiltinsTable, LookupsByScope) {
  const BuiltinInfo* sqrt = find_builtin(BuiltinScope::Math, "sqrt");
  ASSERT_NE(sqrt, nullptr);
  EXPECT_EQ(sqrt->id, BuiltinId::Sqrt);
  EXPECT_STREQ(sqrt->f32, "__nv_sqrtf");
  EXPECT_STREQ(sqrt->f64, "__nv_sqrt");
  EXPECT_EQ(sqrt->qualified_name(), "math.sqrt");
  EXPECT_EQ(find_numpy_builtin("sqrt"), sqrt);
  EXPECT_EQ(find_numpy_builtin("arctan2")->id, BuiltinId::Atan2);
  EXPECT_EQ(find_numpy_builtin("pi")->id, BuiltinId::Pi);
  EXPECT_EQ(find_numpy_builtin("minimum")->id, BuiltinId::Min);
  EXPECT_EQ(find_numpy_builtin("zeros"), nullptr);
  const BuiltinInfo* tx = find_builtin(BuiltinScope::ThreadIdx, "x");
  ASSERT_NE(tx, nullptr);
  EXPECT_EQ(tx->reg, BuiltinReg::ThreadIdx);
  EXPECT_EQ(tx->axis, 0);
  EXPECT_EQ(find_builtin(BuiltinScope::GridDim, "z")->axis, 2);
  EXPECT_EQ(find_builtin(BuiltinScope::Kernel, "grid")->id, BuiltinId::Grid);
  EXPECT_EQ(find_builtin(BuiltinScope::Shared, "array")->id, BuiltinId::SharedArray);
  EXPECT_EQ(find_builtin(BuiltinScope::Atomic, "add")->id, BuiltinId::AtomicAdd);
  EXPECT_EQ(find_builtin(BuiltinScope::Kernel, "shfl_sync")->id, BuiltinId::ShflSync);
  EXPECT_EQ(find_builtin(BuiltinScope::Cmath, "sqrt")->id, BuiltinId::CmathSqrt);
  EXPECT_EQ(find_builtin(BuiltinScope::Random, "xoroshiro128p_normal_float32")->id, BuiltinId::RandomNormalF32);
  EXPECT_EQ(find_builtin(BuiltinScope::GridGroup, "sync")->id, BuiltinId::GridGroupSync);
  EXPECT_EQ(find_builtin(BuiltinScope::Math, "sqr"), nullptr);
  EXPECT_EQ(builtin_info(BuiltinId::E).constant, 2.718281828459045);
  EXPECT_STREQ(builtin_info(BuiltinId::IsFinite).f64, "__nv_isfinited");
  EXPECT_STREQ(builtin_info(BuiltinId::Gamma).f32, "__nv_tgammaf");
}

TEST(BuiltinsTable, MarkdownListsSupportedAndLaterBuiltins) {
  std::string md = builtins_markdown();
  EXPECT_NE(md.find("| `math.sqrt` | `np.sqrt`, `__nv_sqrtf`/`__nv_sqrt` | square root |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| `cuda.threadIdx.x` |"), std::string::npos);
  EXPECT_NE(md.find("| `cuda.shared.array` |"), std::string::npos);
  EXPECT_NE(md.find("| `len` |"), std::string::npos);
  EXPECT_NE(md.find("| `array.shape` |"), std::string::npos);
  EXPECT_NE(md.find("| `cuda.shfl_sync` |"), std::string::npos);
  EXPECT_NE(md.find("| `cmath.sqrt` |"), std::string::npos);
  EXPECT_NE(md.find("| `cuda.random.xoroshiro128p_uniform_float32` |"), std::string::npos);
  // Every row is supported now, so the page has no empty "not supported yet" section.
  bool any_unsupported = false;
  for (const BuiltinInfo& r : all_builtins()) any_unsupported |= !r.supported;
  EXPECT_EQ(md.find("## Not supported yet") != std::string::npos, any_unsupported);
}

}  // namespace
}  // namespace gpujit
