# The CLI evaluates module-level NumPy arrays built from literals itself (it runs no Python): np.array of
# (nested) lists and tuples, np.arange, np.zeros, np.ones, np.full with constant arguments, and .astype() /
# .reshape() on them, with NumPy's dtypes and values. A kernel reading one, directly or through
# const.array_like, gets a `.const` array holding exactly the bytes NumPy would. Anything else (np.linspace,
# a non-constant argument) is an error where a kernel uses it, saying to compile from Python. Writing into a
# constant array is an error in any path.
# RUN: %gpujit ptx %s -k smooth --sig 'void(float32[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k smooth --sig 'void(float32[::1])' --emit llvm -O0 | FileCheck %s --check-prefix=LLVM
# RUN: %gpujit ptx %s -k smooth --sig 'void(float32[::1])' --emit typed | FileCheck %s --check-prefix=TYPED
# RUN: not %gpujit ptx %s -k uses_linspace --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERRFN
# RUN: not %gpujit ptx %s -k uses_ragged --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERRRAGGED
# RUN: not %gpujit ptx %s -k uses_list --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERRLIST
# RUN: not %gpujit ptx %s -k writes --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERRWRITE
import numpy as np
from numpy import arange, float16

import gpujit as cuda

WEIGHTS = np.array([0.25, 0.5, 0.25], dtype=np.float32)
GRID = np.array([[1, 2, 3],
                 [4, 5, 6]], dtype="int16")
STEPS = arange(0.1, 1.0, 0.3, dtype=np.float32)
TABLE = np.arange(6).reshape(2, 3)
ONES = np.ones((2, 2), np.uint8)
SEVENS = np.full(3, 7, dtype=np.int32)
HALVES = np.array([1.5, 2.25, -1], float16)
FLAGS = np.array((True, False, True))
LINSPACE = np.linspace(0, 1, 5)
RAGGED = np.array([[1, 2], [3]])
PLAIN = [1.0, 2.0]


@cuda.jit
def smooth(out):
    w = cuda.const.array_like(WEIGHTS)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = (w[i % 3] + GRID[i % 2, i % 3] + STEPS[i % 3] + TABLE[1, i % 3] + ONES[i % 2, 1] + SEVENS[i % 3]
                  + HALVES[i % 3] + FLAGS[i % 3])


@cuda.jit
def uses_linspace(out):
    out[0] = LINSPACE[1]


@cuda.jit
def uses_ragged(out):
    out[0] = RAGGED[0, 0]


@cuda.jit
def uses_list(out):
    out[0] = PLAIN[0]


@cuda.jit
def writes(out):
    TABLE[0, 0] = 1

# The bytes NumPy gives each array (PTX leaves out an initializer's trailing zeros).
# CHECK-DAG: .const .align {{[0-9]+}} .b8 const_WEIGHTS[12] = {0, 0, 128, 62, 0, 0, 0, 63, 0, 0, 128, 62};
# CHECK-DAG: .const .align {{[0-9]+}} .b8 const_GRID[12] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6};
# CHECK-DAG: .const .align {{[0-9]+}} .b8 const_STEPS[12] = {205, 204, 204, 61, 205, 204, 204, 62, 52, 51, 51, 63};
# CHECK-DAG: .const .align {{[0-9]+}} .b8 const_TABLE[48] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5};
# CHECK-DAG: .const .align {{[0-9]+}} .b8 const_HALVES[6] = {0, 62, 128, 64, 0, 188};
# CHECK-DAG: .const .align {{[0-9]+}} .b8 const_FLAGS[3] = {1, 0, 1};
# CHECK: ld.const

# Arrays whose elements are all equal are folded into the code by LLVM's optimizer; unoptimized, they are
# `.const` globals too.
# LLVM-DAG: @const_ONES = internal addrspace(4) constant [4 x i8] c"\01\01\01\01"
# LLVM-DAG: @const_SEVENS = internal addrspace(4) constant [3 x i32] [i32 7, i32 7, i32 7]
# LLVM-DAG: @const_GRID = internal addrspace(4) constant [6 x i16] [i16 1, i16 2, i16 3, i16 4, i16 5, i16 6]

# Each array has NumPy's dtype: int16 from the string, int64 from arange's ints, float16, bool.
# TYPED-DAG: WEIGHTS:float32[::1]
# TYPED-DAG: GRID[{{[^]]*}}]:int16
# TYPED-DAG: TABLE[{{[^]]*}}]:int64
# TYPED-DAG: ONES[{{[^]]*}}]:uint8
# TYPED-DAG: HALVES[{{[^]]*}}]:float16
# TYPED-DAG: FLAGS[{{[^]]*}}]:bool

# ERRFN: error: global 'LINSPACE' cannot be used in a kernel: its value is a call to 'np.linspace', which the gpujit CLI does not evaluate (it reads np.array, np.asarray, np.arange, np.zeros, np.ones and np.full with constant arguments); compile the kernel from Python to capture this array
# ERRRAGGED: error: global 'RAGGED' cannot be used in a kernel: np.array() of nested sequences of different lengths (a ragged array) is not supported
# ERRLIST: error: global 'PLAIN' cannot be used in a kernel: its value is a list; kernels read tuples (1, 2, 3) and NumPy arrays (np.array([1, 2, 3]))
# ERRWRITE: error: 'TABLE' is in constant memory, which is read-only; {{.*}}
