# At -O3 the module is optimized at O3 and the NVPTX code generator runs at LLVM's default level, which
# cleans up after its strength reductions with EarlyCSE where the aggressive level runs GVN (the legacy
# "Global Value Numbering"; the O3 pipeline's own GVN is "GVNPass"). GPUJIT_CODEGEN_AGGRESSIVE=1 gives the
# aggressive level back, with other PTX for this loop (the SASS comparison is in docs/python.md). Both
# assemble.
# RUN: env GPUJIT_TIME_PASSES=1 %gpujit ptx %s --sig 'float32[:, ::1], float32[:, ::1], float32[:, ::1]' \
# RUN:   -o %t.default.ptx 2> %t.default.times
# RUN: FileCheck %s --check-prefix=DEFAULT < %t.default.times
# RUN: env GPUJIT_TIME_PASSES=1 GPUJIT_CODEGEN_AGGRESSIVE=1 %gpujit ptx %s \
# RUN:   --sig 'float32[:, ::1], float32[:, ::1], float32[:, ::1]' -o %t.aggressive.ptx 2> %t.aggressive.times
# RUN: FileCheck %s --check-prefix=AGGRESSIVE < %t.aggressive.times
# RUN: not cmp -s %t.default.ptx %t.aggressive.ptx
# RUN: %ptxas-all %t.default.ptx
# RUN: %ptxas-all %t.aggressive.ptx
# DEFAULT: Pass execution timing report
# DEFAULT-NOT: Global Value Numbering
# DEFAULT: Early CSE
# DEFAULT-NOT: Global Value Numbering
# AGGRESSIVE: Pass execution timing report
# AGGRESSIVE: Global Value Numbering
import numpy as np

import gpujit as gpu


@gpu.jit
def matmul(a, b, c):
    col, row = gpu.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        acc = np.float32(0.0)
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc
