# GPUJIT_TIME_PASSES=1: LLVM's per-pass timers over both halves of a compile (the optimization pipeline and
# the NVPTX code generator), reported on stderr; without it, nothing of the kind is printed.
# RUN: env GPUJIT_TIME_PASSES=1 %gpujit ptx %s -k scale --sig 'void(float32[::1], float32)' -o %t.ptx 2> %t.times
# RUN: FileCheck %s < %t.times
# RUN: %gpujit ptx %s -k scale --sig 'void(float32[::1], float32)' -o %t.quiet.ptx 2> %t.quiet
# RUN: FileCheck %s --check-prefix=QUIET --allow-empty < %t.quiet
# RUN: cmp %t.ptx %t.quiet.ptx
# CHECK: Pass execution timing report
# CHECK-DAG: InstCombinePass
# CHECK-DAG: GVNPass
# CHECK-DAG: NVPTX DAG->DAG Pattern Instruction Selection
# CHECK-DAG: NVPTX Assembly Printer
# QUIET-NOT: timing report
import gpujit as gpu


@gpu.jit
def scale(a, factor):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = a[i] * factor
