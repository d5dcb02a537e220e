# Array views: `m[i, :]` of a C array is a C view (indexed from its shape: one multiply-add per access, no
# stride read), `m[:, j]` a strided one (its stride read from the base's strides), and `x[::-1]` a negative
# stride. Views are typed with numba's layouts (--emit typed), a slice store is a loop, and a bad slice bound
# is an error at its line:col.
# RUN: %gpujit ptx %s -k row_dot --sig 'void(float32[:, ::1], float32[::1], float32[::1])' --emit typed \
# RUN:   | FileCheck %s --check-prefix=TYPED
# RUN: %gpujit ptx %s -k row_dot --sig 'void(float32[:, ::1], float32[::1], float32[::1])' --emit llvm \
# RUN:   | FileCheck %s --check-prefix=LLVM
# RUN: %gpujit ptx %s -k row_dot --sig 'void(float32[:, ::1], float32[::1], float32[::1])' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k row_dot --sig 'void(float32[:, ::1], float32[::1], float32[::1])' --index32 --arch sm_90 -o %t32.ptx
# RUN: %ptxas-all %t32.ptx
# RUN: %gpujit ptx %s -k fill --sig 'void(float64[:, :], float64)' --arch sm_75 -o %tf.ptx
# RUN: FileCheck %s --check-prefix=FILL < %tf.ptx
# RUN: %ptxas-all %tf.ptx
# RUN: not %gpujit ptx %s -k bad_bound --sig 'void(float32[::1], float32)' 2>&1 | FileCheck %s --check-prefix=ERR
import gpujit as cuda


@cuda.jit
def row_dot(m, x, out):
    i = cuda.grid(1)
    row = m[i, :]
    col = m[:, i]
    back = x[::-1]
    s = 0.0
    for j in range(len(row)):
        s += row[j] * back[j] + col[j]
    out[i] = s


@cuda.jit
def fill(m, v):
    m[1:, ::2] = v


@cuda.jit
def bad_bound(x, f):
    y = x[1:f]
    # ERR: array_views.py:[[# @LINE - 1]]:13: error: slice bound must be an integer or None, got float32 ('f' is an argument)
    # ERR-NEXT: y = x[1:f]
    # ERR-NEXT: {{^ +\^$}}
    x[0] = y[0]

# TYPED: row:float32[::1] = m[i:int64, :]:float32[::1]
# TYPED: col:float32[:] = m[:, i:int64]:float32[:]
# TYPED: back:float32[:] = x[::{{.*}}]:float32[:]

# The row is read as floats from its start (no stride), the reversed x with a stride of -4 bytes, and no
# stride parameter is read in the loop (m is C-contiguous, so the column's stride is its row length).
# LLVM-LABEL: define ptx_kernel void @_gpujit_row_dot_
# LLVM: for.body:
# LLVM: getelementptr inbounds nuw float, ptr
# LLVM: mul nsw i64 %range.j{{[.0-9]*}}, -4
# LLVM-NOT: stride
# LLVM: ret void

# PTX: .visible .entry _gpujit_row_dot_

# A slice store is a loop per axis over the view: the inner loop steps by twice the base's column stride.
# FILL: .visible .entry _gpujit_fill_
# FILL: st.global.b64
# FILL: bra
