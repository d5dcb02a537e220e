# A syntax error is reported at the token that cannot start an expression, with the caret under it.
# RUN: not %gpujit ptx %s --sig 'void(int64[::1])' 2>&1 | FileCheck %s --strict-whitespace
import gpujit as gpu


@gpu.jit
def bad_syntax(out):
    out[0] = 1 +* 2
# CHECK: error_syntax.py:[[@LINE-1]]:17: error:
# CHECK-NEXT: {{^}}    out[0] = 1 +* 2{{$}}
# CHECK-NEXT: {{^                \^}}
