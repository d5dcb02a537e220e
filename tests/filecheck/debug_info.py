# --debug (numba's debug=True) puts DWARF line tables in the PTX for cuda-gdb: a .debug_info section,
# `debug` on the .target line, and a .loc per statement, the device function's too; ptxas takes it.
# --boundscheck and --lineinfo do not add the section.
# RUN: %gpujit ptx %s -k scale --sig 'float64[::1], float64[::1]' --debug -O0 -o %t.ptx
# RUN: FileCheck %s --check-prefix=DEBUG < %t.ptx
# RUN: %ptxas-all %t.ptx
# RUN: %gpujit ptx %s -k scale --sig 'float64[::1], float64[::1]' --boundscheck | FileCheck %s --check-prefix=CHECKS
# RUN: %gpujit ptx %s -k scale --sig 'float64[::1], float64[::1]' --lineinfo | FileCheck %s --check-prefix=LINES
import gpujit as gpu


@gpu.jit(device=True)
def twice(v):
    return v * 2.0


@gpu.jit
def scale(x, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = twice(x[i])

# DEBUG: .target sm_80, debug
# DEBUG: .loc {{[0-9]+}} 13
# DEBUG: .loc {{[0-9]+}} 20
# DEBUG: .file {{[0-9]+}} "{{.*}}debug_info.py"
# DEBUG: .section .debug_abbrev
# DEBUG: .section .debug_info

# CHECKS-NOT: .debug_info
# CHECKS-NOT: .loc{{[[:space:]]}}

# LINES: .loc{{[[:space:]]}}
# LINES-NOT: .section .debug_info
