# A compile error prints `file:line:col: error: message`, the source line and a caret under the column on
# stderr, nothing on stdout, and exits 1.
# RUN: %gpujit ptx %s --sig 'void(float32[::1])' > %t.out 2> %t.err; test $? -eq 1
# RUN: FileCheck %s --strict-whitespace < %t.err
# RUN: test ! -s %t.out
import gpujit as gpu


@gpu.jit
def uses_undefined(out):
    i = gpu.grid(1)
    out[i] = undefined_value + 1.0
# CHECK: error_undefined_name.py:[[@LINE-1]]:14: error: {{.*}}undefined_value
# CHECK-NEXT: {{^}}    out[i] = undefined_value + 1.0{{$}}
# CHECK-NEXT: {{^             \^~*$}}
