// Golden tests of the typed dump on realistic kernels. Each tests/unit/ir/data/NAME.py names its kernel and
// signature in its first two lines; its typed dump must equal NAME.typed. Set GPUJIT_UPDATE_GOLDEN=1 to
// rewrite the .typed files after an intended change (and review the diff).
#include <cstdlib>

#include "ir_test_util.h"

namespace gpujit::test {
namespace {

std::string header_value(const std::string& source, const std::string& key) {
  std::string marker = "# " + key + ": ";
  size_t at = source.find(marker);
  if (at == std::string::npos) return "";
  size_t end = source.find('\n', at);
  return source.substr(at + marker.size(), end - at - marker.size());
}

class TypedDumpGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TypedDumpGolden, MatchesGolden) {
  std::string dir = GPUJIT_TEST_DATA_DIR;
  std::string source = read_text(dir + "/" + GetParam() + ".py");
  ASSERT_FALSE(source.empty());
  Analyzed a = analyze_source(source, header_value(source, "kernel"), header_value(source, "signature"));
  ASSERT_TRUE(a.program) << a.diags.render();
  std::string dump = dump_typed(*a.program);
  std::string golden_path = dir + "/" + GetParam() + ".typed";
  if (std::getenv("GPUJIT_UPDATE_GOLDEN")) {
    std::ofstream(golden_path) << dump;
    GTEST_SKIP() << "rewrote " << golden_path;
  }
  EXPECT_EQ(dump, read_text(golden_path)) << "typed dump of " << GetParam() << " changed";
}

INSTANTIATE_TEST_SUITE_P(Kernels, TypedDumpGolden,
                         ::testing::Values("saxpy", "mandelbrot", "black_scholes", "int_ops",
                                           "matmul_shared"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace gpujit::test
