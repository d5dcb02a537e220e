# print() in a kernel is one vprintf call with the whole format built at compile time, as numba-cuda does:
# items joined by spaces and a newline, integers as %lld / %llu, floats widened to double as %f, string
# literals written into the format ('%' doubled), the values in a local buffer.
# RUN: %gpujit ptx %s -k show --sig 'void(int32[::1], float32, uint8)' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k show --sig 'void(int32[::1], float32, uint8)' --emit llvm | FileCheck %s --check-prefix=IR
# RUN: not %gpujit ptx %s -k bad_print --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERR
import gpujit as cuda

GREETING = "hello"


@cuda.jit
def show(a, x, u):
    i = cuda.grid(1)
    print(GREETING, "thread", i, "of 100%:", a[i], x, u, x > 0)
    print()


@cuda.jit
def bad_print(a):
    print(a, sep=",")

# CHECK: .extern .func {{.*}}vprintf
# CHECK: .const .align 1 .b8 {{.*}}[45] = {104, 101, 108, 108, 111, 32,
# CHECK: .visible .entry {{.*}}show
# CHECK: cvt.f64.f32
# CHECK: call.uni {{.*}}vprintf
# CHECK: call.uni {{.*}}vprintf

# IR-DAG: c"hello thread %lld of 100%%: %lld %f %llu %s\0A\00"
# IR-DAG: c"\0A\00"
# IR-DAG: c"True\00"
# IR-DAG: c"False\00"
# IR: call i32 @vprintf(

# ERR: error: print() keyword arguments ('sep') are not supported in kernels
