// User errors of semantic analysis: the exact message and the exact line:col of each, and one message per
// mistake (errors do not cascade).
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

// Lines 1-3 are the imports, line 4 is blank; kernels in these tests start on line 5.
const char* kHeader = "import math\nimport numpy as np\nfrom numba import cuda\n";

Analyzed run(const std::string& body, const std::string& sig, const std::string& kernel = "k") {
  return analyze_source(std::string(kHeader) + body, kernel, sig);
}

// The one error analysis reported, as "line:col: message" (fails the test if there were several).
std::string only_error(const std::string& body, const std::string& sig) {
  Analyzed a = run(body, sig);
  EXPECT_FALSE(a.program);
  EXPECT_EQ(a.diags.error_count(), 1u) << a.diags.render();
  return a.first_error();
}

TEST(SemaErrors, UnknownName) {
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = foo
)",
                       "float32[:]"),
            "6:12: name 'foo' is not defined");
  EXPECT_EQ(only_error(R"(
def k(a):
    value = 1
    a[0] = valeu
)",
                       "float32[:]"),
            "7:12: name 'valeu' is not defined; did you mean 'value'?");
}

TEST(SemaErrors, UnknownModuleAttribute) {
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = math.sqr(2.0)
)",
                       "float32[:]"),
            "6:17: module 'math' has no attribute 'sqr'; did you mean 'sqrt'?");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = cuda.threadIdx.w
)",
                       "int32[:]"),
            "6:27: 'cuda.threadIdx' has no attribute 'w'");
  EXPECT_EQ(only_error(R"(
def k(a):
    cuda.syncthread()
)",
                       "int32[:]"),
            "6:10: module 'numba.cuda' has no attribute 'syncthread'; did you mean 'syncthreads'?");
}

TEST(SemaErrors, AssumeAlignedTakesAnArrayAndAConstantPowerOfTwo) {
  EXPECT_EQ(only_error(R"(
def k(a, n):
    cuda.assume_aligned(a, n)
)",
                       "float32[:], int64"),
            "6:28: assume_aligned() alignment must be a compile-time constant; 'n' is an argument");
  EXPECT_EQ(only_error(R"(
def k(a):
    cuda.assume_aligned(a, 12)
)",
                       "float32[:]"),
            "6:28: assume_aligned() alignment must be a power of two (a constant integer such as 16), got 12");
  EXPECT_EQ(only_error(R"(
def k(a):
    cuda.assume_aligned(a, None)
)",
                       "float32[:]"),
            "6:28: assume_aligned() alignment must be a power of two (a constant integer such as 16), got None");
  EXPECT_EQ(only_error(R"(
def k(a):
    cuda.assume_aligned(a[0], 16)
)",
                       "float32[:]"),
            "6:25: cuda.assume_aligned() argument 1 must be an array, got float32");
}

TEST(SemaErrors, WrongArityNamesTheCallee) {
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = math.sqrt(1.0, 2.0)
)",
                       "float32[:]"),
            "6:12: math.sqrt() takes 1 argument, got 2");
  EXPECT_EQ(only_error(R"(
def k(a):
    for i in range():
        a[i] = 0
)",
                       "float32[:]"),
            "6:14: range() takes 1 to 3 arguments, got 0");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = min()
)",
                       "float32[:]"),
            "6:12: min() takes at least 1 argument, got 0");
  EXPECT_EQ(only_error(R"(
def dev(x, y):
    return x + y

def k(a):
    a[0] = dev(1.0)
)",
                       "float32[:]"),
            "9:12: dev() takes 2 arguments, got 1");
  // rect needs both parts (a fuzzer's input once read a second argument that was not there).
  EXPECT_EQ(only_error(R"(
import cmath

def k(a):
    a[0] = cmath.rect(1.0)
)",
                       "complex128[:]"),
            "8:12: cmath.rect() takes 2 arguments, got 1");
}

TEST(SemaErrors, WrongArgumentTypeSaysWhereItCameFrom) {
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = math.sqrt(a)
)",
                       "float32[:]"),
            "6:22: math.sqrt() argument 1 must be a number, got float32[:] ('a' is an argument)");
  EXPECT_EQ(only_error(R"(
def k(a, n):
    b = a
    for i in range(b):
        a[i] = n
)",
                       "float32[:], int64"),
            "7:20: range() argument 1 must be an integer, got float32[:] ('b' was assigned at line 6)");
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = a + 1
)",
                       "float32[:]"),
            "6:14: unsupported operand types for +: 'float32[:]' and 'int64' ('a' is an argument)");
}

TEST(SemaErrors, ForLoopsOverRangeOnly) {
  EXPECT_EQ(only_error(R"(
def k(a, s):
    for x in s:
        a[0] = x
)",
                       "float32[:], float32"),
            "6:14: a for loop iterates over range(), an array, a tuple, enumerate() or zip(); got float32 ('s' "
            "is an argument)");
  EXPECT_EQ(only_error(R"(
def k(a):
    for i, x in enumerate(a, 0.5):
        a[0] = x
)",
                       "float32[:]"),
            "6:30: enumerate() start must be an integer, got float64");
  EXPECT_EQ(only_error(R"(
def k(a):
    for i in range(4):
        i = 0.5
)",
                       "float32[:]"),
            "6:9: the loop variable 'i' of range() must stay an integer, but other assignments in the "
            "function make it float64");
}

TEST(SemaErrors, BadIndexCount) {
  EXPECT_EQ(
      only_error(R"(
def k(m):
    m[0] = m
)",
                 "float32[:, :]"),
      "6:12: cannot assign an array of type float32[:, :] to a slice of type float32[:]; the source must be "
      "a scalar or an array with as many dimensions (1)");
  EXPECT_EQ(only_error(R"(
def k(v):
    x = v[1, 2]
)",
                       "float32[:]"),
            "6:11: too many indices: array 'v' has 1 dimension but 2 indices were given");
  EXPECT_EQ(only_error(R"(
def k(v):
    v[0.5] = 1
)",
                       "float32[:]"),
            "6:7: array index must be an integer, got float64");
  EXPECT_EQ(only_error(R"(
def k(v):
    v[1:3] += 1
)",
                       "float32[:]"),
            "6:5: '+=' on an array slice is not supported; use a loop over its elements");
}

TEST(SemaErrors, UnifyFailureNamesBothLines) {
  EXPECT_EQ(
      only_error(R"(
def k(a):
    x = a
    if a[0] > 0:
        x = 1
)",
                 "float32[:]"),
      "8:9: cannot unify the types of variable 'x': float32[:] (assigned at line 6) and int64 (assigned at "
      "line 8)");
}

TEST(SemaErrors, NonConstantSharedShape) {
  EXPECT_EQ(only_error(R"(
def k(a, n):
    s = cuda.shared.array(n, np.float32)
)",
                       "float32[:], int64"),
            "6:27: shared.array shape must be a compile-time constant; 'n' is an argument");
  EXPECT_EQ(only_error(R"(
def k(a):
    m = 4
    s = cuda.local.array((m, 2), np.float32)
)",
                       "float32[:]"),
            "7:26: local.array shape must be a compile-time constant; 'm' is a local variable");
  EXPECT_EQ(only_error(R"(
def k(a):
    s = cuda.shared.array(a.shape[0], np.float32)
)",
                       "float32[:]"),
            "6:27: shared.array shape must be a compile-time constant; 'a' is an argument");
  EXPECT_EQ(only_error(R"(
def k(a):
    s = cuda.shared.array(16, 3)
)",
                       "float32[:]"),
            "6:31: shared.array dtype must be a dtype such as np.float32, got int64");
}

TEST(SemaErrors, ReturnValueFromKernel) {
  EXPECT_EQ(
      only_error(R"(
def k(a):
    return a[0]
)",
                 "float32[:]"),
      "6:5: a kernel cannot return a value (it must have void return type); write results into an array "
      "argument instead");
}

TEST(SemaErrors, BreakAndContinueOutsideLoop) {
  EXPECT_EQ(only_error(R"(
def k(a):
    if a[0] > 0:
        break
)",
                       "float32[:]"),
            "7:9: 'break' outside loop");
  EXPECT_EQ(only_error(R"(
def k(a):
    continue
)",
                       "float32[:]"),
            "6:5: 'continue' not properly in loop");
}

TEST(SemaErrors, AssignToArrayArgument) {
  EXPECT_EQ(only_error(R"(
def k(a, b):
    a = b
)",
                       "float32[:], float32[:]"),
            "6:5: cannot assign to array argument 'a'; store into its elements instead ('a[i] = ...')");
}

TEST(SemaErrors, UnsupportedFeaturesSaySo) {
  EXPECT_EQ(only_error(R"(
def k(a):
    print(a)
)",
                       "float32[:]"),
            "6:11: print() in a kernel takes numbers and strings, got float32[:] ('a' is an argument)");
  EXPECT_EQ(only_error(R"(
def k(a):
    r = range(4)
)",
                       "float32[:]"),
            "6:9: range() can only be used as the iterable of a for loop");
  EXPECT_EQ(only_error(R"(
def k(a):
    b = np.zeros(4)
)",
                       "float32[:]"),
            "6:9: 'numpy.zeros' cannot be used in a kernel (it allocates); use cuda.local.array or "
            "cuda.shared.array, or pass the array in as an argument");
}

TEST(SemaErrors, Recursion) {
  // Self-recursion types from the base case; mutual recursion and a recursion with no base case are errors.
  Analyzed ok = run(R"(
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)

def k(a):
    a[0] = fact(5)
)",
                    "int64[:]");
  EXPECT_TRUE(ok.program) << ok.first_error();
  Analyzed mutual = run(R"(
def ping(n):
    return 0 if n == 0 else pong(n - 1)

def pong(n):
    return ping(n)

def k(a):
    a[0] = ping(5)
)",
                        "int64[:]");
  EXPECT_FALSE(mutual.program);
  EXPECT_EQ(mutual.first_error(),
            "9:12: mutual recursion is not supported: ping -> pong -> ping; only a function that calls itself "
            "may recurse");
  EXPECT_EQ(only_error(R"(
def forever(n):
    return forever(n + 1)

def k(a):
    a[0] = forever(1)
)",
                       "int64[:]"),
            "6:12: cannot type infer runaway recursion: every value recursive function 'forever' returns "
            "depends on this call; add a base case that returns without calling 'forever', or declare the "
            "signature, e.g. @cuda.jit(\"int64(int64)\", device=True)");
  // A None base case and a value built around the call: the type nests deeper with each call.
  EXPECT_EQ(run(R"(
def make_list(n):
    if n <= 0:
        return None
    return (n, make_list(n - 1))

def k(a):
    make_list(a[0])
)",
                "int64[:]")
                .first_error(),
            "8:12: Return type of recursive function does not converge: 'make_list' returns Tuple(int64, "
            "Tuple(int64, none)) here when its own call returns Tuple(int64, none), so each call nests the "
            "type deeper; return one type on every path");
}

TEST(SemaErrors, DeviceFunctionMustReturnOnEveryPath) {
  EXPECT_EQ(only_error(R"(
def sign(x):
    if x > 0:
        return 1

def k(a):
    a[0] = sign(a[0])
)",
                       "float32[:]"),
            "5:5: 'sign' returns a value at line 7 but can reach its end without returning one; add a "
            "return statement at the end");
}

TEST(SemaErrors, VoidCallUsedAsValue) {
  EXPECT_EQ(only_error(R"(
def k(a):
    x = cuda.syncthreads()
)",
                       "float32[:]"),
            "6:9: 'cuda.syncthreads()' does not return a value");
}

TEST(SemaErrors, LocalUsedBeforeAssignment) {
  EXPECT_EQ(only_error(R"(
def k(a):
    a[0] = y
    y = y + 1
)",
                       "float32[:]"),
            "6:12: local variable 'y' is used before it is assigned a value");
}

TEST(SemaErrors, KernelArgumentCount) {
  EXPECT_EQ(only_error(R"(
def k(a, b):
    pass
)",
                       "float32[:]"),
            "5:5: kernel 'k' takes 2 arguments but was given 1 (float32[:])");
}

TEST(SemaErrors, GridNeedsAConstant) {
  EXPECT_EQ(only_error(R"(
def k(a, n):
    i = cuda.grid(n)
)",
                       "float32[:], int64"),
            "6:19: cuda.grid() needs a literal number of dimensions, the constant 1, 2 or 3 "
            "(RequireLiteralValue in numba-cuda); 'n' is an argument");
  EXPECT_EQ(only_error(R"(
def k(a):
    i = cuda.gridsize(4)
)",
                       "float32[:]"),
            "6:23: cuda.gridsize() takes the number of dimensions as the constant 1, 2 or 3, got 4");
  EXPECT_EQ(only_error(R"(
def k(a):
    i = cuda.grid(1.0)
)",
                       "float32[:]"),
            "6:19: cuda.grid() takes the number of dimensions as the constant 1, 2 or 3, got 1.0");
}

TEST(SemaErrors, TupleElementsAreReadOnly) {
  EXPECT_EQ(only_error(R"(
def k(a):
    t = (1, 2)
    t[0] = 3
)",
                       "float32[:]"),
            "7:5: tuples are immutable; cannot assign to a tuple element");
  EXPECT_EQ(only_error(R"(
def k(a):
    t = (1, 2)
    a[0] = t[2]
)",
                       "float32[:]"),
            "7:14: tuple index 2 is out of range for a tuple of 2 elements");
}

TEST(SemaErrors, UnpackArity) {
  EXPECT_EQ(only_error(R"(
def k(a):
    x, y = cuda.grid(3)
)",
                       "float32[:]"),
            "6:12: cannot unpack a tuple of 3 values into 2 targets");
}

TEST(SemaErrors, StoreAnArrayIntoAnElement) {
  EXPECT_EQ(only_error(R"(
def k(a, b):
    a[0] = b
)",
                       "float32[:], float32[:]"),
            "6:12: cannot store a value of type float32[:] into an element of type float32");
}

TEST(SemaErrors, ConditionMustHaveATruthValue) {
  EXPECT_EQ(only_error(R"(
def k(a):
    if a:
        a[0] = 1
)",
                       "float32[:]"),
            "6:8: the condition of 'if' must be a number or a bool, got float32[:] ('a' is an argument)");
}

TEST(SemaErrors, ErrorsInsideADeviceFunctionPointIntoIt) {
  Analyzed a = run(R"(
def dev(x):
    return x.foo

def k(a):
    a[0] = dev(a[0])
)",
                   "float32[:]");
  EXPECT_FALSE(a.program);
  EXPECT_EQ(a.first_error(), "6:14: 'float32' has no attribute 'foo' ('x' is an argument)");
}

TEST(SemaErrors, SyntaxErrorsOfTheFunctionAreReported) {
  Analyzed a = run(R"(
def k(a):
    a[0] = [1, 2]
)",
                   "float32[:]");
  EXPECT_FALSE(a.program);
  EXPECT_TRUE(a.diags.has_errors());
  EXPECT_EQ(a.first_error().substr(0, 4), "6:12");
}

TEST(SemaErrors, SeveralIndependentErrorsInOneFunction) {
  Analyzed a = run(R"(
def k(a):
    a[0] = foo
    break
    a[1] = math.nope
)",
                   "float32[:]");
  EXPECT_EQ(a.diags.error_count(), 3u) << a.diags.render();
}

}  // namespace
}  // namespace gpujit::test
