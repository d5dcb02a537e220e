// Type inference and the side tables semantic analysis fills for codegen (ir/sema.h).
#include "ir/builtins.h"
#include "ir_test_util.h"

namespace gpujit::test {
namespace {

const char* kHeader = "import math\nimport numpy as np\nimport gpujit as gpu\nfrom numba import cuda\n";

Analyzed run(const std::string& body, const std::string& sig, const std::string& kernel = "k") {
  return analyze_source(std::string(kHeader) + body, kernel, sig);
}

// The expression of kind `kind` starting at line:col that analysis recorded a type or symbol for.
const Expr* expr_at(const TypedFunction& fn, uint32_t line, uint32_t col, ExprKind kind) {
  for (const auto& [e, t] : fn.expr_types) {
    if (e->range.begin.line == line && e->range.begin.col == col && e->kind == kind) return e;
  }
  return nullptr;
}

TEST(Inference, LoopCarriedVariableWidensToFloat64) {
  Analyzed a = run(R"(
def k(out, n):
    acc = 0
    for i in range(n):
        acc = acc + 0.5
    out[0] = acc
)",
                   "float64[:], int64");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "acc"), "float64");
  EXPECT_EQ(local_type(a, "i"), "int64");
}

TEST(Inference, IntThenFloatUnifiesToFloat64) {
  Analyzed a = run(R"(
def k(out):
    x = 1
    x = 2.5
    out[0] = x
)",
                   "float64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "x"), "float64");
}

TEST(Inference, VariableUsedBeforeItsAssignmentInLoopOrder) {
  // `y` is read on line 8 before the assignment on line 9 in text order, but after it at run time.
  Analyzed a = run(R"(
def k(out, n):
    x = np.float32(1)
    i = 0
    while i < n:
        if i > 0:
            out[i] = y
        y = x * 2
        i += 1
)",
                   "float32[:], int32");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "y"), "float64");  // float32 * 2 is float64, as numba types the int64 literal
  EXPECT_EQ(local_type(a, "i"), "int64");
}

TEST(Inference, AugAssignOfFloat32AccumulatorStaysFloat32) {
  Analyzed a = run(R"(
def k(a, out):
    acc = np.float32(0)
    wide = np.float32(0)
    for i in range(a.shape[0]):
        acc += a[i] * np.float32(2.0)
        wide += a[i] * 2.0
    out[0] = acc + wide
)",
                   "float32[::1], float32[::1]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "acc"), "float32");
  EXPECT_EQ(local_type(a, "wide"), "float64");  // a float64 literal makes the sum float64, as in numba
}

TEST(Inference, ConditionalExpressionUnifiesItsBranchesAsNumba) {
  Analyzed a = run(R"(
def k(x, n):
    i = cuda.grid(1)
    v = x[i] if i < n else 0.0
    w = x[i] if i < n else i
    x[0] = v + w
)",
                   "float32[:], int64");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "v"), "float64");  // float32 | the float64 constant 0.0
  EXPECT_EQ(local_type(a, "w"), "float64");
}

TEST(Inference, ScalarParameterWidensAsALocal) {
  Analyzed a = run(R"(
def k(out, x):
    x = x * 0.5
    out[0] = x
)",
                   "float64[:], int64");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "x"), "float64");
  EXPECT_EQ(a.kernel().signature.params[1].str(), "int64");  // the argument itself keeps its type
}

TEST(Inference, ThreadIndicesAreInt32AndGridInt64) {
  Analyzed a = run(R"(
def k(out):
    t = cuda.threadIdx.x
    b = gpu.blockIdx.y
    g = cuda.grid(1)
    gx, gy, gz = gpu.gridsize(3)
    lane = cuda.laneid
    w = gpu.warpsize
    s = cuda.blockDim.z * cuda.gridDim.x
    out[g] = t + b + gx + lane + w + s
)",
                   "int64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "t"), "int32");
  EXPECT_EQ(local_type(a, "b"), "int32");
  EXPECT_EQ(local_type(a, "g"), "int64");
  EXPECT_EQ(local_type(a, "gz"), "int64");
  EXPECT_EQ(local_type(a, "lane"), "int32");
  EXPECT_EQ(local_type(a, "w"), "int32");
  EXPECT_EQ(local_type(a, "s"), "int64");  // int32 * int32 -> int64 (numba)
}

TEST(Inference, ArrayAttributesAndLen) {
  Analyzed a = run(R"(
def k(m, out):
    shape = m.shape
    n = m.size
    d = m.ndim
    st = m.strides
    l = len(m)
    rows, cols = m.shape
    out[0] = n + d + l + rows + st[1] + shape[-1]
)",
                   "float32[:, ::1], int64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "shape"), "UniTuple(int64, 2)");
  EXPECT_EQ(local_type(a, "n"), "int64");
  EXPECT_EQ(local_type(a, "d"), "int64");
  EXPECT_EQ(local_type(a, "st"), "UniTuple(int64, 2)");
  EXPECT_EQ(local_type(a, "l"), "int64");
  EXPECT_EQ(local_type(a, "cols"), "int64");
}

TEST(Inference, MathFunctionsFollowNumbaCuda) {
  Analyzed a = run(R"(
def k(f, d, out):
    i = 3
    a = math.sqrt(f[0])
    b = math.sqrt(d[0])
    c = math.sqrt(i)
    e = math.floor(f[0])
    g = math.atan2(f[0], 1.0)
    h = math.isnan(f[0])
    j = math.pow(f[0], 2)
    k2 = np.exp(f[0])
    p = math.pi * f[0]
    q = abs(i)
    r = min(f[0], 0.0)
    s = max(i, 2, 3)
    t = round(d[0])
    u = math.ldexp(f[0], i)
    v = math.hypot(i, i)
    out[0] = a + b + c + e + g + h + j + k2 + p + q + r + s + t + u + v
)",
                   "float32[:], float64[:], float64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "a"), "float32");
  EXPECT_EQ(local_type(a, "b"), "float64");
  EXPECT_EQ(local_type(a, "c"), "float64");  // math on ints computes in float64
  EXPECT_EQ(local_type(a, "e"), "float32");  // numba-cuda's floor returns a float
  EXPECT_EQ(local_type(a, "g"), "float64");  // atan2(float32, 1.0): the float64 constant counts (numba-cuda)
  EXPECT_EQ(local_type(a, "h"), "bool");
  EXPECT_EQ(local_type(a, "j"), "float64");  // pow(float32, 2): an int64 beside float32 needs float64
  EXPECT_EQ(local_type(a, "k2"), "float32");
  EXPECT_EQ(local_type(a, "p"), "float64");  // math.pi is a float64 constant
  EXPECT_EQ(local_type(a, "q"), "int64");
  EXPECT_EQ(local_type(a, "r"), "float64");  // min(float32, 0.0), as numba-cuda
  EXPECT_EQ(local_type(a, "s"), "int64");
  EXPECT_EQ(local_type(a, "t"), "int64");
  EXPECT_EQ(local_type(a, "u"), "float32");
  EXPECT_EQ(local_type(a, "v"), "float64");
}

TEST(SideTables, SymbolsOperandTypesAndConstants) {
  Analyzed a = run(R"(
TPB = 16
def k(a, x):
    i = cuda.grid(1)
    a[i] = math.sqrt(x) + TPB * 2
)",
                   "float32[:], int32");
  ASSERT_TRUE(a.program) << a.diags.render();
  const TypedFunction& fn = a.kernel();
  // line 9 is `a[i] = math.sqrt(x) + TPB * 2` (4 header lines, then a blank line).
  const Expr* sqrt_call = expr_at(fn, 9, 12, ExprKind::Call);
  ASSERT_NE(sqrt_call, nullptr);
  EXPECT_EQ(fn.type_of(sqrt_call).str(), "float64");
  EXPECT_EQ(fn.operand_types.at(sqrt_call), std::vector<Type>{Type::scalar_of(ScalarKind::Float64)});
  const Symbol* callee = fn.symbol_of(sqrt_call->as<CallExpr>()->func.get());
  ASSERT_NE(callee, nullptr);
  EXPECT_EQ(callee->kind, Symbol::Kind::Builtin);
  EXPECT_EQ(callee->builtin->id, BuiltinId::Sqrt);
  EXPECT_STREQ(callee->builtin->f64, "__nv_sqrt");
  const Expr* tpb2 = expr_at(fn, 9, 27, ExprKind::BinOp);
  ASSERT_NE(tpb2, nullptr);
  ASSERT_NE(fn.constant_of(tpb2), nullptr);
  EXPECT_EQ(fn.constant_of(tpb2)->str(), "32");
  const Symbol* tpb = fn.symbol_of(tpb2->as<BinOpExpr>()->lhs.get());
  ASSERT_NE(tpb, nullptr);
  EXPECT_EQ(tpb->kind, Symbol::Kind::Constant);
  const Expr* store = expr_at(fn, 9, 5, ExprKind::Subscript);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(fn.operand_types.at(store), std::vector<Type>{Type::scalar_of(ScalarKind::Int64)});
  EXPECT_EQ(fn.symbol_of(store->as<SubscriptExpr>()->value.get())->kind, Symbol::Kind::Local);
  // Every value expression has a type: walking the dump exercises type_of on all of them.
  EXPECT_NO_THROW(dump_typed(fn));
}

TEST(SharedArrays, ConstantShapesAreRecorded) {
  Analyzed a = run(R"(
N = 8
def k(out):
    s = cuda.shared.array((N, N * 2), np.float32)
    l = gpu.local.array(N, dtype=np.int32)
    t = cuda.local.array(shape=4, dtype=out.dtype)
    s[0, 1] = 1
    cuda.syncthreads()
    old = cuda.atomic.add(out, 0, 1)
    out[1] = s[0, 1] + l[0] + t[3] + old
)",
                   "float64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "s"), "float32[:, ::1]");
  EXPECT_EQ(local_type(a, "l"), "int32[::1]");
  EXPECT_EQ(local_type(a, "t"), "float64[::1]");
  EXPECT_EQ(local_type(a, "old"), "float64");
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& [e, shape] : a.kernel().array_shapes) shapes.push_back(shape);
  std::sort(shapes.begin(), shapes.end());
  EXPECT_EQ(shapes, (std::vector<std::vector<int64_t>>{{4}, {8}, {8, 16}}));
}

TEST(DeviceFunctions, SpecializedPerArgumentTypesCalleesFirst) {
  Analyzed a = run(R"(
def clamp(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x

def pair(x):
    return x, x * 2

def k(a, b):
    i = cuda.grid(1)
    a[i] = clamp(a[i], 0.0, 1.0)
    b[i] = clamp(b[i], 0, 10)
    p, q = pair(b[i])
    b[i] = p + q
)",
                   "float32[:], int32[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  const auto& fns = a.program->functions;
  ASSERT_EQ(fns.size(), 4u);
  EXPECT_EQ(fns[0]->signature.str(), "float64(float32, float64, float64)");
  EXPECT_EQ(fns[1]->signature.str(), "int64(int32, int64, int64)");
  EXPECT_EQ(fns[2]->signature.str(), "Tuple(int32, int64)(int32)");
  EXPECT_EQ(fns[3]->name, "k");
  EXPECT_TRUE(fns[3]->is_kernel);
  EXPECT_FALSE(fns[0]->is_kernel);
  EXPECT_NE(fns[0]->mangled_name, fns[1]->mangled_name);
  EXPECT_EQ(a.kernel().callees.size(), 3u);
  for (const auto& f : fns) {
    EXPECT_EQ(
        f->mangled_name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$"),
        std::string::npos);
  }
}

TEST(DeviceFunctions, NestedCallsAndVoidFunctions) {
  Analyzed a = run(R"(
def inner(x):
    return x + 1

def store(a, i, v):
    a[i] = inner(v)

def k(a):
    store(a, 0, 1)
    store(a, 1, 2)
)",
                   "int64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  ASSERT_EQ(a.program->functions.size(), 3u);
  EXPECT_EQ(a.program->functions[0]->name, "inner");
  EXPECT_EQ(a.program->functions[1]->signature.str(), "void(int64[:], int64, int64)");
}

TEST(Globals, FromModuleImportsAndConstants) {
  Analyzed a = analyze_source(R"(
from math import sqrt, pi as PI
from gpujit import float32 as f32, grid
import numba.cuda as nc
import numba
SCALE = f32(2.5)
DT = numba.float64
SHAPE = (4, 4)
HALF = 1 / 2

def k(out):
    i = grid(1)
    s = nc.local.array(SHAPE, DT)
    out[i] = sqrt(PI) * SCALE + HALF + s[0, 0]
)",
                              "k", "float64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(a.globals.at("SCALE").constant.str(), "2.5");
  EXPECT_EQ(a.globals.at("SCALE").constant.scalar, ScalarKind::Float32);
  EXPECT_EQ(a.globals.at("DT").kind, GlobalValue::Kind::DType);
  EXPECT_EQ(a.globals.at("HALF").constant.str(), "0.5");
  EXPECT_EQ(a.globals.at("nc").module_name, "numba.cuda");
  EXPECT_EQ(a.globals.at("sqrt").kind, GlobalValue::Kind::ModuleMember);
  EXPECT_EQ(local_type(a, "s"), "float64[:, ::1]");
}

TEST(Globals, DottedImportsBindTheTopPackage) {
  Analyzed a = analyze_source(R"(
import numba.cuda
import gpujit
from gpujit import cuda as gcuda

def k(out):
    i = numba.cuda.grid(1)
    out[i] = gpujit.threadIdx.x + gcuda.blockDim.x + numba.float32(1)
)",
                              "k", "float64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(a.globals.at("numba").module_name, "numba");
  EXPECT_EQ(a.globals.at("gcuda").module_name, "gpujit");
  EXPECT_EQ(local_type(a, "i"), "int64");
}

TEST(Globals, UnsupportedGlobalsAreErrorsOnlyWhenUsed) {
  Analyzed ok = analyze_source(R"(
import numpy as np
TABLE = np.linspace(0, 1, 10)
def k(out):
    out[0] = 1
)",
                               "k", "float64[:]");
  EXPECT_TRUE(ok.program) << ok.diags.render();
  Analyzed bad = analyze_source(R"(
import numpy as np
TABLE = np.linspace(0, 1, 10)
def k(out):
    out[0] = TABLE
)",
                                "k", "float64[:]");
  EXPECT_EQ(bad.first_error(),
            "5:14: global 'TABLE' cannot be used in a kernel: its value is a call to 'np.linspace', which "
            "the gpujit CLI does not evaluate (it reads np.array, np.asarray, np.arange, np.zeros, np.ones and "
            "np.full with constant arguments); compile the kernel from Python to capture this array");
}

TEST(Globals, LaterBindingsWin) {
  Analyzed a = analyze_source(R"(
N = 4
N = N * 3
def k(out):
    out[0] = N
)",
                              "k", "int64[:]");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(a.globals.at("N").constant.str(), "12");
}

TEST(Loops, RangeWithStartStopStepAndElse) {
  Analyzed a = run(R"(
def k(a, lo, hi):
    total = 0.0
    for i in range(lo, hi, 2):
        total += a[i]
    else:
        total += 1
    for j in range(np.int32(4)):
        total += j
    a[0] = total
)",
                   "float32[:], int32, uint8");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "i"), "int64");
  EXPECT_EQ(local_type(a, "j"), "int64");
  EXPECT_EQ(local_type(a, "total"), "float64");
}

TEST(Builtins, CastsByDtypeName) {
  Analyzed a = analyze_source(R"(
import numpy as np
import numba
import gpujit as gpu
from numba import float32, uint8

def k(out, x):
    a = float32(x)
    b = np.int16(x)
    c = numba.uint64(x)
    d = gpu.float64(x)
    e = uint8(300)
    f = int(x)
    g = float(x)
    h = bool(x)
    out[0] = a + b + c + d + e + f + g + h
)",
                              "k", "float64[:], int32");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "a"), "float32");
  EXPECT_EQ(local_type(a, "b"), "int16");
  EXPECT_EQ(local_type(a, "c"), "uint64");
  EXPECT_EQ(local_type(a, "d"), "float64");
  EXPECT_EQ(local_type(a, "e"), "uint8");
  EXPECT_EQ(local_type(a, "f"), "int64");
  EXPECT_EQ(local_type(a, "g"), "float64");
  EXPECT_EQ(local_type(a, "h"), "bool");
}


TEST(Inference, ConstantConditionPrunesTheDeadBranchBeforeTyping) {
  // numba prunes a branch whose test is a constant before typing: the dead block may be ill-typed, and its
  // assignments do not widen the variable's type.
  Analyzed a = run(R"(
def k(out, x):
    y = 1
    if 2 > 3:
        y = (1, 2)
        out[0] = x.no_such_attribute
    else:
        out[0] = y
    if 1:
        z = 5
    else:
        z = 2.5
    out[1] = z
)",
                   "int64[:], int64");
  ASSERT_TRUE(a.program) << a.diags.render();
  EXPECT_EQ(local_type(a, "y"), "int64");
  EXPECT_EQ(local_type(a, "z"), "int64");
}

TEST(Inference, VariableAssignedOnlyInADeadBranchIsUnassigned) {
  Analyzed a = run(R"(
def k(out):
    if False:
        z = 1
    out[0] = z
)",
                   "int64[:]");
  EXPECT_FALSE(a.program);
  EXPECT_NE(a.diags.render().find("'z' is used before it is assigned a value"), std::string::npos);
}

}  // namespace
}  // namespace gpujit::test
