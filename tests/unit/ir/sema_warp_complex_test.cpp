// Typing of the warp builtins, complex numbers, cmath, gpu.random and cooperative groups: numba-cuda's result
// types, and the user errors with their exact line:col.
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

// Lines 1-4 are the imports, line 5 is blank; kernels in these tests start on line 6.
const char* kHeader =
    "import cmath\nimport numpy as np\nfrom numba import cuda\nimport gpujit.random as rnd\n";

Analyzed run(const std::string& body, const std::string& sig) {
  return analyze_source(std::string(kHeader) + body, "k", sig);
}

std::string only_error(const std::string& body, const std::string& sig) {
  Analyzed a = run(body, sig);
  EXPECT_FALSE(a.program);
  EXPECT_EQ(a.diags.error_count(), 1u) << a.diags.render();
  return a.first_error();
}

TEST(WarpTyping, ResultTypesAreNumbas) {
  Analyzed a = run(R"(
def k(a, f):
    i = cuda.grid(1)
    s = cuda.shfl_down_sync(0xffffffff, a[i], 1)
    t = cuda.shfl_sync(cuda.activemask(), f[i], i)
    b = cuda.ballot_sync(0xffffffff, a[i] > 0)
    v = cuda.all_sync(0xffffffff, a[i])
    m = cuda.match_any_sync(0xffffffff, f[i])
    pair = cuda.match_all_sync(0xffffffff, a[i])
    lt = cuda.lanemask_lt()
)",
                   "int32[:], float64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "s"), "int32");
  EXPECT_EQ(local_type(a, "t"), "float64");
  EXPECT_EQ(local_type(a, "b"), "int32");
  EXPECT_EQ(local_type(a, "v"), "bool");
  EXPECT_EQ(local_type(a, "m"), "int32");
  EXPECT_EQ(local_type(a, "pair"), "Tuple(int32, bool)");
  EXPECT_EQ(local_type(a, "lt"), "uint32");
}

TEST(WarpTyping, Errors) {
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = cuda.shfl_sync(0xffffffff, a[0], 0)
)",
                       "float16[:]"),
            "7:39: cuda.shfl_sync() shuffles 32- and 64-bit integers and floats, got float16");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = cuda.shfl_up_sync(0xffffffff, a[0], 1.5)
)",
                       "int64[:]"),
            "7:48: cuda.shfl_up_sync() takes an integer lane delta, got float64");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = cuda.ballot_sync(1.0, True)
)",
                       "int64[:]"),
            "7:29: cuda.ballot_sync() takes an integer lane mask, got float64 (numba: Mask type must be an integer)");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = cuda.all_sync(True, True)
)",
                       "int64[:]"),
            "7:26: cuda.all_sync() takes an integer lane mask, got bool (numba: Mask type must be an integer)");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = cuda.any_sync(0xffffffff, a[0])
)",
                       "float32[:]"),
            "7:38: cuda.any_sync() takes an integer or bool predicate, got float32 (numba: Predicate must be an "
            "integer or boolean)");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = cuda.shfl_sync(0xffffffff, a[0])
)",
                       "int64[:]"),
            "7:12: cuda.shfl_sync() takes 3 arguments, got 2");
}

TEST(ComplexTyping, ArithmeticAndBuiltins) {
  Analyzed a = run(R"(
def k(z, w, x):
    p = z[0] * 2.0 + 1
    q = z[0] * w[0]
    r = z[0] + x[0]
    re = z[0].real
    mod = abs(w[0])
    c = complex(x[0], x[0])
    d = complex(1, 2)
    s = cmath.sqrt(z[0])
    e = cmath.exp(x[0])
    ph = cmath.phase(z[0])
    po = cmath.polar(w[0])
    nan = cmath.isnan(z[0])
    conj = w[0].conjugate()
    xr = x[0].imag
    eq = z[0] == 1
)",
                   "complex64[:], complex128[:], float32[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "p"), "complex128");  // a float64 constant beside complex64, as numba-cuda
  EXPECT_EQ(local_type(a, "q"), "complex128");
  EXPECT_EQ(local_type(a, "r"), "complex64");
  EXPECT_EQ(local_type(a, "re"), "float32");
  EXPECT_EQ(local_type(a, "mod"), "float64");
  EXPECT_EQ(local_type(a, "c"), "complex64");
  EXPECT_EQ(local_type(a, "d"), "complex128");
  EXPECT_EQ(local_type(a, "s"), "complex64");
  EXPECT_EQ(local_type(a, "e"), "complex64");
  EXPECT_EQ(local_type(a, "ph"), "float32");
  EXPECT_EQ(local_type(a, "po"), "UniTuple(float64, 2)");
  EXPECT_EQ(local_type(a, "nan"), "bool");
  EXPECT_EQ(local_type(a, "conj"), "complex128");
  EXPECT_EQ(local_type(a, "xr"), "float32");
  EXPECT_EQ(local_type(a, "eq"), "bool");
}

TEST(ComplexTyping, Errors) {
  EXPECT_EQ(only_error(R"(
def k(z, a):
    a[0] = z[0]
)",
                       "complex64[:], float64[:]"),
            "7:12: cannot store a value of type complex64 into an element of type float64");
  EXPECT_EQ(only_error(R"(
def k(z):
    z[0] = z[0] // 2
)",
                       "complex128[:]"),
            "7:17: unsupported operand types for //: 'complex128' and 'int64'");
  EXPECT_EQ(only_error(R"(
def k(z):
    if z[0] < z[1]:
        z[0] = 0
)",
                       "complex128[:]"),
            "7:8: complex numbers cannot be ordered with '<'; compare their .real, .imag or abs()");
  EXPECT_EQ(only_error(R"(
def k(z):
    z[0] = complex(z[0], 1.0)
)",
                       "complex128[:]"),
            "7:20: complex() argument 1 must be a real number, got complex128");
  EXPECT_EQ(only_error(R"(
def k(z):
    z[0] = cmath.sqr(z[0])
)",
                       "complex128[:]"),
            "7:18: module 'cmath' has no attribute 'sqr'; did you mean 'sqrt'?");
  EXPECT_EQ(only_error(R"(
def k(z):
    w = z[0]
    z[0] = w.real()
)",
                       "complex128[:]"),
            "8:12: 'w.real' is not callable (it is a value of type float64)");
}

TEST(RandomAndGridTyping, ResultTypesAndErrors) {
  Analyzed a = run(R"(
def k(states, out):
    i = cuda.grid(1)
    u = rnd.xoroshiro128p_uniform_float32(states, i)
    n = cuda.random.xoroshiro128p_normal_float64(states, i)
    x = rnd.xoroshiro128p_next(states, i)
    g = cuda.cg.this_grid()
    status = g.sync()
)",
                   "uint64[:, ::1], float32[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "u"), "float32");
  EXPECT_EQ(local_type(a, "n"), "float64");
  EXPECT_EQ(local_type(a, "x"), "uint64");
  EXPECT_EQ(local_type(a, "g"), "grid_group");
  EXPECT_EQ(local_type(a, "status"), "int32");

  EXPECT_EQ(only_error(R"(
def k(states, out):
    out[0] = rnd.xoroshiro128p_uniform_float32(states, 0.5)
)",
                       "uint64[:, ::1], float32[:]"),
            "7:56: rnd.xoroshiro128p_uniform_float32() takes an integer index, got float64");
  EXPECT_EQ(only_error(R"(
def k(out):
    cuda.cg.this_grid().wait()
)",
                       "float32[:]"),
            "7:25: 'grid_group' has no attribute 'wait'");
}

}  // namespace
}  // namespace gpujit::test
