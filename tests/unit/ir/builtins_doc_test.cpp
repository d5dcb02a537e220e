// docs/builtins.md is generated from the builtins table; this test keeps the two from drifting apart.
// After changing the table, regenerate the page with GPUJIT_UPDATE_GOLDEN=1 and commit it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/builtins.h"

namespace gpujit {
namespace {

TEST(BuiltinsDoc, DocsPageIsGeneratedFromTheTable) {
  const std::string path = std::string(GPUJIT_TEST_DATA_DIR) + "/../../../../docs/builtins.md";
  const std::string expected = builtins_markdown();
  if (const char* update = std::getenv("GPUJIT_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path) << expected;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing " << path << "; run with GPUJIT_UPDATE_GOLDEN=1 to write it";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), expected)
      << "docs/builtins.md is out of date with ir/builtins.cpp; run unit_ir with GPUJIT_UPDATE_GOLDEN=1";
}

}  // namespace
}  // namespace gpujit
