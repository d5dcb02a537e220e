# Bounds checks (--boundscheck or --debug, or debug=True / boundscheck=True on the decorator): every integer array index is
# compared, after Python's negative wrap, with its axis' extent; a failure prints one message naming the
# index, axis, extent, function and source line, thread and block, then traps. Without the option the code
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

# IR-DAG: @[[PICK:gpujit.where[0-9]*]] = {{.*}} c"device function 'pick' of kernel 'gather' at {{.*}}bounds_check.py:21\00"
# IR-DAG: @[[FORMAT:gpujit.where[0-9]*]] = {{.*}} c"index %lld is out of bounds for axis %lld with size %lld in %s, thread (%lld, %lld, %lld) of block (%lld, %lld, %lld)\0A\00"
# IR-DAG: @[[GATHER:gpujit.where[0-9]*]] = {{.*}} c"kernel 'gather' at {{.*}}bounds_check.py:28\00"
# IR: define ptx_kernel void @{{.*}}gather
# idx[i]: i is non-negative, so the wrap folds away and the check compares i itself.
# IR: %in.bounds = icmp {{(samesign )?}}ult i64 %[[I:[0-9]+]], %idx.shape0
# IR-NEXT: br i1 %in.bounds, label %index.ok, label %index.error, !prof ![[LIKELY:[0-9]+]]
# IR: index.error:
# IR: store ptr addrspacecast (ptr addrspace(4) @[[GATHER]] to ptr)
# IR: call i32 @vprintf(ptr addrspacecast (ptr addrspace(4) @[[FORMAT]] to ptr)
# IR-NEXT: call void @llvm.trap()
# IR-NEXT: unreachable
# a[i] in pick, inlined: the index loaded from idx, wrapped if negative, then checked.
# IR: index.ok:
# IR: %in.bounds.i = icmp ult i64 %{{[0-9]+}}, %a.shape0
# IR: store ptr addrspacecast (ptr addrspace(4) @[[PICK]] to ptr)
# IR: call void @llvm.trap()
# IR: ![[LIKELY]] = !{!"branch_weights", {{.*}}i32 {{[0-9]+}}, i32 1}

# NODEBUG-NOT: gpujit.where
# NODEBUG-NOT: in.bounds
# NODEBUG-NOT: vprintf
# NODEBUG-NOT: llvm.trap
# NODEBUG: define ptx_kernel void @{{.*}}gather
# NODEBUG-NOT: in.bounds
# NODEBUG-NOT: llvm.trap

# PTX: .extern .func (.param .b32 func_retval0) vprintf
# PTX: .visible .entry {{.*}}gather
# PTX: call.uni (retval0), vprintf, (param0, param1);
# PTX: trap;

# NODEBUG-PTX-NOT: vprintf
# NODEBUG-PTX-NOT: trap

# The decorator's boundscheck=True turns the checks on without --boundscheck; one per axis of each access.
# DECORATOR: c"kernel 'stencil' at {{.*}}bounds_check.py:34\00"
# DECORATOR: define ptx_kernel void @{{.*}}stencil
# DECORATOR: %in.bounds = icmp {{(samesign )?}}ult i64 %{{[0-9]+}}, %a.shape0
# DECORATOR: %in.bounds{{[0-9]+}} = icmp {{(samesign )?}}ult i64 %{{[0-9]+}}, %a.shape1
# DECORATOR: %in.bounds{{[0-9]+}} = icmp {{(samesign )?}}ult i64 %{{[0-9]+}}, %out.shape0
# DECORATOR: %in.bounds{{[0-9]+}} = icmp {{(samesign )?(ult i64 %[0-9]+, %out.shape1|ugt i64 %out.shape1, %[0-9]+)}}
# DECORATOR-NOT: = icmp {{.*}}shape
