"""numba-cuda's bf16 and fp8 bindings under gpujit's drop-in mode: a program that imports them from numba-cuda's own
modules (numba.cuda._internal.cuda_bf16 and cuda_fp8, numba.cuda.api, cuda.bindings' cudaRoundMode) runs its
kernels on gpujit. The program runs in a process of its own, as in test_numba_shim.py."""

import importlib.util
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None or
                                importlib.util.find_spec("cuda.bindings") is None,
                                reason="needs numba-cuda and cuda-python installed")

PROGRAM = textwrap.dedent("""
    import gpujit
    gpujit.install_numba_shim()
    import numpy as np
    from numba import cuda
    from numba.cuda import float32, uint8
    from numba.cuda.types import bfloat16
    from numba.cuda.api import is_fp8_supported
    from numba.cuda._internal.cuda_bf16 import nv_bfloat16, htrunc, __hadd
    from numba.cuda._internal.cuda_fp8 import (fp8_e4m3, fp8_e8m0, cvt_float_to_fp8, cvt_float_to_e8m0,
                                               cvt_e8m0_to_bf16raw, saturation_t, fp8_interpretation_t)
    from cuda.bindings.runtime import cudaRoundMode

    @cuda.jit
    def kernel(x, out, raw):
        a = nv_bfloat16(x[0])
        out[0] = float32(htrunc(__hadd(a, a)))
        out[1] = float32(fp8_e4m3(bfloat16(x[0])))
        out[2] = float32(fp8_e8m0(x[0]))
        raw[0] = cvt_float_to_fp8(x[1], saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        raw[1] = cvt_float_to_e8m0(x[0], saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        raw[2] = uint8(cvt_e8m0_to_bf16raw(uint8(127)).x >> 8)

    out = np.zeros(3, np.float32)
    raw = np.zeros(3, np.uint8)
    kernel[1, 1](np.array([3.25, 1e20], np.float32), out, raw)
    print(is_fp8_supported(), out.tolist(), [hex(b) for b in raw])
""")


def test_numba_programs_use_gpujits_bf16_and_fp8(tmp_path):
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    proc = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and "has no attribute 'row_stack'" in proc.stderr:
        pytest.skip("numba-cuda 0.30's own modules do not import with this NumPy (np.row_stack is gone)")
    assert proc.returncode == 0, proc.stderr
    # 3.25 + 3.25 truncated; 3.25 in e4m3 (exact); 3.25 rounded up to a power of two; NOSAT overflow is e4m3's
    # NaN; 3.25 toward zero is 2^1 (128); 1.0's bfloat16 bits 0x3F80, high byte.
    assert proc.stdout.split("\n")[0] == "True [6.0, 3.25, 4.0] ['0x7f', '0x80', '0x3f']", proc.stdout
