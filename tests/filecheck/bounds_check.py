# Bounds checks (--boundscheck or --debug, or debug=True / boundscheck=True on the decorator): every integer array index is
# compared, after Python's negative wrap, with its axis' extent; on the GPU the first failing thread records
# the index, extent, axis, where the check is (function and source line), thread and block in the module's
# `gpujit_error` (codegen/device_error.h), and every failing thread exits (no trap: that would end the CUDA
# context); the runtime raises the record as IndexError after the launch. Without the option the code
# has no check at all. Device functions are checked with the kernel's setting and name themselves.
# RUN: %gpujit ptx %s -k gather --sig 'float32[::1], int64[::1], float32[::1]' --boundscheck --emit llvm -O1 \
# RUN:   | FileCheck %s --check-prefix=IR
# RUN: %gpujit ptx %s -k gather --sig 'float32[::1], int64[::1], float32[::1]' --emit llvm -O1 \
# RUN:   | FileCheck %s --check-prefix=NODEBUG
# RUN: %gpujit ptx %s -k gather --sig 'float32[::1], int64[::1], float32[::1]' --boundscheck --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k gather --sig 'float32[::1], int64[::1], float32[::1]' --arch sm_75 \
# RUN:   | FileCheck %s --check-prefix=NODEBUG-PTX
# RUN: %gpujit ptx %s -k stencil --sig 'float32[:, ::1], float32[:, ::1]' --emit llvm -O1 \
# RUN:   | FileCheck %s --check-prefix=DECORATOR
import gpujit as gpu


@gpu.jit(device=True)
def pick(a, i):
    return a[i]


@gpu.jit
def gather(a, idx, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = pick(a, idx[i])


@gpu.jit(boundscheck=True)
def stencil(a, out):
    x, y = gpu.grid(2)
    out[x, y] = a[x - 1, y + 1]

# IR-DAG: @[[PICK:gpujit.where[0-9]*]] = {{.*}}addrspace(1) constant {{\[[0-9]+ x i8\]}} c"device function 'pick' of kernel 'gather' at {{.*}}bounds_check.py:23\00"
# IR-DAG: @gpujit_error = addrspace(1) global [16 x i64] zeroinitializer, align 8
# IR-DAG: @[[GATHER:gpujit.where[0-9]*]] = {{.*}}addrspace(1) constant {{\[[0-9]+ x i8\]}} c"kernel 'gather' at {{.*}}bounds_check.py:30\00"
# IR: define ptx_kernel void @{{.*}}gather
# idx[i]: i is non-negative, so the wrap folds away and the check compares i itself.
# IR: %in.bounds = icmp {{(samesign )?}}ult i64 %[[I:[0-9]+]], %idx.shape0
# IR-NEXT: br i1 %in.bounds, label %index.ok, label %index.error, !prof ![[LIKELY:[0-9]+]]
# IR: index.error:
# IR-NEXT: cmpxchg ptr addrspace(1) @gpujit_error, i64 0, i64 1 monotonic monotonic
# a[i] in pick, inlined: the index loaded from idx, wrapped if negative, then checked.
# IR: index.ok:
# IR: %in.bounds.i = icmp ult i64 %{{[0-9]+}}, %a.shape0
# IR: error.record.i:
# IR: store i64 ptrtoint (ptr addrspacecast (ptr addrspace(1) @[[PICK]] to ptr) to i64), ptr addrspace(1) getelementptr inbounds {{.*}}@gpujit_error, i64 16)
# IR-NEXT: store i64 {{[0-9]+}}, ptr addrspace(1) getelementptr inbounds {{.*}}@gpujit_error, i64 24)
# IR: error.exit.i:
# IR-NEXT: call void @llvm.nvvm.exit()
# IR-NEXT: unreachable
# IR: error.record:
# IR: store i64 ptrtoint (ptr addrspacecast (ptr addrspace(1) @[[GATHER]] to ptr) to i64)
# IR: ![[LIKELY]] = !{!"branch_weights", {{.*}}i32 {{[0-9]+}}, i32 1}

# NODEBUG-NOT: gpujit.where
# NODEBUG-NOT: gpujit_error
# NODEBUG-NOT: in.bounds
# NODEBUG: define ptx_kernel void @{{.*}}gather
# NODEBUG-NOT: in.bounds
# NODEBUG-NOT: llvm.nvvm.exit

# PTX: .visible .global .align 8 .b8 gpujit_error[128];
# PTX: .visible .entry {{.*}}gather
# PTX: cas.b64 {{.*}}[gpujit_error], 0, 1;
# PTX: exit;
# PTX-NOT: trap;

# NODEBUG-PTX-NOT: gpujit_error
# NODEBUG-PTX-NOT: exit;

# The decorator's boundscheck=True turns the checks on without --boundscheck; one per axis of each access.
# DECORATOR: c"kernel 'stencil' at {{.*}}bounds_check.py:36\00"
# DECORATOR: define ptx_kernel void @{{.*}}stencil
# DECORATOR: %in.bounds = icmp {{(samesign )?}}ult i64 %{{[0-9]+}}, %a.shape0
# DECORATOR: %in.bounds{{[0-9]+}} = icmp {{(samesign )?}}ult i64 %{{[0-9]+}}, %a.shape1
# DECORATOR: %in.bounds{{[0-9]+}} = icmp {{(samesign )?}}ult i64 %{{[0-9]+}}, %out.shape0
# DECORATOR: %in.bounds{{[0-9]+}} = icmp {{(samesign )?(ult i64 %[0-9]+, %out.shape1|ugt i64 %out.shape1, %[0-9]+)}}
# DECORATOR-NOT: = icmp {{.*}}shape
