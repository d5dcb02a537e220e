// End-to-end kernels through compile(): each compiles for sm_75, sm_80 and sm_90, its PTX has the entry,
// the special registers and the arithmetic width it should, and ptxas assembles it for that architecture.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include <algorithm>
#include <set>
#include <sstream>

#include "codegen/codegen.h"
#include "codegen/pipeline.h"
#include "compiler/warm_up.h"
#include "codegen_test_util.h"

namespace gpujit::test {
namespace {

const char* const kArchs[] = {"sm_75", "sm_80", "sm_90"};

/// Compiles for every architecture of kArchs and assembles each PTX; returns the sm_80 PTX.
std::string compile_and_assemble(const std::string& source, const std::string& kernel, const std::string& sig,
                                 CompileOptions options = {}) {
  std::string ptx80;
  for (const char* arch : kArchs) {
    options.arch = arch;
    CompileResult r = compile_kernel(source, kernel, sig, options);
    if (!r.ok) return "";
    EXPECT_NE(r.ptx.find(std::string(".target ") + arch), std::string::npos) << r.ptx;
    bool ok = false;
    std::string log = run_ptxas(r.ptx, arch, &ok);
    EXPECT_TRUE(ok) << "ptxas -arch=" << arch << " rejected " << kernel << ":\n" << log << "\n" << r.ptx;
    if (std::string(arch) == "sm_80") ptx80 = r.ptx;
  }
  return ptx80;
}

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

/// Whether the PTX computes in double precision (any .f64 instruction; LLVM 22 keeps floats in %r/%rd).
bool has_f64(const std::string& ptx) { return contains(ptx, ".f64"); }

/// The entry's name: analysis mangles kernel names (_gpujit_<name>_<hash>) so specializations differ.
bool has_entry(const std::string& ptx, const std::string& kernel) {
  return contains(ptx, ".visible .entry _gpujit_" + kernel + "_");
}

TEST(Kernels, VectorAdd) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def vadd(a, b, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
)";
  std::string ptx = compile_and_assemble(src, "vadd", "void(float32[::1], float32[::1], float32[::1])");
  EXPECT_TRUE(has_entry(ptx, "vadd")) << ptx;
  EXPECT_TRUE(contains(ptx, "%ctaid.x") && contains(ptx, "%ntid.x") && contains(ptx, "%tid.x")) << ptx;
  EXPECT_TRUE(std::regex_search(ptx, std::regex(R"(add(\.rn)?\.f32)"))) << ptx;
  EXPECT_TRUE(contains(ptx, "ld.global")) << ptx;
  EXPECT_FALSE(has_f64(ptx)) << ptx;
  // grid(1) from zero-extended registers: the multiply is a widening 32-bit one and no negative-index
  // wrap survives.
  EXPECT_TRUE(contains(ptx, "mul.wide.u32")) << ptx;
  EXPECT_FALSE(contains(ptx, "setp.lt.s64")) << ptx;
}

TEST(Kernels, VectorAddParamsFollowTheArrayAbi) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def vadd(a, b, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
)";
  CompileResult r = compile_kernel(src, "vadd", "void(float32[::1], float32[::1], float32[::1])");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.entry_name.rfind("_gpujit_vadd_", 0), 0u) << r.entry_name;
  ASSERT_EQ(r.params.size(), 3u);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(r.params[i].first, 3 * i);
    EXPECT_EQ(r.params[i].count, 3u);  // data, shape, stride
  }
  // Nine PTX parameters: .u64 each.
  std::regex param("\\.param \\.u64 (\\.ptr \\.align 4 )?" + r.entry_name + "_param_\\d+");
  auto n = std::distance(std::sregex_iterator(r.ptx.begin(), r.ptx.end(), param), std::sregex_iterator());
  EXPECT_EQ(n, 9) << r.ptx;
}

TEST(Kernels, SaxpyAnyLayoutReadsStrides) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def saxpy(a, x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
)";
  std::string ptx = compile_and_assemble(src, "saxpy", "void(float32, float32[:], float32[:], float32[:])");
  EXPECT_TRUE(has_entry(ptx, "saxpy")) << ptx;
  EXPECT_TRUE(contains(ptx, "fma.rn.f32")) << ptx;
  EXPECT_FALSE(has_f64(ptx)) << ptx;
  // A scalar then three arrays of 1 + 1 + 1 parameters.
  CompileResult r = compile_kernel(src, "saxpy", "void(float32, float32[:], float32[:], float32[:])");
  ASSERT_EQ(r.params.size(), 4u);
  EXPECT_EQ(r.params[0].count, 1u);
  EXPECT_EQ(r.params[1].first, 1u);
  EXPECT_EQ(r.params[3].first, 7u);
}

TEST(Kernels, Elementwise2D) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def scale2d(a, out):
    i, j = gpu.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * gpu.float32(2.0) + gpu.float32(1.0)
)";
  std::string ptx = compile_and_assemble(src, "scale2d", "void(float32[:, ::1], float32[:, ::1])");
  EXPECT_TRUE(contains(ptx, "%ctaid.y") && contains(ptx, "%tid.y")) << ptx;
  EXPECT_FALSE(has_f64(ptx)) << ptx;
}

TEST(Kernels, Grid3D) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def laplacian(u, out):
    i, j, k = gpu.grid(3)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1 and 0 < k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                        + u[i, j, k - 1] + u[i, j, k + 1] - gpu.float32(6) * u[i, j, k])
)";
  std::string ptx = compile_and_assemble(src, "laplacian", "void(float32[:, :, ::1], float32[:, :, ::1])");
  EXPECT_TRUE(contains(ptx, "%ctaid.z") && contains(ptx, "%ntid.z") && contains(ptx, "%tid.z")) << ptx;
  EXPECT_FALSE(has_f64(ptx)) << ptx;
}

TEST(Kernels, MandelbrotWhileBreak) {
  const char* src = R"(
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
            if z_re * z_re + z_im * z_im > 4.0:
                break
            z_re, z_im = z_re * z_re - z_im * z_im + c_re, 2.0 * z_re * z_im + c_im
            n += 1
        image[row, col] = n
)";
  std::string ptx = compile_and_assemble(src, "mandelbrot",
                                         "void(int32[:, ::1], float64, float64, float64, float64, int32)");
  EXPECT_TRUE(std::regex_search(ptx, std::regex("setp\\.\\w+\\.f64"))) << ptx;  // the escape test
  EXPECT_TRUE(contains(ptx, "bra")) << ptx;                                     // a loop
}

TEST(Kernels, BlackScholesFloat32UsesLibdevice) {
  const char* src = R"(
import math
import gpujit as gpu

# float32 constants keep the kernel in float32 (a plain 0.5 is float64, as in numba).
HALF = gpu.float32(0.5)
ONE = gpu.float32(1.0)

@gpu.jit(device=True)
def cnd(d):
    return HALF * (ONE + math.erf(d * gpu.float32(0.7071067811865476)))

@gpu.jit
def black_scholes(call, put, price, strike, years, rate, vol):
    i = gpu.grid(1)
    if i < price.size:
        sqrt_t = math.sqrt(years[i])
        d1 = (math.log(price[i] / strike[i]) + (rate + HALF * vol * vol) * years[i]) / (vol * sqrt_t)
        d2 = d1 - vol * sqrt_t
        discount = math.exp(-rate * years[i])
        call[i] = price[i] * cnd(d1) - strike[i] * discount * cnd(d2)
        put[i] = strike[i] * discount * (ONE - cnd(d2)) - price[i] * (ONE - cnd(d1))
)";
  const char* sig =
      "void(float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32, float32)";
  std::string ptx = compile_and_assemble(src, "black_scholes", sig);
  EXPECT_FALSE(has_f64(ptx)) << ptx;
  EXPECT_TRUE(contains(ptx, "sqrt.rn.f32")) << ptx;
  // libdevice is linked and inlined: no call to an undefined __nv_ function is left.
  EXPECT_FALSE(contains(ptx, "__nv_")) << ptx;
  EXPECT_TRUE(contains(ptx, "ex2.approx")) << ptx;  // inside __nv_expf / __nv_logf

  CompileOptions options;
  options.keep_llvm = true;
  CompileResult r = compile_kernel(src, "black_scholes", sig, options);
  EXPECT_FALSE(contains(r.llvm_ir, "declare float @__nv_")) << r.llvm_ir;
}

namespace {

/// The PTX instructions of `ptx` (opcode with its type suffixes), sorted: two compiles that differ only in the
/// order of a commutative instruction's operands or of independent instructions have the same list.
std::vector<std::string> sorted_opcodes(const std::string& ptx) {
  std::vector<std::string> out;
  std::istringstream lines(ptx);
  std::string line;
  while (std::getline(lines, line)) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '.' || line[start] == '/' || line[start] == '$' ||
        line[start] == '{' || line[start] == '}' || line[start] == '(' || line[start] == ')' ||
        line.find(';') == std::string::npos)
      continue;
    if (line[start] == '@') start = line.find(' ', start) + 1;  // a guard predicate
    out.push_back(line.substr(start, line.find_first_of(" \t;", start) - start));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Compiles with libdevice linked before the optimization (GPUJIT_LATE_LIBDEVICE=0), restoring the variable.
CompileResult compile_with_libdevice_first(const std::string& src, const std::string& kernel,
                                           const std::string& sig, CompileOptions options = {}) {
  setenv("GPUJIT_LATE_LIBDEVICE", "0", 1);
  CompileResult r = compile_kernel(src, kernel, sig, options);
  unsetenv("GPUJIT_LATE_LIBDEVICE");
  return r;
}

constexpr const char* kLoopFreeMath = R"(
import math
import gpujit as gpu

@gpu.jit
def bs(S, K, T, r, v, call):
    i = gpu.grid(1)
    if i < S.size:
        sq = math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * v * v) * T[i]) / (v * sq)
        d2 = d1 - v * sq
        call[i] = S[i] * 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0))) - K[i] * math.exp(-r * T[i]) * 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))

@gpu.jit
def consts(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = math.exp(2.0) * a[i] + math.erf(0.5) + math.cos(0.0)

@gpu.jit
def looped(a, out):
    i = gpu.grid(1)
    if i < out.size:
        s = 0.0
        for k in range(16):
            s += math.exp(a[i, k])
        out[i] = s
)";
constexpr const char* kBsSig = "void(float64[::1], float64[::1], float64[::1], float64, float64, float64[::1])";

}  // namespace

// A kernel without loops links its libdevice functions optimized ahead, after its own optimization; the
// instructions are those of linking them first (what the SASS comparison of docs/performance.md found over
// every example kernel), for fastmath too, and a second compile reuses the optimized functions.
TEST(Kernels, LoopFreeKernelLinksLibdeviceOptimizedAhead) {
  for (bool fastmath : {false, true}) {
    CompileOptions options;
    options.fastmath = fastmath;
    options.arch = "sm_90";
    CompileResult late = compile_kernel(kLoopFreeMath, "bs", kBsSig, options);
    CompileResult first = compile_with_libdevice_first(kLoopFreeMath, "bs", kBsSig, options);
    ASSERT_TRUE(late.ok && first.ok);
    EXPECT_TRUE(late.libdevice_optimized_ahead);
    EXPECT_FALSE(first.libdevice_optimized_ahead);
    EXPECT_FALSE(contains(late.ptx, "__nv_")) << late.ptx;  // inlined and dropped
    EXPECT_EQ(sorted_opcodes(late.ptx), sorted_opcodes(first.ptx)) << "fastmath=" << fastmath;
    EXPECT_EQ(compile_kernel(kLoopFreeMath, "bs", kBsSig, options).ptx, late.ptx);
    bool ok = false;
    std::string log = run_ptxas(late.ptx, "sm_90", &ok);
    EXPECT_TRUE(ok) << log;
  }
  // fastmath's flush-to-zero float32 bodies are optimized apart from the exact ones.
  const char* f32 = R"(
import math
import gpujit as gpu

@gpu.jit
def f(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = math.log(a[i]) + math.sinh(a[i])
)";
  CompileOptions fast;
  fast.fastmath = true;
  CompileResult with_fast = compile_kernel(f32, "f", "void(float32[::1])", fast);
  CompileResult exact = compile_kernel(f32, "f", "void(float32[::1])");
  EXPECT_TRUE(with_fast.libdevice_optimized_ahead && exact.libdevice_optimized_ahead);
  EXPECT_NE(with_fast.ptx, exact.ptx);
  EXPECT_EQ(sorted_opcodes(exact.ptx),
            sorted_opcodes(compile_with_libdevice_first(f32, "f", "void(float32[::1])").ptx));
  EXPECT_EQ(sorted_opcodes(with_fast.ptx),
            sorted_opcodes(compile_with_libdevice_first(f32, "f", "void(float32[::1])", fast).ptx));
}

// Constant arguments meet the inlined bodies as they do when libdevice is linked first (the same
// instructions); a kernel with a loop, and an unoptimized compile, link libdevice first, as before.
TEST(Kernels, LibdeviceOptimizedAheadFoldsConstantsAndSkipsLoops) {
  CompileResult consts = compile_kernel(kLoopFreeMath, "consts", "void(float64[::1])");
  EXPECT_TRUE(consts.libdevice_optimized_ahead);
  EXPECT_EQ(sorted_opcodes(consts.ptx),
            sorted_opcodes(compile_with_libdevice_first(kLoopFreeMath, "consts", "void(float64[::1])").ptx));
  EXPECT_FALSE(compile_kernel(kLoopFreeMath, "looped", "void(float64[:, ::1], float64[::1])")
                   .libdevice_optimized_ahead);
  CompileOptions o0;
  o0.opt_level = 0;
  EXPECT_FALSE(compile_kernel(kLoopFreeMath, "bs", kBsSig, o0).libdevice_optimized_ahead);
}

// The code generator's gate skips NaryReassociate and the one EarlyCSE that follows it, in each function,
// and nothing else.
// The first optimizing compile for an architecture starts the warm-up for it (compiler/warm_up.h), once, and
// only in a process that started the warm-up. (Each test runs in a process of its own under ctest.)
// Before the tests that start the warm-up: once started, in a process running every test, each compile
// would find a code generator prepared in the background.
TEST(Kernels, CodegenPreparedAheadGivesTheSamePtx) {
  CompileOptions sm90;
  sm90.arch = "sm_90";
  const char* mm = R"(
import numpy as np
import gpujit as gpu

@gpu.jit
def mm(A, B, C):
    sA = gpu.shared.array((16, 16), np.float32)
    sB = gpu.shared.array((16, 16), np.float32)
    x, y = gpu.grid(2)
    tx = gpu.threadIdx.x
    ty = gpu.threadIdx.y
    acc = np.float32(0.0)
    for t in range(A.shape[1] // 16):
        sA[ty, tx] = A[y, t * 16 + tx]
        sB[ty, tx] = B[t * 16 + ty, x]
        gpu.syncthreads()
        for j in range(16):
            acc += sA[ty, j] * sB[j, tx]
        gpu.syncthreads()
    C[y, x] = acc
)";
  const char* mm_sig = "float32[:, ::1], float32[:, ::1], float32[:, ::1]";
  CompileResult bs_built = compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90);
  CompileResult mm_built = compile_kernel(mm, "mm", mm_sig, sm90);
  EXPECT_FALSE(bs_built.codegen_prepared_ahead);  // none prepared: each compile builds its own
  std::string error;
  const int taken = nvptx_codegen_taken();
  // Three rounds: the second and third build on the machine the one before ran with (recycled).
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    ASSERT_TRUE(prepare_nvptx_codegen("sm_90", 3, &error)) << error;
    ASSERT_TRUE(prepare_nvptx_codegen("sm_90", 3, &error)) << error;  // one is ready: nothing more
    CompileResult bs = compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90);
    EXPECT_TRUE(bs.codegen_prepared_ahead);
    EXPECT_EQ(bs.ptx, bs_built.ptx);
    EXPECT_FALSE(compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90).codegen_prepared_ahead);  // taken
    ASSERT_TRUE(prepare_nvptx_codegen("sm_90", 3, &error)) << error;
    CompileResult m = compile_kernel(mm, "mm", mm_sig, sm90);
    EXPECT_TRUE(m.codegen_prepared_ahead);
    EXPECT_EQ(m.ptx, mm_built.ptx);
  }
  EXPECT_EQ(nvptx_codegen_taken(), taken + 6);
  // One for another architecture or level is not taken.
  ASSERT_TRUE(prepare_nvptx_codegen("sm_90", 3, &error)) << error;
  CompileOptions sm80;
  sm80.arch = "sm_80";
  EXPECT_FALSE(compile_kernel(kLoopFreeMath, "bs", kBsSig, sm80).codegen_prepared_ahead);
  CompileOptions o2 = sm90;
  o2.opt_level = 2;
  EXPECT_FALSE(compile_kernel(kLoopFreeMath, "bs", kBsSig, o2).codegen_prepared_ahead);
  EXPECT_FALSE(prepare_nvptx_codegen("sm_70", 3, &error));
  EXPECT_NE(error.find("too old"), std::string::npos) << error;
  EXPECT_FALSE(prepare_nvptx_codegen("gfx90a", 3, &error));
  EXPECT_NE(error.find("unknown GPU architecture"), std::string::npos) << error;
}

TEST(Kernels, FirstCompileForAnArchitectureStartsItsWarmUp) {
  CompileOptions sm90;
  sm90.arch = "sm_90";
  compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90);
  EXPECT_TRUE(warm_up_archs().empty());  // no start_warm_up(): as in the CLI
  // Nor is a code generator prepared in the background for the next compile.
  EXPECT_FALSE(compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90).codegen_prepared_ahead);
  start_warm_up();
  EXPECT_EQ(warm_up_archs(), std::vector<std::string>{CompileOptions{}.arch});
  CompileResult first = compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90);
  EXPECT_EQ(warm_up_archs(), (std::vector<std::string>{"sm_80", "sm_90"}));
  CompileOptions unoptimized;
  unoptimized.arch = "sm_86";
  unoptimized.opt_level = 0;
  compile_kernel(kLoopFreeMath, "bs", kBsSig, unoptimized);
  EXPECT_EQ(warm_up_archs(), (std::vector<std::string>{"sm_80", "sm_90"}));
  wait_warm_up();
  // What the warm-up optimized for sm_90 gives the same code as what the compile optimized itself.
  EXPECT_EQ(compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90).ptx, first.ptx);
}

TEST(Kernels, EachCompilePreparesTheNextCodegenInTheBackground) {
  CompileOptions sm90;
  sm90.arch = "sm_90";
  start_warm_up();
  CompileResult first = compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90);
  wait_warm_up();  // the warm-ups, and the code generators asked for since
  CompileResult second = compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90);
  EXPECT_TRUE(second.codegen_prepared_ahead);
  EXPECT_EQ(second.ptx, first.ptx);
  wait_warm_up();
  EXPECT_TRUE(compile_kernel(kLoopFreeMath, "bs", kBsSig, sm90).codegen_prepared_ahead);  // and again
  wait_warm_up();
}

TEST(Kernels, DeviceFunctionParametersOfNoSizeCompileAtEveryLevel) {
  // A dtype (a compile-time argument, typed None) and an empty tuple pass nothing: NVPTX's code generator
  // refuses empty parameter types, which no inlining hides at -O0 (debug=True). Before, LLVM aborted.
  const char* src = R"(
import numpy as np
import gpujit as gpu

@gpu.jit(device=True)
def put(dt, nothing, x, y):
    x[0] = dt(1.5) + y

@gpu.jit
def k(x):
    put(np.float32, (), x, np.float32(2.0))
)";
  for (int level : {0, 1, 3}) {
    SCOPED_TRACE(level);
    CompileOptions o;
    o.opt_level = level;
    std::string ptx = compile_and_assemble(src, "k", "float32[::1]", o);
    // 1.5 + 2.0: folded into 3.5 (0x40600000) when optimized, an add of 1.5 (0f3FC00000) at -O0.
    EXPECT_TRUE(contains(ptx, level ? "1080033280" : "add.rn.f32")) << ptx;
    if (!level) EXPECT_TRUE(contains(ptx, "0f3FC00000")) << ptx;
  }
}

TEST(Kernels, CodegenPassGateSkipsNaryReassociateAndItsCleanUp) {
  std::set<std::string> skipped;
  auto runs = [&](const char* pass, const char* fn) { return codegen_pass_runs(pass, fn, &skipped); };
  EXPECT_TRUE(runs("early-cse", "function (k)"));  // before NaryReassociate: runs
  EXPECT_TRUE(runs("gvn", "function (k)"));
  EXPECT_FALSE(runs("nary-reassociate", "function (k)"));
  EXPECT_TRUE(runs("early-cse", "function (g)"));  // another function's
  EXPECT_FALSE(runs("early-cse", "function (k)"));
  EXPECT_TRUE(runs("early-cse", "function (k)"));  // only the one right after it
  EXPECT_TRUE(runs("slsr", "function (k)"));
  EXPECT_TRUE(runs("NaryReassociatePass", "function (k)"));  // a new-PM name is not gated
}

TEST(Kernels, FloatKernelWithoutMathDoesNotLinkLibdevice) {
  const char* src = R"(
import math
import gpujit as gpu

@gpu.jit
def k(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = math.sqrt(a[i]) + math.floor(a[i]) + abs(a[i])
)";
  CompileOptions options;
  options.keep_llvm = true;
  CompileResult r = compile_kernel(src, "k", "void(float32[::1])", options);
  ASSERT_TRUE(r.ok);
  EXPECT_FALSE(contains(r.llvm_ir, "__nv_")) << r.llvm_ir;
  EXPECT_FALSE(contains(r.llvm_ir, "__nvvm_reflect")) << r.llvm_ir;
}

TEST(Kernels, IntegerOpsSignedAndUnsigned) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def signed_ops(a, b, out):
    i = gpu.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x // y
        out[i, 1] = x % y
        out[i, 2] = x << 3
        out[i, 3] = x >> 2
        out[i, 4] = (x & y) | (x ^ 0x55)
        out[i, 5] = ~x
        out[i, 6] = x ** 3

@gpu.jit
def unsigned_ops(a, b, out):
    i = gpu.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x // y
        out[i, 1] = x % y
        out[i, 2] = x << 5
        out[i, 3] = x >> 3
        out[i, 4] = (x & y) ^ (x | 0xF0F0)
        out[i, 5] = ~x
        out[i, 6] = x ** y
)";
  std::string sptx = compile_and_assemble(src, "signed_ops", "void(int32[::1], int32[::1], int32[:, ::1])");
  EXPECT_TRUE(contains(sptx, "div.s64") || contains(sptx, "div.s32")) << sptx;
  EXPECT_TRUE(contains(sptx, "shr.s")) << sptx;  // arithmetic shift for signed
  EXPECT_FALSE(has_f64(sptx)) << sptx;
  std::string uptx =
      compile_and_assemble(src, "unsigned_ops", "void(uint32[::1], uint32[::1], uint32[:, ::1])");
  EXPECT_TRUE(contains(uptx, "div.u64") || contains(uptx, "div.u32")) << uptx;
  EXPECT_TRUE(contains(uptx, "shr.u")) << uptx;  // logical shift for unsigned
  EXPECT_FALSE(has_f64(uptx)) << uptx;
}

TEST(Kernels, DeviceFunctionReturningTuple) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit(device=True)
def divmod_pair(a, b):
    return a // b, a % b

@gpu.jit
def k(a, b, q, r):
    i = gpu.grid(1)
    if i < a.size:
        q[i], r[i] = divmod_pair(a[i], b[i])
)";
  std::string ptx = compile_and_assemble(src, "k", "void(int64[::1], int64[::1], int64[::1], int64[::1])");
  EXPECT_TRUE(has_entry(ptx, "k")) << ptx;
  // The device function is internal and inlined: only the entry is visible.
  EXPECT_FALSE(contains(ptx, ".func")) << ptx;
}

TEST(Kernels, SharedMemoryAtomicsAndBarrier) {
  const char* src = R"(
import numpy as np
import gpujit as gpu

TPB = 128

@gpu.jit
def block_sum(a, total):
    tile = gpu.shared.array(TPB, np.float32)
    i = gpu.grid(1)
    t = gpu.threadIdx.x
    tile[t] = a[i] if i < a.size else 0.0
    gpu.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            tile[t] += tile[t + s]
        gpu.syncthreads()
        s //= 2
    if t == 0:
        gpu.atomic.add(total, 0, tile[0])
)";
  std::string ptx = compile_and_assemble(src, "block_sum", "void(float32[::1], float32[::1])");
  EXPECT_TRUE(contains(ptx, ".shared")) << ptx;
  EXPECT_TRUE(contains(ptx, "bar.sync")) << ptx;
  EXPECT_TRUE(contains(ptx, "atom.global") || contains(ptx, "red.global")) << ptx;
  EXPECT_TRUE(contains(ptx, "ld.shared") || contains(ptx, "st.shared")) << ptx;
}

TEST(Kernels, ForRangeWithNegativeAndRuntimeSteps) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(out, step):
    i = gpu.grid(1)
    if i < out.size:
        acc = 0
        for j in range(10, 0, -3):
            acc += j
        for j in range(0, 20, step):
            acc += j
        else:
            acc += 1000
        out[i] = acc
)";
  compile_and_assemble(src, "k", "void(int64[::1], int64)");
}

TEST(Kernels, FastmathUsesApproximateDivision) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a, b):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = a[i] / b[i]
)";
  CompileOptions options;
  options.fastmath = true;
  std::string ptx = compile_and_assemble(src, "k", "void(float32[::1], float32[::1])", options);
  EXPECT_TRUE(contains(ptx, "div.approx") || contains(ptx, "div.full")) << ptx;
  std::string precise = compile_and_assemble(src, "k", "void(float32[::1], float32[::1])");
  EXPECT_TRUE(contains(precise, "div.rn.f32")) << precise;
}

TEST(Kernels, UnknownArchIsAnError) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a):
    a[0] = 1.0
)";
  CompileRequest request;
  request.module = parse_source("kernel.py", src);
  Diagnostics d;
  request.globals = globals_from_module(*request.module, d);
  request.kernel_name = "k";
  request.arg_types = {Type::array_of(ScalarKind::Float32, 1, Layout::C)};
  request.options.arch = "sm_60";
  CompileResult r = compile(request);
  EXPECT_FALSE(r.ok);
  ASSERT_TRUE(r.diagnostics.has_errors());
  EXPECT_NE(r.diagnostics.all()[0].message.find("sm_75"), std::string::npos) << r.diagnostics.render();
}

TEST(Kernels, BarriersAtomicsAndThreadBuiltins) {
  const char* src = R"(
import math
import numpy as np
import gpujit as gpu

@gpu.jit
def k(f, n, out):
    i = gpu.grid(1)
    scratch = gpu.local.array((2, 3), np.int64)
    dyn = gpu.shared.array(32, np.float32)
    dyn[gpu.threadIdx.x] = 1.0
    scratch[1, 2] = gpu.laneid + gpu.warpsize
    gpu.syncthreads()
    c = gpu.syncthreads_count(i < 10)
    a = gpu.syncthreads_and(i < 10)
    o = gpu.syncthreads_or(i < 10)
    gpu.syncwarp()
    gpu.threadfence()
    gpu.threadfence_block()
    gpu.threadfence_system()
    gpu.atomic.add(n, 0, 1)
    gpu.atomic.sub(f, 0, 1.5)
    gpu.atomic.max(f, 1, dyn[0])
    gpu.atomic.min(n, 1, scratch[1, 2])
    gpu.atomic.exch(n, 2, c)
    gpu.atomic.and_(n, 3, a)
    gpu.atomic.or_(n, 4, o)
    gpu.atomic.xor(n, 5, gpu.gridsize(1))
    x, y = gpu.grid(2)
    out[i] = math.isnan(f[0]) or math.isinf(f[1]) or math.isfinite(f[2]) or x > y
)";
  std::string ptx = compile_and_assemble(src, "k", "void(float32[::1], int64[::1], bool[::1])");
  EXPECT_TRUE(contains(ptx, ".shared .align 16 .b8")) << ptx;
  EXPECT_TRUE(contains(ptx, "%laneid")) << ptx;
  EXPECT_TRUE(contains(ptx, "bar.red.popc")) << ptx;
  EXPECT_TRUE(contains(ptx, "bar.red.and")) << ptx;
  EXPECT_TRUE(contains(ptx, "bar.red.or")) << ptx;
  EXPECT_TRUE(contains(ptx, "bar.warp.sync")) << ptx;
  EXPECT_TRUE(contains(ptx, "membar.gl") && contains(ptx, "membar.cta") && contains(ptx, "membar.sys"))
      << ptx;
  EXPECT_TRUE(contains(ptx, "atom.global.add.u64") || contains(ptx, "red.global.add.u64")) << ptx;
  EXPECT_TRUE(contains(ptx, "atom.global.xor") || contains(ptx, "red.global.xor")) << ptx;
  EXPECT_TRUE(contains(ptx, "atom.global.exch") || contains(ptx, "atom.exch")) << ptx;
}

TEST(Kernels, ManyLibdeviceFunctionsLinkTogether) {
  // sin, cos and tan share libdevice's argument-reduction helpers and tables: each is cut out of libdevice
  // with its helpers, and the shared ones are linked once.
  const char* src = R"(
import math
import gpujit as gpu

@gpu.jit
def k(a, out):
    i = gpu.grid(1)
    if i < a.size:
        x = a[i]
        out[i] = (math.sin(x) + math.cos(x) + math.tan(x) + math.atan2(x, 2.0) + math.pow(x, 1.5)
                  + math.hypot(x, 3.0) + math.lgamma(x) + math.exp2(x) + x ** 0.25 + x % 1.5 + x // 0.5)
)";
  for (const char* sig : {"void(float64[::1], float64[::1])", "void(float32[::1], float32[::1])"}) {
    std::string ptx = compile_and_assemble(src, "k", sig);
    // No f64 check for float32: __nv_sinf's reduction of huge arguments computes in double by design.
    EXPECT_FALSE(contains(ptx, "__nv_")) << ptx;
  }
}

TEST(Compile, KeepsEveryStageAskedFor) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = a[i] * 2
)";
  CompileOptions options;
  options.keep_tokens = options.keep_ast = options.keep_typed = options.keep_llvm = true;
  CompileResult r = compile_kernel(src, "k", "void(int32[::1])", options);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(contains(r.tokens, "'grid'")) << r.tokens;
  EXPECT_TRUE(contains(r.ast, "FunctionDef k")) << r.ast;
  EXPECT_TRUE(contains(r.typed, "int32")) << r.typed;
  EXPECT_TRUE(contains(r.llvm_ir, "define ptx_kernel void @" + r.entry_name)) << r.llvm_ir;
  EXPECT_EQ(r.signature.str(), "void(int32[::1])");
  EXPECT_GT(r.ms_lower + r.ms_optimize + r.ms_ptx, 0.0);

  CompileResult bare = compile_kernel(src, "k", "void(int32[::1])");
  EXPECT_TRUE(bare.tokens.empty() && bare.ast.empty() && bare.typed.empty() && bare.llvm_ir.empty());
  EXPECT_FALSE(bare.ptx.empty());
}

TEST(Compile, SyntaxErrorsInTheKernelFailTheCompile) {
  const char* src = R"(
import gpujit as gpu

@gpu.jit
def k(a):
    a[0] = = 1
)";
  CompileRequest request;
  request.module = parse_source("kernel.py", src);
  Diagnostics d;
  request.globals = globals_from_module(*request.module, d);
  request.kernel_name = "k";
  request.arg_types = {Type::array_of(ScalarKind::Float32, 1, Layout::C)};
  CompileResult r = compile(request);
  EXPECT_FALSE(r.ok);
  ASSERT_TRUE(r.diagnostics.has_errors());
  EXPECT_EQ(r.diagnostics.first_error()->range.begin.line, 6u) << r.diagnostics.render();
  EXPECT_TRUE(r.ptx.empty());
}

TEST(Compile, NoSuchKernel) {
  CompileRequest request;
  request.module = parse_source("kernel.py", "import gpujit as gpu\n");
  request.kernel_name = "missing";
  CompileResult r = compile(request);
  EXPECT_FALSE(r.ok);
  ASSERT_TRUE(r.diagnostics.has_errors());
  EXPECT_TRUE(contains(r.diagnostics.all()[0].message, "'missing'")) << r.diagnostics.render();
}

}  // namespace
}  // namespace gpujit::test
