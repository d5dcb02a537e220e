// Bounds checks on the CPU backend (CompileOptions::debug): an out-of-bounds index ends its block and the
// launch throws rt::KernelIndexError with the index, axis, extent, function, source line, thread and block.
// Each way the executor runs a block is covered (the block entry's loop, one call per thread, fibers for
// barriers), and the executor keeps working afterwards. Without debug the host code has no check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host_kernel_test.h"
#include "runtime/runtime_error.h"

namespace gpujit {
namespace {

using testing::Args;
using testing::compile_for_host;

const char* const kFill = R"(
import gpujit as gpu

@gpu.jit
def fill(out):
    i = gpu.grid(1)
    out[i] = i
)";

/// The message of the KernelIndexError `launch` throws, or a test failure if it throws none.
template <typename Launch>
std::string index_error_of(Launch launch) {
  try {
    launch();
  } catch (const rt::KernelIndexError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a KernelIndexError";
  return "";
}

TEST(HostDebug, AnIndexPastTheEndNamesIndexAxisKernelLineThreadAndBlock) {
  CompileResult r = compile_for_host(kFill, "fill", "int64[::1]", 3, /*debug=*/true);
  for (bool per_thread : {false, true}) {
    std::vector<int64_t> out(6, -1);
    std::string message = index_error_of([&] {
      Args().array(out.data(), {6}).launch(r, {2, 1, 1}, {4, 1, 1}, 0, per_thread);
    });
    EXPECT_EQ(
        message,
        "index 6 is out of bounds for axis 0 with size 6 in kernel 'fill' at kernels.py:7, thread (2, 0, 0) "
        "of block (1, 0, 0)")
        << (per_thread ? "per thread" : "block entry");
    // Block 0 ran to the end; the out-of-bounds element was never written.
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(out[size_t(i)], i);
  }
  // The executor runs the next launch as usual.
  std::vector<int64_t> out(8, -1);
  Args().array(out.data(), {8}).launch(r, {2, 1, 1}, {4, 1, 1});
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(out[size_t(i)], i);
}

TEST(HostDebug, NegativeIndicesAreCheckedAfterTheWrapAndEveryAxisIsChecked) {
  CompileResult r = compile_for_host(R"(
import gpujit as gpu

@gpu.jit
def corner(a, i, j, out):
    out[0] = a[i, j]
)",
                                     "corner", "float64[:, ::1], int64, int64, float64[::1]", 3, true);
  std::vector<double> a(12), out(1);
  for (size_t k = 0; k < a.size(); ++k) a[k] = double(k);
  auto run = [&](int64_t i, int64_t j) {
    Args().array(a.data(), {3, 4}).scalar(i).scalar(j).array(out.data(), {1}).launch(r, {1, 1, 1}, {1, 1, 1});
  };
  run(-1, -4);  // a[2, 0]
  EXPECT_EQ(out[0], 8.0);
  EXPECT_EQ(index_error_of([&] { run(-4, 0); }),
            "index -4 is out of bounds for axis 0 with size 3 in kernel 'corner' at kernels.py:6, "
            "thread (0, 0, 0) of block (0, 0, 0)");
  std::string message = index_error_of([&] { run(0, 4); });
  EXPECT_NE(message.find("index 4 is out of bounds for axis 1 with size 4 in kernel 'corner'"),
            std::string::npos)
      << message;
}

TEST(HostDebug, WithBarriersTheIndexErrorWinsOverTheThreadsLeftWaiting) {
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as gpu

@gpu.jit(device=True)
def load(a, i):
    return a[i]

@gpu.jit
def reverse(a):
    sh = gpu.shared.array(64, np.int32)
    t = gpu.threadIdx.x
    sh[t] = load(a, t)
    gpu.syncthreads()
    a[t] = sh[63 - t]
)",
                                     "reverse", "int32[::1]", 3, true);
  ASSERT_TRUE(r.host->uses_barrier);
  std::vector<int32_t> a(40, 1);
  // Threads 40..63 fail in load(); the first is thread 40, while threads 0..39 wait at the barrier.
  EXPECT_EQ(
      index_error_of([&] {
        Args().array(a.data(), {40}).launch(r, {1, 1, 1}, {64, 1, 1});
      }),
      "index 40 is out of bounds for axis 0 with size 40 in device function 'load' of kernel 'reverse' at "
      "kernels.py:7, thread (40, 0, 0) of block (0, 0, 0)");
  std::vector<int32_t> b(64);
  for (int32_t i = 0; i < 64; ++i) b[size_t(i)] = i;
  Args().array(b.data(), {64}).launch(r, {1, 1, 1}, {64, 1, 1});
  for (int32_t i = 0; i < 64; ++i) EXPECT_EQ(b[size_t(i)], 63 - i);
}

TEST(HostDebug, WithoutDebugTheHostCodeHasNoCheck) {
  for (bool debug : {false, true}) {
    CompileRequest request;
    request.module = parse_source("kernels.py", kFill);
    Diagnostics diags;
    request.globals = globals_from_module(*request.module, diags);
    request.kernel_name = "fill";
    request.arg_types = {Type::array_of(ScalarKind::Int64, 1, Layout::C)};
    request.options.debug = debug;
    request.options.keep_llvm = true;
    CompileResult r = compile_host(request);
    ASSERT_TRUE(r.ok) << r.diagnostics.render();
    EXPECT_EQ(r.llvm_ir.find("gpujit_host_index_error") != std::string::npos, debug) << r.llvm_ir;
  }
}

}  // namespace
}  // namespace gpujit
