// Python semantics of the lowering, checked by running kernels: each kernel goes through compile() for the
// host CPU (the same target-independent lowering the GPU gets, with the host target) and runs as one thread
// on the host executor, through the CPU backend's test helpers (tests/unit/host/host_kernel_test.h). Inputs come from arrays, so LLVM cannot fold the operations away and the code that runs
// is the code the lowering emitted. Expected values are CPython's (NumPy's where Python would raise).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../host/host_kernel_test.h"

namespace gpujit::test {
namespace {

/// A 1-D contiguous array argument.
struct Arg {
  void* data;
  int64_t extent;
  int64_t itemsize;

  template <typename T>
  static Arg array(std::vector<T>& v) {
    return {v.data(), int64_t(v.size()), int64_t(sizeof(T))};
  }
};

/// Compiles `kernel` for the host (tests/unit/host's helpers) and runs it as one thread.
void run_on_host(const std::string& source, const std::string& kernel, const std::string& sig,
                 const std::vector<Arg>& args) {
  CompileResult r = testing::compile_for_host(source, kernel, sig);
  testing::Args packed;
  for (const Arg& a : args) packed.strided(static_cast<uint8_t*>(a.data), {a.extent}, {a.itemsize});
  packed.launch(r, {1, 1, 1}, {1, 1, 1});
}

TEST(Semantics, SignedFloorDivisionAndModulo) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, b, q, r):
    for i in range(a.size):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
)";
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> a = {-7, 7, -7, 7, 0, -1, 5, -5, kMin, kMin};
  std::vector<int64_t> b = {2, -2, -2, 2, 3, 5, 0, 0, -1, 1};
  std::vector<int64_t> q(a.size(), 99), r(a.size(), 99);
  run_on_host(src, "k", "void(int64[::1], int64[::1], int64[::1], int64[::1])",
              {Arg::array(a), Arg::array(b), Arg::array(q), Arg::array(r)});
  // By zero gives 0 (NumPy's result); INT_MIN // -1 wraps.
  EXPECT_EQ(q, (std::vector<int64_t>{-4, -4, 3, 3, 0, -1, 0, 0, kMin, kMin}));
  EXPECT_EQ(r, (std::vector<int64_t>{1, -1, -1, 1, 0, 4, 0, 0, 0, 0}));
}

TEST(Semantics, Int32FloorDivisionRunsInTheOperandType) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, b, q, r):
    for i in range(a.size):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
)";
  std::vector<int32_t> a = {-7, 7, 100, -2147483647 - 1};
  std::vector<int32_t> b = {2, -3, 0, -1};
  std::vector<int32_t> q(a.size()), r(a.size());
  run_on_host(src, "k", "void(int32[::1], int32[::1], int32[::1], int32[::1])",
              {Arg::array(a), Arg::array(b), Arg::array(q), Arg::array(r)});
  // int32 operands compute in int64 (numba's rules), so INT32_MIN // -1 is 2**31, wrapped on the store.
  EXPECT_EQ(q, (std::vector<int32_t>{-4, -3, 0, -2147483647 - 1}));
  EXPECT_EQ(r, (std::vector<int32_t>{1, -2, 0, 0}));
}

TEST(Semantics, UnsignedDivisionShiftsAndBitOps) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, b, out):
    x = a[0]
    y = b[0]
    out[0] = x // y
    out[1] = x % y
    out[2] = x >> b[1]
    out[3] = x << b[1]
    out[4] = ~x
    out[5] = x // b[2]
    out[6] = x >> b[3]
)";
  std::vector<uint64_t> a = {0xF000000000000007ull};
  std::vector<uint64_t> b = {2, 4, 0, 64};
  std::vector<uint64_t> out(7, 99);
  run_on_host(src, "k", "void(uint64[::1], uint64[::1], uint64[::1])",
              {Arg::array(a), Arg::array(b), Arg::array(out)});
  const uint64_t x = a[0];
  EXPECT_EQ(out[0], x / 2);
  EXPECT_EQ(out[1], 1u);
  EXPECT_EQ(out[2], x >> 4);  // logical
  EXPECT_EQ(out[3], x << 4);
  EXPECT_EQ(out[4], ~x);
  EXPECT_EQ(out[5], 0u);  // by zero
  EXPECT_EQ(out[6], 0u);  // shift by the width
}

TEST(Semantics, SignedShiftsAndPower) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, out):
    x = a[0]
    out[0] = x << a[1]
    out[1] = x >> a[2]
    out[2] = a[3] << a[4]
    out[3] = x >> a[5]
    out[4] = a[6] >> a[5]
    out[5] = a[7] ** a[8]
    out[6] = x ** a[9]
    out[7] = a[7] ** a[10]
    out[8] = a[11] ** a[10]
    out[9] = a[12] ** a[13]
    out[10] = a[12] ** a[10]
    out[11] = x ** 2
    out[12] = a[7] ** 0
)";
  //                       x   <<2 >>1 1  <<64 >>70  7  2  10  3  -1   1  -1  -3
  std::vector<int64_t> a = {-7, 2, 1, 1, 64, 70, 7, 2, 10, 3, -1, 1, -1, -3};
  std::vector<int64_t> out(13, 99);
  run_on_host(src, "k", "void(int64[::1], int64[::1])", {Arg::array(a), Arg::array(out)});
  EXPECT_EQ(out[0], -28);
  EXPECT_EQ(out[1], -4);  // arithmetic shift floors
  EXPECT_EQ(out[2], 0);   // << by the width or more
  EXPECT_EQ(out[3], -1);  // >> of a negative by the width or more: all sign bits
  EXPECT_EQ(out[4], 0);
  EXPECT_EQ(out[5], 1024);
  EXPECT_EQ(out[6], -343);
  EXPECT_EQ(out[7], 0);    // 2 ** -1: numba's integer result
  EXPECT_EQ(out[8], 1);    // 1 ** -1
  EXPECT_EQ(out[9], -1);   // (-1) ** -3
  EXPECT_EQ(out[10], -1);  // (-1) ** -1
  EXPECT_EQ(out[11], 49);
  EXPECT_EQ(out[12], 1);
}

TEST(Semantics, FloatFloorDivisionModuloAndPower) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, b, q, r, p):
    for i in range(a.size):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        p[i] = a[i] ** 2.0
)";
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> a = {-7.5, 7.5, 6.0, -6.0, 6.0, 5.0, 0.5, 1.0, -1.0};
  std::vector<double> b = {2.0, -2.0, 3.0, 3.0, -3.0, 0.1, -1.0, 0.0, 0.0};
  std::vector<double> q(a.size()), r(a.size()), p(a.size());
  run_on_host(src, "k", "void(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1])",
              {Arg::array(a), Arg::array(b), Arg::array(q), Arg::array(r), Arg::array(p)});
  std::vector<double> want_q = {-4.0, -4.0, 2.0, -2.0, -2.0, 49.0, -1.0, inf, -inf};
  std::vector<double> want_r = {0.5, -0.5, 0.0, 0.0, -0.0, 0.09999999999999973, -0.5, NAN, NAN};
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(q[i], want_q[i]) << a[i] << " // " << b[i];
    if (std::isnan(want_r[i])) {
      EXPECT_TRUE(std::isnan(r[i])) << a[i] << " % " << b[i];
    } else {
      EXPECT_EQ(r[i], want_r[i]) << a[i] << " % " << b[i];
      EXPECT_EQ(std::signbit(r[i]), std::signbit(want_r[i])) << a[i] << " % " << b[i];
    }
    EXPECT_EQ(p[i], a[i] * a[i]);
  }
}

TEST(Semantics, ConversionsSaturateWrapAndRound) {
  const char* src = R"(
import numpy as np
import gpujit as gpu

@gpu.jit
def k(f, i, out, small, flags):
    out[0] = int(f[0])
    out[1] = int(f[1])
    out[2] = int(f[2])
    out[3] = int(f[3])
    out[4] = round(f[4])
    out[5] = round(f[5])
    out[6] = round(f[6])
    small[0] = np.int32(i[0])
    small[1] = i[1]
    flags[0] = bool(f[7])
    flags[1] = bool(f[3])
    flags[2] = not f[7]
)";
  std::vector<double> f = {-2.7, 2.7, 1e30, NAN, 2.5, 3.5, -2.5, 0.0};
  std::vector<int64_t> i = {(int64_t(1) << 31) + 5, -1};
  std::vector<int64_t> out(7, 99);
  std::vector<int32_t> small(2, 99);
  std::vector<uint8_t> flags(3, 99);
  run_on_host(src, "k", "void(float64[::1], int64[::1], int64[::1], int32[::1], bool[::1])",
              {Arg::array(f), Arg::array(i), Arg::array(out), Arg::array(small), Arg::array(flags)});
  EXPECT_EQ(out[0], -2);
  EXPECT_EQ(out[1], 2);
  EXPECT_EQ(out[2], std::numeric_limits<int64_t>::max());  // saturates
  EXPECT_EQ(out[3], 0);                                    // NaN gives 0
  EXPECT_EQ(out[4], 2);                                    // halves to even
  EXPECT_EQ(out[5], 4);
  EXPECT_EQ(out[6], -2);
  EXPECT_EQ(small[0], -2147483643);  // wraps
  EXPECT_EQ(small[1], -1);
  EXPECT_EQ(flags, (std::vector<uint8_t>{0, 1, 1}));  // bool(nan) is True
}

TEST(Semantics, BoolOpsReturnOperandsAndShortCircuit) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit(device=True)
def bump(counter, v):
    gpu.atomic.add(counter, 0, 1)
    return v

@gpu.jit
def k(a, out, counter):
    out[0] = a[0] or a[1]
    out[1] = a[2] or a[1]
    out[2] = a[0] and a[1]
    out[3] = a[2] and a[1]
    out[4] = a[0] and bump(counter, a[1])
    out[5] = a[2] or bump(counter, a[1])
    out[6] = 0 < bump(counter, a[1]) < 10
    out[7] = a[2] > a[1] > bump(counter, a[0])
    out[8] = a[1] if a[0] else a[2]
)";
  std::vector<int64_t> a = {0, 5, 3};
  std::vector<int64_t> out(9, 99), counter(1, 0);
  run_on_host(src, "k", "void(int64[::1], int64[::1], int64[::1])",
              {Arg::array(a), Arg::array(out), Arg::array(counter)});
  EXPECT_EQ(out, (std::vector<int64_t>{5, 3, 0, 5, 0, 3, 1, 0, 3}));
  // bump ran once for out[6] (its value compared twice, evaluated once) and never for the short circuits
  // or for out[7], whose first comparison 3 > 5 is already false.
  EXPECT_EQ(counter[0], 1);
}

TEST(Semantics, RangeLoopsWithNegativeAndRuntimeSteps) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(steps, out):
    acc = 0
    for j in range(10, 0, -3):
        acc += j
    out[0] = acc
    for n in range(steps.size):
        acc = 0
        for j in range(5, -5, steps[n]):
            acc += j
        out[1 + n] = acc
    acc = 0
    for j in range(4):
        j = 100
        acc += 1
    out[5] = acc * 1000 + j
)";
  std::vector<int64_t> steps = {-2, 3, 0, -20};
  std::vector<int64_t> out(6, 99);
  run_on_host(src, "k", "void(int64[::1], int64[::1])", {Arg::array(steps), Arg::array(out)});
  EXPECT_EQ(out[0], 22);
  EXPECT_EQ(out[1], 5);  // 5 3 1 -1 -3
  EXPECT_EQ(out[2], 0);  // positive step, start above stop
  EXPECT_EQ(out[3], 0);  // a zero step runs nothing
  EXPECT_EQ(out[4], 5);  // one iteration
  // Assigning the loop variable does not change the iteration.
  EXPECT_EQ(out[5], 4100);
}

TEST(Semantics, LoopElseBreakContinue) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, out):
    found = -1
    for i in range(a.size):
        if a[i] < 0:
            continue
        if a[i] == 7:
            found = i
            break
    else:
        found = -2
    out[0] = found
    n = 0
    while n < 3:
        n += 1
    else:
        n += 100
    out[1] = n
    n = 0
    while True:
        n += 1
        if n == 5:
            break
    else:
        n = -1
    out[2] = n
)";
  std::vector<int64_t> a = {-7, 1, 7, 7};
  std::vector<int64_t> out(3, 99);
  run_on_host(src, "k", "void(int64[::1], int64[::1])", {Arg::array(a), Arg::array(out)});
  EXPECT_EQ(out, (std::vector<int64_t>{2, 103, 5}));
  std::vector<int64_t> none = {-7, 1};
  run_on_host(src, "k", "void(int64[::1], int64[::1])", {Arg::array(none), Arg::array(out)});
  EXPECT_EQ(out[0], -2);
}

TEST(Semantics, TuplesDeviceFunctionsAndNegativeIndices) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit(device=True)
def divmod_pair(a, b):
    return a // b, a % b

@gpu.jit
def k(a, out):
    x, y = a[0], a[1]
    x, y = y, x
    out[0] = x
    out[1] = y
    q, r = divmod_pair(a[0], a[1])
    out[2] = q
    out[3] = r
    t = (a[0], a[1], a[2])
    out[4] = t[-1]
    out[5] = a[-1]
    out[6] = a.shape[0]
    out[7] = len(a)
)";
  std::vector<int64_t> a = {-7, 2, 9};
  std::vector<int64_t> out(8, 99);
  run_on_host(src, "k", "void(int64[::1], int64[::1])", {Arg::array(a), Arg::array(out)});
  EXPECT_EQ(out, (std::vector<int64_t>{2, -7, -4, 1, 9, 9, 3, 3}));
}

TEST(Semantics, MinMaxOfTwoFloatsAreFminFmaxAndOfMoreKeepTheFirstExtreme) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, out):
    out[0] = min(a[0], a[1])
    out[1] = min(a[1], a[0])
    out[2] = max(a[2], a[1], a[3])
    out[3] = abs(a[4])
)";
  std::vector<double> a = {NAN, 1.0, 2.0, 5.0, -3.5};
  std::vector<double> out(4, 99);
  run_on_host(src, "k", "void(float64[::1], float64[::1])", {Arg::array(a), Arg::array(out)});
  // Two floats: C's fmin, a NaN loses, as numba-cuda (CPython would give nan for min(nan, 1.0)).
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], 1.0);
  EXPECT_EQ(out[2], 5.0);  // three operands: CPython's rule, the first extreme stays (numba-cuda's too)
  EXPECT_EQ(out[3], 3.5);
}

TEST(Semantics, TupleAndBoolArgumentsAreFlattened) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(t, flag, x, out):
    a, b = t
    out[0] = a - b if flag else b - a
    out[1] = x * 2.0
)";
  CompileResult r =
      testing::compile_for_host(src, "k", "void(UniTuple(int64, 2), bool, float32, float64[::1])");
  ASSERT_EQ(r.params.size(), 4u);
  EXPECT_EQ(r.params[0].count, 2u);  // the tuple's two elements
  EXPECT_EQ(r.params[1].first, 2u);  // the bool: one byte
  EXPECT_EQ(r.params[2].first, 3u);
  EXPECT_EQ(r.params[3].first, 4u);
  EXPECT_EQ(r.params[3].count, 3u);
  std::vector<double> out(2, 99);
  testing::Args args;
  args.scalar(int64_t(10)).scalar(int64_t(3)).scalar(uint8_t(1)).scalar(1.25f).array(out.data(), {2});
  args.launch(r, {1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(out, (std::vector<double>{7.0, 2.5}));
}

TEST(Semantics, AnyLayoutIndexesThroughByteStrides) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] + a[-1, -1] * 0
    out[0, 0] = a.strides[0]
    out[0, 1] = a.strides[1]
)";
  // a is the transpose of a 3x2 C array: shape (2, 3), strides (8, 16) bytes.
  std::vector<int64_t> base = {0, 1, 2, 3, 4, 5};  // [[0, 1], [2, 3], [4, 5]]
  std::vector<int64_t> out(6, 99);
  CompileResult r = testing::compile_for_host(src, "k", "void(int64[:, :], int64[:, ::1])");
  testing::Args args;
  args.strided(base.data(), {2, 3}, {8, 16}).array(out.data(), {2, 3});
  args.launch(r, {1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(out, (std::vector<int64_t>{8, 16, 4, 1, 3, 5}));
}

}  // namespace
}  // namespace gpujit::test
