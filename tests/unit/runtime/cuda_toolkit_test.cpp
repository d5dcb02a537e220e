// NVRTC and nvJitLink through runtime/cuda_toolkit.h, offline (no GPU): CUDA C compiles to PTX, a cubin and
// LTO-IR for an explicit architecture, a compile error carries NVRTC's log with the program's name and line,
// separately compiled device code links into one cubin (with and without -lto) or, with -lto -ptx, into PTX
// with the function inlined, and an unresolved symbol is a link error naming it. Skips when the toolkit libraries are not on this machine.
#include "runtime/cuda_toolkit.h"
#include "runtime/kernel_link.h"

#include <gtest/gtest.h>

#include <string>

namespace gpujit::rt {
namespace {

const char* kKernel = R"(extern "C" __device__ float mul(float a, float b);
extern "C" __global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = mul(x[i], 2.0f);
}
)";

const char* kFunctions = R"(extern "C" __device__ float mul(float a, float b) { return a * b; }
)";

bool is_elf(const std::string& bytes) { return bytes.size() > 4 && bytes.compare(0, 4, "\x7f" "ELF") == 0; }

class CudaToolkitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!nvrtc_available() || !nvjitlink_available()) GTEST_SKIP() << "NVRTC or nvJitLink is not installed here";
  }
  static CudaCProgram program(const char* source, const char* name, std::vector<std::string> options = {}) {
    CudaCProgram p;
    p.source = source;
    p.name = name;
    p.options = std::move(options);
    return p;
  }
};

TEST(CudaArchTest, ParsesTheUsualSpellings) {
  EXPECT_EQ(parse_cuda_arch("sm_90").sm(), "sm_90");
  EXPECT_EQ(parse_cuda_arch("sm_90a").sm(), "sm_90a");
  EXPECT_EQ(parse_cuda_arch("compute_80").compute(), "compute_80");
  EXPECT_TRUE(parse_cuda_arch("compute_80").is_virtual);
  EXPECT_EQ(parse_cuda_arch("90").sm(), "sm_90");
  EXPECT_EQ(parse_cuda_arch("9.0").sm(), "sm_90");
  EXPECT_EQ(parse_cuda_arch("120").compute(), "compute_120");
  EXPECT_THROW(parse_cuda_arch("hopper"), std::invalid_argument);
  EXPECT_THROW(parse_cuda_arch("sm_"), std::invalid_argument);
  EXPECT_THROW(parse_cuda_arch("sm_90x"), std::invalid_argument);
}

TEST(LinkInputKindTest, FromExtensionAndName) {
  EXPECT_EQ(link_input_kind_for_path("dir/functions.ptx"), LinkInputKind::ptx);
  EXPECT_EQ(link_input_kind_for_path("a.CUBIN"), LinkInputKind::cubin);
  EXPECT_EQ(link_input_kind_for_path("a.fatbin"), LinkInputKind::fatbin);
  EXPECT_EQ(link_input_kind_for_path("a.o"), LinkInputKind::object);
  EXPECT_EQ(link_input_kind_for_path("liba.a"), LinkInputKind::library);
  EXPECT_EQ(link_input_kind_for_path("a.ltoir"), LinkInputKind::ltoir);
  EXPECT_THROW(link_input_kind_for_path("a.cu"), std::invalid_argument);
  EXPECT_THROW(link_input_kind_for_path("dir.d/noext"), std::invalid_argument);
  EXPECT_EQ(link_input_kind("library"), LinkInputKind::library);
  EXPECT_STREQ(link_input_kind_name(LinkInputKind::ltoir), "ltoir");
  EXPECT_THROW(link_input_kind("elf"), std::invalid_argument);
}

TEST_F(CudaToolkitTest, LibrariesReportPathAndVersion) {
  ToolkitLibrary nvrtc = nvrtc_library();
  EXPECT_NE(nvrtc.path.find("nvrtc"), std::string::npos);
  EXPECT_GE(nvrtc.major, 12);
  ToolkitLibrary link = nvjitlink_library();
  EXPECT_NE(link.path.find("nvJitLink"), std::string::npos);
  EXPECT_GE(link.major, 12);
}

TEST_F(CudaToolkitTest, CompilesToPtxCubinAndLtoir) {
  CudaCProgram p = program(kFunctions, "functions.cu", {"-rdc=true"});
  CudaCResult ptx = compile_cuda_c(p, "sm_90", CudaCOutput::ptx);
  EXPECT_NE(ptx.code.find(".target sm_90"), std::string::npos) << ptx.code;
  EXPECT_NE(ptx.code.find(".func  (.param .b32 func_retval0) mul("), std::string::npos) << ptx.code;
  EXPECT_NE(ptx.code.back(), '\0');
  CudaCResult cubin = compile_cuda_c(p, "compute_90", CudaCOutput::cubin);
  EXPECT_TRUE(is_elf(cubin.code));
  CudaCResult ltoir = compile_cuda_c(p, "90", CudaCOutput::ltoir);
  EXPECT_FALSE(ltoir.code.empty());
  EXPECT_FALSE(is_elf(ltoir.code));
}

TEST_F(CudaToolkitTest, CompileErrorKeepsFileAndLine) {
  CudaCProgram p = program("extern \"C\" __global__ void k(float* x) {\n  x[0] = 1.0f;\n  x[1] = y;\n}\n", "bad.cu");
  try {
    compile_cuda_c(p, "sm_80", CudaCOutput::ptx);
    FAIL() << "expected a compile error";
  } catch (const CudaCCompileError& e) {
    EXPECT_NE(e.log().find("bad.cu(3)"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("identifier \"y\" is undefined"), std::string::npos) << e.log();
    std::string what = e.what();
    EXPECT_NE(what.find("could not compile 'bad.cu' for compute_80"), std::string::npos) << what;
    EXPECT_NE(what.find("bad.cu(3)"), std::string::npos) << what;
  }
}

TEST_F(CudaToolkitTest, ArchitectureBelongsInTheArgumentNotTheOptions) {
  CudaCProgram p = program(kFunctions, "f.cu", {"-arch=sm_80"});
  EXPECT_THROW(compile_cuda_c(p, "sm_90", CudaCOutput::ptx), std::invalid_argument);
  EXPECT_THROW(link_cuda({}, "sm_90"), std::invalid_argument);
}

TEST_F(CudaToolkitTest, NameExpressionsGiveMangledNames) {
  CudaCProgram p = program("template <typename T> __global__ void fill(T* x) { x[0] = T(1); }\n", "t.cu");
  p.name_expressions = {"fill<float>", "fill<int>"};
  CudaCResult r = compile_cuda_c(p, "sm_90", CudaCOutput::ptx);
  ASSERT_EQ(r.lowered_names.size(), 2u);
  EXPECT_EQ(r.lowered_names[0].second, "_Z4fillIfEvPT_");
  EXPECT_NE(r.code.find(".entry _Z4fillIiEvPT_"), std::string::npos);
}

TEST_F(CudaToolkitTest, LinksSeparatelyCompiledPtx) {
  std::string kernel = compile_cuda_c(program(kKernel, "kernel.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ptx).code;
  std::string functions =
      compile_cuda_c(program(kFunctions, "functions.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ptx).code;
  LinkResult r = link_cuda({{LinkInputKind::ptx, kernel, "kernel.ptx"}, {LinkInputKind::ptx, functions, "functions.ptx"}},
                           "sm_90");
  EXPECT_TRUE(is_elf(r.cubin));
  EXPECT_NE(r.cubin.find("scale"), std::string::npos);
}

TEST_F(CudaToolkitTest, LinksLtoirWithLinkTimeOptimization) {
  std::string kernel = compile_cuda_c(program(kKernel, "kernel.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ltoir).code;
  std::string functions =
      compile_cuda_c(program(kFunctions, "functions.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ltoir).code;
  LinkOptions lto;
  lto.lto = true;
  LinkResult r = link_cuda({{LinkInputKind::ltoir, kernel, "kernel.ltoir"}, {LinkInputKind::ltoir, functions, "f.ltoir"}},
                           "sm_90", lto);
  EXPECT_TRUE(is_elf(r.cubin));
  // Without -lto nvJitLink refuses LTO-IR.
  EXPECT_THROW(link_cuda({{LinkInputKind::ltoir, kernel, "kernel.ltoir"}}, "sm_90"), CudaLinkError);
}

TEST_F(CudaToolkitTest, AnLtoLinkGivesThePtxWithTheFunctionInlined) {
  std::string kernel = compile_cuda_c(program(kKernel, "kernel.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ltoir).code;
  std::string functions =
      compile_cuda_c(program(kFunctions, "functions.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ltoir).code;
  LinkOptions options;
  options.lto = true;
  options.ptx = true;  // -lto -ptx: nvJitLinkGetLinkedPtx, and no cubin
  LinkResult r = link_cuda({{LinkInputKind::ltoir, kernel, "kernel.ltoir"}, {LinkInputKind::ltoir, functions, "f.ltoir"}},
                           "sm_90", options);
  EXPECT_TRUE(r.cubin.empty());
  EXPECT_NE(r.ptx.find(".entry scale"), std::string::npos) << r.ptx;
  EXPECT_EQ(r.ptx.find(".func"), std::string::npos) << r.ptx;  // mul inlined: no function of its own, no call
  EXPECT_EQ(r.ptx.find("call"), std::string::npos) << r.ptx;
  EXPECT_NE(r.ptx.back(), '\0');
  options.lto = false;  // PTX comes out of an LTO link only
  EXPECT_THROW(link_cuda({{LinkInputKind::ltoir, kernel, "kernel.ltoir"}}, "sm_90", options), std::invalid_argument);
}

TEST_F(CudaToolkitTest, AKernelLibnvvmRefusesIsLinkedAsPtxAndSaysWhy) {
  // jit(lto=True) on the launch path: the kernel's NVVM IR goes to libNVVM; where libNVVM refuses it (or is not
  // installed) the kernel is linked as PTX, and the reason comes back for the binding's PerformanceWarning.
  CompileResult result;
  result.ptx = compile_cuda_c(program(kKernel, "kernel.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ptx).code;
  result.entry_name = "scale";
  LinkFile functions;
  functions.kind = "cu";
  functions.data = kFunctions;
  functions.name = "functions.cu";
  result.link.push_back(functions);
  result.nvvm_ir = "this is not NVVM IR";
  std::string why;
  EXPECT_TRUE(is_elf(link_kernel(result, "sm_90", &why)));
  EXPECT_FALSE(why.empty());
  // The writer's own failure was reported when the kernel compiled: not again here.
  result.nvvm_ir.clear();
  result.nvvm_ir_error = "the NVVM IR writer cannot write the bfloat type";
  EXPECT_TRUE(is_elf(link_kernel(result, "sm_90", &why)));
  EXPECT_TRUE(why.empty()) << why;
  // Without lto=True nothing is said.
  result.nvvm_ir_error.clear();
  EXPECT_TRUE(is_elf(link_kernel(result, "sm_90", &why)));
  EXPECT_TRUE(why.empty()) << why;
}

TEST_F(CudaToolkitTest, UnresolvedSymbolIsALinkErrorNamingIt) {
  std::string kernel = compile_cuda_c(program(kKernel, "kernel.cu", {"-rdc=true"}), "sm_90", CudaCOutput::ptx).code;
  try {
    link_cuda({{LinkInputKind::ptx, kernel, "kernel.ptx"}}, "sm_90");
    FAIL() << "expected a link error";
  } catch (const CudaLinkError& e) {
    EXPECT_NE(e.error_log().find("mul"), std::string::npos) << e.error_log();
    EXPECT_NE(std::string(e.what()).find("nvJitLinkComplete failed"), std::string::npos) << e.what();
  }
}

TEST_F(CudaToolkitTest, GarbageInputIsALinkError) {
  EXPECT_THROW(link_cuda({{LinkInputKind::cubin, "not a cubin", "junk.cubin"}}, "sm_90"), CudaLinkError);
}

}  // namespace
}  // namespace gpujit::rt
