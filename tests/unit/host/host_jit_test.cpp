// Kernels compiled from source through the host JIT and run over real grids on the host executor, checked
// against references computed here in C++: the CPU backend's answer to "does this kernel mean what it says".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "host_kernel_test.h"

namespace gpujit {
namespace {

using testing::Args;
using testing::blocks_for;
using testing::compile_for_host;

TEST(HostJit, VectorAddCoversAPartialLastBlock) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def vadd(a, b, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
)",
                                     "vadd", "float32[::1], float32[::1], float32[::1]");
  EXPECT_FALSE(r.host->uses_barrier);
  ASSERT_NE(r.host->block_entry, nullptr);
  const size_t n = 1000;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = 0.5f * float(i);
  }
  // The block entry (a vectorized loop over the block's threads) and the thread entry agree.
  for (bool per_thread : {false, true}) {
    std::vector<float> out(n + 1, -1.0f);
    Args()
        .array(a.data(), {int64_t(n)})
        .array(b.data(), {int64_t(n)})
        .array(out.data(), {int64_t(n)})
        .launch(r, {blocks_for(n, 128), 1, 1}, {128, 1, 1}, 0, per_thread);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << i << (per_thread ? " per thread" : "");
    EXPECT_EQ(out[n], -1.0f);  // the threads past the end wrote nothing
  }
}

TEST(HostJit, SaxpyWithAScalarArgument) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def saxpy(a, x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
)",
                                     "saxpy", "float32, float32[::1], float32[::1], float32[::1]");
  const size_t n = 4096 + 3;
  std::vector<float> x(n), y(n), out(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = float(i % 97) * 0.25f;
    y[i] = float(i % 13) - 6.0f;
  }
  Args()
      .scalar(2.5f)
      .array(x.data(), {int64_t(n)})
      .array(y.data(), {int64_t(n)})
      .array(out.data(), {int64_t(n)})
      .launch(r, {blocks_for(n, 256), 1, 1}, {256, 1, 1});
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.5f * x[i] + y[i]) << i;
}

TEST(HostJit, Elementwise2DOnAStridedView) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def scale_add(a, out):
    i, j = gpu.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = 3.0 * a[i, j] + i - j
)",
                                     "scale_add", "float64[:, :], float64[:, ::1]");
  // `a` is the transpose of a 7 x 5 C array: shape (5, 7), strides (8, 40) bytes.
  const int64_t rows = 5, cols = 7;
  std::vector<double> base(cols * rows), out(rows * cols, 0.0);
  std::iota(base.begin(), base.end(), 1.0);
  Args()
      .strided(base.data(), {rows, cols}, {8, 8 * rows})
      .array(out.data(), {rows, cols})
      .launch(r, {2, 1, 1}, {4, 8, 1});
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      ASSERT_EQ(out[i * cols + j], 3.0 * base[j * rows + i] + double(i) - double(j)) << i << "," << j;
    }
  }
}

TEST(HostJit, MandelbrotWhileAndBreak) {
  CompileResult r =
      compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def mandelbrot(image, x_min, x_max, y_min, y_max, max_iter):
    row, col = gpu.grid(2)
    height = image.shape[0]
    width = image.shape[1]
    if row < height and col < width:
        c_re = x_min + col * (x_max - x_min) / width
        c_im = y_min + row * (y_max - y_min) / height
        z_re = 0.0
        z_im = 0.0
        n = 0
        while n < max_iter:
            re2 = z_re * z_re
            im2 = z_im * z_im
            if re2 + im2 > 4.0:
                break
            z_im = 2.0 * z_re * z_im + c_im
            z_re = re2 - im2 + c_re
            n += 1
        image[row, col] = n
)",
                       "mandelbrot", "int32[:, ::1], float64, float64, float64, float64, int32");
  const int64_t height = 60, width = 80;
  const int32_t max_iter = 100;
  const double x_min = -2.0, x_max = 1.0, y_min = -1.2, y_max = 1.2;
  std::vector<int32_t> image(height * width, -1);
  Args()
      .array(image.data(), {height, width})
      .scalar(x_min)
      .scalar(x_max)
      .scalar(y_min)
      .scalar(y_max)
      .scalar(max_iter)
      .launch(r, {blocks_for(height, 16), blocks_for(width, 16), 1}, {16, 16, 1});
  int inside = 0;
  for (int64_t row = 0; row < height; ++row) {
    for (int64_t col = 0; col < width; ++col) {
      double c_re = x_min + double(col) * (x_max - x_min) / double(width);
      double c_im = y_min + double(row) * (y_max - y_min) / double(height);
      double z_re = 0, z_im = 0;
      int32_t n = 0;
      while (n < max_iter) {
        double re2 = z_re * z_re, im2 = z_im * z_im;
        if (re2 + im2 > 4.0) break;
        z_im = 2.0 * z_re * z_im + c_im;
        z_re = re2 - im2 + c_re;
        ++n;
      }
      ASSERT_EQ(image[row * width + col], n) << row << "," << col;
      inside += n == max_iter;
    }
  }
  EXPECT_GT(inside, 100);  // the picture has a set in it
}

double normal_cdf(double d) { return 0.5 * (1.0 + std::erf(d / std::sqrt(2.0))); }

TEST(HostJit, BlackScholesWithADeviceFunctionMatchesLibm) {
  CompileResult r =
      compile_for_host(R"(
import math
import gpujit as gpu

@gpu.jit(device=True)
def normal_cdf(d):
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))

@gpu.jit
def black_scholes(call, put, price, strike, years, rate, volatility):
    i = gpu.grid(1)
    if i < price.size:
        sqrt_t = math.sqrt(years[i])
        d1 = (math.log(price[i] / strike[i]) + (rate + 0.5 * volatility * volatility) * years[i]) / (
            volatility * sqrt_t)
        d2 = d1 - volatility * sqrt_t
        cnd_d1 = normal_cdf(d1)
        cnd_d2 = normal_cdf(d2)
        discount = math.exp(-rate * years[i])
        call[i] = price[i] * cnd_d1 - strike[i] * discount * cnd_d2
        put[i] = strike[i] * discount * (1.0 - cnd_d2) - price[i] * (1.0 - cnd_d1)
)",
                       "black_scholes",
                       "float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, "
                       "float64");
  const size_t n = 2000;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> price_d(5, 30), strike_d(1, 100), years_d(0.25, 10);
  std::vector<double> price(n), strike(n), years(n), call(n), put(n);
  for (size_t i = 0; i < n; ++i) {
    price[i] = price_d(rng);
    strike[i] = strike_d(rng);
    years[i] = years_d(rng);
  }
  const double rate = 0.02, vol = 0.30;
  auto len = int64_t(n);
  Args()
      .array(call.data(), {len})
      .array(put.data(), {len})
      .array(price.data(), {len})
      .array(strike.data(), {len})
      .array(years.data(), {len})
      .scalar(rate)
      .scalar(vol)
      .launch(r, {blocks_for(n, 128), 1, 1}, {128, 1, 1});
  for (size_t i = 0; i < n; ++i) {
    double sqrt_t = std::sqrt(years[i]);
    double d1 = (std::log(price[i] / strike[i]) + (rate + 0.5 * vol * vol) * years[i]) / (vol * sqrt_t);
    double d2 = d1 - vol * sqrt_t;
    double discount = std::exp(-rate * years[i]);
    double want_call = price[i] * normal_cdf(d1) - strike[i] * discount * normal_cdf(d2);
    double want_put = strike[i] * discount * (1.0 - normal_cdf(d2)) - price[i] * (1.0 - normal_cdf(d1));
    ASSERT_NEAR(call[i], want_call, 1e-9 * std::max(1.0, std::fabs(want_call))) << i;
    ASSERT_NEAR(put[i], want_put, 1e-9 * std::max(1.0, std::fabs(want_put))) << i;
  }
}

int64_t py_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t py_mod(int64_t a, int64_t b) { return b == 0 ? 0 : a - py_floordiv(a, b) * b; }

TEST(HostJit, IntegerFloorDivisionAndModuloFollowPython) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def divmod_kernel(a, b, q, m):
    i = gpu.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        m[i] = a[i] % b[i]
)",
                                     "divmod_kernel", "int64[::1], int64[::1], int64[::1], int64[::1]");
  std::vector<int64_t> a, b;
  for (int64_t x : {-7, 7, -6, 6, 0, -1, 1, 123456789, -123456789}) {
    for (int64_t y : {3, -3, 2, -2, 1, -1, 7, -7}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  a.push_back(5);  // division by zero: 0 for both, as numba-cuda on a GPU
  b.push_back(0);
  auto n = int64_t(a.size());
  std::vector<int64_t> q(n, 99), m(n, 99);
  Args()
      .array(a.data(), {n})
      .array(b.data(), {n})
      .array(q.data(), {n})
      .array(m.data(), {n})
      .launch(r, {blocks_for(n, 32), 1, 1}, {32, 1, 1});
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(q[i], py_floordiv(a[i], b[i])) << a[i] << " // " << b[i];
    EXPECT_EQ(m[i], py_mod(a[i], b[i])) << a[i] << " % " << b[i];
  }
}

TEST(HostJit, ShiftsAndBitOpsOnSignedAndUnsigned) {
  const char* source = R"(
import gpujit as gpu

@gpu.jit
def bit_ops(a, b, out):
    i = gpu.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x << 3
        out[i, 1] = x >> 2
        out[i, 2] = (x & y) | (x ^ 0x55)
        out[i, 3] = ~x
)";
  CompileResult rs = compile_for_host(source, "bit_ops", "int32[::1], int32[::1], int32[:, ::1]");
  CompileResult ru = compile_for_host(source, "bit_ops", "uint32[::1], uint32[::1], uint32[:, ::1]");
  std::vector<int32_t> a{-1, -8, 7, INT32_MIN, INT32_MAX, 0x12345678, -0x12345678, 0};
  std::vector<int32_t> b{3, -1, 0x0f0f, 1, -1, 0x00ff00ff, 0x7, -2};
  auto n = int64_t(a.size());
  std::vector<int32_t> out(n * 4);
  Args()
      .array(a.data(), {n})
      .array(b.data(), {n})
      .array(out.data(), {n, 4})
      .launch(rs, {1, 1, 1}, {32, 1, 1});
  for (int64_t i = 0; i < n; ++i) {
    int32_t x = a[i], y = b[i];
    EXPECT_EQ(out[i * 4 + 0], int32_t(uint32_t(x) << 3)) << x;
    EXPECT_EQ(out[i * 4 + 1], x >> 2) << x;  // arithmetic: the sign is kept
    EXPECT_EQ(out[i * 4 + 2], (x & y) | (x ^ 0x55)) << x;
    EXPECT_EQ(out[i * 4 + 3], ~x) << x;
  }
  std::vector<uint32_t> ua(a.begin(), a.end()), ub(b.begin(), b.end()), uout(n * 4);
  Args()
      .array(ua.data(), {n})
      .array(ub.data(), {n})
      .array(uout.data(), {n, 4})
      .launch(ru, {1, 1, 1}, {32, 1, 1});
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x = ua[i], y = ub[i];
    EXPECT_EQ(uout[i * 4 + 0], x << 3) << x;
    EXPECT_EQ(uout[i * 4 + 1], x >> 2) << x;  // logical: zeros come in
    EXPECT_EQ(uout[i * 4 + 2], (x & y) | (x ^ 0x55u)) << x;
    EXPECT_EQ(uout[i * 4 + 3], ~x) << x;
  }
}

TEST(HostJit, ThreeDimensionalGrid) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def index3(out):
    x, y, z = gpu.grid(3)
    if x < out.shape[2] and y < out.shape[1] and z < out.shape[0]:
        out[z, y, x] = x + 100 * y + 10000 * z + 1000000 * gpu.threadIdx.z
)",
                                     "index3", "int64[:, :, ::1]");
  const int64_t nz = 6, ny = 5, nx = 9;
  for (bool per_thread : {false, true}) {
    std::vector<int64_t> out(nz * ny * nx, -1);
    Args().array(out.data(), {nz, ny, nx}).launch(r, {3, 2, 3}, {4, 3, 2}, 0, per_thread);
    for (int64_t z = 0; z < nz; ++z)
      for (int64_t y = 0; y < ny; ++y)
        for (int64_t x = 0; x < nx; ++x)
          ASSERT_EQ(out[(z * ny + y) * nx + x], x + 100 * y + 10000 * z + 1000000 * (z % 2)) << x << y << z;
  }
}

const char* const kBlockSum = R"(
import numpy as np
import gpujit as gpu

@gpu.jit
def block_sum(a, out):
    sh = gpu.shared.array(256, np.float32)
    t = gpu.threadIdx.x
    i = gpu.grid(1)
    sh[t] = a[i] if i < a.size else 0.0
    gpu.syncthreads()
    s = gpu.blockDim.x // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        gpu.syncthreads()
        s //= 2
    if t == 0:
        out[gpu.blockIdx.x] = sh[0]
)";

TEST(HostJit, SharedMemoryReductionWithSyncthreads) {
  CompileResult r = compile_for_host(kBlockSum, "block_sum", "float32[::1], float32[::1]");
  EXPECT_TRUE(r.host->uses_barrier);
  EXPECT_EQ(r.host->block_entry, nullptr);  // its threads must run as fibers
  EXPECT_EQ(r.host->static_shared_bytes, 256 * sizeof(float));
  const size_t n = 256 * 40 - 17;
  const uint32_t blocks = blocks_for(n, 256);
  std::vector<float> a(n), out(blocks, -1);
  for (size_t i = 0; i < n; ++i) a[i] = float(i % 7);
  Args()
      .array(a.data(), {int64_t(n)})
      .array(out.data(), {int64_t(blocks)})
      .launch(r, {blocks, 1, 1}, {256, 1, 1});
  for (uint32_t b = 0; b < blocks; ++b) {
    float want = 0;
    for (size_t i = b * 256; i < std::min(n, size_t(b + 1) * 256); ++i) want += a[i];
    ASSERT_EQ(out[b], want) << "block " << b;
  }
}

TEST(HostJit, ReturningBeforeABarrierIsADeadlockNamingTheKernel) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as gpu

@gpu.jit
def early_exit(a):
    sh = gpu.shared.array(64, np.int32)
    t = gpu.threadIdx.x
    if t >= a.size:
        return
    sh[t] = a[t]
    gpu.syncthreads()
    a[t] = sh[(t + 1) % a.size]
)",
                                     "early_exit", "int32[::1]");
  std::vector<int32_t> a(40, 1);
  try {
    Args().array(a.data(), {40}).launch(r, {1, 1, 1}, {64, 1, 1});
    FAIL() << "expected a deadlock error";
  } catch (const HostExecutionError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("deadlocked in block (0, 0, 0): 40 of 64 threads wait at syncthreads() while the "
                           "other 24 returned"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("early_exit"), std::string::npos) << message;
  }
}

TEST(HostJit, DeviceFunctionsReadTheCallersThreadIndex) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit(device=True)
def my_lane():
    return gpu.threadIdx.x + 1000 * gpu.blockIdx.x

@gpu.jit(device=True)
def twice_lane():
    return 2 * my_lane()

@gpu.jit
def lanes(out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = twice_lane()
)",
                                     "lanes", "int64[::1]", /*opt_level=*/0);
  for (bool per_thread : {false, true}) {
    std::vector<int64_t> out(100, -1);
    Args().array(out.data(), {100}).launch(r, {4, 1, 1}, {32, 1, 1}, 0, per_thread);
    for (int64_t i = 0; i < 100; ++i) ASSERT_EQ(out[i], 2 * (i % 32 + 1000 * (i / 32))) << i;
  }
}

TEST(HostJit, LaneIdAndWarpSizeInA2DBlock) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def lanes(out):
    t = gpu.threadIdx.y * gpu.blockDim.x + gpu.threadIdx.x
    out[t] = gpu.laneid + 100 * gpu.warpsize
)",
                                     "lanes", "int32[::1]");
  for (bool per_thread : {false, true}) {
    std::vector<int32_t> out(20 * 5, -1);
    Args().array(out.data(), {100}).launch(r, {1, 1, 1}, {20, 5, 1}, 0, per_thread);
    for (int32_t t = 0; t < 100; ++t) ASSERT_EQ(out[t], t % 32 + 3200) << t;
  }
}

TEST(HostJit, AtomicAddFromEveryThreadOfManyBlocks) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def histogram(values, bins, total):
    i = gpu.grid(1)
    if i < values.size:
        gpu.atomic.add(bins, values[i] % bins.size, 1)
        gpu.atomic.add(total, 0, 0.5)
)",
                                     "histogram", "int32[::1], int32[::1], float64[::1]");
  const int64_t n = 100000, nbins = 10;
  std::vector<int32_t> values(n), bins(nbins, 0);
  std::vector<double> total(1, 0.0);
  for (int64_t i = 0; i < n; ++i) values[i] = int32_t(i * 7);
  Args()
      .array(values.data(), {n})
      .array(bins.data(), {nbins})
      .array(total.data(), {1})
      .launch(r, {blocks_for(n, 128), 1, 1}, {128, 1, 1});
  for (int64_t b = 0; b < nbins; ++b) EXPECT_EQ(bins[b], n / nbins) << b;
  EXPECT_EQ(total[0], 0.5 * double(n));
}

TEST(HostJit, SyncthreadsCountAndOr) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as gpu

@gpu.jit
def vote(a, counts, any_big, all_pos):
    t = gpu.threadIdx.x
    v = a[gpu.blockIdx.x * gpu.blockDim.x + t]
    c = gpu.syncthreads_count(v > 0.0)
    big = gpu.syncthreads_or(v > 100.0)
    pos = gpu.syncthreads_and(v > -1000.0)
    if t == 0:
        counts[gpu.blockIdx.x] = c
        any_big[gpu.blockIdx.x] = big
        all_pos[gpu.blockIdx.x] = pos
)",
                                     "vote", "float64[::1], int32[::1], int32[::1], int32[::1]");
  const uint32_t blocks = 3, threads = 50;
  std::vector<double> a(blocks * threads);
  for (size_t i = 0; i < a.size(); ++i) a[i] = (i % 3 == 0) ? double(i) : -double(i);
  std::vector<int32_t> counts(blocks), any_big(blocks), all_pos(blocks);
  auto nb = int64_t(blocks);
  Args()
      .array(a.data(), {int64_t(a.size())})
      .array(counts.data(), {nb})
      .array(any_big.data(), {nb})
      .array(all_pos.data(), {nb})
      .launch(r, {blocks, 1, 1}, {threads, 1, 1});
  for (uint32_t b = 0; b < blocks; ++b) {
    int want = 0;
    bool big = false, pos = true;
    for (uint32_t t = 0; t < threads; ++t) {
      double v = a[b * threads + t];
      want += v > 0.0;
      big = big || v > 100.0;
      pos = pos && v > -1000.0;
    }
    EXPECT_EQ(counts[b], want) << b;
    EXPECT_EQ(any_big[b], int(big)) << b;
    EXPECT_EQ(all_pos[b], int(pos)) << b;
  }
}

TEST(HostJit, DynamicSharedMemorySizedAtLaunch) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as gpu

@gpu.jit
def rotate(a, out):
    dyn = gpu.shared.array(0, np.float64)
    t = gpu.threadIdx.x
    n = gpu.blockDim.x
    dyn[t] = a[gpu.blockIdx.x * n + t]
    gpu.syncthreads()
    out[gpu.blockIdx.x * n + t] = dyn[(t + 1) % n] + 1000.0 * dyn.size
)",
                                     "rotate", "float64[::1], float64[::1]");
  EXPECT_EQ(r.host->static_shared_bytes, 0u);
  const uint32_t blocks = 3, threads = 50;
  std::vector<double> a(blocks * threads), out(blocks * threads);
  std::iota(a.begin(), a.end(), 0.0);
  auto len = int64_t(a.size());
  Args()
      .array(a.data(), {len})
      .array(out.data(), {len})
      .launch(r, {blocks, 1, 1}, {threads, 1, 1}, threads * sizeof(double));
  // dyn.size is the launch's dynamic shared bytes over the dtype's size.
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint32_t t = 0; t < threads; ++t)
      ASSERT_EQ(out[b * threads + t], a[b * threads + (t + 1) % threads] + 1000.0 * threads);
  }
}

TEST(HostJit, LocalArraysArePrivateAcrossABarrier) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as gpu

@gpu.jit
def private(out):
    buf = gpu.local.array(16, np.int64)
    t = gpu.threadIdx.x
    for k in range(16):
        buf[k] = t * 100 + k
    gpu.syncthreads()
    s = 0
    for k in range(16):
        s += buf[k]
    out[t] = s
)",
                                     "private", "int64[::1]");
  std::vector<int64_t> out(128);
  Args().array(out.data(), {128}).launch(r, {1, 1, 1}, {128, 1, 1});
  for (int64_t t = 0; t < 128; ++t) ASSERT_EQ(out[t], t * 1600 + 120) << t;
}

// Distance in units in the last place between two floats of the same sign.
int64_t ulp_distance(float a, float b) {
  if (a == b) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<int64_t>::max();
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(int64_t(ia) - int64_t(ib));
}

TEST(HostJit, Float32MathWithinLibdeviceUlpBounds) {
  CompileResult r = compile_for_host(R"(
import math
import gpujit as gpu

@gpu.jit
def maths(x, out):
    i = gpu.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sin(v)
        out[i, 1] = math.cos(v)
        out[i, 2] = math.exp(v)
        out[i, 3] = math.log(v)
        out[i, 4] = math.sqrt(v)
        out[i, 5] = math.tanh(v)
        out[i, 6] = math.atan2(v, 1.5)
        out[i, 7] = math.pow(v, 1.7)
        out[i, 8] = math.erf(v)
        out[i, 9] = math.floor(v)
        out[i, 10] = math.lgamma(v)
        out[i, 11] = math.expm1(v)
)",
                                     "maths", "float32[::1], float32[:, ::1]");
  const int64_t n = 200, k = 12;
  std::vector<float> x(n), out(n * k);
  for (int64_t i = 0; i < n; ++i) x[i] = 0.05f + float(i) * 0.037f;
  Args().array(x.data(), {n}).array(out.data(), {n, k}).launch(r, {2, 1, 1}, {128, 1, 1});
  // libdevice's documented maximum errors (CUDA Math API, single precision), which the host must not exceed.
  struct Fn {
    const char* name;
    double (*ref)(double);
    int64_t ulps;
  };
  const Fn fns[] = {
      {"sin", [](double v) { return std::sin(v); }, 2},
      {"cos", [](double v) { return std::cos(v); }, 2},
      {"exp", [](double v) { return std::exp(v); }, 2},
      {"log", [](double v) { return std::log(v); }, 1},
      {"sqrt", [](double v) { return std::sqrt(v); }, 0},
      {"tanh", [](double v) { return std::tanh(v); }, 2},
      {"atan2", [](double v) { return std::atan2(v, 1.5); }, 3},
      {"pow", [](double v) { return std::pow(v, 1.7); }, 4},
      {"erf", [](double v) { return std::erf(v); }, 2},
      {"floor", [](double v) { return std::floor(v); }, 0},
      {"lgamma", [](double v) { return std::lgamma(v); }, 6},
      {"expm1", [](double v) { return std::expm1(v); }, 1},
  };
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t i = 0; i < n; ++i) {
      float want = float(fns[j].ref(double(x[i])));
      // Near a zero of the function the relative error of a float32 computation is unbounded: compare
      // absolutely there.
      if (std::fabs(want) < 1e-3f) {
        ASSERT_NEAR(out[i * k + j], want, 1e-6f) << fns[j].name << "(" << x[i] << ")";
        continue;
      }
      ASSERT_LE(ulp_distance(out[i * k + j], want), fns[j].ulps)
          << fns[j].name << "(" << x[i] << ") = " << out[i * k + j] << ", want " << want;
    }
  }
}

TEST(HostJit, MathPredicatesAndFloat64) {
  CompileResult r = compile_for_host(R"(
import math
import gpujit as gpu

@gpu.jit
def classify(x, flags, out):
    i = gpu.grid(1)
    if i < x.size:
        v = x[i]
        flags[i] = 4 * math.isnan(v) + 2 * math.isinf(v) + math.isfinite(v)
        out[i] = math.fabs(v) + math.hypot(v, 2.0) if math.isfinite(v) else 0.0
)",
                                     "classify", "float64[::1], int32[::1], float64[::1]");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x{1.0, -2.5, inf, -inf, nan, 0.0}, out(6, -1);
  std::vector<int32_t> flags(6, -1);
  Args().array(x.data(), {6}).array(flags.data(), {6}).array(out.data(), {6}).launch(r, {1, 1, 1}, {8, 1, 1});
  EXPECT_EQ(flags, (std::vector<int32_t>{1, 1, 2, 2, 4, 1}));
  for (int i : {0, 1, 5}) EXPECT_EQ(out[i], std::fabs(x[i]) + std::hypot(x[i], 2.0)) << i;
  for (int i : {2, 3, 4}) EXPECT_EQ(out[i], 0.0) << i;
}

TEST(HostJit, CodeStaysLoadedWhileTheResultLivesAndIsReleasedAfter) {
  std::vector<float> out(4, 0);
  for (int rep = 0; rep < 3; ++rep) {
    CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def fill(out, v):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = v
)",
                                       "fill", "float32[::1], float32");
    std::shared_ptr<const HostCode> keep = r.host;
    r = CompileResult{};  // the copy in `keep` holds the code
    CompileResult again;
    again.host = keep;
    again.entry_name = "fill";
    again.params = {ParamLayout{Type::array_of(ScalarKind::Float32, 1, Layout::C), 0, 3},
                    ParamLayout{Type::scalar_of(ScalarKind::Float32), 3, 1}};
    Args().array(out.data(), {4}).scalar(float(rep)).launch(again, {1, 1, 1}, {4, 1, 1});
    EXPECT_EQ(out[3], float(rep));
  }
}

}  // namespace
}  // namespace gpujit
