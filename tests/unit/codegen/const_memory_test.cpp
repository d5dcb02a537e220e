// Constant memory on NVPTX: a captured global NumPy array (GlobalValue::ConstArray, what the Python shim hands
// over for `const.array_like(ARR)` or a plain `ARR[i]`) is one `.const` array holding the array's bytes,
// shared by every use and every device function of the module, read with ld.const where the index is only
// known at run time (LLVM folds constant indices into immediates), and the PTX assembles.
// The CLI cannot capture arrays, so this goes through compile() with the global filled in by hand.
#include <gtest/gtest.h>

#include <cstring>

#include "codegen_test_util.h"

namespace gpujit {
namespace {

CompileResult compile_with_array(const std::string& source, const std::string& kernel, const std::string& sig,
                                 const std::string& name, ScalarKind dtype, std::vector<int64_t> shape,
                                 const void* data, size_t bytes) {
  CompileRequest request;
  request.module = parse_source("kernel.py", source);
  Diagnostics global_diags;
  request.globals = globals_from_module(*request.module, global_diags);
  GlobalValue g;
  g.kind = GlobalValue::Kind::ConstArray;
  g.dtype = dtype;
  g.shape = std::move(shape);
  g.bytes.resize(bytes);
  std::memcpy(g.bytes.data(), data, bytes);
  request.globals[name] = g;
  request.kernel_name = kernel;
  std::string error;
  request.arg_types = parse_signature(sig, &error)->params;
  request.options.arch = "sm_75";
  return compile(request);
}

TEST(ConstMemory, CapturedArraysBecomeOneConstArrayEach) {
  const char* src = R"(
import gpujit as cuda

@cuda.jit(device=True)
def weight(j):
    return TAPS[j]

@cuda.jit
def fir(x, out):
    i = cuda.grid(1)
    w = cuda.const.array_like(TAPS)
    acc = 0.0
    for j in range(len(w)):
        acc += weight(j) * x[i + j] + w[(i + j) % len(w)]
    out[i] = acc
)";
  const double taps[5] = {0.1, 0.2, 0.4, 0.2, 0.1};
  CompileResult r = compile_with_array(src, "fir", "void(float64[::1], float64[::1])", "TAPS",
                                       ScalarKind::Float64, {5}, taps, sizeof taps);
  ASSERT_TRUE(r.ok) << r.diagnostics.render();
  EXPECT_NE(r.ptx.find(".const .align 16 .b8 const_TAPS[40] = {154, 153, 153, 153, 153, 153, 185, 63"),
            std::string::npos)
      << r.ptx;
  EXPECT_EQ(r.ptx.find("const_TAPS1"), std::string::npos) << r.ptx;  // one array for both uses
  EXPECT_NE(r.ptx.find("ld.const.b64"), std::string::npos) << r.ptx;  // the run-time index reads it
  bool ok = false;
  std::string log = test::run_ptxas(r.ptx, "sm_75", &ok);
  EXPECT_TRUE(ok) << log;
}

TEST(ConstMemory, ArraysBeyondConstantMemoryAreRejected) {
  std::vector<float> big(20000);
  CompileResult r = compile_with_array(R"(
import gpujit as cuda

@cuda.jit
def k(out):
    out[0] = BIG[0]
)",
                                       "k", "void(float32[::1])", "BIG", ScalarKind::Float32, {20000}, big.data(),
                                       big.size() * sizeof(float));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.render().find("global array 'BIG' is 80000 bytes, more than the 65536 bytes of GPU "
                                        "constant memory; pass it to the kernel as an argument instead"),
            std::string::npos)
      << r.diagnostics.render();
}

}  // namespace
}  // namespace gpujit
