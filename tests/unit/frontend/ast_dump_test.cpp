// AST dumps against golden text. Each data/<name>.py is parsed and its module dump, followed by its rendered
// diagnostics, must equal data/<name>.ast. After an intended change to the dump format or the parser, run
// with GPUJIT_UPDATE_GOLDEN=1 to rewrite the golden files, and review the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/ast_dump.h"
#include "frontend_test_util.h"

namespace gpujit {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> golden_inputs() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(GPUJIT_TEST_DATA_DIR)) {
    if (entry.path().extension() == ".py") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string golden_text(const std::string& name) {
  fs::path dir(GPUJIT_TEST_DATA_DIR);
  auto module = parse_module(test::make_source(read_file(dir / (name + ".py")), 1, name + ".py"));
  std::string out = dump_module(*module);
  Diagnostics all;
  all.append(module->errors);
  for (const FunctionDefPtr& fn : module->functions) all.append(fn->errors);
  if (!all.all().empty()) out += "-- diagnostics --\n" + all.render();
  return out;
}

class AstGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(AstGolden, MatchesGoldenFile) {
  const std::string& name = GetParam();
  fs::path golden = fs::path(GPUJIT_TEST_DATA_DIR) / (name + ".ast");
  std::string actual = golden_text(name);
  const char* update = std::getenv("GPUJIT_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with GPUJIT_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(actual, read_file(golden)) << "golden mismatch for " << name
                                       << "; run with GPUJIT_UPDATE_GOLDEN=1 if the change is intended";
}

INSTANTIATE_TEST_SUITE_P(Data, AstGolden, ::testing::ValuesIn(golden_inputs()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Prefixes of every golden input, cut every third byte, parses without crashing or hanging, and whatever is
// reported has a position inside the text.
TEST(ParserRobustness, EveryPrefixOfTheGoldenInputs) {
  for (const std::string& name : golden_inputs()) {
    std::string text = read_file(fs::path(GPUJIT_TEST_DATA_DIR) / (name + ".py"));
    for (size_t n = 0; n <= text.size(); n += 3) {
      auto module = parse_module(test::make_source(text.substr(0, n)));
      for (const std::string& e : test::all_errors(*module)) {
        EXPECT_NE(e.rfind("0:", 0), 0u) << name << " cut at " << n << ": " << e;
      }
      for (const FunctionDefPtr& fn : module->functions) dump_ast(*fn);
    }
  }
}

TEST(AstDump, FunctionFormat) {
  auto m = test::parse(
      "import gpujit as gpu\n"
      "@gpu.jit\n"
      "def saxpy(a, x, y, out):\n"
      "    i = gpu.grid(1)\n"
      "    if i < out.size:\n"
      "        out[i] = a * x[i] + y[i]\n"
      "    else:\n"
      "        return\n");
  ASSERT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(dump_ast(*m->functions[0]),
            "FunctionDef saxpy (a, x, y, out) @3:1\n"
            "  decorator Attribute jit @2:2\n"
            "    Name gpu @2:2\n"
            "  Assign @4:5\n"
            "    target Name i @4:5\n"
            "    value Call @4:9\n"
            "      func Attribute grid @4:9\n"
            "        Name gpu @4:9\n"
            "      arg IntLit 1 @4:18\n"
            "  If @5:5\n"
            "    test Compare [<] @5:8\n"
            "      Name i @5:8\n"
            "      Attribute size @5:12\n"
            "        Name out @5:12\n"
            "    body\n"
            "      Assign @6:9\n"
            "        target Subscript @6:9\n"
            "          value Name out @6:9\n"
            "          index Name i @6:13\n"
            "        value BinOp + @6:18\n"
            "          BinOp * @6:18\n"
            "            Name a @6:18\n"
            "            Subscript @6:22\n"
            "              value Name x @6:22\n"
            "              index Name i @6:24\n"
            "          Subscript @6:29\n"
            "            value Name y @6:29\n"
            "            index Name i @6:31\n"
            "    orelse\n"
            "      Return @8:9\n");
}

TEST(AstDump, LiteralsPrintLikePython) {
  auto m = test::parse("X = 1.0, 0.1, 1e-05, 2.5e+20, 1e999, 'it\\'s\\n', 7\n");
  ASSERT_EQ(m->globals.size(), 1u);
  EXPECT_EQ(dump_expr(*m->globals[0].value),
            "Tuple @1:5\n"
            "  FloatLit 1.0 @1:5\n"
            "  FloatLit 0.1 @1:10\n"
            "  FloatLit 1e-05 @1:15\n"
            "  FloatLit 2.5e+20 @1:22\n"
            "  FloatLit inf @1:31\n"
            "  StringLit 'it\\'s\\n' @1:38\n"
            "  IntLit 7 @1:49\n");
}

TEST(AstDump, ErrorsFollowTheFunctionBody) {
  auto m = test::parse("def k(a):\n    x = [1]\n    a[0] = 1\n");
  EXPECT_EQ(dump_ast(*m->functions[0]),
            "FunctionDef k (a) @1:1\n"
            "  Assign @3:5\n"
            "    target Subscript @3:5\n"
            "      value Name a @3:5\n"
            "      index IntLit 0 @3:7\n"
            "    value IntLit 1 @3:12\n"
            "  error @2:9 lists are not supported in kernels; use a tuple or a local array (gpu.local.array)\n");
}

}  // namespace
}  // namespace gpujit
