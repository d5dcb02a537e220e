# `//` and `%` follow Python: the quotient rounds toward minus infinity and the remainder takes the divisor's
# sign. Signed integers need a fix-up after LLVM's truncating sdiv/srem (compare the signs, then adjust);
# unsigned ones need none; floats take fmod plus the same sign fix-up.
# RUN: %gpujit ptx %s -k idiv --sig 'void(int32[::1], int32[::1], int32[::1], int32[::1])' --emit llvm -O1 \
# RUN:   | FileCheck %s --check-prefix=SIGNED
# RUN: %gpujit ptx %s -k idiv --sig 'void(uint32[::1], uint32[::1], uint32[::1], uint32[::1])' --emit llvm -O1 \
# RUN:   | FileCheck %s --check-prefix=UNSIGNED
# RUN: %gpujit ptx %s -k fmod --sig 'void(float64[::1], float64[::1], float64[::1])' --emit llvm -O1 \
# RUN:   | FileCheck %s --check-prefix=FLOAT
# RUN: %gpujit ptx %s -k idiv --sig 'void(int32[::1], int32[::1], int32[::1], int32[::1])' --arch sm_75 \
# RUN:   -o %t.signed.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.signed.ptx
# RUN: %ptxas-all %t.signed.ptx
# RUN: %gpujit ptx %s -k fmod --sig 'void(float64[::1], float64[::1], float64[::1])' --arch sm_75 -o %t.fmod.ptx
# RUN: %ptxas-all %t.fmod.ptx
import gpujit as gpu


@gpu.jit
def idiv(a, b, q, r):
    i = gpu.grid(1)
    q[i] = a[i] // b[i]
    r[i] = a[i] % b[i]


@gpu.jit
def fmod(a, b, r):
    i = gpu.grid(1)
    r[i] = a[i] % b[i]

# int32 operands are widened to int64 first (numba types int32 // int32 as int64). The quotient's fix-up
# subtracts one when the remainder is non-zero and its sign differs from the divisor's; the remainder's adds
# the divisor then.
# SIGNED-LABEL: define {{.*}}idiv
# SIGNED: [[Q:%[0-9a-z.]+]] = sdiv i64
# SIGNED: [[QSIGNS:%[0-9a-z.]+]] = xor i64
# SIGNED: icmp slt i64 [[QSIGNS]], 0
# SIGNED: add nsw i64 [[Q]],
# SIGNED: [[R:%[0-9a-z.]+]] = srem i64
# SIGNED: [[RSIGNS:%[0-9a-z.]+]] = xor i64 [[R]],
# SIGNED: icmp slt i64 [[RSIGNS]], 0
# SIGNED: add nsw i64 {{.*}}[[R]]{{$}}
# SIGNED: ret void

# UNSIGNED-LABEL: define {{.*}}idiv
# UNSIGNED-NOT: {{sdiv|srem|xor}}
# UNSIGNED: udiv i32
# UNSIGNED-NOT: {{sdiv|srem|xor}}
# UNSIGNED: urem i32
# UNSIGNED-NOT: {{sdiv|srem|xor}}
# UNSIGNED: ret void

# The float remainder (libdevice's fmod, inlined) gets the same fix-up: when it is non-zero and its sign
# differs from the divisor's, the divisor is added.
# FLOAT-LABEL: define {{.*}}fmod
# FLOAT: fcmp une double [[R:%[0-9a-z.]+]], 0.000000e+00
# FLOAT: fcmp olt double [[R]], 0.000000e+00
# FLOAT: fcmp olt double [[B:%[0-9a-z.]+]], 0.000000e+00
# FLOAT: fadd double [[B]], [[R]]
# FLOAT: select
# FLOAT: ret void

# PTX: .visible .entry {{.*}}idiv
# PTX-DAG: div.s64
# PTX-DAG: rem.s64
# PTX-DAG: xor.b64
