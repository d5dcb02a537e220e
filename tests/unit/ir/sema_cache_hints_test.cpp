// Semantic analysis of numba-cuda's cache-hinted loads and stores (cuda.ldcs, cuda.stcg ...), of the
// integer method bit_count(), of cuda.nanosleep and math.nextafter: result types, and each misuse reported
// once at its line:col.
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

// Lines 1-3 are the imports, line 4 is blank; kernels in these tests start on line 5.
const char* kHeader = "import math\nimport numpy as np\nfrom numba import cuda\n";

Analyzed run(const std::string& body, const std::string& sig) {
  return analyze_source(std::string(kHeader) + body, "k", sig);
}

std::string only_error(const std::string& body, const std::string& sig) {
  return only_error_of(run(body, sig));
}

TEST(CacheHints, LoadsGiveTheDtypeAndStoresConvert) {
  Analyzed a = run(R"(
def k(r, x, m):
    v = cuda.ldcs(x, 0)
    w = cuda.ldcg(m, (1, 2))
    cuda.stwt(r, -1, 2.5)
    cuda.stcg(m, (0, 0), v)
)",
                   "int8[::1], int8[::1], float16[:, :]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "v"), "int8");
  EXPECT_EQ(local_type(a, "w"), "float16");
}

TEST(CacheHints, BadIndicesUseNumbasWords) {
  EXPECT_EQ(only_error(R"(
def k(x):
    cuda.ldcs(x, 1.0)
)",
                       "float32[::1]"),
            "6:18: float64 is not a valid index; cuda.ldcs() takes an integer");
  EXPECT_EQ(only_error(R"(
def k(x):
    cuda.ldcs(x, (1, 2))
)",
                       "float32[::1]"),
            "6:18: cuda.ldcs() on a 1-dimensional array takes an integer index (Expected 1 indices, got 2)");
  EXPECT_EQ(only_error(R"(
def k(x):
    cuda.stcs(x, 1, 0)
)",
                       "float32[:, ::1]"),
            "6:18: cuda.stcs() on a 2-dimensional array takes a tuple of 2 integers as its index (Expected 2 "
            "indices, got a scalar)");
  EXPECT_EQ(only_error(R"(
def k(x):
    cuda.ldcs(x, (1,))
)",
                       "float32[:, ::1]"),
            "6:18: cuda.ldcs() on a 2-dimensional array takes a tuple of 2 integers as its index (Expected 2 "
            "indices, got 1)");
}

TEST(CacheHints, UnsupportedDtypesAndValues) {
  EXPECT_EQ(
      only_error(R"(
def k(r, x):
    r[0] = cuda.ldcs(x, 0)
)",
                 "complex64[:], complex64[:]"),
      "6:22: ldcs requires array of integer or float type, got complex64 ('x' is an argument); cache hints "
      "move integers and floats of 8, 16, 32 or 64 bits");
  EXPECT_EQ(
      only_error(R"(
def k(x):
    cuda.stwb(x, 0, True)
)",
                 "bool[:]"),
      "6:15: stwb requires array of integer or float type, got bool ('x' is an argument); cache hints move "
      "integers and floats of 8, 16, 32 or 64 bits");
  EXPECT_EQ(only_error(R"(
def k(x, n):
    cuda.ldcs(n, 0)
)",
                       "float32[:], int32"),
            "6:15: cuda.ldcs() operates on arrays; argument 1 is int32 ('n' is an argument)");
  EXPECT_EQ(only_error(R"(
def k(x):
    cuda.stcs(x, 0, 1j)
)",
                       "float32[:]"),
            "6:21: cuda.stcs() value must be a number, got complex128");
}

TEST(CacheHints, SharedLocalAndConstantArraysAreRejected) {
  EXPECT_EQ(only_error(R"(
def k(x):
    s = cuda.shared.array(32, np.float32)
    x[0] = cuda.ldcg(s, 0)
)",
                       "float32[:]"),
            "7:22: cuda.ldcg() needs an array in global memory (a kernel argument); 's' is in shared memory, "
            "which ld.global cannot address: index it directly instead");
  EXPECT_EQ(only_error(R"(
def k(x):
    cuda.stcg(cuda.local.array(4, np.int32)[1:], 0, 1)
)",
                       "float32[:]"),
            "6:15: cuda.stcg() needs an array in global memory (a kernel argument); this array is in local "
            "memory, which st.global cannot address: index it directly instead");
  EXPECT_EQ(
      only_error(R"(
C = np.arange(4)

def k(x):
    x[0] = cuda.ldca(C, 0)
)",
                 "int64[:]"),
      "8:22: cuda.ldca() needs an array in global memory (a kernel argument); 'C' is in constant memory, "
      "which ld.global cannot address: index it directly instead");
}

TEST(BitCount, IsPopcOfTheIntegersOwnType) {
  Analyzed a = run(R"(
def k(r, x, y):
    a = x.bit_count()
    b = y.bit_count()
    r[0] = a + b
)",
                   "int32[:], uint8, int64");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "a"), "uint8");
  EXPECT_EQ(local_type(a, "b"), "int64");
  EXPECT_EQ(only_error(R"(
def k(r, f):
    r[0] = f.bit_count()
)",
                       "int32[:], float32"),
            "6:14: bit_count() is a method of integers, not of float32 ('f' is an argument)");
}

TEST(Nanosleep, TakesAnIntegerAndGivesNothing) {
  Analyzed a = run(R"(
def k(n):
    cuda.nanosleep(32)
    cuda.nanosleep(n)
)",
                   "uint32");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(
      only_error(R"(
def k(f):
    cuda.nanosleep(f)
)",
                 "float32"),
      "6:20: cuda.nanosleep() argument 1 must be an integer (nanoseconds), got float32 ('f' is an argument)");
  EXPECT_EQ(only_error(R"(
def k(r):
    r[0] = cuda.nanosleep(5)
)",
                       "int32[:]"),
            "6:12: 'cuda.nanosleep()' does not return a value");
}

TEST(Nextafter, FollowsNumbasMathBinaryTypes) {
  Analyzed a = run(R"(
def k(r, x, i):
    a = math.nextafter(x, x)
    b = math.nextafter(i, 1)
    c = np.nextafter(x, 2.0)
)",
                   "float32[:], float32, int32");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "a"), "float32");
  EXPECT_EQ(local_type(a, "b"), "float64");
  EXPECT_EQ(local_type(a, "c"), "float64");
}

}  // namespace
}  // namespace gpujit::test
