// cache_key(): the same request always gives the same key, and every input that can change the PTX changes
// it: the kernel's text, a device function's text, a captured value, the argument types, each option that
// changes code. The keep_* options, which only add dumps, do not.
#include <gtest/gtest.h>

#include <string>

#include "codegen_test_util.h"

namespace gpujit::test {
namespace {

const char* const kSource = R"(
import gpujit as gpu

SCALE = 2.0

@gpu.jit(device=True)
def twice(x):
    return x * SCALE

@gpu.jit
def scale(a, out):
    i = gpu.grid(1)
    out[i] = twice(a[i])
)";

CompileRequest request_for(const std::string& source, const std::string& sig = "float32[::1], float32[::1]") {
  CompileRequest r;
  r.module = parse_source("kernels.py", source);
  Diagnostics diags;
  r.globals = globals_from_module(*r.module, diags);
  r.kernel_name = "scale";
  std::string error;
  r.arg_types = parse_signature(sig, &error)->params;
  return r;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(CacheKey, IsStableAndHex) {
  std::string key = cache_key(request_for(kSource));
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos) << key;
  EXPECT_EQ(cache_key(request_for(kSource)), key);  // a fresh parse of the same text

  CompileRequest dumps = request_for(kSource);
  dumps.options.keep_llvm = dumps.options.keep_typed = dumps.options.keep_ast = true;
  EXPECT_EQ(cache_key(dumps), key);
}

TEST(CacheKey, ChangesWithEveryInputOfTheCompile) {
  const std::string base = cache_key(request_for(kSource));
  // The kernel's text, a device function's text, a captured constant.
  EXPECT_NE(cache_key(request_for(replaced(kSource, "out[i] = twice(a[i])", "out[i] = twice(a[i]) + 1"))),
            base);
  EXPECT_NE(cache_key(request_for(replaced(kSource, "return x * SCALE", "return x + SCALE"))), base);
  EXPECT_NE(cache_key(request_for(replaced(kSource, "SCALE = 2.0", "SCALE = 3.0"))), base);
  // A constant of the same value but another type compiles differently too.
  CompileRequest typed = request_for(kSource);
  typed.globals["SCALE"].constant.scalar = ScalarKind::Float32;
  EXPECT_NE(cache_key(typed), base);
  // A captured array's bytes.
  CompileRequest with_array = request_for(kSource);
  GlobalValue array;
  array.kind = GlobalValue::Kind::ConstArray;
  array.dtype = ScalarKind::UInt8;
  array.shape = {2};
  array.bytes = {1, 2};
  with_array.globals["TABLE"] = array;
  std::string with_table = cache_key(with_array);
  with_array.globals["TABLE"].bytes = {1, 3};
  EXPECT_NE(cache_key(with_array), with_table);
  // The argument types.
  EXPECT_NE(cache_key(request_for(kSource, "float32[:], float32[::1]")), base);
  EXPECT_NE(cache_key(request_for(kSource, "float64[::1], float64[::1]")), base);

  // Each option that changes code.
  auto with = [&](auto change) {
    CompileRequest r = request_for(kSource);
    change(r.options);
    return cache_key(r);
  };
  EXPECT_NE(with([](CompileOptions& o) { o.arch = "sm_90"; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.opt_level = 2; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.fastmath = true; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.debug = true; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.lineinfo = true; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.debug_info = true; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.max_threads = 128; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.max_threads = 128; }), with([](CompileOptions& o) {
              o.max_threads = 128;
              o.min_blocks = 2;
            }));
  EXPECT_NE(with([](CompileOptions& o) { o.max_registers = 32; }), base);
  EXPECT_NE(with([](CompileOptions& o) { o.target = TargetKind::Host; }), base);
}

TEST(CacheKey, ReadsNoAddresses) {
  // Two parses live at once hold their functions at different addresses; the keys still agree.
  CompileRequest a = request_for(kSource), b = request_for(kSource);
  ASSERT_NE(a.globals.at("twice").function, b.globals.at("twice").function);
  EXPECT_EQ(cache_key(a), cache_key(b));
}

}  // namespace
}  // namespace gpujit::test
