// CUDA vector types, numba's Dim3 and divmod in semantic analysis: the types they give, and the exact
// line:col and message of each misuse.
#include "ir/builtins.h"
#include "ir/vector_types.h"
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

// Lines 1-3 are the imports, line 4 is blank; kernels in these tests start on line 5.
const char* kHeader = "import math\nimport numpy as np\nfrom numba import cuda\n";

Analyzed run(const std::string& body, const std::string& sig) {
  return analyze_source(std::string(kHeader) + body, "k", sig);
}

std::string only_error(const std::string& body, const std::string& sig) {
  return only_error_of(run(body, sig));
}

TEST(VectorTypes, EveryBaseAndLaneCountHasARowAndCudaNamesAreAliases) {
  const char* bases[] = {"int8",   "int16",  "int32",  "int64",   "uint8",
                         "uint16", "uint32", "uint64", "float32", "float64"};
  for (const char* base : bases) {
    for (int lanes = 1; lanes <= 4; ++lanes) {
      std::string name = std::string(base) + "x" + std::to_string(lanes);
      const BuiltinInfo* row = find_builtin(BuiltinScope::Kernel, name);
      ASSERT_NE(row, nullptr) << name;
      EXPECT_EQ(row->id, BuiltinId::VectorCtor);
      EXPECT_EQ(vector_type_of(*row).str(), name);
      EXPECT_EQ(row->max_args, lanes);
    }
  }
  auto type_of_name = [](const char* name) {
    const BuiltinInfo* row = find_builtin(BuiltinScope::Kernel, name);
    return row ? vector_type_of(*row).str() : std::string("<none>");
  };
  EXPECT_EQ(type_of_name("float4"), "float32x4");
  EXPECT_EQ(type_of_name("double2"), "float64x2");
  EXPECT_EQ(type_of_name("char1"), "int8x1");
  EXPECT_EQ(type_of_name("uchar3"), "uint8x3");
  EXPECT_EQ(type_of_name("short2"), "int16x2");
  EXPECT_EQ(type_of_name("int2"), "int32x2");
  EXPECT_EQ(type_of_name("uint4"), "uint32x4");
  EXPECT_EQ(type_of_name("long3"), "int64x3");
  EXPECT_EQ(type_of_name("longlong2"), "int64x2");
  EXPECT_EQ(type_of_name("ulong1"), "uint64x1");
  EXPECT_EQ(type_of_name("ulonglong4"), "uint64x4");
  EXPECT_EQ(type_of_name("float5"), "<none>");
  EXPECT_EQ(type_of_name("bool2"), "<none>");
  EXPECT_EQ(vector_type_names().size(), 40u + 48u);
}

TEST(VectorTypes, ConstructorsFromNumbersAndSmallerVectors) {
  Analyzed a = run(R"(
def k(out):
    a = cuda.float32x4(1, 2.5, True, out[0])
    b = cuda.float2(out[0], 2)
    c = cuda.float32x4(b, 3, 4)
    d = cuda.float32x4(1, b, 4)
    e = cuda.float32x4(cuda.float32x3(1, 2, 3), cuda.float32x1(4))
    f = cuda.float32x4(a)
    g = cuda.short2(10, 11)
    out[0] = a.x + c.y + d.z + e.w + f.x + g.y
)",
                   "float32[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "a"), "float32x4");
  EXPECT_EQ(local_type(a, "b"), "float32x2");
  EXPECT_EQ(local_type(a, "e"), "float32x4");
  EXPECT_EQ(local_type(a, "g"), "int16x2");
}

TEST(VectorTypes, DeviceFunctionsTakeAndReturnVectors) {
  Analyzed a = run(R"(
@cuda.jit(device=True)
def swap(v):
    return cuda.int32x2(v.y, v.x)

def k(out):
    v = swap(cuda.int2(1, 2))
    pair = (v, swap(v))
    out[0] = pair[1].x
)",
                   "int32[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "v"), "int32x2");
  EXPECT_EQ(local_type(a, "pair"), "UniTuple(int32x2, 2)");
}

TEST(VectorTypes, LaneBeyondTheVectorIsAnErrorNamingItsLanes) {
  EXPECT_EQ(only_error(R"(
def k(out):
    v = cuda.float32x2(1, 2)
    out[0] = v.w
)",
                       "float32[:]"),
            "7:16: 'float32x2' has no attribute 'w'; its lanes are 'x' and 'y' ('v' was assigned at line 6)");
  EXPECT_EQ(only_error(R"(
def k(out):
    out[0] = cuda.int8x3(1, 2, 3).r
)",
                       "int8[:]"),
            "6:35: 'int8x3' has no attribute 'r'; its lanes are 'x', 'y' and 'z'");
}

TEST(VectorTypes, WrongNumberOfLanes) {
  EXPECT_EQ(only_error(R"(
def k(out):
    v = cuda.float32x4(1, 2, 3)
)",
                       "float32[:]"),
            "6:9: cuda.float32x4() needs 4 lanes in all (numbers, and the lanes of float32 vectors), got 3");
  EXPECT_EQ(only_error(R"(
def k(out):
    v = cuda.float32x2(cuda.float32x2(1, 2), 3)
)",
                       "float32[:]"),
            "6:9: cuda.float32x2() needs 2 lanes in all (numbers, and the lanes of float32 vectors), got 3");
  EXPECT_EQ(only_error(R"(
def k(out):
    v = cuda.float32x2(1, 2, 3)
)",
                       "float32[:]"),
            "6:9: cuda.float32x2() takes 1 to 2 arguments, got 3");
}

TEST(VectorTypes, ArgumentsMustBeNumbersOrVectorsOfTheBaseType) {
  EXPECT_EQ(only_error(R"(
def k(out):
    v = cuda.float32x4(cuda.int32x2(1, 2), 3, 4)
)",
                       "float32[:]"),
            "6:24: cuda.float32x4() argument 1 must be a number or a vector of float32, got int32x2");
  EXPECT_EQ(
      only_error(R"(
def k(out):
    v = cuda.float2(1, out)
)",
                 "float32[:]"),
      "6:24: cuda.float2() argument 2 must be a number or a vector of float32, got float32[:] ('out' is an "
      "argument)");
  EXPECT_EQ(only_error(R"(
def k(out):
    v = cuda.float2(1, 2j)
)",
                       "float32[:]"),
            "6:24: cuda.float2() argument 2 must be a number or a vector of float32, got complex128");
}

TEST(VectorTypes, LanesAreReadOnlyAndVectorsHaveNoOperators) {
  EXPECT_EQ(
      only_error(R"(
def k(out):
    v = cuda.float32x2(1, 2)
    v.x = 3
)",
                 "float32[:]"),
      "7:7: cannot assign to 'x' of a float32x2 value: its lanes are read-only; make a new vector ('v' was "
      "assigned at line 6)");
  Analyzed a = run(R"(
def k(out):
    v = cuda.float32x2(1, 2)
    w = v + v
)",
                   "float32[:]");
  EXPECT_FALSE(a.program);
  EXPECT_EQ(a.diags.error_count(), 1u) << a.diags.render();
}

TEST(VectorTypes, Dim3IsThreadIdxReadWhole) {
  Analyzed a = run(R"(
def k(out):
    t = cuda.threadIdx
    b = cuda.blockDim
    out[0] = t.x + b.y * t.z
    print(t, cuda.gridDim)
)",
                   "int32[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "t"), "Dim3");
  EXPECT_EQ(only_error(R"(
def k(out):
    t = cuda.blockIdx
    out[0] = t.w
)",
                       "int32[:]"),
            "7:16: 'Dim3' has no attribute 'w'; its lanes are 'x', 'y' and 'z' ('t' was assigned at line 6)");
  EXPECT_EQ(only_error(R"(
def k(out):
    t = cuda.threadIdx
    t.x = 1
)",
                       "int32[:]"),
            "7:7: cannot assign to 'x' of a Dim3 value: its lanes are read-only; make a new value ('t' was "
            "assigned "
            "at line 6)");
  EXPECT_EQ(only_error(R"(
def k(out):
    v = cuda.int32x3(cuda.threadIdx)
)",
                       "int32[:]"),
            "6:22: cuda.int32x3() argument 1 must be a number or a vector of int32, got Dim3");
}

TEST(Divmod, TypedAsFloorDivisionInATuple) {
  Analyzed a = run(R"(
def k(out, i, j, x, y):
    a = divmod(i, j)
    b = divmod(x, y)
    c = divmod(x, i)
    d = divmod(7, -2)
    out[0] = a[0] + b[1] + c[0] + d[1]
)",
                   "float64[:], int32, int32, float32, float32");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "a"), "UniTuple(int64, 2)");
  EXPECT_EQ(local_type(a, "b"), "UniTuple(float32, 2)");
  EXPECT_EQ(local_type(a, "c"), "UniTuple(float64, 2)");
  EXPECT_EQ(local_type(a, "d"), "UniTuple(int64, 2)");
}

TEST(Divmod, Uint64BesideASignedIntegerIsFloat64AsNumbasDivmod) {
  Analyzed a = run(R"(
def k(out, u, i, v):
    a = divmod(u, i)
    b = divmod(u, v)
    c = u // i
    out[0] = a[0] + b[0] + c
)",
                   "float64[:], uint64, int8, uint64");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "a"), "UniTuple(float64, 2)");
  EXPECT_EQ(local_type(a, "b"), "UniTuple(uint64, 2)");
  EXPECT_EQ(local_type(a, "c"), "int64");
}

TEST(PythonBuiltins, TupleSumMinMaxTypes) {
  Analyzed a = run(R"(
def k(out, x, i):
    t = tuple((x, i))
    s = sum((x, x))
    s2 = sum((i, i))
    s3 = sum((i, i), 0.5)
    m = min((i, i, 3))
    m2 = max((x, i))
    e = tuple()
    b = bool(t)
    out[0] = s + s2 + s3 + m + m2 + len(e) + b
)",
                   "float64[:], float32, int32");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "t"), "Tuple(float32, int32)");
  EXPECT_EQ(local_type(a, "s"), "float64");
  EXPECT_EQ(local_type(a, "s2"), "int64");
  EXPECT_EQ(local_type(a, "s3"), "float64");
  EXPECT_EQ(local_type(a, "m"), "int64");
  EXPECT_EQ(local_type(a, "m2"), "float64");
  EXPECT_EQ(local_type(a, "e"), "Tuple()");
  EXPECT_EQ(local_type(a, "b"), "bool");
}

TEST(PythonBuiltins, MisusesPointAtTheArgument) {
  EXPECT_EQ(only_error(R"(
def k(out):
    out[0] = max(out)
)",
                       "float64[:]"),
            "6:18: max() of one argument takes a non-empty tuple of numbers, got float64[:] ('out' is an "
            "argument); "
            "for an array use np.max(a)");
  EXPECT_EQ(only_error(R"(
def k(out):
    out[0] = min(())
)",
                       "float64[:]"),
            "6:18: min() of one argument takes a non-empty tuple of numbers, got Tuple()");
  EXPECT_EQ(only_error(R"(
def k(out):
    out[0] = sum(out.shape, out)
)",
                       "float64[:, :]"),
            "6:29: sum() start must be a number, got float64[:, :] ('out' is an argument)");
}

TEST(Divmod, ComplexAndArityErrors) {
  EXPECT_EQ(
      only_error(R"(
def k(out):
    q, r = divmod(1j, 2)
)",
                 "float64[:]"),
      "6:12: divmod(a, b) computes a // b and a % b: unsupported operand types for //: 'complex128' and "
      "'int64'");
  EXPECT_EQ(only_error(R"(
def k(out):
    q, r = divmod(7)
)",
                       "float64[:]"),
            "6:12: divmod() takes 2 arguments, got 1");
}

}  // namespace
}  // namespace gpujit::test
