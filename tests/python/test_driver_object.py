"""numba's driver object (`cuda.cudadrv.driver.driver`) as far as programs replace its host<->device copies
(gpujit/_driver_object.py): a replacement of cuMemcpyHtoD/cuMemcpyDtoH is called in place of gpujit's copies,
on the CPU backend and, through the fake driver, on the CUDA backend."""

import numpy as np
import pytest

import gpujit as gpu
from gpujit.cudadrv.driver import driver


class Refused(Exception):
    pass


def refuse(*args):
    raise Refused(args)


@pytest.fixture
def own_copies():
    """The driver's own copies, put back after the test whatever it replaced."""
    own = driver.cuMemcpyHtoD, driver.cuMemcpyDtoH, driver.cuMemcpyHtoDAsync, driver.cuMemcpyDtoHAsync
    yield own
    driver.cuMemcpyHtoD, driver.cuMemcpyDtoH, driver.cuMemcpyHtoDAsync, driver.cuMemcpyDtoHAsync = own


def _replacements_reach_every_copy(kernels_run):
    x = gpu.to_device(np.arange(6, dtype=np.float32))
    driver.cuMemcpyHtoD = refuse
    driver.cuMemcpyDtoH = refuse
    with pytest.raises(Refused):
        x.copy_to_host()
    with pytest.raises(Refused):
        gpu.to_device([1, 2])
    # A ufunc on device arrays copies nothing, so it runs with both refused.
    plus_one = gpu.vectorize(["float32(float32)"])(lambda v: v + 1)
    y = plus_one(x)
    del driver.cuMemcpyDtoH  # back to gpujit's own; the other stays replaced
    host = y.copy_to_host()
    if kernels_run:  # the fake driver records launches but runs no kernels
        np.testing.assert_array_equal(host, np.arange(6) + 1)
    with pytest.raises(Refused):
        gpu.to_device([1, 2])


@pytest.mark.filterwarnings("ignore::gpujit.PerformanceWarning")
def test_replaced_copies_are_called_instead_of_gpujits_on_the_cpu_backend(cpu_backend, own_copies):
    _replacements_reach_every_copy(kernels_run=True)


@pytest.mark.filterwarnings("ignore::gpujit.PerformanceWarning")
def test_replaced_copies_are_called_instead_of_the_drivers(fake, own_copies):
    htod = fake.calls("cuMemcpyHtoDAsync_v2")
    _replacements_reach_every_copy(kernels_run=False)
    assert fake.calls("cuMemcpyHtoDAsync_v2") == htod + 1  # only the first to_device reached the driver


def test_a_replacement_can_wrap_the_original(cpu_backend, own_copies):
    own_htod, own_dtoh = own_copies[:2]
    seen = []

    def counting_dtoh(dst, src, nbytes):
        seen.append(nbytes)
        own_dtoh(dst, src, nbytes)

    driver.cuMemcpyDtoH = counting_dtoh
    a = np.arange(5, dtype=np.int64)
    np.testing.assert_array_equal(gpu.to_device(a).copy_to_host(), a)
    assert seen == [40]
    driver.cuMemcpyDtoH = own_dtoh  # the original put back: nothing is replaced any more
    gpu.to_device(a).copy_to_host()
    assert seen == [40]
    # The originals copy when called directly too, with the driver's arguments.
    d = gpu.device_array(5, np.int64)
    own_htod(d.__cuda_array_interface__["data"][0], a.ctypes.data, a.nbytes)
    out = np.zeros_like(a)
    own_dtoh(out.ctypes.data, d.__cuda_array_interface__["data"][0], a.nbytes)
    np.testing.assert_array_equal(out, a)


def test_a_stream_copy_calls_the_async_replacement(cpu_backend, own_copies):
    seen = []
    driver.cuMemcpyDtoHAsync = lambda dst, src, nbytes, stream: seen.append((nbytes, stream != 0))
    driver.cuMemcpyDtoH = refuse
    s = gpu.stream()
    d = gpu.to_device(np.ones(3), stream=s)
    d.copy_to_host(stream=s)
    s.synchronize()
    assert seen == [(24, True)]


def test_bad_replacements_and_other_names_are_errors(own_copies):
    with pytest.raises(TypeError, match="must be a function"):
        driver.cuMemcpyHtoD = 3
    with pytest.raises(AttributeError, match="cuCtxCreate.*host<->device copies"):
        driver.cuCtxCreate
