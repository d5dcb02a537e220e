// The rows of the builtins table (ir/builtins.h) and the docs renderer.
//
// Invariant checked at first use: every BuiltinId has exactly one row, and (scope, name) is unique. The
// libdevice names are those of CUDA's libdevice.10.bc (float variants end in 'f'; the float64 predicates
// are __nv_isnand, __nv_isinfd, __nv_isfinited).
#include "ir/builtins.h"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "ir/libdevice_functions.h"
#include "ir/bf16_functions.h"
#include "ir/fp8_functions.h"
#include "ir/fp16_functions.h"
#include "ir/operator_functions.h"
#include "ir/vector_types.h"

namespace gpujit {

namespace {

using S = BuiltinScope;
using T = BuiltinTyping;
using L = BuiltinLowering;
using Id = BuiltinId;

BuiltinInfo value(Id id, S scope, const char* name, T typing, L lowering, BuiltinReg reg, uint8_t axis,
                  const char* doc) {
  return {id,      scope,   name,  nullptr, false, 0, 0,    typing, lowering,
          nullptr, nullptr, false, reg,     axis,  0, true, doc};
}

BuiltinInfo fn(Id id, S scope, const char* name, int8_t min_args, int8_t max_args, T typing, L lowering,
               const char* doc, const char* numpy_name = nullptr) {
  return {id,      scope,   name,  numpy_name,       true, min_args, max_args, typing, lowering,
          nullptr, nullptr, false, BuiltinReg::None, 0,    0,        true,     doc};
}

BuiltinInfo math(Id id, const char* name, const char* numpy_name, int8_t nargs, T typing, const char* f32,
                 const char* f64, bool fp16, const char* doc) {
  return {id,  S::Math, name, numpy_name,       true, nargs, nargs, typing, L::Libdevice,
          f32, f64,     fp16, BuiltinReg::None, 0,    0,     true,  doc};
}

BuiltinInfo math_inline(Id id, const char* name, const char* numpy_name, const char* doc) {
  return {id,      S::Math, name,  numpy_name,       true, 1, 1,    T::MathUnary, L::Inline,
          nullptr, nullptr, false, BuiltinReg::None, 0,    0, true, doc};
}

BuiltinInfo constant(Id id, const char* name, double v, const char* doc) {
  return {id,    S::Math,          name, name, false, 0,  0, T::MathConstant, L::Constant, nullptr, nullptr,
          false, BuiltinReg::None, 0,    v,    true,  doc};
}

// cuda.popc, cuda.cbrt ...: typed by id (ir/sema_intrinsics.cpp); cbrt names its libdevice functions.
BuiltinInfo intrinsic(Id id, const char* name, int8_t nargs, const char* doc, const char* f32 = nullptr,
                      const char* f64 = nullptr) {
  return {id,  S::Kernel, name,  nullptr,          true, nargs, nargs, T::Intrinsic, L::Intrinsic,
          f32, f64,       false, BuiltinReg::None, 0,    0,     true,  doc};
}

// cuda.shfl_sync, cuda.ballot_sync ...: typed by id (ir/sema_warp.cpp), lowered through the target.
BuiltinInfo warp(Id id, const char* name, int8_t nargs, const char* doc) {
  return fn(id, S::Kernel, name, nargs, nargs, T::Warp, L::Warp, doc);
}

// cuda.ldcs, cuda.stcg ...: an array element loaded or stored with a PTX cache operator (ir/sema_memory.cpp).
BuiltinInfo cache_hint(Id id, const char* name, int8_t nargs, const char* doc) {
  return fn(id, S::Kernel, name, nargs, nargs, T::CacheHint, L::CacheHint, doc);
}

BuiltinInfo cmath(Id id, const char* name, int8_t max_args, const char* doc) {
  return fn(id, S::Cmath, name, 1, max_args, T::Complex, L::Complex, doc);
}

std::vector<BuiltinInfo> make_rows() {
  const BuiltinReg kTid = BuiltinReg::ThreadIdx, kBid = BuiltinReg::BlockIdx, kBdim = BuiltinReg::BlockDim,
                   kGdim = BuiltinReg::GridDim;
  // One row per line reads as the table it is; clang-format would fold the rows into paragraphs.
  // clang-format off
  std::vector<BuiltinInfo> rows = {
      // Thread indexing.
      value(Id::ThreadIdxX, S::ThreadIdx, "x", T::Int32Value, L::SpecialRegister, kTid, 0, "thread index in the block along x (int32)"),
      value(Id::ThreadIdxY, S::ThreadIdx, "y", T::Int32Value, L::SpecialRegister, kTid, 1, "thread index in the block along y (int32)"),
      value(Id::ThreadIdxZ, S::ThreadIdx, "z", T::Int32Value, L::SpecialRegister, kTid, 2, "thread index in the block along z (int32)"),
      value(Id::BlockIdxX, S::BlockIdx, "x", T::Int32Value, L::SpecialRegister, kBid, 0, "block index in the grid along x (int32)"),
      value(Id::BlockIdxY, S::BlockIdx, "y", T::Int32Value, L::SpecialRegister, kBid, 1, "block index in the grid along y (int32)"),
      value(Id::BlockIdxZ, S::BlockIdx, "z", T::Int32Value, L::SpecialRegister, kBid, 2, "block index in the grid along z (int32)"),
      value(Id::BlockDimX, S::BlockDim, "x", T::Int32Value, L::SpecialRegister, kBdim, 0, "threads per block along x (int32)"),
      value(Id::BlockDimY, S::BlockDim, "y", T::Int32Value, L::SpecialRegister, kBdim, 1, "threads per block along y (int32)"),
      value(Id::BlockDimZ, S::BlockDim, "z", T::Int32Value, L::SpecialRegister, kBdim, 2, "threads per block along z (int32)"),
      value(Id::GridDimX, S::GridDim, "x", T::Int32Value, L::SpecialRegister, kGdim, 0, "blocks in the grid along x (int32)"),
      value(Id::GridDimY, S::GridDim, "y", T::Int32Value, L::SpecialRegister, kGdim, 1, "blocks in the grid along y (int32)"),
      value(Id::GridDimZ, S::GridDim, "z", T::Int32Value, L::SpecialRegister, kGdim, 2, "blocks in the grid along z (int32)"),
      value(Id::LaneId, S::Kernel, "laneid", T::Int32Value, L::SpecialRegister, BuiltinReg::LaneId, 0, "the thread's lane in its warp (int32)"),
      value(Id::WarpSize, S::Kernel, "warpsize", T::Int32Value, L::SpecialRegister, BuiltinReg::WarpSize, 0, "threads per warp, 32 (int32)"),
      fn(Id::Grid, S::Kernel, "grid", 1, 1, T::GridFn, L::Grid,
         "grid(ndim): the thread's absolute index, int64 for ndim 1, a tuple of ndim int64 for 2 and 3"),
      fn(Id::GridSize, S::Kernel, "gridsize", 1, 1, T::GridFn, L::Grid,
         "gridsize(ndim): threads in the whole grid, int64 for ndim 1, a tuple of ndim int64 for 2 and 3"),
      // Synchronization.
      fn(Id::SyncThreads, S::Kernel, "syncthreads", 0, 0, T::VoidFn, L::Barrier, "barrier across the threads of a block"),
      fn(Id::SyncThreadsCount, S::Kernel, "syncthreads_count", 1, 1, T::SyncPredicate, L::Barrier,
         "barrier; returns how many threads of the block passed a true predicate (int32)"),
      fn(Id::SyncThreadsAnd, S::Kernel, "syncthreads_and", 1, 1, T::SyncPredicate, L::Barrier,
         "barrier; returns 1 if the predicate is true in every thread of the block (int32)"),
      fn(Id::SyncThreadsOr, S::Kernel, "syncthreads_or", 1, 1, T::SyncPredicate, L::Barrier,
         "barrier; returns 1 if the predicate is true in any thread of the block (int32)"),
      fn(Id::SyncWarp, S::Kernel, "syncwarp", 0, 1, T::SyncWarp, L::Barrier,
         "syncwarp(mask=0xffffffff): barrier across the lanes of `mask` in a warp"),
      fn(Id::ThreadFence, S::Kernel, "threadfence", 0, 0, T::VoidFn, L::Barrier, "memory fence at device scope"),
      fn(Id::ThreadFenceBlock, S::Kernel, "threadfence_block", 0, 0, T::VoidFn, L::Barrier, "memory fence at block scope"),
      fn(Id::ThreadFenceSystem, S::Kernel, "threadfence_system", 0, 0, T::VoidFn, L::Barrier, "memory fence at system scope"),
      // Arrays in shared and local memory.
      fn(Id::SharedArray, S::Shared, "array", 2, 3, T::ArrayAlloc, L::ArrayAlloc,
         "shared.array(shape, dtype, alignment=None): a C-order array shared by the block; shape is a "
         "constant int or tuple, alignment a constant power of two (bytes)"),
      fn(Id::LocalArray, S::Local, "array", 2, 3, T::ArrayAlloc, L::ArrayAlloc,
         "local.array(shape, dtype, alignment=None): a C-order array private to the thread; shape is a "
         "constant int or tuple, alignment a constant power of two (bytes)"),
      fn(Id::ConstArrayLike, S::Const, "array_like", 1, 1, T::ArrayLike, L::ArrayAlloc,
         "const.array_like(a): `a` itself; a global NumPy array a kernel names is baked into constant memory"),
      // Atomics: atomic.op(ary, idx, val) returns the old value.
      fn(Id::AtomicAdd, S::Atomic, "add", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.add(ary, idx, val): ary[idx] += val atomically; returns the old value (int32/64, uint32/64, float32/64)"),
      fn(Id::AtomicSub, S::Atomic, "sub", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.sub(ary, idx, val): ary[idx] -= val atomically; returns the old value"),
      fn(Id::AtomicMax, S::Atomic, "max", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.max(ary, idx, val): ary[idx] = max(ary[idx], val) atomically (floats: nothing is stored if either is NaN); returns the old value"),
      fn(Id::AtomicMin, S::Atomic, "min", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.min(ary, idx, val): ary[idx] = min(ary[idx], val) atomically (floats: nothing is stored if either is NaN); returns the old value"),
      fn(Id::AtomicExch, S::Atomic, "exch", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.exch(ary, idx, val): stores val atomically; returns the old value"),
      fn(Id::AtomicAnd, S::Atomic, "and_", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.and_(ary, idx, val): ary[idx] &= val atomically (integers); returns the old value"),
      fn(Id::AtomicOr, S::Atomic, "or_", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.or_(ary, idx, val): ary[idx] |= val atomically (integers); returns the old value"),
      fn(Id::AtomicXor, S::Atomic, "xor", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.xor(ary, idx, val): ary[idx] ^= val atomically (integers); returns the old value"),
      fn(Id::AtomicInc, S::Atomic, "inc", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.inc(ary, idx, val): ary[idx] = 0 if ary[idx] >= val else ary[idx] + 1 (uint32/64); returns the old value"),
      fn(Id::AtomicDec, S::Atomic, "dec", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.dec(ary, idx, val): ary[idx] = val if ary[idx] == 0 or ary[idx] > val else ary[idx] - 1 (uint32/64); returns the old value"),
      fn(Id::AtomicCas, S::Atomic, "cas", 4, 4, T::AtomicCas, L::Atomic,
         "atomic.cas(ary, idx, old, val): stores val if ary[idx] == old (integers); returns the old value"),
      fn(Id::AtomicCompareAndSwap, S::Atomic, "compare_and_swap", 3, 3, T::AtomicCas, L::Atomic,
         "atomic.compare_and_swap(ary, old, val): atomic.cas on ary[0] of a 1-D array"),
      fn(Id::AtomicNanMax, S::Atomic, "nanmax", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.nanmax(ary, idx, val): atomic.max where a NaN on either side counts as missing"),
      fn(Id::AtomicNanMin, S::Atomic, "nanmin", 3, 3, T::AtomicRmw, L::Atomic,
         "atomic.nanmin(ary, idx, val): atomic.min where a NaN on either side counts as missing"),
      // Warp-level operations (numba-cuda's signatures; ir/sema_warp.cpp).
      warp(Id::AllSync, "all_sync", 2, "all_sync(mask, pred): whether pred is true in every lane of mask (bool)"),
      warp(Id::AnySync, "any_sync", 2, "any_sync(mask, pred): whether pred is true in any lane of mask (bool)"),
      warp(Id::EqSync, "eq_sync", 2, "eq_sync(mask, pred): whether pred is the same in every lane of mask (bool)"),
      warp(Id::BallotSync, "ballot_sync", 2, "ballot_sync(mask, pred): the lanes of mask whose pred is true (int32)"),
      warp(Id::ShflSync, "shfl_sync", 3, "shfl_sync(mask, value, src_lane): value from lane src_lane % 32 (int32/64, float32/64)"),
      warp(Id::ShflUpSync, "shfl_up_sync", 3, "shfl_up_sync(mask, value, delta): value from lane laneid - delta, or its own below lane 0"),
      warp(Id::ShflDownSync, "shfl_down_sync", 3, "shfl_down_sync(mask, value, delta): value from lane laneid + delta, or its own past lane 31"),
      warp(Id::ShflXorSync, "shfl_xor_sync", 3, "shfl_xor_sync(mask, value, lane_mask): value from lane laneid ^ lane_mask"),
      warp(Id::MatchAnySync, "match_any_sync", 2, "match_any_sync(mask, value): the lanes of mask holding the same value (int32)"),
      warp(Id::MatchAllSync, "match_all_sync", 2, "match_all_sync(mask, value): (mask, True) if every lane of mask holds the same value, else (0, False)"),
      warp(Id::ActiveMask, "activemask", 0, "activemask(): the lanes of the warp executing this call together (uint32)"),
      warp(Id::LanemaskLt, "lanemask_lt", 0, "lanemask_lt(): the lanes below this one, (1 << laneid) - 1 (uint32)"),
      intrinsic(Id::Popc, "popc", 1, "popc(x): the number of set bits of an integer, of x's type"),
      intrinsic(Id::Brev, "brev", 1, "brev(x): the bits of x reversed, as uint32 (or uint64 for 64-bit x)"),
      intrinsic(Id::Clz, "clz", 1, "clz(x): leading zero bits of an integer, of x's type"),
      intrinsic(Id::Ffs, "ffs", 1, "ffs(x): 1-based position of the lowest set bit of x, 0 for 0 (uint32)"),
      intrinsic(Id::Fma, "fma", 3, "fma(a, b, c): a * b + c with one rounding (float32 or float64)"),
      intrinsic(Id::Cbrt, "cbrt", 1, "cbrt(x): cube root (float32 or float64)", "__nv_cbrtf", "__nv_cbrt"),
      intrinsic(Id::Selp, "selp", 3, "selp(p, a, b): a if p else b, both evaluated"),
      intrinsic(Id::AssumeAligned, "assume_aligned", 2,
                "assume_aligned(ary, n): promises that ary's data starts at a multiple of n bytes (a constant power of two), so that neighbouring elements load as one vector; a gpujit extension, undefined if broken"),
      intrinsic(Id::FromBuffer, "from_buffer", 1,
                "from_buffer(ary): the address of ary's first element, as a pointer to its dtype (numba's CPointer): what cffi's ffi.from_buffer(ary) gives in a kernel, for external functions (declare_device)"),
      intrinsic(Id::Nanosleep, "nanosleep", 1,
                "nanosleep(ns): suspends the thread for about ns nanoseconds (an integer, as uint32; at most 1 ms); nothing on the CPU backend"),
      // Loads and stores with a PTX cache operator; the operator is the name's last two letters.
      cache_hint(Id::LdCa, "ldca", 2, "ldca(ary, idx): ary[idx] loaded with ld.global.ca (cache at all levels)"),
      cache_hint(Id::LdCg, "ldcg", 2, "ldcg(ary, idx): ary[idx] loaded with ld.global.cg (cache in L2, not L1)"),
      cache_hint(Id::LdCs, "ldcs", 2, "ldcs(ary, idx): ary[idx] loaded with ld.global.cs (streaming, likely read once)"),
      cache_hint(Id::LdLu, "ldlu", 2, "ldlu(ary, idx): ary[idx] loaded with ld.global.lu (last use)"),
      cache_hint(Id::LdCv, "ldcv", 2, "ldcv(ary, idx): ary[idx] loaded with ld.global.cv (volatile: fetched again)"),
      cache_hint(Id::StCg, "stcg", 3, "stcg(ary, idx, val): ary[idx] = val with st.global.cg (cache in L2, not L1)"),
      cache_hint(Id::StCs, "stcs", 3, "stcs(ary, idx, val): ary[idx] = val with st.global.cs (streaming, likely written once)"),
      cache_hint(Id::StWb, "stwb", 3, "stwb(ary, idx, val): ary[idx] = val with st.global.wb (write back)"),
      cache_hint(Id::StWt, "stwt", 3, "stwt(ary, idx, val): ary[idx] = val with st.global.wt (write through to memory)"),
      // Array attributes.
      value(Id::ArrayShape, S::Array, "shape", T::ArrayAttr, L::ArrayAttr, BuiltinReg::None, 0,
            "the extents, a tuple of ndim int64"),
      value(Id::ArraySize, S::Array, "size", T::ArrayAttr, L::ArrayAttr, BuiltinReg::None, 0,
            "the number of elements (int64)"),
      value(Id::ArrayNdim, S::Array, "ndim", T::ArrayAttr, L::Constant, BuiltinReg::None, 0,
            "the number of dimensions (int64 constant)"),
      value(Id::ArrayStrides, S::Array, "strides", T::ArrayAttr, L::ArrayAttr, BuiltinReg::None, 0,
            "the strides in bytes, a tuple of ndim int64"),
      value(Id::ArrayDtype, S::Array, "dtype", T::ArrayAttr, L::None, BuiltinReg::None, 0,
            "the element type, usable as a dtype (local.array(3, a.dtype), a.dtype(0))"),
      value(Id::ArrayReal, S::Array, "real", T::ArrayAttr, L::ArrayAttr, BuiltinReg::None, 0,
            "a complex array's real parts: a view of its memory (float32 for complex64, float64 for complex128) "
            "that can be read, written and used with atomics; of a real array, the array itself"),
      value(Id::ArrayImag, S::Array, "imag", T::ArrayAttr, L::ArrayAttr, BuiltinReg::None, 0,
            "a complex array's imaginary parts: a view of its memory, as `real`; complex arrays only"),
      // Python builtins.
      fn(Id::Len, S::Python, "len", 1, 1, T::Len, L::Inline, "len(a): extent of an array's first axis; len(tuple); len(s) of a string: NumPy's length"),
      fn(Id::LiteralUnroll, S::Kernel, "literal_unroll", 1, 1, T::LiteralUnroll, L::Inline,
         "for x in literal_unroll(t): a loop over a tuple, as numba's numba.literal_unroll; over elements of "
         "mixed types (arrays of different ranks or dtypes, numbers) the loop is unrolled, its body compiled "
         "once per element"),
      fn(Id::CArray, S::Kernel, "carray", 2, 3, T::PointerArray, L::Inline,
         "carray(ptr, shape, dtype=None): a C-order array over the memory a pointer parameter (float32*) points "
         "to, as numba.carray; shape an integer or a tuple of integers; dtype, if given, the pointer's"),
      fn(Id::FArray, S::Kernel, "farray", 2, 3, T::PointerArray, L::Inline,
         "farray(ptr, shape, dtype=None): as carray, in Fortran order (the first axis varies fastest)"),
      fn(Id::Range, S::Python, "range", 1, 3, T::Range, L::Range,
         "range(stop), range(start, stop[, step]): integers, only as a for loop's iterable; the loop variable is int64"),
      fn(Id::Min, S::Python, "min", 1, -1, T::MinMax, L::Inline, "min(a, b, ...): the smallest of two or more numbers; of two floats, C's fmin (a NaN loses), as numba-cuda; min(t) of a tuple of numbers: its first smallest element (CPython's order: a NaN is kept only as the first)"),
      fn(Id::Max, S::Python, "max", 1, -1, T::MinMax, L::Inline, "max(a, b, ...): the largest of two or more numbers; of two floats, C's fmax (a NaN loses), as numba-cuda; max(t) of a tuple of numbers: its first largest element"),
      fn(Id::Abs, S::Python, "abs", 1, 1, T::Abs, L::Inline, "abs(x): absolute value, of x's type", "abs"),
      fn(Id::Int, S::Python, "int", 1, 1, T::ToInt, L::Cast, "int(x): int64, truncating toward zero"),
      fn(Id::Float, S::Python, "float", 1, 1, T::ToFloat, L::Cast, "float(x): float64; of a float, that float's type (numba's typing)"),
      fn(Id::Bool, S::Python, "bool", 1, 1, T::ToBool, L::Cast, "bool(x): the truth value of x"),
      fn(Id::Round, S::Python, "round", 1, 2, T::Round, L::Inline,
         "round(x): nearest integer as int64, halves to even; round(x, ndigits): x (a float) rounded to ndigits "
         "decimals, halves to even, of x's type"),
      {Id::PyPow, S::Python, "pow", nullptr, true, 2, 2, T::OperatorBinary, L::Operator, nullptr, nullptr, false,
       BuiltinReg::None, static_cast<uint8_t>(BinOpKind::Pow), 0, true,
       "pow(x, y): x ** y, typed as the operator (three-argument pow is not supported)"},
      fn(Id::Divmod, S::Python, "divmod", 2, 2, T::Divmod, L::Inline,
         "divmod(a, b): the tuple (a // b, a % b), both of the type a // b has (floor division, the remainder "
         "taking the divisor's sign), except float64 for a uint64 beside a signed integer, as numba's divmod"),
      fn(Id::TupleFn, S::Python, "tuple", 0, 1, T::TupleFn, L::Inline, "tuple(t): the tuple t itself; tuple(): the empty tuple"),
      fn(Id::IsInstance, S::Python, "isinstance", 2, 2, T::IsInstance, L::Inline, "isinstance(x, classes): a constant from x's type, as numba decides it: int is int64, float float64, complex complex128, bool bool, tuple any tuple, a dtype itself; a tuple of classes matches any"),
      fn(Id::Sum, S::Python, "sum", 1, 2, T::Sum, L::Inline,
         "sum(t, start=0): start + t[0] + t[1] ... of a tuple of numbers, added left to right in the type numba's "
         "loop gives (int64 + float32 is float64); sum(a): of a 1-D array's elements, the same way"),
      fn(Id::Print, S::Python, "print", 0, -1, T::Print, L::Print,
         "print(a, b, ...): numbers and string literals, space-separated, one line per call (vprintf on GPUs)"),
      fn(Id::Cast, S::Python, "<dtype>", 1, 1, T::Cast, L::Cast,
         "float32(x), np.int32(x), numba.float64(x), gpu.uint8(x): converts a number to that dtype"),
      // math: unary, float -> float; integers compute in float64.
      math(Id::Sqrt, "sqrt", "sqrt", 1, T::MathUnary, "__nv_sqrtf", "__nv_sqrt", true, "square root"),
      math(Id::Exp, "exp", "exp", 1, T::MathUnary, "__nv_expf", "__nv_exp", true, "e ** x"),
      math(Id::Exp2, "exp2", "exp2", 1, T::MathUnary, "__nv_exp2f", "__nv_exp2", true, "2 ** x"),
      math(Id::Expm1, "expm1", "expm1", 1, T::MathUnary, "__nv_expm1f", "__nv_expm1", false, "e ** x - 1"),
      math(Id::Log, "log", "log", 1, T::MathUnary, "__nv_logf", "__nv_log", true, "natural logarithm (one argument)"),
      math(Id::Log1p, "log1p", "log1p", 1, T::MathUnary, "__nv_log1pf", "__nv_log1p", false, "log(1 + x)"),
      math(Id::Log2, "log2", "log2", 1, T::MathUnary, "__nv_log2f", "__nv_log2", true, "base-2 logarithm"),
      math(Id::Log10, "log10", "log10", 1, T::MathUnary, "__nv_log10f", "__nv_log10", true, "base-10 logarithm"),
      math(Id::Sin, "sin", "sin", 1, T::MathUnary, "__nv_sinf", "__nv_sin", true, "sine"),
      math(Id::Cos, "cos", "cos", 1, T::MathUnary, "__nv_cosf", "__nv_cos", true, "cosine"),
      math(Id::Tan, "tan", "tan", 1, T::MathUnary, "__nv_tanf", "__nv_tan", false, "tangent"),
      math(Id::Asin, "asin", "arcsin", 1, T::MathUnary, "__nv_asinf", "__nv_asin", false, "arc sine"),
      math(Id::Acos, "acos", "arccos", 1, T::MathUnary, "__nv_acosf", "__nv_acos", false, "arc cosine"),
      math(Id::Atan, "atan", "arctan", 1, T::MathUnary, "__nv_atanf", "__nv_atan", false, "arc tangent"),
      math(Id::Atan2, "atan2", "arctan2", 2, T::MathBinary, "__nv_atan2f", "__nv_atan2", false, "atan2(y, x)"),
      math(Id::Sinh, "sinh", "sinh", 1, T::MathUnary, "__nv_sinhf", "__nv_sinh", false, "hyperbolic sine"),
      math(Id::Cosh, "cosh", "cosh", 1, T::MathUnary, "__nv_coshf", "__nv_cosh", false, "hyperbolic cosine"),
      math(Id::Tanh, "tanh", "tanh", 1, T::MathUnary, "__nv_tanhf", "__nv_tanh", false, "hyperbolic tangent"),
      math(Id::Asinh, "asinh", "arcsinh", 1, T::MathUnary, "__nv_asinhf", "__nv_asinh", false, "inverse hyperbolic sine"),
      math(Id::Acosh, "acosh", "arccosh", 1, T::MathUnary, "__nv_acoshf", "__nv_acosh", false, "inverse hyperbolic cosine"),
      math(Id::Atanh, "atanh", "arctanh", 1, T::MathUnary, "__nv_atanhf", "__nv_atanh", false, "inverse hyperbolic tangent"),
      math(Id::Erf, "erf", nullptr, 1, T::MathUnary, "__nv_erff", "__nv_erf", false, "error function"),
      math(Id::Erfc, "erfc", nullptr, 1, T::MathUnary, "__nv_erfcf", "__nv_erfc", false, "complementary error function"),
      math(Id::Gamma, "gamma", nullptr, 1, T::MathUnary, "__nv_tgammaf", "__nv_tgamma", false, "gamma function"),
      math(Id::Lgamma, "lgamma", nullptr, 1, T::MathUnary, "__nv_lgammaf", "__nv_lgamma", false, "log of the absolute gamma function"),
      math(Id::Pow, "pow", "power", 2, T::MathBinary, "__nv_powf", "__nv_pow", false, "pow(x, y): x ** y in floating point"),
      math(Id::Floor, "floor", "floor", 1, T::MathUnary, "__nv_floorf", "__nv_floor", true,
           "largest integral value <= x, as a float (numba-cuda; CPU numba gives int64)"),
      math(Id::Ceil, "ceil", "ceil", 1, T::MathUnary, "__nv_ceilf", "__nv_ceil", true,
           "smallest integral value >= x, as a float (numba-cuda)"),
      math(Id::Trunc, "trunc", "trunc", 1, T::MathUnary, "__nv_truncf", "__nv_trunc", true,
           "x rounded toward zero, as a float (numba-cuda)"),
      math(Id::Fabs, "fabs", "fabs", 1, T::MathUnary, "__nv_fabsf", "__nv_fabs", true, "absolute value as a float"),
      math(Id::Hypot, "hypot", "hypot", 2, T::MathBinary, "__nv_hypotf", "__nv_hypot", false, "sqrt(x*x + y*y)"),
      math(Id::Copysign, "copysign", "copysign", 2, T::MathBinary, "__nv_copysignf", "__nv_copysign", false,
           "copysign(x, y): |x| with the sign of y"),
      math(Id::Fmod, "fmod", "fmod", 2, T::MathBinary, "__nv_fmodf", "__nv_fmod", false,
           "fmod(x, y): remainder with the sign of x (C's fmod)"),
      math(Id::Remainder, "remainder", nullptr, 2, T::MathBinary, "__nv_remainderf", "__nv_remainder", false,
           "remainder(x, y): IEEE remainder"),
      math(Id::Nextafter, "nextafter", "nextafter", 2, T::MathBinary, "__nv_nextafterf", "__nv_nextafter", false,
           "nextafter(x, y): the next float after x in the direction of y"),
      math(Id::Ldexp, "ldexp", "ldexp", 2, T::MathLdexp, "__nv_ldexpf", "__nv_ldexp", false,
           "ldexp(x, i): x * 2 ** i, i an integer (converted to int32)"),
      math(Id::Frexp, "frexp", "frexp", 1, T::MathLibdevice, "__nv_frexpf", "__nv_frexp", false,
           "frexp(x): (m, e) with x == m * 2 ** e and 0.5 <= |m| < 1; m of x's float type, e an int32"),
      math(Id::Modf, "modf", "modf", 1, T::MathLibdevice, "__nv_modff", "__nv_modf", false,
           "modf(x): (fractional part, integral part) of x, both of x's float type and sign"),
      math(Id::IsNan, "isnan", "isnan", 1, T::MathPredicate, "__nv_isnanf", "__nv_isnand", false,
           "whether x is NaN (bool)"),
      math(Id::IsInf, "isinf", "isinf", 1, T::MathPredicate, "__nv_isinff", "__nv_isinfd", false,
           "whether x is infinite (bool)"),
      math(Id::IsFinite, "isfinite", "isfinite", 1, T::MathPredicate, "__nv_finitef", "__nv_isfinited", false,
           "whether x is neither infinite nor NaN (bool)"),
      math_inline(Id::Degrees, "degrees", "degrees", "radians to degrees"),
      math_inline(Id::Radians, "radians", "radians", "degrees to radians"),
      // Complex numbers: complex64 and complex128 as NumPy lays them out (ir/sema_complex.cpp).
      fn(Id::Complex, S::Python, "complex", 1, 2, T::Complex, L::Complex, "complex(re, im=0): a complex128 (a complex64 from complex64 or float32 parts)"),
      value(Id::Real, S::Number, "real", T::Complex, L::Complex, BuiltinReg::None, 0, "z.real: the real part (a real number: itself)"),
      value(Id::Imag, S::Number, "imag", T::Complex, L::Complex, BuiltinReg::None, 0, "z.imag: the imaginary part (a real number: 0)"),
      fn(Id::Conjugate, S::Number, "conjugate", 0, 0, T::Complex, L::Complex, "z.conjugate(): the complex conjugate"),
      fn(Id::BitCount, S::Number, "bit_count", 0, 0, T::Intrinsic, L::Intrinsic,
         "i.bit_count(): the number of set bits of an integer, of i's type (cuda.popc(i))"),
      cmath(Id::CmathSqrt, "sqrt", 1, "square root, the branch cut along the negative real axis"),
      cmath(Id::CmathExp, "exp", 1, "e ** z"),
      cmath(Id::CmathLog, "log", 2, "log(z[, base]): natural logarithm, or to `base`"),
      cmath(Id::CmathLog10, "log10", 1, "base-10 logarithm"),
      cmath(Id::CmathSin, "sin", 1, "sine"),
      cmath(Id::CmathCos, "cos", 1, "cosine"),
      cmath(Id::CmathTan, "tan", 1, "tangent"),
      cmath(Id::CmathAsin, "asin", 1, "arc sine"),
      cmath(Id::CmathAcos, "acos", 1, "arc cosine"),
      cmath(Id::CmathAtan, "atan", 1, "arc tangent"),
      cmath(Id::CmathSinh, "sinh", 1, "hyperbolic sine"),
      cmath(Id::CmathCosh, "cosh", 1, "hyperbolic cosine"),
      cmath(Id::CmathTanh, "tanh", 1, "hyperbolic tangent"),
      cmath(Id::CmathAsinh, "asinh", 1, "inverse hyperbolic sine"),
      cmath(Id::CmathAcosh, "acosh", 1, "inverse hyperbolic cosine"),
      cmath(Id::CmathAtanh, "atanh", 1, "inverse hyperbolic tangent"),
      cmath(Id::CmathPhase, "phase", 1, "the argument of z, atan2(z.imag, z.real) (a float)"),
      cmath(Id::CmathPolar, "polar", 1, "(abs(z), phase(z)), a tuple of two floats"),
      fn(Id::CmathRect, S::Cmath, "rect", 2, 2, T::Complex, L::Complex, "rect(r, phi): r * (cos(phi) + sin(phi) * 1j)"),
      cmath(Id::CmathIsNan, "isnan", 1, "whether either part is NaN (bool)"),
      cmath(Id::CmathIsInf, "isinf", 1, "whether either part is infinite (bool)"),
      cmath(Id::CmathIsFinite, "isfinite", 1, "whether both parts are finite (bool)"),
      // gpu.random: numba.cuda.random's xoroshiro128+ generators; states come from
      // gpu.random.create_xoroshiro128p_states(n, seed) (ir/sema_random.cpp).
      fn(Id::RandomNext, S::Random, "xoroshiro128p_next", 2, 2, T::Random, L::Random, "xoroshiro128p_next(states, i): the next uint64 of generator i, advancing it"),
      fn(Id::RandomUniformF32, S::Random, "xoroshiro128p_uniform_float32", 2, 2, T::Random, L::Random, "xoroshiro128p_uniform_float32(states, i): a float32 in [0, 1) from generator i"),
      fn(Id::RandomUniformF64, S::Random, "xoroshiro128p_uniform_float64", 2, 2, T::Random, L::Random, "xoroshiro128p_uniform_float64(states, i): a float64 in [0, 1) from generator i"),
      fn(Id::RandomNormalF32, S::Random, "xoroshiro128p_normal_float32", 2, 2, T::Random, L::Random, "xoroshiro128p_normal_float32(states, i): a standard normal float32 (Box-Muller, two draws)"),
      fn(Id::RandomNormalF64, S::Random, "xoroshiro128p_normal_float64", 2, 2, T::Random, L::Random, "xoroshiro128p_normal_float64(states, i): a standard normal float64 (Box-Muller, two draws)"),
      // Cooperative groups: a grid-wide barrier; the kernel is launched cooperatively.
      fn(Id::CgThisGrid, S::Cg, "this_grid", 0, 0, T::GridGroup, L::GridSync, "cg.this_grid(): the group of every thread of the grid"),
      fn(Id::GridGroupSync, S::GridGroup, "sync", 0, 0, T::GridGroup, L::GridSync, "g.sync(): a barrier across the whole grid; returns 0 (int32)"),
      // math constants.
      constant(Id::Pi, "pi", std::numbers::pi, "3.141592653589793 (float64 constant)"),
      constant(Id::E, "e", std::numbers::e, "2.718281828459045 (float64 constant)"),
      constant(Id::Tau, "tau", 2 * std::numbers::pi, "6.283185307179586 (float64 constant)"),
      constant(Id::Inf, "inf", HUGE_VAL, "positive infinity (float64 constant)"),
      constant(Id::Nan, "nan", std::nan(""), "not a number (float64 constant)"),
  };
  // clang-format on
  return rows;
}

struct Table {
  std::vector<BuiltinInfo> rows = make_rows();
  std::vector<const BuiltinInfo*> by_id;

  Table() {
    size_t count = static_cast<size_t>(BuiltinId::Nan) + 1;
    by_id.assign(count, nullptr);
    for (const BuiltinInfo& r : rows) {
      size_t i = static_cast<size_t>(r.id);
      if (by_id[i]) throw InternalError(fmt::format("builtin id of '{}' has two rows", r.qualified_name()));
      by_id[i] = &r;
      for (const BuiltinInfo& other : rows) {
        if (&other != &r && other.scope == r.scope && std::string_view(other.name) == r.name) {
          throw InternalError(fmt::format("builtin '{}' has two rows", r.qualified_name()));
        }
      }
    }
    for (size_t i = 0; i < count; ++i) {
      if (i == static_cast<size_t>(BuiltinId::LibdeviceCall) || i == static_cast<size_t>(BuiltinId::OperatorCall) ||
          i == static_cast<size_t>(BuiltinId::Fp16Call) || i == static_cast<size_t>(BuiltinId::Bf16Call) ||
          i == static_cast<size_t>(BuiltinId::Fp8Call) ||
          i == static_cast<size_t>(BuiltinId::VectorCtor))
        continue;  // rows of their own
      if (!by_id[i]) throw InternalError(fmt::format("builtin id {} has no row", i));
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const char* scope_prefix(BuiltinScope scope) {
  switch (scope) {
    case S::Python:
      return "";
    case S::Numpy:
      return "np.";
    case S::Math:
      return "math.";
    case S::Kernel:
      return "cuda.";
    case S::ThreadIdx:
      return "cuda.threadIdx.";
    case S::BlockIdx:
      return "cuda.blockIdx.";
    case S::BlockDim:
      return "cuda.blockDim.";
    case S::GridDim:
      return "cuda.gridDim.";
    case S::Shared:
      return "cuda.shared.";
    case S::Local:
      return "cuda.local.";
    case S::Const:
      return "cuda.const.";
    case S::Atomic:
      return "cuda.atomic.";
    case S::Array:
      return "array.";
    case S::Cmath:
      return "cmath.";
    case S::Number:
      return "number.";
    case S::Random:
      return "cuda.random.";
    case S::Cg:
      return "cuda.cg.";
    case S::GridGroup:
      return "grid_group.";
    case S::Libdevice:
      return "libdevice.";
    case S::Operator:
      return "operator.";
    case S::Fp16:
      return "cuda.fp16.";
    case S::Bf16:
      return "cuda.bf16.";
    case S::Fp8:
      return "cuda.fp8.";
  }
  return "";
}

std::string BuiltinInfo::qualified_name() const { return std::string(scope_prefix(scope)) + name; }

const BuiltinInfo* find_builtin(BuiltinScope scope, std::string_view name) {
  if (scope == S::Libdevice) return find_libdevice_builtin(name);
  if (scope == S::Operator) return find_operator_builtin(name);
  if (scope == S::Fp16) return find_fp16_builtin(name);
  if (scope == S::Bf16) return find_bf16_builtin(name);
  if (scope == S::Fp8) return find_fp8_builtin(name);
  for (const BuiltinInfo& r : table().rows) {
    if (r.scope == scope && name == r.name) return &r;
  }
  if (scope == S::Kernel) return find_vector_builtin(name);
  return nullptr;
}

const BuiltinInfo* find_numpy_builtin(std::string_view name) {
  for (const BuiltinInfo& r : table().rows) {
    if (r.numpy_name && name == r.numpy_name) return &r;
  }
  if (name == "absolute") return &builtin_info(BuiltinId::Abs);
  if (name == "deg2rad") return &builtin_info(BuiltinId::Radians);
  if (name == "rad2deg") return &builtin_info(BuiltinId::Degrees);
  // min and max of two floats are C's fmin/fmax (a NaN loses), which is what np.fmin/np.fmax are.
  if (name == "minimum" || name == "fmin") return &builtin_info(BuiltinId::Min);
  if (name == "maximum" || name == "fmax") return &builtin_info(BuiltinId::Max);
  return find_numpy_operator(name);
}

const BuiltinInfo& builtin_info(BuiltinId id) { return *table().by_id.at(static_cast<size_t>(id)); }

const std::vector<BuiltinInfo>& all_builtins() { return table().rows; }

std::vector<std::string_view> builtin_names(BuiltinScope scope) {
  if (scope == S::Libdevice) return libdevice_names();
  if (scope == S::Operator) return operator_names();
  if (scope == S::Fp16) return fp16_names();
  if (scope == S::Bf16) return bf16_names();
  if (scope == S::Fp8) return fp8_names();
  std::vector<std::string_view> names;
  for (const BuiltinInfo& r : table().rows) {
    if (r.scope == scope && r.id != BuiltinId::Cast) names.push_back(r.name);
  }
  if (scope == S::Kernel) {
    for (std::string_view n : vector_type_names()) names.push_back(n);
  }
  return names;
}

std::string builtins_markdown() {
  struct Section {
    const char* title;
    std::vector<BuiltinScope> scopes;
    const char* note = nullptr;  // a paragraph after the table
  };
  const Section sections[] = {
      {"Thread indexing and synchronization (`gpu.*`, `cuda.*`, `numba.cuda.*`)",
       {S::ThreadIdx, S::BlockIdx, S::BlockDim, S::GridDim, S::Kernel, S::Shared, S::Local, S::Const,
        S::Atomic, S::Cg, S::GridGroup}},
      {"Random numbers (`gpu.random.*`, `numba.cuda.random.*`)", {S::Random}},
      {"Arrays", {S::Array}},
      {"Numbers", {S::Number}},
      {"Python builtins", {S::Python}},
      {"math (also `np.*` where listed)", {S::Math}},
      {"cmath (complex64 and complex128)", {S::Cmath},
       "Where a part of the argument is infinite or NaN, every cmath function returns what CPython's cmath "
       "returns (its special values, C99 Annex G), as numba does: codegen/cmath_special_values.inc holds those "
       "tables, generated from CPython by scripts/gen_cmath_special_values.py. Where CPython raises a domain "
       "error, a kernel (which cannot raise) gets C99's value."},
  };
  std::string md = "# Supported builtins\n\nGenerated from the builtins table (`ir/builtins.cpp`).\n";
  for (const Section& sec : sections) {
    md += fmt::format("\n## {}\n\n| name | also | description |\n| --- | --- | --- |\n", sec.title);
    for (BuiltinScope scope : sec.scopes) {
      for (const BuiltinInfo& r : table().rows) {
        if (r.scope != scope || !r.supported) continue;
        std::string name =
            r.id == BuiltinId::Cast ? "`float32(x)` ..." : fmt::format("`{}`", r.qualified_name());
        std::string also;
        if (r.scope == S::Math && r.f32) also = fmt::format("`{}`/`{}`", r.f32, r.f64);
        if (r.numpy_name) also = fmt::format("`np.{}`{}{}", r.numpy_name, also.empty() ? "" : ", ", also);
        md += fmt::format("| {} | {} | {} |\n", name, also, r.doc);
      }
    }
    if (sec.note) md += fmt::format("\n{}\n", sec.note);
  }
  md += vector_types_markdown();
  md += "\n## libdevice (`numba.cuda.libdevice.*`, `gpujit.libdevice.*`)\n\n"
        "Every function of CUDA's libdevice.10.bc, by its name without `__nv_` (`libdevice.sinf(x)`, "
        "`libdevice.popc(i)`), with its C prototype's types (ir/libdevice_table.inc). Results written through "
        "pointers come back as a tuple: `s, c = libdevice.sincos(x)`, `frac, exp = libdevice.frexp(x)`. On the "
        "CPU backend the functions libm also has run; the others are a compile error there.\n";
  md += "\n## float16 intrinsics (`cuda.fp16.*`, `gpujit.fp16.*`)\n\nfloat16 operands (other numbers convert); "
        "the math functions compute in float32 and round once to float16, as CUDA's cuda_fp16.h.\n\n"
        "| name | description |\n| --- | --- |\n";
  for (std::string_view n : fp16_names()) {
    const BuiltinInfo* r = find_fp16_builtin(n);
    md += fmt::format("| `cuda.fp16.{}` | {} |\n", n, r->doc);
  }
  md += "\n## bfloat16 (`numba.cuda.bf16.*`, `gpujit.bf16.*`)\n\n`bfloat16(x)` converts a number (to nearest "
        "even); `float32(b)`, `int32(b)` ... convert back. + - * / and comparisons take two bfloat16 operands; "
        "math.trunc, ceil, floor, sqrt, log, log10, cos, sin, tanh, exp and exp2 of a bfloat16 give a bfloat16. "
        "Arguments convert to the parameter types; the math functions compute in float32 and round once, as "
        "CUDA's cuda_bf16.h. Names in parentheses are CUDA's spellings of the same function.\n\n"
        "| name | description |\n| --- | --- |\n";
  {
    std::vector<std::string_view> names = bf16_names();
    for (size_t i = 0; i < names.size(); ++i) {
      const BuiltinInfo* r = find_bf16_builtin(names[i]);
      bool alias = i + 1 < names.size() && find_bf16_builtin(names[i + 1])->axis == r->axis;
      md += alias ? fmt::format("| `cuda.bf16.{}` (`{}`) | {} |\n", names[i], names[i + 1], r->doc)
                  : fmt::format("| `cuda.bf16.{}` | {} |\n", names[i], r->doc);
      if (alias) ++i;
    }
  }
  md += "\n## fp8 (`numba.cuda._internal.cuda_fp8`, `gpujit.fp8`)\n\nThe types `fp8_e4m3`, `fp8_e5m2` and `fp8_e8m0` "
        "(CUDA's cuda_fp8.h): `fp8_e4m3(x)` converts a real number or a bfloat16 (to nearest even, saturating to the "
        "largest finite value; `fp8_e8m0(x)` rounds up to a power of two), `float32(f)`, `float16(f)`, `bfloat16(f)`, "
        "`int32(f)` ... convert back (exactly; to integers toward zero, saturating, NaN to 0); fp8 values have no "
        "operators. The functions work on the storage bytes; `saturation` is `saturation_t.NOSAT` (0) or "
        "`SATFINITE` (1), `interpretation` `fp8_interpretation_t.E4M3` (0) or `E5M2` (1), `rounding` "
        "`cudaRoundMode.cudaRoundZero` (1) or `cudaRoundPosInf` (2). Results are cuda_fp8.hpp's bit for bit on "
        "every target.\n\n| name | description |\n| --- | --- |\n";
  for (std::string_view n : fp8_names()) md += fmt::format("| `fp8.{}` | {} |\n", n, find_fp8_builtin(n)->doc);
  md += "\n## operator (Python's `operator` module)\n\nA function of the operator module held in a variable "
        "and called (`op = operator.add; op(a, b)`) is the operator it names, typed as if written in place: ";
  for (std::string_view n : operator_names()) md += fmt::format("`operator.{}` ", n);
  md += "\n\nNumPy's ufuncs that are one of these operators on numbers are the same (`np.logical_and`, `_or`, "
        "`_xor` combine the truth of each operand): ";
  for (std::string_view n : numpy_operator_names()) md += fmt::format("`np.{}` ", n);
  md += "\n";
  std::string later;
  for (const BuiltinInfo& r : table().rows) {
    if (r.supported) continue;
    if (!later.empty()) later += ", ";
    later += fmt::format("`{}`", r.qualified_name());
  }
  // The section is there only while the table has rows for numba-cuda features gpujit lacks.
  if (!later.empty()) md += "\n## Not supported yet\n\n" + later + "\n";
  return md;
}

}  // namespace gpujit
