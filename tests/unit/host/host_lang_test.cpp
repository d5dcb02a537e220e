// The kernel language on the CPU backend, against exact expectations computed here: memory spaces (static,
// dynamic and local arrays, constant arrays), barrier predicates, every atomic with numba-cuda's semantics
// (NaN rules of max/min and nanmax/nanmin, inc/dec wrapping, cas), the integer/float intrinsics, print(),
// recursive device functions and tuple arguments. tests/python/test_kernel_language.py runs the same
// features from Python on the CPU backend here and on the GPU where there is one.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

#include "host_kernel_test.h"

namespace gpujit {
namespace {

using testing::Args;
using testing::compile_for_host;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Compiles for the host with one extra global: a captured NumPy-like array `name` of float32 values.
CompileResult compile_with_const_array(const std::string& source, const std::string& kernel,
                                       const std::string& sig, const std::string& name,
                                       const std::vector<float>& values, std::vector<int64_t> shape) {
  std::shared_ptr<const Module> module = parse_source("kernels.py", source);
  CompileRequest request;
  request.module = module;
  request.kernel_name = kernel;
  std::string error;
  request.arg_types = parse_signature(sig, &error)->params;
  Diagnostics global_diags;
  request.globals = globals_from_module(*module, global_diags);
  GlobalValue g;
  g.kind = GlobalValue::Kind::ConstArray;
  g.dtype = ScalarKind::Float32;
  g.shape = std::move(shape);
  const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
  g.bytes.assign(bytes, bytes + values.size() * sizeof(float));
  request.globals[name] = g;
  CompileResult result = compile_host(request);
  if (!result.ok || !result.host) throw testing::CompileFailed(result.diagnostics.render());
  return result;
}

TEST(HostLang, SharedArraysOfEveryShapeFormAndDtype) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as cuda

N = 16
SHAPE = (2, N)

@cuda.jit
def k(out):
    a = cuda.shared.array(N, np.int32)
    b = cuda.shared.array(SHAPE, dtype=np.float64)
    c = cuda.shared.array((2, 2, N), cuda.uint8)
    t = cuda.threadIdx.x
    a[t] = t
    b[1, t] = 0.5 * t
    c[1, 0, t] = 3
    cuda.syncthreads()
    out[t] = a[N - 1 - t] + b[1, N - 1 - t] + c[1, 0, (t + 1) % N] + len(a) + b.size + c.shape[0]
)",
                                     "k", "float64[::1]");
  EXPECT_GE(r.host->static_shared_bytes, 16u * 4 + 32 * 8 + 64);
  std::vector<double> out(16);
  Args().array(out.data(), {16}).launch(r, {2, 1, 1}, {16, 1, 1});
  for (int t = 0; t < 16; ++t) EXPECT_EQ(out[t], (15 - t) + 0.5 * (15 - t) + 3 + 16 + 32 + 2) << t;
}

TEST(HostLang, DynamicSharedArraysAliasAndTakeTheirExtentFromTheLaunch) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as cuda

@cuda.jit
def k(x, bits, extents):
    f = cuda.shared.array(0, np.float32)
    i = cuda.shared.array(shape=0, dtype=np.int32)
    d = cuda.shared.array(0, np.float64)
    t = cuda.threadIdx.x
    f[t] = x[t]
    cuda.syncthreads()
    bits[t] = i[t]
    if t == 0:
        extents[0] = len(f)
        extents[1] = i.size
        extents[2] = d.shape[0]
)",
                                     "k", "float32[::1], int32[::1], int64[::1]");
  EXPECT_EQ(r.host->static_shared_bytes, 0u);
  std::vector<float> x = {1.5f, -2.0f, 0.0f, 3.25f};
  std::vector<int32_t> bits(4);
  std::vector<int64_t> extents(3);
  Args()
      .array(x.data(), {4})
      .array(bits.data(), {4})
      .array(extents.data(), {3})
      .launch(r, {1, 1, 1}, {4, 1, 1}, 40);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bits[t], std::bit_cast<int32_t>(x[t])) << t;
  EXPECT_EQ(extents, (std::vector<int64_t>{10, 10, 5}));
}

TEST(HostLang, LocalArraysArePerThread) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as cuda

@cuda.jit
def k(out):
    i = cuda.grid(1)
    acc = cuda.local.array((2, 4), np.int64)
    for j in range(8):
        acc[j // 4, j % 4] = i * j
    s = 0
    for j in range(8):
        s += acc[j % 2, j // 2]
    out[i] = s
)",
                                     "k", "int64[::1]");
  std::vector<int64_t> out(64);
  Args().array(out.data(), {64}).launch(r, {2, 1, 1}, {32, 1, 1});
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(out[i], i * 28) << i;
}

TEST(HostLang, ConstantArraysAreBakedIn) {
  const char* source = R"(
import gpujit as cuda

@cuda.jit
def k(out):
    i = cuda.grid(1)
    w = cuda.const.array_like(WEIGHTS)
    out[i] = w[i % 3, 0] + WEIGHTS[i % 3, 1] * 10
)";
  CompileResult r =
      compile_with_const_array(source, "k", "float32[::1]", "WEIGHTS", {1, 2, 3, 4, 5, 6}, {3, 2});
  std::vector<float> out(6);
  Args().array(out.data(), {6}).launch(r, {1, 1, 1}, {6, 1, 1});
  EXPECT_EQ(out, (std::vector<float>{21, 43, 65, 21, 43, 65}));
}

TEST(HostLang, StoresIntoConstantArraysAreErrors) {
  const char* source = R"(
import gpujit as cuda

@cuda.jit
def k(out):
    w = cuda.const.array_like(WEIGHTS)
    w[0] = out[0]
    cuda.atomic.add(WEIGHTS, 1, 1.0)
)";
  try {
    compile_with_const_array(source, "k", "float32[::1]", "WEIGHTS", {1, 2}, {2});
    FAIL() << "stores into constant memory compiled";
  } catch (const testing::CompileFailed& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kernels.py:7:5: error: 'w' is in constant memory, which is read-only; a store cannot "
                     "write to it"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("kernels.py:8:21: error: 'WEIGHTS' is in constant memory, which is read-only; an atomic "
                     "operation cannot write to it"),
              std::string::npos)
        << m;
  }
}

TEST(HostLang, BarrierPredicatesAndFences) {
  CompileResult r = compile_for_host(R"(
import gpujit as cuda

@cuda.jit
def k(out):
    t = cuda.threadIdx.x
    n = cuda.syncthreads_count(t % 3 == 0)
    a = cuda.syncthreads_and(t < 40)
    b = cuda.syncthreads_and(t < 20)
    o = cuda.syncthreads_or(t == 7)
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    cuda.syncwarp()
    out[t] = n * 100 + a * 10 + b * 2 + o
)",
                                     "k", "int32[::1]");
  EXPECT_TRUE(r.host->uses_barrier);
  std::vector<int32_t> out(40);
  Args().array(out.data(), {40}).launch(r, {1, 1, 1}, {40, 1, 1});
  for (int t = 0; t < 40; ++t) EXPECT_EQ(out[t], 14 * 100 + 10 + 0 + 1) << t;
}

TEST(HostLang, IntegerAtomicsFromManyThreads) {
  CompileResult r =
      compile_for_host(R"(
import gpujit as cuda

@cuda.jit
def k(i32, u32, i64, u64, olds, flag):
    i = cuda.grid(1)
    cuda.atomic.add(i32, 0, 1)
    cuda.atomic.sub(i32, 1, 2)
    cuda.atomic.max(i32, 2, i - 100)
    cuda.atomic.min(i32, 3, 1000 - i)
    cuda.atomic.nanmax(u64, 0, i)
    cuda.atomic.nanmin(u64, 1, i + 5)
    cuda.atomic.and_(u32, 0, ~(1 << (i % 32)))
    cuda.atomic.or_(u32, 1, 1 << (i % 32))
    cuda.atomic.xor(i64, 0, i)
    cuda.atomic.inc(u32, 2, 9)
    cuda.atomic.dec(u64, 2, 9)
    olds[i] = cuda.atomic.exch(i64, 1, i)
    if cuda.atomic.cas(i64, 2, -1, i) == -1:
        cuda.atomic.add(i64, 3, 1)
    if cuda.atomic.compare_and_swap(flag, 0, i + 1) == 0:
        cuda.atomic.add(flag, 1, 1)
)",
                       "k", "int32[::1], uint32[::1], int64[::1], uint64[::1], int64[::1], int32[::1]");
  const int64_t n = 1000;
  std::vector<int32_t> i32 = {0, 0, -1000000, 1000000};
  std::vector<uint32_t> u32 = {0xffffffffu, 0, 0, 7};
  std::vector<int64_t> i64 = {0, -7, -1, 0};
  std::vector<uint64_t> u64 = {0, 1u << 20, 0};
  std::vector<int64_t> olds(n);
  std::vector<int32_t> flag = {0, 0};
  Args()
      .array(i32.data(), {4})
      .array(u32.data(), {4})
      .array(i64.data(), {4})
      .array(u64.data(), {3})
      .array(olds.data(), {n})
      .array(flag.data(), {2})
      .launch(r, {10, 1, 1}, {100, 1, 1});
  EXPECT_EQ(i32, (std::vector<int32_t>{1000, -2000, 899, 1}));
  EXPECT_EQ(u32[0], 0u);
  EXPECT_EQ(u32[1], 0xffffffffu);
  EXPECT_EQ(u32[2], uint32_t(n % 10));  // inc wraps to 0 past 9: 1000 increments from 0
  EXPECT_EQ(u32[3], 7u);
  int64_t x = 0;
  for (int64_t i = 0; i < n; ++i) x ^= i;
  EXPECT_EQ(i64[0], x);
  EXPECT_EQ(i64[3], 1);  // exactly one cas won, and one compare_and_swap
  EXPECT_EQ(flag[1], 1);
  EXPECT_GE(flag[0], 1);
  EXPECT_LE(flag[0], n);
  EXPECT_GE(i64[2], 0);
  EXPECT_LT(i64[2], n);
  // exch: the old values and the final one are the initial -7 and every thread's index, each once.
  std::multiset<int64_t> seen(olds.begin(), olds.end());
  seen.insert(i64[1]);
  std::multiset<int64_t> expected = {-7};
  for (int64_t i = 0; i < n; ++i) expected.insert(i);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(u64[0], uint64_t(n - 1));
  EXPECT_EQ(u64[1], 5u);
  // dec from 0 with limit 9 goes 0 -> 9 -> 8 ...: after 1000 decrements, (10 - 1000 % 10) % 10.
  EXPECT_EQ(u64[2], uint64_t((10 - n % 10) % 10));
}

TEST(HostLang, FloatAtomicsFollowNumbasNanRules) {
  CompileResult r = compile_for_host(R"(
import gpujit as cuda

@cuda.jit
def k(a, vals, olds, which):
    i = cuda.threadIdx.x
    if which == 0:
        olds[i] = cuda.atomic.max(a, i, vals[i])
    elif which == 1:
        olds[i] = cuda.atomic.min(a, i, vals[i])
    elif which == 2:
        olds[i] = cuda.atomic.nanmax(a, i, vals[i])
    else:
        olds[i] = cuda.atomic.nanmin(a, i, vals[i])
)",
                                     "k", "float64[::1], float64[::1], float64[::1], int64");
  // Element by element: (initial, value) pairs covering ordinary values and a NaN on either side.
  const std::vector<double> init = {1.0, 5.0, kNaN, 3.0, kNaN};
  const std::vector<double> vals = {4.0, 2.0, 7.0, kNaN, kNaN};
  struct Case {
    int which;
    std::vector<double> expected;
  };
  const Case cases[] = {
      {0, {4.0, 5.0, kNaN, 3.0, kNaN}},  // max: a NaN on either side stores nothing
      {1, {1.0, 2.0, kNaN, 3.0, kNaN}},  // min
      {2, {4.0, 5.0, 7.0, 3.0, kNaN}},   // nanmax: a NaN element is replaced, a NaN value ignored
      {3, {1.0, 2.0, 7.0, 3.0, kNaN}},   // nanmin
  };
  for (const Case& c : cases) {
    std::vector<double> a = init, v = vals, olds(5);
    Args()
        .array(a.data(), {5})
        .array(v.data(), {5})
        .array(olds.data(), {5})
        .scalar(int64_t(c.which))
        .launch(r, {1, 1, 1}, {5, 1, 1});
    for (int i = 0; i < 5; ++i) {
      if (std::isnan(c.expected[i]))
        EXPECT_TRUE(std::isnan(a[i])) << c.which << " " << i;
      else
        EXPECT_EQ(a[i], c.expected[i]) << c.which << " " << i;
      if (std::isnan(init[i]))
        EXPECT_TRUE(std::isnan(olds[i])) << c.which << " " << i;
      else
        EXPECT_EQ(olds[i], init[i]) << c.which << " " << i;
    }
  }
}

TEST(HostLang, FloatAtomicsFromManyThreadsWithTupleIndices) {
  CompileResult r = compile_for_host(R"(
import gpujit as cuda

@cuda.jit
def k(acc, hi, lo):
    i = cuda.grid(1)
    cuda.atomic.add(acc, (i % 2, 0), 0.5)
    cuda.atomic.sub(acc, (i % 2, 1), 0.25)
    cuda.atomic.max(hi, 0, i * 0.5)
    cuda.atomic.nanmin(lo, -1, i * 0.5 - 3.0)
)",
                                     "k", "float32[:, ::1], float32[::1], float64[::1]");
  std::vector<float> acc(4, 0.0f), hi = {-1.0f};
  std::vector<double> lo = {0.0, 100.0};
  Args()
      .array(acc.data(), {2, 2})
      .array(hi.data(), {1})
      .array(lo.data(), {2})
      .launch(r, {8, 1, 1}, {128, 1, 1});
  EXPECT_EQ(acc, (std::vector<float>{256.0f, -128.0f, 256.0f, -128.0f}));
  EXPECT_EQ(hi[0], 1023 * 0.5f);
  EXPECT_EQ(lo[1], -3.0);
}

TEST(HostLang, SharedMemoryAtomics) {
  CompileResult r = compile_for_host(R"(
import gpujit as cuda

@cuda.jit
def k(values, bins):
    hist = cuda.shared.array(8, cuda.uint32)
    t = cuda.threadIdx.x
    if t < 8:
        hist[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(hist, values[cuda.grid(1)] % 8, 1)
    cuda.syncthreads()
    if t < 8:
        cuda.atomic.add(bins, t, hist[t])
)",
                                     "k", "int32[::1], uint32[::1]");
  std::vector<int32_t> values(1024);
  std::iota(values.begin(), values.end(), 0);
  std::vector<uint32_t> bins(8, 0);
  Args().array(values.data(), {1024}).array(bins.data(), {8}).launch(r, {4, 1, 1}, {256, 1, 1});
  for (uint32_t b : bins) EXPECT_EQ(b, 128u);
}

TEST(HostLang, IntegerAndFloatIntrinsics) {
  CompileResult r =
      compile_for_host(R"(
import gpujit as cuda

@cuda.jit
def k(u, s, out, f, d):
    i = cuda.grid(1)
    x = u[i]
    y = s[i]
    out[i, 0] = cuda.popc(x)
    out[i, 1] = cuda.brev(x)
    out[i, 2] = cuda.clz(x)
    out[i, 3] = cuda.ffs(x)
    out[i, 4] = cuda.popc(y)
    out[i, 5] = cuda.clz(y)
    out[i, 6] = cuda.ffs(y)
    out[i, 7] = cuda.selp(y < 0, 1, 2)
    f[i] = cuda.fma(f[i], 3.0, 0.5) + cuda.cbrt(f[i])
    d[i] = cuda.cbrt(d[i])
)",
                       "k", "uint32[::1], int64[::1], int64[:, ::1], float32[::1], float64[::1]");
  std::vector<uint32_t> u = {0, 1, 0x80000000u, 0xf0f0u, 0xffffffffu, 12};
  std::vector<int64_t> s = {0, -1, 1, int64_t(1) << 40, 255, -8};
  std::vector<float> f = {8.0f, -27.0f, 1.0f, 0.0f, 64.0f, 0.125f};
  std::vector<double> d = {8.0, -27.0, 1e-300, 0.0, 1000.0, 2.0};
  const std::vector<float> f0 = f;
  const std::vector<double> d0 = d;
  std::vector<int64_t> out(6 * 8);
  Args()
      .array(u.data(), {6})
      .array(s.data(), {6})
      .array(out.data(), {6, 8})
      .array(f.data(), {6})
      .array(d.data(), {6})
      .launch(r, {1, 1, 1}, {6, 1, 1});
  for (int i = 0; i < 6; ++i) {
    uint32_t x = u[i];
    uint64_t y = uint64_t(s[i]);
    uint32_t rev = 0;
    for (int b = 0; b < 32; ++b) rev |= ((x >> b) & 1u) << (31 - b);
    EXPECT_EQ(out[i * 8 + 0], std::popcount(x)) << i;
    EXPECT_EQ(out[i * 8 + 1], int64_t(rev)) << i;
    EXPECT_EQ(out[i * 8 + 2], std::countl_zero(x)) << i;
    EXPECT_EQ(out[i * 8 + 3], x == 0 ? 0 : std::countr_zero(x) + 1) << i;
    EXPECT_EQ(out[i * 8 + 4], std::popcount(y)) << i;
    EXPECT_EQ(out[i * 8 + 5], std::countl_zero(y)) << i;
    EXPECT_EQ(out[i * 8 + 6], y == 0 ? 0 : std::countr_zero(y) + 1) << i;
    EXPECT_EQ(out[i * 8 + 7], s[i] < 0 ? 1 : 2) << i;
    EXPECT_EQ(f[i], std::fma(f0[i], 3.0f, 0.5f) + std::cbrt(f0[i])) << i;
    EXPECT_EQ(d[i], std::cbrt(d0[i])) << i;
  }
}

TEST(HostLang, PrintFormatsLikeNumbaCuda) {
  CompileResult r = compile_for_host(R"(
import gpujit as cuda

LABEL = "value"

@cuda.jit
def k(a, x, u):
    if cuda.grid(1) == 0:
        print(LABEL, "100%", a[0], x, u, x > 0.0, -3)
        print()
        print("done")
)",
                                     "k", "int32[::1], float32, uint64");
  std::vector<int32_t> a = {-42};
  ::testing::internal::CaptureStdout();
  Args()
      .array(a.data(), {1})
      .scalar(1.5f)
      .scalar(uint64_t(18446744073709551615ull))
      .launch(r, {1, 1, 1}, {4, 1, 1});
  std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed, "value 100% -42 1.500000 18446744073709551615 True -3\n\ndone\n");
}

TEST(HostLang, RecursiveDeviceFunctions) {
  CompileResult r = compile_for_host(R"src(
import gpujit as cuda

@cuda.jit(device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

@cuda.jit(device=True)
def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)

@cuda.jit("float64(int64)", device=True)
def halves(n):
    if n > 0:
        return 0.5 * halves(n - 1)
    return 1

@cuda.jit(device=True)
def count_down(a, i):
    if i >= 0:
        a[i] = i * i
        count_down(a, i - 1)

@cuda.jit
def k(out, sq):
    i = cuda.grid(1)
    out[i] = fib(i) + power(2.0, i) + halves(i)
    if i == 0:
        count_down(sq, len(sq) - 1)
)src",
                                     "k", "float64[::1], int64[::1]");
  std::vector<double> out(20);
  std::vector<int64_t> sq(10);
  Args().array(out.data(), {20}).array(sq.data(), {10}).launch(r, {1, 1, 1}, {20, 1, 1});
  double a = 0, b = 1;
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(out[i], a + std::ldexp(1.0, i) + std::ldexp(1.0, -i)) << i;
    double next = a + b;
    a = b;
    b = next;
  }
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(sq[i], i * i);
}

TEST(HostLang, TupleArgumentsAndReturnValues) {
  CompileResult r = compile_for_host(R"(
import gpujit as cuda

@cuda.jit(device=True)
def minmax(a, b):
    return (a, b) if a < b else (b, a)

@cuda.jit
def k(out, pair, mixed):
    i = cuda.grid(1)
    lo, hi = minmax(pair[0], pair[1])
    n, scale = mixed
    t = (lo, hi, n)
    out[i] = t[0] * 100 + t[-2] * 10 + t[2] + len(t) * scale + pair[i % 2]
)",
                                     "k", "float64[::1], UniTuple(float32, 2), Tuple(int64, float64)");
  std::vector<double> out(4);
  Args()
      .array(out.data(), {4})
      .scalar(5.0f)
      .scalar(2.0f)  // pair: one parameter per element
      .scalar(int64_t(7))
      .scalar(0.5)  // mixed
      .launch(r, {1, 1, 1}, {4, 1, 1});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], 200 + 50 + 7 + 1.5 + (i % 2 ? 2.0 : 5.0)) << i;
}

}  // namespace
}  // namespace gpujit
