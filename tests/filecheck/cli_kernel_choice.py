# The CLI picks the kernel: --kernel may be left out when the file has one @jit kernel (device functions do
# not count), and --sig when the decorator carries a signature. Usage errors exit 2 with a clear message.
# RUN: %gpujit ptx %s -k scale --sig 'void(float32[::1], float32)' --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k typed_in_decorator --arch sm_75 | FileCheck %s --check-prefix=DECORATED
# RUN: %gpujit ptx %s --sig 'float32[::1], float32' 2> %t.err; test $? -eq 2
# RUN: FileCheck %s --check-prefix=AMBIGUOUS < %t.err
# RUN: %gpujit ptx %s -k missing --sig 'float32[::1]' 2> %t.err; test $? -eq 2
# RUN: FileCheck %s --check-prefix=MISSING < %t.err
# RUN: %gpujit ptx %s -k scale --sig 'void(float32[::1], flaot32)' 2> %t.err; test $? -eq 2
# RUN: FileCheck %s --check-prefix=BADSIG < %t.err
# RUN: %gpujit ptx %s -k scale --sig 'void(float32[::1])' 2> %t.err; test $? -eq 2
# RUN: FileCheck %s --check-prefix=ARITY < %t.err
# RUN: %gpujit ptx %s -k scale --sig 'void(float32[::1], float32)' --arch sm_70 2> %t.err; test $? -eq 2
# RUN: FileCheck %s --check-prefix=ARCH < %t.err
# RUN: %gpujit ptx %s -k scale 2> %t.err; test $? -eq 2
# RUN: FileCheck %s --check-prefix=NOSIG < %t.err
# RUN: %gpujit ptx %s -k scale --sig 'void(float32[::1], float32)' --emit bogus 2> %t.err; test $? -eq 2
# RUN: FileCheck %s --check-prefix=EMIT < %t.err
import gpujit as gpu


@gpu.jit(device=True)
def twice(v):
    return v * 2


@gpu.jit
def scale(out, factor):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = twice(out[i]) * factor


@gpu.jit("void(int32[::1])")
def typed_in_decorator(out):
    out[gpu.grid(1)] = 7

# PTX: .visible .entry {{.*}}scale
# DECORATED: .visible .entry {{.*}}typed_in_decorator
# AMBIGUOUS: gpujit: error: '{{.*}}cli_kernel_choice.py' has 2 @jit kernels (scale, typed_in_decorator); choose one with --kernel NAME
# MISSING: gpujit: error: no function 'missing' in '{{.*}}cli_kernel_choice.py'; its @jit kernels are: scale, typed_in_decorator
# BADSIG: gpujit: error: bad signature 'void(float32[::1], flaot32)': {{.*}}flaot32
# ARITY: gpujit: error: signature 'void(float32[::1])' has 1 parameter types but 'scale' takes 2
# ARCH: gpujit: error: unsupported --arch 'sm_70'; use sm_75 or newer
# NOSIG: gpujit: error: kernel 'scale' needs a signature; pass one with --sig
# EMIT: --emit: bogus not in {tokens,ast,typed,llvm,ptx}
