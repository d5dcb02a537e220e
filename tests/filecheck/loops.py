# Loops: a `for` over range() carrying a float64 sum, and a `while` loop left by `break`. The unoptimized IR
# (-O0) shows the lowering's own shape: condition, body and increment blocks with a back edge, and `break`
# branching straight to the block after the loop. The optimized PTX assembles.
# RUN: %gpujit ptx %s -k row_sums --sig 'void(float64[:, ::1], float64[::1])' --emit llvm -O0 \
# RUN:   | FileCheck %s --check-prefix=FOR
# RUN: %gpujit ptx %s -k row_sums --sig 'void(float64[:, ::1], float64[::1])' --arch sm_75 -o %t.for.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.for.ptx
# RUN: %ptxas-all %t.for.ptx
# RUN: %gpujit ptx %s -k collatz --sig 'void(int64[::1], int32[::1])' --emit llvm -O0 \
# RUN:   | FileCheck %s --check-prefix=WHILE
# RUN: %gpujit ptx %s -k collatz --sig 'void(int64[::1], int32[::1])' --arch sm_75 -o %t.while.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.while.ptx
# RUN: %ptxas-all %t.while.ptx
import gpujit as gpu


@gpu.jit
def row_sums(m, out):
    i = gpu.grid(1)
    if i < out.size:
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j]
        out[i] = s


@gpu.jit
def collatz(start, steps):
    i = gpu.grid(1)
    if i < steps.size:
        n = start[i]
        k = 0
        while n != 1:
            if k >= 1000:
                break
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            k += 1
        steps[i] = k

# FOR-LABEL: define {{.*}}row_sums
# FOR: for.cond:
# FOR: icmp slt i64
# FOR: br i1 %{{[0-9a-z.]+}}, label %for.body, label %for.end
# FOR: for.body:
# FOR: fadd double
# FOR: br label %for.inc
# FOR: for.inc:
# FOR: add {{(nsw )?}}i64
# FOR: br label %for.cond
# FOR: for.end:

# WHILE-LABEL: define {{.*}}collatz
# WHILE: while.cond:
# WHILE: icmp ne i64 %{{[0-9a-z.]+}}, 1
# WHILE: br i1 %{{[0-9a-z.]+}}, label %while.body, label %while.end
# WHILE: while.body:
# WHILE: icmp sge i64 %{{[0-9a-z.]+}}, 1000
# WHILE: br i1 %{{[0-9a-z.]+}}, label %[[BREAK:[0-9a-z.]+]], label
# WHILE: [[BREAK]]:
# WHILE-NEXT: br label %while.end
# WHILE: br label %while.cond

# PTX: .visible .entry
# PTX: bra
# PTX: ret;
