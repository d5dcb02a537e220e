// The never-negative locals and index expressions that let codegen leave out the negative-index wrap
// (ir/index_signs.h).
#include "ir/index_signs.h"

#include "ir_test_util.h"

namespace gpujit::test {
namespace {

const char* kHeader = "import math\nimport numpy as np\nimport gpujit as gpu\nfrom numba import cuda\n";

Analyzed run(const std::string& body, const std::string& sig) {
  return analyze_source(std::string(kHeader) + body, "k", sig);
}

std::set<std::string> non_negative(const Analyzed& a) {
  EXPECT_TRUE(a.program) << a.diags.render();
  return a.program ? a.kernel().non_negative_locals : std::set<std::string>{};
}

/// The index expression of the first subscript of `array` on source line `line` (1-based, kHeader counted).
const Expr* index_on_line(const Analyzed& a, const std::string& array, uint32_t line) {
  for (const auto& [e, t] : a.kernel().expr_types) {
    auto* s = e->as<SubscriptExpr>();
    auto* n = s ? s->value->as<NameExpr>() : nullptr;
    if (n && n->id == array && e->range.begin.line == line) return s->index.get();
  }
  return nullptr;
}

TEST(IndexSigns, GridThreadIndicesAndShapesAreNeverNegative) {
  Analyzed a = run(R"(
def k(a):
    i = gpu.grid(1)
    x, y = gpu.grid(2)
    h, w = a.shape
    t = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    s = cuda.gridsize(1)
    n = len(a) // 2 + a.size % 3 + a.shape[0]
    m = min(i, t)
    big = max(i, -1)
    a[i, x] = 1.0
)",
                   "float32[:, :]");
  EXPECT_EQ(non_negative(a), (std::set<std::string>{"big", "h", "i", "m", "n", "s", "t", "w", "x", "y"}));
}

TEST(IndexSigns, RangeLoopsCountUpFromANonNegativeStart) {
  Analyzed a = run(R"(
def k(a, n, start):
    for i in range(n):
        a[i] = 0.0
    for j in range(2, n, 3):
        a[j] = 0.0
    for d in range(n, 0, -1):
        a[d] = 0.0
    for e in range(start, n):
        a[e] = 0.0
    for f in range(n, 0, start):
        a[f] = 0.0
)",
                   "float32[:], int64, int64");
  EXPECT_EQ(non_negative(a), (std::set<std::string>{"i", "j"}));
}

TEST(IndexSigns, EveryAssignmentCountsAndParametersAreUnknown) {
  Analyzed a = run(R"(
def k(a, p):
    acc = 0
    off = 0
    back = 0
    q = p
    u = 1
    for i in range(4):
        acc += i * 2
        off = off + acc
        back -= 1
        u = u << 1
    v = gpu.grid(1) - 1
    cond = back if p > 0 else 0
    a[acc] = 1.0
)",
                   "float32[:], int64");
  EXPECT_EQ(non_negative(a), (std::set<std::string>{"acc", "i", "off", "u"}));
}

TEST(IndexSigns, ALoopThatFeedsANegativeValueBackIsDropped) {
  // j only ever gets i's value, but i is decremented: neither is assumed never negative.
  Analyzed a = run(R"(
def k(a):
    i = gpu.grid(1)
    j = 0
    while j < 10:
        j = i
        i = i - 5
    a[j] = 1.0
)",
                   "float32[:]");
  EXPECT_EQ(non_negative(a), (std::set<std::string>{}));
}

TEST(IndexSigns, IndexExpressions) {
  Analyzed a = run(R"(
def k(a, p):
    i = gpu.grid(1)
    a[i] = 0.0
    a[i - 1] = 0.0
    a[p] = 0.0
    a[2 * i + 1] = 0.0
    a[-1] = 0.0
    a[i // 4 + cuda.threadIdx.y] = 0.0
)",
                   "float32[:], int64");
  ASSERT_TRUE(a.program) << a.diags.render();
  const TypedFunction& fn = a.kernel();
  // kHeader is four lines; the def is line 6.
  auto nn = [&](uint32_t line) {
    const Expr* e = index_on_line(a, "a", line);
    EXPECT_NE(e, nullptr) << "line " << line;
    return e && never_negative(fn, *e);
  };
  EXPECT_TRUE(nn(8));
  EXPECT_FALSE(nn(9));
  EXPECT_FALSE(nn(10));
  EXPECT_TRUE(nn(11));
  EXPECT_FALSE(nn(12));
  EXPECT_TRUE(nn(13));
}

}  // namespace
}  // namespace gpujit::test
