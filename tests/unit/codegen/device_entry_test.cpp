// A device function compiled on its own (CompileOptions::entry, numba's compile_ptx(device=True)): the
// `.visible .func` of each ABI, its declared or inferred return type, and user errors for what a device
// entry cannot be.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "compiler/compiler.h"
#include "ir/globals.h"
#include "codegen_test_util.h"

namespace gpujit::test {
namespace {

bool has(const std::string& ptx, const std::string& pattern) {
  return std::regex_search(ptx, std::regex(pattern));
}

const char* const kSource = R"(
def add(x, y):
    return x + y

def scale(a, s):
    for i in range(a.size):
        a[i] *= s

def first(a):
    return a[0]

def skip(nothing, a):
    a[0] = 1.0
)";

CompileResult compile_entry(const std::string& name, const std::string& sig, EntryKind entry,
                            const std::string& abi_name = "", TargetKind target = TargetKind::Nvptx,
                            int opt_level = 3) {
  std::string error;
  auto signature = parse_signature(sig, &error);
  EXPECT_TRUE(signature) << error;
  CompileRequest request;
  request.module = parse_source("device.py", kSource);
  Diagnostics global_diags;
  request.globals = globals_from_module(*request.module, global_diags);
  request.kernel_name = name;
  request.arg_types = signature->params;
  request.return_type = signature->ret;
  request.options.arch = "sm_75";
  request.options.target = target;
  request.options.entry = entry;
  request.options.abi_name = abi_name;
  request.options.opt_level = opt_level;
  return compile(request);
}

TEST(DeviceEntry, CAbiReturnsTheResultUnderTheFunctionName) {
  CompileResult r = compile_entry("add", "int64(int32, int32)", EntryKind::DeviceC);
  ASSERT_TRUE(r.ok) << r.diagnostics.render();
  EXPECT_EQ(r.entry_name, "add");
  EXPECT_EQ(r.signature.ret.str(), "int64");
  EXPECT_TRUE(has(r.ptx, R"(\.visible\s+\.func\s+\(\.param\s+\.b64\s+func_retval0\)\s+add\()")) << r.ptx;
  EXPECT_EQ(r.ptx.find(".entry"), std::string::npos);
  EXPECT_TRUE(r.params.empty());
  bool ok = false;
  std::string log = run_ptxas(r.ptx, "sm_75", &ok);
  EXPECT_TRUE(ok) << log;
}

TEST(DeviceEntry, CAbiTakesTheGivenSymbol) {
  CompileResult r = compile_entry("add", "int32(int32, int32)", EntryKind::DeviceC, "_Z4funcii");
  ASSERT_TRUE(r.ok) << r.diagnostics.render();
  EXPECT_TRUE(has(r.ptx, R"(func_retval0\)\s+_Z4funcii\()")) << r.ptx;
}

TEST(DeviceEntry, NumbaAbiReturnsAStatusAndStoresTheResult) {
  CompileResult r = compile_entry("add", "void(float32, float32)", EntryKind::DeviceNumba);
  ASSERT_TRUE(r.ok) << r.diagnostics.render();
  EXPECT_EQ(r.signature.ret.str(), "float32");  // void declares nothing: inferred
  EXPECT_EQ(r.entry_name.rfind("_gpujit_add_", 0), 0u) << r.entry_name;
  EXPECT_TRUE(has(r.ptx, R"(\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+)" + r.entry_name +
                             R"(\(\s*\.param\s+\.b64[^,]*,\s*\.param\s+\.b64[^,]*,\s*\.param\s+\.b32)"))
      << r.ptx;
  EXPECT_TRUE(has(r.ptx, R"(st\.b32\s+\[%rd1\], %r3;)")) << r.ptx;  // the result, through the pointer
  EXPECT_TRUE(has(r.ptx, R"(st\.param\.b32\s+\[func_retval0\], 0;)")) << r.ptx;
  bool ok = false;
  std::string log = run_ptxas(r.ptx, "sm_75", &ok);
  EXPECT_TRUE(ok) << log;
}

TEST(DeviceEntry, AParameterOfNoSizeIsLeftOut) {
  // An empty tuple passes nothing, and NVPTX refuses empty parameter types; at -O0 LLVM aborted on it.
  for (EntryKind entry : {EntryKind::DeviceC, EntryKind::DeviceNumba}) {
    for (int level : {0, 3}) {
      SCOPED_TRACE(level);
      CompileResult r = compile_entry("skip", "void(Tuple(), float32[::1])", entry, "", TargetKind::Nvptx, level);
      ASSERT_TRUE(r.ok) << r.diagnostics.render();
      // The array is the function's one parameter (the numba ABI's two pointers first).
      EXPECT_TRUE(has(r.ptx, entry == EntryKind::DeviceC ? R"(\.func\s+skip\(\s*\.param\s+\.align 8\s+\.b8\s+skip_param_0\[24\]\s*\))"
                                                         : R"(_param_1,\s*\.param\s+\.align 8\s+\.b8\s+\w+_param_2\[24\]\s*\))"))
          << r.ptx;
      bool ok = false;
      std::string log = run_ptxas(r.ptx, "sm_75", &ok);
      EXPECT_TRUE(ok) << log;
    }
  }
}

TEST(DeviceEntry, ArraysAreOneAggregateParameter) {
  CompileResult r = compile_entry("scale", "void(float32[::1], float32)", EntryKind::DeviceC);
  ASSERT_TRUE(r.ok) << r.diagnostics.render();
  EXPECT_TRUE(has(r.ptx, R"(\.visible\s+\.func\s+scale\()")) << r.ptx;
  EXPECT_NE(r.ptx.find(".param .align 8 .b8 scale_param_0[24]"), std::string::npos) << r.ptx;
}

TEST(DeviceEntry, AReturnThatDoesNotConvertIsAUserError) {
  CompileResult r = compile_entry("first", "int32[::1](float64[::1])", EntryKind::DeviceC);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.render().find("does not convert to int32[::1]"), std::string::npos)
      << r.diagnostics.render();
}

TEST(DeviceEntry, ASymbolPtxCannotNameIsAUserError) {
  CompileResult r = compile_entry("add", "int32(int32, int32)", EntryKind::DeviceC, "<lambda>");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.render().find("'<lambda>' cannot name a PTX function"), std::string::npos)
      << r.diagnostics.render();
}

TEST(DeviceEntry, TheCpuBackendIsRefused) {
  CompileResult r = compile_entry("add", "int32(int32, int32)", EntryKind::DeviceC, "", TargetKind::Host);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.render().find("PTX only"), std::string::npos) << r.diagnostics.render();
}

}  // namespace
}  // namespace gpujit::test

namespace gpujit::test {
namespace {

TEST(LaunchBounds, BecomeEntryDirectives) {
  CompileOptions options;
  options.arch = "sm_90";
  options.max_threads = 128;
  options.min_blocks = 2;
  options.max_cluster_rank = 4;
  CompileResult r = compile_kernel("def k(a):\n    a[0] = 1\n", "k", "void(float32[::1])", options);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(has(r.ptx, R"(\.maxntid\s+128,\s+1,\s+1)")) << r.ptx;
  EXPECT_TRUE(has(r.ptx, R"(\.minnctapersm\s+2)")) << r.ptx;
  EXPECT_TRUE(has(r.ptx, R"(\.maxclusterrank\s+4)")) << r.ptx;
  bool ok = false;
  std::string log = run_ptxas(r.ptx, "sm_90", &ok);
  EXPECT_TRUE(ok) << log;
}

}  // namespace
}  // namespace gpujit::test
