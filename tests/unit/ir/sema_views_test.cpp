// Array views: the types semantic analysis gives slices and partial indices (rank, numba's layout rules,
// index32 inherited from the base), views through locals and device functions, stores into slices, and the
// errors for bad slices with their exact line:col.
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

// Lines 1-3 are the imports, line 4 is blank; kernels in these tests start on line 5.
const char* kHeader = "import math\nimport numpy as np\nfrom numba import cuda\n";

Analyzed run(const std::string& body, const std::string& sig) {
  return analyze_source(std::string(kHeader) + body, "k", sig);
}

std::string only_error(const std::string& body, const std::string& sig) {
  Analyzed a = run(body, sig);
  EXPECT_FALSE(a.program);
  EXPECT_EQ(a.diags.error_count(), 1u) << a.diags.render();
  return a.first_error();
}

TEST(SemaViews, RankAndLayoutFollowNumba) {
  Analyzed a = run(R"(
def k(m, n):
    row = m[0]
    row2 = m[n, :]
    col = m[:, n]
    rows = m[1:3]
    stepped = m[::2]
    block = m[1:3, 1:3]
    tail = m[n][1:]
    back = m[n][::-1]
    explicit_none = m[0, 1:n:None]
)",
                   "float32[:, ::1], int64");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "row"), "float32[::1]");
  EXPECT_EQ(local_type(a, "row2"), "float32[::1]");
  EXPECT_EQ(local_type(a, "col"), "float32[:]");
  EXPECT_EQ(local_type(a, "rows"), "float32[:, ::1]");
  EXPECT_EQ(local_type(a, "stepped"), "float32[:, :]");
  EXPECT_EQ(local_type(a, "block"), "float32[:, :]");
  EXPECT_EQ(local_type(a, "tail"), "float32[::1]");
  EXPECT_EQ(local_type(a, "back"), "float32[:]");
  EXPECT_EQ(local_type(a, "explicit_none"), "float32[::1]");
}

TEST(SemaViews, AnyLayoutStaysAny) {
  Analyzed a = run(R"(
def k(m):
    row = m[0]
    x = row[1]
)",
                   "int16[:, :]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "row"), "int16[:]");
  EXPECT_EQ(local_type(a, "x"), "int16");
}

TEST(SemaViews, Index32IsInherited) {
  Analyzed a = run(R"(
def k(out):
    s = cuda.shared.array((4, 8), np.float32)
    row = s[1]
    out[0] = row[2]
)",
                   "float32[::1]");
  ASSERT_TRUE(a.program) << a.diags.render();
  auto it = a.kernel().locals.find("row");
  ASSERT_NE(it, a.kernel().locals.end());
  EXPECT_TRUE(it->second.index32);
  EXPECT_EQ(it->second.str(), "float32[::1]");
}

TEST(SemaViews, UnifyingViewsOfTwoLayoutsGivesAny) {
  Analyzed a = run(R"(
def k(m, flag):
    v = m[0]
    if flag:
        v = m[:, 0]
    x = v[0]
)",
                   "float64[:, ::1], bool");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "v"), "float64[:]");
}

TEST(SemaViews, LenShapeAndSizeOfViews) {
  Analyzed a = run(R"(
def k(m):
    n = len(m[1:])
    s = m[:, 1:].shape
    z = m[0].size
)",
                   "float32[:, :]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "n"), "int64");
  EXPECT_EQ(local_type(a, "s"), "UniTuple(int64, 2)");
  EXPECT_EQ(local_type(a, "z"), "int64");
}

TEST(SemaViews, StoresIntoSlices) {
  Analyzed a = run(R"(
def k(m, v):
    m[0] = 1
    m[1:, ::2] = 2.5
    m[0, :] = v
    m[:, 0] = m[:, 1]
)",
                   "float32[:, :], int32[:]");
  EXPECT_TRUE(a.program) << a.diags.render();
}

TEST(SemaViews, ViewsThroughDeviceFunctions) {
  Analyzed a = run(R"(
@cuda.jit(device=True)
def inner(v):
    return v[1:]

def k(m):
    w = inner(m[0])
    x = w[0]
)",
                   "float32[:, ::1]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "w"), "float32[::1]");
}

TEST(SemaViews, BadSlices) {
  EXPECT_EQ(only_error(R"(
def k(a):
    x = a[0.5:2]
)",
                       "float32[:]"),
            "6:11: slice bound must be an integer or None, got float64");
  EXPECT_EQ(only_error(R"(
def k(a, f):
    x = a[1:3:f]
)",
                       "float32[:], float32"),
            "6:15: slice step must be an integer or None, got float32 ('f' is an argument)");
  EXPECT_EQ(only_error(R"(
def k(a):
    x = a[::0]
)",
                       "float32[:]"),
            "6:13: slice step cannot be zero");
  EXPECT_EQ(only_error(R"(
def k(a):
    x = a[1:, 2, :]
)",
                       "float32[:, :]"),
            "6:11: too many indices: array 'a' has 2 dimensions but 3 indices were given");
  EXPECT_EQ(only_error(R"(
def k(a):
    x = a[1.5, :]
)",
                       "float32[:, :]"),
            "6:11: array index must be an integer or a slice, got float64");
  EXPECT_EQ(only_error(R"(
def k(a):
    t = (1, 2)
    x = t[0:1]
)",
                       "float32[:]"),
            "7:11: slicing a tuple is not supported; index its elements ('t' was assigned at line 6)");
  EXPECT_EQ(only_error(R"(
def k(a, f):
    x = f[1:]
)",
                       "float32[:], float32"),
            "6:11: only arrays can be sliced, got float32 ('f' is an argument)");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[1:] = (1, 2)
)",
                       "float32[:]"),
            "6:13: cannot assign a value of type UniTuple(int64, 2) to an array slice; assign a scalar or an "
            "array");
}

}  // namespace
}  // namespace gpujit::test
