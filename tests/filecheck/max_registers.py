# A register cap (--max-registers N, or max_registers=N on the decorator, which the flag overrides) is
# `.maxnreg N` on the entry, between its parameters and its body, and ptxas honours it. Without one the
# entry has none. A cap outside 1..255 is a usage error.
# RUN: %gpujit ptx %s -k plain --sig 'float64[::1], float64[::1]' --max-registers 32 --arch sm_75 -o %t.ptx
# RUN: FileCheck %s --check-prefix=FLAG < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k plain --sig 'float64[::1], float64[::1]' | FileCheck %s --check-prefix=NONE
# RUN: %gpujit ptx %s -k capped --sig 'float64[::1], float64[::1]' --arch sm_80 -o %t.capped.ptx
# RUN: FileCheck %s --check-prefix=DECORATOR < %t.capped.ptx
# RUN: %ptxas-all %t.capped.ptx
# RUN: %gpujit ptx %s -k capped --sig 'float64[::1], float64[::1]' --max-registers 128 \
# RUN:   | FileCheck %s --check-prefix=OVERRIDE
# RUN: %gpujit ptx %s -k plain --sig 'float64[::1], float64[::1]' --max-registers 0 2>&1; test $? -eq 2
# RUN: not %gpujit ptx %s -k plain --sig 'float64[::1], float64[::1]' --max-registers 256 2>&1 \
# RUN:   | FileCheck %s --check-prefix=RANGE
import math

import gpujit as gpu


@gpu.jit
def plain(a, out):
    i = gpu.grid(1)
    out[i] = math.exp(a[i]) * math.sin(a[i])


@gpu.jit(max_registers=40)
def capped(a, out):
    i = gpu.grid(1)
    out[i] = math.exp(a[i]) * math.sin(a[i])

# FLAG: .visible .entry {{.*}}plain{{.*}}(
# FLAG: )
# FLAG-NEXT: .maxnreg 32
# FLAG-NEXT: {

# NONE-NOT: .maxnreg

# DECORATOR: .visible .entry {{.*}}capped{{.*}}(
# DECORATOR: .maxnreg 40

# OVERRIDE: .maxnreg 128

# RANGE: --max-registers: Value 256 not in range 1 to 255
