"""Graphs: `with gpu.graph() as g:` captures launches, `g.launch()` replays them (docs/graphs.md).

On the CPU backend the graph records each launch and replays it, so results are checked against NumPy; on the
fake CUDA driver the capture goes through the driver's stream capture, and the tests check what the driver
was asked for (nothing launched while capturing, every launch on replay with the captured parameters) and
that closing a graph frees its driver objects; the tests marked `gpu` run the same on a real GPU.
"""

import gc
import sys

import numpy as np
import pytest
from conftest import u64

import gpujit as gpu

pytestmark = pytest.mark.filterwarnings("ignore::gpujit.PerformanceWarning")

OUT_OF_MEMORY = 2
STREAM_CAPTURE_INVALIDATED = 901


@gpu.jit
def add(a, v):
    i = gpu.grid(1)
    if i < a.size:
        a[i] += v


@gpu.jit
def scale(a, v):
    i = gpu.grid(1)
    if i < a.size:
        a[i] *= v


@gpu.jit
def copy(dst, src):
    i = gpu.grid(1)
    if i < dst.size:
        dst[i] = src[i]


def capture_add_scale(a, v=1.0):
    with gpu.graph() as g:
        add[4, 32](a, v)
        scale[4, 32](a, 2.0)
    return g


# ---- CPU backend: kernels really run -------------------------------------------------------------------


def test_capture_runs_nothing_and_each_replay_runs_every_launch_in_order(cpu_backend):
    a = gpu.to_device(np.zeros(100, np.float32))
    g = capture_add_scale(a)
    assert np.all(a.copy_to_host() == 0)  # captured, not run
    assert (g.kernel_count, g.node_count, g.instantiated) == (2, 2, True)
    expected = np.zeros(100, np.float32)
    for _ in range(3):
        g.launch()
        expected = (expected + 1) * 2
    gpu.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), expected)


def test_arguments_are_captured_by_value(cpu_backend):
    a = gpu.to_device(np.zeros(10, np.float64))
    v = 5.0
    with gpu.graph() as g:
        add[1, 32](a, v)
    v = 100.0  # the graph keeps the value it was captured with
    g.launch()
    g.launch()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(10, 10.0))


def test_launches_on_another_stream_run_at_once(cpu_backend):
    a = gpu.to_device(np.zeros(10, np.float32))
    other = gpu.stream()
    with gpu.graph() as g:
        add[1, 32, other](a, 1.0)  # not captured: runs now
        add[1, 32](a, 10.0)
    assert g.kernel_count == 1
    np.testing.assert_array_equal(a.copy_to_host(), np.ones(10))
    g.launch()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(10, 11.0))


def test_a_graph_on_a_given_stream_captures_it_and_the_default_stream(cpu_backend):
    a = gpu.to_device(np.zeros(10, np.float32))
    s = gpu.stream()
    with gpu.graph(stream=s) as g:
        add[1, 32, s](a, 1.0)
        add[1, 32](a, 2.0)
    assert g.kernel_count == 2
    g.launch(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(10, 3.0))


def test_copies_on_the_capture_stream_are_captured(cpu_backend):
    src = gpu.to_device(np.arange(10, dtype=np.float32))
    dst = gpu.to_device(np.zeros(10, np.float32))
    with gpu.graph() as g:
        add[1, 32](src, 1.0)
        dst.copy_to_device(src, stream=g.stream)
    np.testing.assert_array_equal(dst.copy_to_host(), np.zeros(10))
    assert (g.kernel_count, g.node_count) == (1, 2)
    g.launch()
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(10) + 1)


def test_an_exception_inside_ends_the_capture_and_propagates(cpu_backend):
    a = gpu.to_device(np.zeros(10, np.float32))
    with pytest.raises(ZeroDivisionError):
        with gpu.graph() as g:
            add[1, 32](a, 1.0)
            1 / 0
    assert not g.instantiated and not g.capturing
    with pytest.raises(gpu.CaptureError, match="its capture failed"):
        g.launch()
    add[1, 32](a, 1.0)  # the thread launches as usual again
    gpu.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), np.ones(10))
    with gpu.graph() as g2:  # and can capture again
        add[1, 32](a, 1.0)
    g2.launch()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(10, 2.0))


@pytest.mark.parametrize("wait", ["device", "stream", "copy_to_host"])
def test_synchronize_inside_a_capture_is_an_error(cpu_backend, wait):
    a = gpu.to_device(np.zeros(10, np.float32))
    with pytest.raises(gpu.CaptureError, match="while this thread captures a graph"):
        with gpu.graph() as g:
            add[1, 32](a, 1.0)
            if wait == "device":
                gpu.synchronize()
            elif wait == "stream":
                g.stream.synchronize()
            else:
                a.copy_to_host()
    gpu.synchronize()  # fine again after the block
    np.testing.assert_array_equal(a.copy_to_host(), np.zeros(10))


def test_graphs_do_not_nest(cpu_backend):
    with pytest.raises(gpu.CaptureError, match="do not nest"):
        with gpu.graph():
            with gpu.graph():
                pass
    with gpu.graph() as g:  # the outer capture ended with the error
        pass
    assert g.kernel_count == 0


def test_a_graph_captures_once(cpu_backend):
    with gpu.graph() as g:
        pass
    with pytest.raises(gpu.CaptureError, match="captures once"):
        with g:
            pass


def test_numpy_arguments_are_refused(cpu_backend):
    with pytest.raises(gpu.CaptureError, match="NumPy .* array cannot be an argument"):
        with gpu.graph():
            add[1, 32](np.zeros(10, np.float32), 1.0)


def test_the_graph_keeps_its_arguments_until_closed(cpu_backend):
    a = gpu.to_device(np.zeros(10, np.float32))
    before = sys.getrefcount(a)
    with gpu.graph() as g:
        add[1, 32](a, 1.0)
        add[1, 32](a, 1.0)
    assert sys.getrefcount(a) == before + 2
    g.close()
    assert sys.getrefcount(a) == before
    assert not g.instantiated
    with pytest.raises(gpu.CaptureError, match="closed"):
        g.launch()


def test_a_replay_inside_a_capture_is_captured(cpu_backend):
    a = gpu.to_device(np.zeros(10, np.float32))
    with gpu.graph() as inner:
        add[1, 32](a, 1.0)
    with gpu.graph() as outer:
        inner.launch()
        inner.launch()
    assert outer.kernel_count == 2
    outer.launch()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(10, 2.0))


# ---- the fake CUDA driver: what the driver is asked ----------------------------------------------------


def graph_objects(fake):
    """Live captures, graphs and executable graphs in the fake driver, once collected graphs are freed."""
    gc.collect()
    return fake.live("captures"), fake.live("graphs"), fake.live("graph_execs")


def test_fake_capture_launches_nothing_and_replay_launches_the_captured_parameters(fake):
    a = gpu.to_device(np.zeros(64, np.float64))
    _, graphs, execs = graph_objects(fake)
    streams, launched = fake.live("streams"), fake.launch_count()
    with gpu.graph() as g:
        add[2, 32](a, 3.0)
        scale[2, 32](a, 2.0)
        assert fake.live("captures") == 1 and fake.live("streams") == streams + 1
    assert fake.launch_count() == launched  # captured, not launched
    assert (fake.live("captures"), fake.live("streams")) == (0, streams)  # the capture stream is gone
    assert (fake.live("graphs"), fake.live("graph_execs")) == (graphs, execs + 1)  # the graph freed once instantiated
    assert (g.kernel_count, g.node_count) == (2, 2)
    for _ in range(3):
        g.launch()
    assert fake.launch_count() == launched + 6
    name, grid, block, shared, stream, params = fake.last_launch()
    assert "scale" in name and grid == (2, 1, 1) and block == (32, 1, 1) and stream == 0
    assert u64(params[0]) == a.device_ctypes_pointer.value
    assert np.frombuffer(params[-1], np.float64)[0] == 2.0
    g.close()
    assert fake.live("graph_execs") == execs


def test_fake_graph_is_freed_when_collected(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    execs = fake.live("graph_execs")
    g = capture_add_scale(a)
    assert fake.live("graph_execs") == execs + 1
    del g
    gc.collect()
    assert fake.live("graph_execs") == execs


def test_fake_user_stream_is_captured_and_replay_goes_to_the_stream_given(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    s = gpu.stream()
    with gpu.graph(stream=s) as g:
        add[1, 32, s](a, 1.0)
        add[1, 32](a, 1.0)
    assert g.kernel_count == 2 and fake.live("captures") == 0
    g.launch(stream=s)
    assert fake.last_launch()[4] == s.handle
    add[1, 32, s](a, 1.0)  # the stream launches as usual after its capture
    assert fake.last_launch()[4] == s.handle


def test_fake_copies_are_captured(fake):
    src = gpu.to_device(np.arange(8, dtype=np.float32))
    dst = gpu.to_device(np.zeros(8, np.float32))
    with gpu.graph() as g:
        dst.copy_to_device(src, stream=g.stream)
    np.testing.assert_array_equal(dst.copy_to_host(), np.zeros(8))  # the fake's memory is host memory
    assert (g.kernel_count, g.node_count) == (0, 1)
    g.launch()
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(8))


def test_fake_capture_stream_held_outlives_the_capture_as_a_plain_stream(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    with gpu.graph() as g:
        s = g.stream
        add[1, 32, s](a, 1.0)
    assert g.kernel_count == 1
    launched = fake.launch_count()
    add[1, 32, s](a, 1.0)  # a live stream, no longer captured: launched at once
    assert fake.launch_count() == launched + 1 and fake.last_launch()[4] == s.handle
    s.synchronize()


def test_fake_exception_inside_leaves_nothing_behind(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    objects, streams, launched = graph_objects(fake), fake.live("streams"), fake.launch_count()
    with pytest.raises(KeyError):
        with gpu.graph():
            add[1, 32](a, 1.0)
            raise KeyError("x")
    assert graph_objects(fake) == objects
    assert fake.live("streams") <= streams and fake.launch_count() == launched  # the capture's stream is gone
    add[1, 32](a, 1.0)
    assert fake.launch_count() == launched + 1


def test_fake_synchronize_inside_is_refused_before_the_driver(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    syncs = fake.calls("cuCtxSynchronize")
    with pytest.raises(gpu.CaptureError, match="synchronizing the device"):
        with gpu.graph():
            add[1, 32](a, 1.0)
            gpu.synchronize()
    assert fake.calls("cuCtxSynchronize") == syncs
    assert fake.live("captures") == 0
    gpu.synchronize()


def test_fake_failing_instantiate_is_a_clear_error_and_the_stream_stays_usable(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    s = gpu.stream()
    objects = graph_objects(fake)
    fake.fail("cuGraphInstantiateWithFlags", OUT_OF_MEMORY)
    with pytest.raises(gpu.CudaAPIError, match="cuGraphInstantiate failed: CUDA_ERROR_OUT_OF_MEMORY") as e:
        with gpu.graph(stream=s) as g:
            add[1, 32, s](a, 1.0)
    assert e.value.function == "cuGraphInstantiate" and "instantiating a graph of 1 kernels" in str(e.value)
    assert not g.instantiated
    assert graph_objects(fake) == objects
    launched = fake.launch_count()
    add[1, 32, s](a, 1.0)
    s.synchronize()
    assert fake.launch_count() == launched + 1
    with gpu.graph(stream=s) as g2:
        add[1, 32, s](a, 1.0)
    g2.launch()
    assert fake.launch_count() == launched + 2


@pytest.mark.parametrize("code", [OUT_OF_MEMORY, STREAM_CAPTURE_INVALIDATED])
def test_fake_failing_end_capture_is_a_clear_error_and_the_stream_stays_usable(fake, code):
    a = gpu.to_device(np.zeros(8, np.float32))
    s = gpu.stream()
    objects = graph_objects(fake)
    fake.fail("cuStreamEndCapture", code)
    with pytest.raises(gpu.CudaAPIError, match="cuStreamEndCapture failed") as e:
        with gpu.graph(stream=s):
            add[1, 32, s](a, 1.0)
    assert e.value.code == code and "ending the capture of a graph" in str(e.value)
    assert graph_objects(fake) == objects
    s.synchronize()
    with gpu.graph(stream=s) as g:
        add[1, 32, s](a, 1.0)
    assert g.instantiated


def test_fake_failing_begin_capture_leaves_no_capture(fake):
    streams = fake.live("streams")
    fake.fail("cuStreamBeginCapture_v2", OUT_OF_MEMORY)
    with pytest.raises(gpu.CudaAPIError, match="cuStreamBeginCapture failed"):
        with gpu.graph():
            pass
    assert fake.live("streams") == streams
    gpu.synchronize()  # the thread is not left capturing
    with gpu.graph() as g:
        pass
    assert g.instantiated


def test_fake_failing_graph_launch_names_the_call(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    g = capture_add_scale(a)
    fake.fail("cuGraphLaunch", OUT_OF_MEMORY)
    with pytest.raises(gpu.CudaAPIError, match="cuGraphLaunch failed: .*launching a graph of 2 kernels"):
        g.launch()
    g.launch()


@gpu.jit(debug=True, opt=False)
def checked(a):
    a[0] = 1.0


def test_fake_debug_kernels_are_refused(fake):
    a = gpu.to_device(np.zeros(8, np.float32))
    with pytest.raises(gpu.CaptureError, match="checks bounds or raises"):
        with gpu.graph():
            checked[1, 1](a)
    assert fake.live("captures") == 0


# ---- a real GPU -------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_replay_matches_numpy(cuda):
    n = 1 << 16
    x = np.random.default_rng(0).random(n, dtype=np.float32)
    a = gpu.to_device(x)
    b = gpu.to_device(np.zeros(n, np.float32))
    with gpu.graph() as g:
        add[(n + 255) // 256, 256](a, 1.0)
        copy[(n + 255) // 256, 256](b, a)
        scale[(n + 255) // 256, 256](b, 3.0)
    np.testing.assert_array_equal(a.copy_to_host(), x)  # nothing ran during the capture
    for _ in range(10):
        g.launch()
    gpu.synchronize()
    np.testing.assert_allclose(a.copy_to_host(), x + 10, rtol=1e-6)
    np.testing.assert_allclose(b.copy_to_host(), (x + 10) * 3, rtol=1e-6)


@pytest.mark.gpu
def test_gpu_replay_on_a_stream_and_errors(cuda):
    a = gpu.to_device(np.zeros(1024, np.float32))
    s = gpu.stream()
    with gpu.graph(stream=s) as g:
        add[4, 256, s](a, 1.0)
    for _ in range(100):
        g.launch(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(1024, 100.0))
    with pytest.raises(gpu.CaptureError):
        with gpu.graph():
            add[4, 256](a, 1.0)
            gpu.synchronize()
    with pytest.raises(gpu.CaptureError, match="do not nest"):
        with gpu.graph():
            with gpu.graph():
                pass
    with pytest.raises(ZeroDivisionError):
        with gpu.graph():
            add[4, 256](a, 1.0)
            1 / 0
    add[4, 256](a, 1.0)
    gpu.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), np.full(1024, 101.0))
    g.close()
