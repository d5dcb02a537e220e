"""The launch path's shortcuts (issue 31) keep what they skip: against the fake driver.

A configuration (`cfg = kernel[grid, block]`) checks its grid and block against the kernel once and remembers
the kernel it checked; another specialization is checked again, and a failed check is not remembered. The thread's reused
argument buffer is handed to one launch at a time: a launch made while another one reads its arguments (an
argument whose `__cuda_array_interface__` launches a kernel) gets a buffer of its own. One-dimensional arrays
are packed by a shorter path than others; both give the driver (pointer, extents, byte strides).
"""

import numpy as np
import pytest
from conftest import u64

import gpujit as gpu


@pytest.fixture(autouse=True)
def _needs_fake(fake):
    pass


def test_a_configuration_is_checked_again_for_another_specialization(fake, monkeypatch):
    @gpu.jit
    def k(a):
        pass

    cfg = k[1, 512]
    cfg(1.0)  # float64: loaded with the fake's default limit of 1024 threads, and checked
    cfg(2.0)
    # The fake reads each function's limit when its module loads: the int64 specialization gets 256.
    monkeypatch.setenv("FAKECUDA_MAX_THREADS", "256")
    for _ in range(2):  # a failed check is not remembered as a passed one
        with pytest.raises(gpu.CudaAPIError, match=r"a block of 512 threads is more than this kernel's limit of 256"):
            cfg(3)
    cfg(4.0)  # the float64 kernel again, through the same configuration
    assert u64(fake.last_launch()[5][0]) == np.float64(4.0).view(np.uint64)


class _LaunchesWhenRead:
    """An array whose __cuda_array_interface__ launches a kernel, as a lazily computed library array might."""

    def __init__(self, target, inner):
        self.target, self.inner = target, inner
        self.reads = 0

    @property
    def __cuda_array_interface__(self):
        self.reads += 1
        self.inner[1, 1](gpu.to_device(np.full(3, 7.0)), 5)
        return self.target.__cuda_array_interface__


def test_a_launch_made_while_another_reads_its_arguments_gets_its_own_buffer(fake):
    @gpu.jit
    def inner(a, n):
        pass

    @gpu.jit
    def outer(x, a, y):
        pass

    d = gpu.to_device(np.zeros(4, np.float32))
    arg = _LaunchesWhenRead(d, inner)
    before = fake.lib.fakecuda_launch_count()
    outer[1, 1](1.5, arg, 9)
    assert arg.reads >= 1
    assert fake.lib.fakecuda_launch_count() - before == arg.reads + 1
    params = [u64(p) for p in fake.last_launch()[5]]
    # The outer launch's own arguments, untouched by the inner launch that ran in the middle of reading them.
    assert params == [np.float64(1.5).view(np.uint64), d.__cuda_array_interface__["data"][0], 4, 4, 9]
    outer[1, 1](2.5, d, 10)  # and the thread's buffer is free again afterwards
    assert [u64(p) for p in fake.last_launch()[5]][0] == np.float64(2.5).view(np.uint64)


def test_one_and_two_dimensional_arrays_are_packed_alike(fake):
    @gpu.jit
    def k(a, b, c):
        pass

    one = gpu.to_device(np.zeros(6, np.float64))
    two = gpu.to_device(np.zeros((2, 3), np.float32))
    strided = gpu.to_device(np.zeros(12, np.int32))[::2]
    k[1, 1](one, two, strided)
    p = [u64(x) for x in fake.last_launch()[5]]
    addr = [a.__cuda_array_interface__["data"][0] for a in (one, two, strided)]
    assert p == [addr[0], 6, 8, addr[1], 2, 3, 12, 4, addr[2], 6, 8]


def test_floats_and_ints_alone_and_mixed_with_other_arguments_keep_their_bytes(fake):
    @gpu.jit
    def k(a, b, c):
        pass

    k[1, 1](1.5, -7, 2**40)  # Python floats and ints only: each its 8 bytes
    assert [u64(p) for p in fake.last_launch()[5]] == [np.float64(1.5).view(np.uint64), 2**64 - 7, 2**40]
    k[1, 1](1.5, np.int32(-7), 3)  # a NumPy scalar among them: its own 4 bytes
    assert [u64(p) for p in fake.last_launch()[5]] == [np.float64(1.5).view(np.uint64), -7, 3]

    @gpu.jit("void(float32, int32, float64)")
    def typed(a, b, c):
        pass

    typed[1, 1](1.5, 7, 2)  # converted to the signature's types
    assert [u64(p) for p in fake.last_launch()[5]] == [np.float32(1.5).view(np.uint32), 7,
                                                         np.float64(2.0).view(np.uint64)]


def test_arguments_after_the_first_that_needs_the_general_path_are_still_classified(fake):
    @gpu.jit
    def k(a, x, y, b, n):
        pass

    a = gpu.to_device(np.zeros(3, np.float32))
    b = gpu.to_device(np.zeros(5, np.float64))
    ptr = [d.__cuda_array_interface__["data"][0] for d in (a, b)]
    # Taken in one run up to the NumPy scalar; it and what follows go one by one.
    k[1, 1](a, 2.0, np.float32(1.5), b, 2**63)
    assert [u64(p) for p in fake.last_launch()[5]] == [ptr[0], 3, 4, np.float64(2.0).view(np.uint64),
                                                         np.float32(1.5).view(np.uint32), ptr[1], 5, 8, 2**63]
    k[1, 1](a, 2.0, 1.5, b, 7)  # the same kernel's other specialization: all in one run
    assert [u64(p) for p in fake.last_launch()[5]] == [ptr[0], 3, 4, np.float64(2.0).view(np.uint64),
                                                         np.float64(1.5).view(np.uint64), ptr[1], 5, 8, 7]
    assert len(k.signatures) == 2


class _Interface:
    """A foreign device array with nothing but a `__cuda_array_interface__` dict, which the test may change."""

    def __init__(self, target, **changes):
        self.__cuda_array_interface__ = dict(target.__cuda_array_interface__, **changes)


def test_an_interface_type_launched_before_is_read_straight_away_and_read_anew_each_launch(fake):
    @gpu.jit
    def k(a):
        pass

    class Lib(_Interface):
        pass

    a = gpu.to_device(np.zeros(6, np.float32))
    b = gpu.to_device(np.zeros((2, 3), np.float64))
    assert not gpu._core._interface_type_known(Lib)
    k[1, 1](Lib(a))
    assert gpu._core._interface_type_known(Lib)  # the next objects of Lib skip the other kinds' tests
    ptr = [x.__cuda_array_interface__["data"][0] for x in (a, b)]
    assert [u64(p) for p in fake.last_launch()[5]] == [ptr[0], 6, 4]
    # Each launch reads the interface again: another pointer, shape or element type is seen.
    x = Lib(a)
    x.__cuda_array_interface__ = dict(b.__cuda_array_interface__)
    k[1, 1](x)
    assert [u64(p) for p in fake.last_launch()[5]] == [ptr[1], 2, 3, 24, 8]
    assert len(k.signatures) == 2
    # What the short way cannot read goes the long way, which says why.
    with pytest.raises(TypeError, match="argument 'a' .* cannot be passed: masked arrays are not supported"):
        k[1, 1](Lib(a, mask=object()))
    with pytest.raises(TypeError, match="argument 'a' .* has unsupported type"):
        k[1, 1](Lib.__new__(Lib))  # no interface at all on this one


def test_an_interface_read_straight_away_still_waits_for_the_stream_it_names(fake, monkeypatch):
    import gpujit._device_array as device_array

    @gpu.jit
    def k(a):
        pass

    class Lib(_Interface):
        pass

    waited = []
    monkeypatch.setattr(device_array, "_sync_interface_stream", waited.append)
    a = gpu.to_device(np.zeros(4, np.float32))
    for _ in range(2):
        k[1, 1](Lib(a, stream=7))
    assert gpu._core._interface_type_known(Lib)
    assert waited == [7, 7]


def test_ndarray_subclasses_with_an_interface_are_not_taken_the_short_way(fake):
    @gpu.jit
    def k(a):
        pass

    m = gpu.mapped_array(4, np.float32)  # an ndarray subclass: whether it has an interface is the object's
    k[1, 1](m)
    assert not gpu._core._interface_type_known(type(m))
    assert u64(fake.last_launch()[5][0]) == m.__cuda_array_interface__["data"][0]
