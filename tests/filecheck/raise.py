# raise in a kernel: the first raising thread claims the module's error record `gpujit_error` by
# compare-and-swap and writes the kind (2, a raise), the description's address and length, and the thread and
# block indices (codegen/device_error.h); every raising thread exits. The runtime reads the record back after
# the launch. The description (class, function,
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

# IR-DAG: c"builtins.ValueError\0Acheck\0A{{.*}}raise.py\0A16\0A('negative', 1)\00"
# IR-DAG: @gpujit_error = addrspace(1) global [16 x i64] zeroinitializer, align 8
# IR: cmpxchg ptr addrspace(1) @gpujit_error, i64 0, i64 1 monotonic monotonic
# IR: store i64 2, ptr addrspace(1) getelementptr inbounds {{.*}}@gpujit_error, i64 8)
# IR: call void @llvm.nvvm.exit()

# PTX: .visible .global .align 8 .b8 gpujit_error[128];
# PTX: atom{{.*}}.global.cas.b64 {{.*}}[gpujit_error], 0, 1;
# PTX: st.global.b64 [gpujit_error+8], 2;
# PTX: exit;
