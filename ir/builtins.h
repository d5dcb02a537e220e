// The builtins table: every function and value a kernel can name besides its own variables and globals.
//
// One row per builtin, found by (scope, name): `math.sqrt` is (Math, "sqrt"), `cuda.threadIdx.x` is
// (ThreadIdx, "x"), `len` is (Python, "len"), `a.shape` is (Array, "shape"). A row also reachable from NumPy
// names it in `numpy_name` (np.sqrt, np.pi). The same row drives
// - semantic analysis: arity (min_args/max_args) and the typing rule (`typing`),
// - lowering: codegen switches on `id` (or on `lowering` for families such as Libdevice, whose row holds the
//   libdevice names for float32 and float64 operands: "__nv_sqrtf", "__nv_sqrt"),
// - the docs: builtins_markdown() renders the supported-function table from the rows.
// Rows with supported == false name numba-cuda features gpujit does not have yet; analysis reports them as
// "'cuda.shfl_sync' is not supported yet" rather than as unknown names.
//
// The kernel namespace (Kernel scope and its sub-scopes) is reached through any of the modules `gpujit`,
// `numba.cuda` (however imported: `from numba import cuda`, `import gpujit as cuda`). Module names alone are
// not builtins: semantic analysis resolves `math`, `numpy`, `gpujit`, `numba` to modules and looks their
// attributes up here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpujit {

/// Where a builtin's name lives.
enum class BuiltinScope : uint8_t {
  Python,     // len, range, min, max, abs, int, float, bool, round, print
  Math,       // math.*  (and np.* through numpy_name)
  Kernel,     // gpujit.* / numba.cuda.*: grid, gridsize, syncthreads, laneid, warpsize ...
  ThreadIdx,  // cuda.threadIdx.{x,y,z}
  BlockIdx,   // cuda.blockIdx.{x,y,z}
  BlockDim,   // cuda.blockDim.{x,y,z}
  GridDim,    // cuda.gridDim.{x,y,z}
  Shared,     // cuda.shared.array
  Local,      // cuda.local.array
  Const,      // cuda.const.array_like
  Atomic,     // cuda.atomic.*
  Array,      // attributes of an array value: a.shape, a.size, a.ndim, a.strides, a.dtype
  Cmath,      // cmath.* on complex numbers
  Number,     // attributes and methods of a number: z.real, z.imag, z.conjugate(), i.bit_count()
  Random,     // gpujit.random.* / numba.cuda.random.*: the xoroshiro128+ generator
  Cg,         // cuda.cg.this_grid
  GridGroup,  // methods of a grid group: g.sync()
  Fp16,       // numba.cuda.fp16.*: float16 intrinsics (ir/fp16_functions.h)
  Bf16,       // numba.cuda.bf16.*: bfloat16 functions and conversions (ir/bf16_functions.h)
  Fp8,        // numba.cuda's cuda_fp8 functions: cvt_float_to_fp8 ... (ir/fp8_functions.h)
  Operator,   // Python's operator module: operator.add ... (ir/operator_functions.h)
  Libdevice,  // numba.cuda.libdevice.*: every function of libdevice.10.bc (ir/libdevice_functions.h)
  Numpy,      // NumPy's ufuncs that are operators: np.add, np.less, np.logical_and ... (ir/operator_functions.h)
};

enum class BuiltinId : uint16_t {
  // Thread indexing: values (attributes), int32 as in numba-cuda.
  ThreadIdxX,
  ThreadIdxY,
  ThreadIdxZ,
  BlockIdxX,
  BlockIdxY,
  BlockIdxZ,
  BlockDimX,
  BlockDimY,
  BlockDimZ,
  GridDimX,
  GridDimY,
  GridDimZ,
  LaneId,
  WarpSize,
  // Thread indexing: functions.
  Grid,
  GridSize,
  // Synchronization and memory.
  SyncThreads,
  SyncThreadsCount,
  SyncThreadsAnd,
  SyncThreadsOr,
  SyncWarp,
  ThreadFence,
  ThreadFenceBlock,
  ThreadFenceSystem,
  SharedArray,
  LocalArray,
  ConstArrayLike,
  AtomicAdd,
  AtomicSub,
  AtomicMax,
  AtomicMin,
  AtomicExch,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  AtomicInc,
  AtomicDec,
  AtomicCas,
  AtomicNanMax,
  AtomicNanMin,
  AtomicCompareAndSwap,
  // Warp operations (ir/sema_warp.cpp) and integer intrinsics.
  AllSync,
  AnySync,
  EqSync,
  BallotSync,
  ShflSync,
  ShflUpSync,
  ShflDownSync,
  ShflXorSync,
  MatchAnySync,
  MatchAllSync,
  ActiveMask,
  LanemaskLt,
  Popc,
  Brev,
  Clz,
  Ffs,
  Fma,
  Cbrt,
  Selp,
  BitCount,
  Nanosleep,
  AssumeAligned,  // gpujit's own: a promise about an array's data pointer (ir/sema_intrinsics.cpp)
  FromBuffer,     // an array's data as a pointer: cffi's ffi.from_buffer in a kernel (ir/sema_intrinsics.cpp)
  // Loads and stores with a PTX cache operator (ir/sema_memory.cpp, codegen/cache_hint_lowering.cpp).
  LdCa,
  LdCg,
  LdCs,
  LdLu,
  LdCv,
  StCg,
  StCs,
  StWb,
  StWt,
  // Array attributes.
  ArrayShape,
  ArraySize,
  ArrayNdim,
  ArrayStrides,
  ArrayDtype,
  ArrayReal,
  ArrayImag,
  // Python builtins.
  Len,
  LiteralUnroll,
  CArray,
  FArray,
  Range,
  Min,
  Max,
  Abs,
  Int,
  Float,
  Bool,
  Round,
  PyPow,  // the builtin pow(x, y): typed and lowered as x ** y
  Divmod,  // divmod(a, b): (a // b, a % b)
  TupleFn,  // tuple(t): t; tuple(): ()
  IsInstance,  // isinstance(x, classes): a constant from x's type (ir/sema_isinstance.cpp)
  Sum,      // sum(t, start=0) of a tuple, sum(a) of a 1-D array
  Print,
  // A dtype called as a function: float32(x), np.int32(x). Resolved through Symbol::DType, listed for docs.
  Cast,
  // math functions.
  Sqrt,
  Exp,
  Exp2,
  Expm1,
  Log,
  Log1p,
  Log2,
  Log10,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Atan2,
  Sinh,
  Cosh,
  Tanh,
  Asinh,
  Acosh,
  Atanh,
  Erf,
  Erfc,
  Gamma,
  Lgamma,
  Pow,
  Floor,
  Ceil,
  Trunc,
  Fabs,
  Hypot,
  Copysign,
  Fmod,
  Remainder,
  Nextafter,
  Ldexp,
  Frexp,
  Modf,
  IsNan,
  IsInf,
  IsFinite,
  Degrees,
  Radians,
  // Complex numbers (ir/sema_complex.cpp, codegen/complex_lowering.cpp).
  Complex,
  Real,
  Imag,
  Conjugate,
  CmathSqrt,
  CmathExp,
  CmathLog,
  CmathLog10,
  CmathSin,
  CmathCos,
  CmathTan,
  CmathAsin,
  CmathAcos,
  CmathAtan,
  CmathSinh,
  CmathCosh,
  CmathTanh,
  CmathAsinh,
  CmathAcosh,
  CmathAtanh,
  CmathPhase,
  CmathPolar,
  CmathRect,
  CmathIsNan,
  CmathIsInf,
  CmathIsFinite,
  // gpu.random (ir/sema_random.cpp, codegen/random_lowering.cpp) and cooperative groups.
  RandomNext,
  RandomUniformF32,
  RandomUniformF64,
  RandomNormalF32,
  RandomNormalF64,
  CgThisGrid,
  GridGroupSync,
  Fp16Call,       // every fp16.* function: its rows live in ir/fp16_functions.cpp
  Bf16Call,       // every bf16.* function: its rows live in ir/bf16_functions.cpp
  Fp8Call,        // every fp8.* function: its rows live in ir/fp8_functions.cpp
  OperatorCall,   // every operator.* function: its rows live in ir/operator_functions.cpp
  LibdeviceCall,  // every libdevice.* function: its rows live in ir/libdevice_functions.cpp
  VectorCtor,     // every vector type's constructor (cuda.float32x4 ...): rows in ir/vector_types.cpp
  // math constants (folded by analysis: their symbol is a Constant).
  Pi,
  E,
  Tau,
  Inf,
  Nan,
};

/// How a builtin's use is typed; semantic analysis switches on this.
enum class BuiltinTyping : uint8_t {
  Int32Value,     // a value of type int32 (threadIdx.x, laneid, warpsize)
  GridFn,         // grid(ndim) / gridsize(ndim): int64 for 1, a tuple of ndim int64 for 2 and 3
  VoidFn,         // syncthreads(), threadfence(): no value
  SyncPredicate,  // syncthreads_count(pred) and friends: int32
  SyncWarp,       // syncwarp(mask=0xffffffff): no value; the mask converts to uint32
  ArrayAlloc,     // shared.array(shape, dtype) / local.array: a C-layout array of a constant shape
  AtomicRmw,      // atomic.op(ary, idx, val) -> the old element, of the array's dtype
  AtomicCas,      // atomic.cas(ary, idx, old, val) / compare_and_swap(ary, old, val) -> the old element
  ArrayLike,      // const.array_like(a) -> a (a global NumPy array already lives in constant memory)
  Intrinsic,      // popc ... selp, nanosleep, i.bit_count(): typed by id (ir/sema_intrinsics.cpp)
  CacheHint,      // ldcs(ary, idx) -> the element; stcs(ary, idx, val): no value (ir/sema_memory.cpp)
  Print,          // print(...) of numbers and string literals: no value
  ArrayAttr,      // a.shape, a.size ...: see the row's doc
  MathUnary,      // float -> float; integers compute in float64 (numba-cuda's Math_unary)
  MathBinary,     // (float, float) -> float, both converted to math_float_kind of the two
  MathLdexp,      // ldexp(float, int32) -> float
  MathLibdevice,  // frexp/modf: libdevice's function for the float kind (f32/f64 name its rows), whose
                  // pointer outputs come back in a tuple as libdevice.<name>(x) gives them
  MathPredicate,  // isnan/isinf/isfinite: float -> bool
  MathConstant,   // math.pi: a float64 constant (value in `constant`)
  MinMax,         // two or more numbers, or one tuple of numbers -> their common type
  Abs,            // number -> the same type (bool -> int64)
  ToInt,          // int(x) -> int64 (truncates toward zero)
  ToFloat,        // float(x) -> float64
  ToBool,         // bool(x) -> bool (truthiness)
  Round,          // round(x) -> int64 (half to even); round of an integer is itself
  Divmod,         // divmod(a, b) -> a tuple of two values of the type a // b has
  TupleFn,        // tuple(t) -> t; tuple() -> the empty tuple
  IsInstance,     // isinstance(x, int | float | ... | a dtype | a tuple of them) -> a bool constant
  Sum,            // sum(t[, start]) -> start + t[0] + t[1] ... in the type numba's loop unifies to
  Len,            // len(array) -> int64 (extent of axis 0); len(tuple) -> constant
  LiteralUnroll,  // literal_unroll(t) -> t; a loop over it of mixed types unrolls (ir/sema_rewrite.cpp)
  PointerArray,   // carray/farray(ptr, shape, dtype=None) -> an array over a pointer (ir/sema_array_method.cpp)
  Range,          // range(stop) / range(start, stop[, step]): only as a for loop's iterable
  Cast,           // dtype(x) -> dtype
  Warp,           // shfl_*_sync, *_sync votes, match_*_sync, activemask, lanemask_lt (ir/sema_warp.cpp)
  Complex,        // complex(), z.real, z.imag, z.conjugate(), cmath.* (ir/sema_complex.cpp)
  Random,         // gpu.random.xoroshiro128p_* on a states array (ir/sema_random.cpp)
  GridGroup,      // cg.this_grid(), g.sync() (ir/sema_random.cpp)
  Fp16,             // fp16.*: float16 operands; float16 result, bool for comparisons
  Bf16,             // bf16.*: the parameter and result types of the function (ir/bf16_functions.h)
  Fp8,              // fp8.*: the function's value type, then integer mode arguments (ir/fp8_functions.h)
  OperatorBinary,   // operator.add ...: typed as the binary operator in the row's `axis` (a BinOpKind)
  OperatorCompare,  // operator.lt ...: as the comparison in `axis` (a CmpOpKind)
  OperatorUnary,    // operator.neg ...: as the unary operator in `axis` (a UnaryOpKind)
  LogicalBinary,    // np.logical_and ...: both operands as bool, then the bitwise operator in `axis` -> bool
  LibdeviceFn,    // libdevice.*: the function's own signature (ir/libdevice_functions.h)
  VectorCtor,     // cuda.float32x4(...): numbers and vectors of its base -> a vector (ir/sema_vector.cpp)
  Unsupported,    // not supported yet
};

/// How codegen lowers a builtin; for most rows codegen switches on BuiltinId itself.
enum class BuiltinLowering : uint8_t {
  SpecialRegister,  // reads register `reg` at `axis` (thread indices, laneid, warpsize)
  Grid,             // grid / gridsize from the special registers
  Barrier,          // syncthreads family, syncwarp, fences
  ArrayAlloc,       // shared/local arrays; shape in TypedFunction::array_shapes
  Atomic,           // atomicrmw, cmpxchg or a CAS loop; the op is the row's id (codegen/atomic_lowering.cpp)
  Intrinsic,        // popc ... selp, nanosleep, i.bit_count() (codegen/intrinsic_lowering.cpp)
  CacheHint,        // a load or store with its name's cache operator (codegen/cache_hint_lowering.cpp)
  Print,            // a formatted print through the target (codegen/intrinsic_lowering.cpp)
  ArrayAttr,        // reads the array's shape/strides
  Libdevice,        // calls `f32`/`f64` with arguments converted to operand_types[call]
  Inline,           // a few instructions codegen writes itself, by id (abs, min, max, round, degrees, ...)
  Constant,         // folded by analysis; never reaches codegen as a call
  Cast,             // converts the argument to the result type
  Range,            // a for loop over range(...)
  Warp,             // warp shuffles, votes and matches through the target (codegen/warp_lowering.cpp)
  Complex,          // complex arithmetic and cmath from real math (codegen/complex_lowering.cpp)
  Random,           // the xoroshiro128+ step and its conversions (codegen/random_lowering.cpp)
  Fp16,             // fp16.*: by the row's name (codegen/builtin_lowering.cpp)
  Bf16,             // bf16.*: by the function's op (codegen/bf16_lowering.cpp)
  Fp8,              // fp8.*: by the function's op (codegen/fp8_lowering.cpp)
  Operator,         // operator.*: the operator in the row's `axis`, as written in place
  LibdeviceFn,      // libdevice.*: the function called by its own name, outputs through local slots
  GridSync,         // this_grid() and a grid-wide barrier through the target (codegen/warp_lowering.cpp)
  Vector,           // a vector type's constructor: its lanes inserted in order (codegen/vector_lowering.cpp)
  None,             // unsupported: never reaches codegen
};

/// The special registers SpecialRegister rows read (mirrors codegen's Target::SpecialReg).
enum class BuiltinReg : uint8_t { None, ThreadIdx, BlockDim, BlockIdx, GridDim, LaneId, WarpSize };

struct BuiltinInfo {
  BuiltinId id;
  BuiltinScope scope;
  const char* name;        // the name inside its scope: "sqrt", "x", "grid", "array", "add"
  const char* numpy_name;  // the np.* name of the same builtin, or nullptr
  bool callable;           // a function (called) rather than a value (read as an attribute)
  int8_t min_args;         // callable only
  int8_t max_args;         // callable only; -1: any number
  BuiltinTyping typing;
  BuiltinLowering lowering;
  const char* f32;  // Libdevice: the function for float32 (and float16, computed in float32) operands
  const char* f64;  // Libdevice: the function for float64 operands
  bool fp16;        // math functions numba-cuda also types for float16 (sin, cos, sqrt, exp, log ...)
  BuiltinReg reg;   // SpecialRegister: which register
  uint8_t axis;     // SpecialRegister: 0, 1, 2 for x, y, z
  double constant;  // MathConstant: the value
  bool supported;
  const char* doc;  // one line for the docs' table

  /// The name as the docs and messages spell it: "math.sqrt", "cuda.threadIdx.x", "len", "array.shape".
  std::string qualified_name() const;
};

/// The row of a builtin by scope and name, or nullptr.
const BuiltinInfo* find_builtin(BuiltinScope scope, std::string_view name);
/// The row of np.<name> for the math functions and constants NumPy shares with `math`, or nullptr.
const BuiltinInfo* find_numpy_builtin(std::string_view name);
/// The row of an id. Every id has exactly one row.
const BuiltinInfo& builtin_info(BuiltinId id);
/// Every row, in table order.
const std::vector<BuiltinInfo>& all_builtins();
/// The names in a scope (for "did you mean" suggestions).
std::vector<std::string_view> builtin_names(BuiltinScope scope);
/// The prefix a scope's names are written with: "math.", "cuda.", "cuda.threadIdx.", "" for Python.
const char* scope_prefix(BuiltinScope scope);

/// The docs' table of supported builtins, in Markdown, generated from the rows.
std::string builtins_markdown();

}  // namespace gpujit
