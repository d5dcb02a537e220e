# raise in a kernel: the GPU records the first raising thread in the module's `gpujit_exception` slot (the
# description's address by compare-and-swap, then the thread and block indices and the description's length)
# and exits the thread; the runtime reads the slot back after the launch. The description (class, function,
# file, line, arguments) is a string in global memory, where the host can read it.
# RUN: %gpujit ptx %s -k check --sig 'int32, float64[::1]' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k check --sig 'int32, float64[::1]' --emit llvm -O1 | FileCheck %s --check-prefix=IR
import gpujit as gpu


@gpu.jit
def check(x, out):
    if x < 0:
        raise ValueError("negative", 1)
    out[0] = x

# IR: c"builtins.ValueError\0Acheck\0A{{.*}}raise.py\0A15\0A('negative', 1)\00"
# IR: @gpujit_exception = addrspace(1) global [8 x i64] zeroinitializer, align 8
# IR: cmpxchg ptr addrspace(1) @gpujit_exception, i64 0, i64 ptrtoint
# IR: call void asm sideeffect "exit;", ""()

# PTX: .visible .global .align 8 .b8 gpujit_exception[64];
# PTX: atom{{.*}}.global.cas.b64 {{.*}}[gpujit_exception], 0,
# PTX: st.global.b64 [gpujit_exception+56],
# PTX: exit;
