"""An eager compile (@jit("sig", link=[...])) checks the CUDA C it links with NVRTC at the decorator, as
numba-cuda does: a compile error is NvrtcCompilationError (also cuda.core's NVRTCError where cuda.core is
imported, which numba-cuda raises), NVRTC's warnings a UserWarning "NVRTC log messages: ..." (docs/cuda_c.md). A
lazy kernel is linked, and checked, at its first launch on a GPU. Runs anywhere NVRTC is installed: the kernels
here link code they do not call, which the CPU backend compiles."""

import warnings

import pytest

import gpujit as gpu

pytestmark = pytest.mark.skipif(isinstance(gpu.toolkit_libraries()["nvrtc"], str), reason="NVRTC is not installed")

WARNS_CU = 'extern "C" __device__ int f(int* out, int a) { int unused; *out = a; return 0; }\n'
ERROR_CU = 'extern "C" __device__ int g(int* out, int a) { *out = SYNTAX; return 0; }\n'


def test_an_eager_compile_warns_with_nvrtc_s_log():
    with pytest.warns(UserWarning, match="NVRTC log messages") as record:
        @gpu.jit("void(int32)", link=[gpu.CUSource(WARNS_CU, name="warns.cu")])
        def kernel(x):
            pass

    (w,) = [w for w in record if "NVRTC log messages" in str(w.message)]
    assert "declared but never referenced" in str(w.message) and "warns.cu" in str(w.message)
    assert w.filename == __file__  # pointed at the decorator


def test_an_eager_compile_raises_nvrtc_s_error(tmp_path):
    path = tmp_path / "error.cu"
    path.write_text(ERROR_CU)
    with pytest.raises(gpu.NvrtcCompilationError) as e:
        @gpu.jit("void(int32)", link=[str(path)])
        def kernel(x):
            pass

    message = str(e.value)
    assert "NVRTC_ERROR_COMPILATION" in message and 'identifier "SYNTAX" is undefined' in message
    assert 'in the compilation of "error.cu"' in message


def test_with_cuda_core_imported_the_error_is_also_its_nvrtc_error():
    utils = pytest.importorskip("cuda.core._utils.cuda_utils")
    with pytest.raises(utils.NVRTCError) as e:
        @gpu.jit("void(int32)", link=[gpu.CUSource(ERROR_CU, name="error.cu")])
        def kernel(x):
            pass

    assert isinstance(e.value, gpu.NvrtcCompilationError) and "SYNTAX" in e.value.log


def test_a_lazy_kernel_is_not_checked_at_the_decorator():
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @gpu.jit(link=[gpu.CUSource(WARNS_CU), gpu.CUSource(ERROR_CU)])
        def kernel(x):
            pass
