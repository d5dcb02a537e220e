# A device function compiled on its own (--device, numba's compile_ptx(device=True)): a `.visible .func`, no
# `.entry`. The C ABI returns the result under the function's name; numba's ABI returns a status and writes
# the result through its first parameter, under the mangled name. An array is one aggregate parameter.
# RUN: %gpujit ptx %s -k add --device --sig 'int32(int32, int32)' --arch sm_75 -o %t.c.ptx
# RUN: FileCheck %s --check-prefix=C < %t.c.ptx
# RUN: %ptxas-all %t.c.ptx
# RUN: %gpujit ptx %s -k add --device --sig 'float32, float32' --abi numba --arch sm_75 -o %t.numba.ptx
# RUN: FileCheck %s --check-prefix=NUMBA < %t.numba.ptx
# RUN: %ptxas-all %t.numba.ptx
# RUN: %gpujit ptx %s -k total --device --sig 'float64[::1]' --arch sm_75 -o %t.array.ptx
# RUN: FileCheck %s --check-prefix=ARRAY < %t.array.ptx
# RUN: %ptxas-all %t.array.ptx
# RUN: %gpujit ptx %s -k fill --device --sig 'void(float32[:], float32)' --arch sm_75 -o %t.void.ptx
# RUN: FileCheck %s --check-prefix=VOID < %t.void.ptx
# RUN: %ptxas-all %t.void.ptx
# RUN: not %gpujit ptx %s -k add --sig 'int32(int32, int32)' 2>&1 | FileCheck %s --check-prefix=KERNEL
import gpujit as gpu


@gpu.jit(device=True)
def add(x, y):
    return x + y


@gpu.jit(device=True)
def total(a):
    s = 0.0
    for i in range(a.size):
        s += a[i]
    return s


@gpu.jit(device=True)
def fill(a, v):
    for i in range(a.size):
        a[i] = v

# C-NOT: .entry
# C: .visible .func (.param .b32 func_retval0) add(
# C-NEXT: .param .b32 add_param_0,
# C-NEXT: .param .b32 add_param_1
# C-NEXT: )
# C: add.s32
# C: st.param.b32 [func_retval0],
# C-NOT: .entry

# NUMBA-NOT: .entry
# NUMBA: .visible .func (.param .b32 func_retval0) _gpujit_add_{{[0-9a-f]+}}(
# NUMBA-NEXT: .param .b64 {{.*}}_param_0,
# NUMBA-NEXT: .param .b64 {{.*}}_param_1,
# NUMBA-NEXT: .param .b32 {{.*}}_param_2,
# NUMBA-NEXT: .param .b32 {{.*}}_param_3
# NUMBA: add.f32
# NUMBA: st.b32 [
# NUMBA: st.param.b32 [func_retval0], 0;

# ARRAY: .visible .func (.param .b64 func_retval0) total(
# ARRAY-NEXT: .param .align 8 .b8 total_param_0[24]
# ARRAY: ld.param.b64 {{.*}}[total_param_0+8]
# ARRAY: add.f64

# VOID: .visible .func fill(
# VOID-NEXT: .param .align 8 .b8 fill_param_0[24],
# VOID-NEXT: .param .b32 fill_param_1
# VOID: st.b32 [%rd{{[0-9]+}}], %r1;

# KERNEL: a kernel returns nothing
