"""numba-cuda's Dispatcher API on gpujit kernels: overloads, compile, specialize, resource figures, pickling.

Launches run on whichever backend the session uses; the resource figures need ptxas (the CUDA toolkit) and
are skipped without it.
"""

import importlib.util
import pickle
import subprocess
import sys
import shutil
import os

import numpy as np
import pytest

import gpujit as gpu
from gpujit import _signature

HAVE_PTXAS = bool(shutil.which("ptxas") or os.path.isfile("/usr/local/cuda/bin/ptxas"))
needs_ptxas = pytest.mark.skipif(not HAVE_PTXAS, reason="resource figures are read with ptxas -v")


@gpu.jit
def add_one(a):
    i = gpu.grid(1)
    if i < a.size:
        a[i] += 1


@gpu.jit
def local_scratch(out):
    scratch = gpu.local.array(1000, dtype=out.dtype)
    for j in range(1000):
        scratch[j] = j
    for j in range(1000):
        out[j] = scratch[j]


TABLE = np.arange(32, dtype=np.int64)


@gpu.jit("void(int64[::1])")
def from_table(out):
    table = gpu.const.array_like(TABLE)
    i = gpu.grid(1)
    if i < out.size:
        out[i] = table[i]


def test_overloads_are_keyed_by_argument_types_and_found_by_any_spelling():
    @gpu.jit
    def fill(a, x):
        a[0] = x

    fill[1, 1](np.zeros(1, np.float32), np.float32(2))
    fill[1, 1](np.zeros(1), 2.5)
    keys = list(fill.overloads)
    assert keys == [(gpu.float32[::1], gpu.float32), (gpu.float64[::1], gpu.float64)]
    first = fill.overloads[keys[0]]
    assert fill.overloads["(float32[::1], float32)"] is first
    assert fill.overloads[gpu.void(gpu.float32[::1], gpu.float32)] is first
    assert fill.overloads[(gpu.f4[::1], gpu.f4)] is first
    assert (gpu.int32[::1], gpu.int32) not in fill.overloads
    assert ".entry" in first.inspect_asm()


def test_signature_strings_without_return_type_are_argument_lists():
    assert _signature.signature_text("(i4[::1], i4, i4)") == "void(i4[::1], i4, i4)"

    @gpu.jit("(i4[::1], i4, i4)")
    def store_sum(r, x, y):
        r[0] = x + y

    r = np.zeros(1, np.int32)
    store_sum[1, 1](r, 123, 456)
    assert r[0] == 579
    assert list(store_sum.overloads) == [(gpu.int32[::1], gpu.int32, gpu.int32)]


def test_compile_adds_an_overload_without_restricting_the_kernel():
    @gpu.jit
    def scale(a):
        a[0] *= 2

    overload = scale.compile((gpu.float32[::1],))
    assert overload is scale.overloads[(gpu.float32[::1],)]
    assert scale.signatures == ["(float32[::1])"]
    a = np.ones(1, np.int64)
    scale[1, 1](a)  # other types still compile lazily
    assert a[0] == 2


def test_specialize_makes_one_dispatcher_per_type_tuple():
    @gpu.jit
    def copy(dst, src):
        dst[0] = src[0]

    assert copy.specializations == {} and not copy.specialized
    c_order = copy.specialize(gpu.float32[::1], gpu.float32[::1])
    any_order = copy.specialize(gpu.float32[:], gpu.float32[:])
    assert c_order is not any_order and c_order.specialized
    assert copy.specialize(np.zeros(2, np.float32), np.zeros(2, np.float32)) is c_order
    assert len(copy.specializations) == 2
    assert c_order.signatures == ["(float32[::1], float32[::1])"]
    with pytest.raises(RuntimeError, match="already specialized"):
        c_order.specialize(gpu.float32[::1], gpu.float32[::1])
    dst = np.zeros(1, np.float32)
    c_order[1, 1](dst, np.full(1, 7, np.float32))
    assert dst[0] == 7


def test_one_eager_signature_makes_a_specialized_dispatcher_and_a_list_does_not():
    @gpu.jit(["void(int32[::1])", "void(float32[::1])"])
    def two(a):
        a[0] = 1

    assert from_table.specialized and not two.specialized
    with pytest.raises(RuntimeError, match="already specialized"):
        from_table.specialize(gpu.int64[::1])


@needs_ptxas
def test_resource_figures_come_from_the_compiled_kernel():
    local_scratch[1, 1](np.zeros(1000, np.float32))
    local_scratch[1, 1](np.zeros(1000, np.float64))
    per_signature = local_scratch.get_local_mem_per_thread()
    assert per_signature[(gpu.float32[::1],)] >= 4000
    assert local_scratch.get_local_mem_per_thread(gpu.void(gpu.float64[::1])) >= 8000
    regs = local_scratch.get_regs_per_thread("void(float32[::1])")
    assert isinstance(regs, int) and regs > 0
    assert 0 < local_scratch.get_max_threads_per_block("void(float32[::1])") <= 1024
    # One eager signature: the figure itself, not a dict.
    assert from_table.get_const_mem_size() >= TABLE.nbytes
    assert from_table.get_shared_mem_per_block() == 0


@needs_ptxas
def test_sass_cfg_is_nvdisasms_graph_of_the_kernel(monkeypatch):
    from gpujit import _ptx_tools

    @gpu.jit("void(float32[::1])")
    def branchy(a):
        i = gpu.grid(1)
        if i < a.size:
            a[i] += 1

    if _ptx_tools.find_nvdisasm() is None:
        with pytest.raises(RuntimeError, match="nvdisasm was not found"):
            branchy.inspect_sass_cfg()
        pytest.skip("no nvdisasm here (pip install nvidia-cuda-nvdisasm)")
    graph = branchy.inspect_sass_cfg(gpu.void(gpu.float32[::1]))
    # nvdisasm -cfg writes a DOT digraph whose nodes hold the SASS (an EXIT ends every kernel).
    assert graph.lstrip().startswith("digraph") and graph.rstrip().endswith("}") and "EXIT" in graph
    assert branchy.overloads[(gpu.float32[::1],)].inspect_sass_cfg() == graph
    assert list(branchy.inspect_sass_cfg().values()) == [graph]  # one explicit signature: one graph
    monkeypatch.setattr(_ptx_tools, "find_nvdisasm", lambda: None)
    with pytest.raises(RuntimeError, match="nvdisasm was not found"):
        branchy.inspect_sass_cfg()


def test_jit_accepts_numba_options_and_checks_the_carveout():
    @gpu.jit(lto=False, shared_memory_carveout="MaxShared")
    def k(a):
        a[0] = 1

    assert k.targetoptions["shared_memory_carveout"] == "MaxShared"
    with pytest.raises(ValueError, match="between -1 and 100"):
        gpu.jit(shared_memory_carveout=101)
    with pytest.raises(ValueError, match="Invalid carveout value"):
        gpu.jit(shared_memory_carveout="most")
    assert k.extensions == []  # prepare_args hooks run: test_hints_and_extensions_decide_what_comes_back


def test_a_module_level_kernel_pickles_by_reference():
    assert pickle.loads(pickle.dumps(add_one)) is add_one


def test_a_kernel_rebuilds_from_its_function_and_options():
    rebuild, (py_func, options) = from_table.__reduce__.__func__(_Unlisted(from_table))
    again = rebuild(py_func, options)
    # The function travels by value (the module holds the dispatcher, not the function, under its name).
    assert again is not from_table and again.__code__ == from_table.py_func.__code__
    out = np.zeros(4, np.int64)
    again[1, 4](out)
    np.testing.assert_array_equal(out, TABLE[:4])


class _Unlisted:
    """A stand-in for a dispatcher that its module does not hold under its name (a local kernel)."""

    def __init__(self, dispatcher):
        self.py_func, self.targetoptions = dispatcher.py_func, dispatcher.targetoptions
        self.__module__, self.__qualname__ = dispatcher.__module__, "nowhere." + dispatcher.__qualname__


def test_lto_ptx_is_the_whole_program_ptx():
    @gpu.jit(device=True)
    def bump(x):
        return x + 1

    @gpu.jit(lto=True)
    def calls_bump(a):
        a[0] = bump(a[0])

    sig = (gpu.int64[::1],)
    ptx = calls_bump.inspect_lto_ptx(sig)
    assert ptx == calls_bump.inspect_ptx(sig)
    assert ".entry" in ptx and ".func" not in ptx  # the device function is linked in, nothing left to link
    assert calls_bump.overloads[sig].inspect_lto_ptx() == ptx


def test_type_annotation_maps_the_kernels_variables_to_their_types():
    @gpu.jit("void(int32[::1], float32)")
    def f(x, y):
        l = gpu.local.array(10, dtype=np.int32)  # noqa: E741  numba's tests name it so
        s = gpu.shared.array((4, 4), dtype=gpu.float64)
        t = (x.shape[0], 2)
        l[0] = x[0]
        s[0, 0] = y
        x[0] = l[0] + t[1]

    annotation = next(iter(f.overloads.values()))._type_annotation
    typemap = annotation.typemap

    def is_(t, ours, numbas):
        # Once numba is loaded in the process (another test may have), the types are numba's own objects.
        return t == ours or (type(t).__module__.startswith("numba") and str(t) == numbas)

    assert is_(typemap["x"], gpu.int32[::1], "array(int32, 1d, C)") and is_(typemap["y"], gpu.float32, "float32")
    assert is_(typemap["l"].dtype, gpu.int32, "int32") and is_(typemap["l"], gpu.int32[::1], "array(int32, 1d, C)")
    assert is_(typemap["s"], gpu.float64[:, ::1], "array(float64, 2d, C)")
    assert str(typemap["t"]) in ("UniTuple(int64, 2)", "UniTuple(int64 x 2)")  # gpujit's text, or numba's type
    assert str(annotation) == f.inspect_types("void(int32[::1], float32)")


NUMBA_TYPEMAP = """
import numpy as np
import numba
from numba.core import types as nt
import gpujit as gpu

@gpu.jit("void(int32[::1])")
def f(x):
    s = gpu.shared.array(10, dtype=np.int32)
    s[0] = x[0]
    t = (x.shape[0], 2)
    x[0] = s[0] + t[1]

typemap = next(iter(f.overloads.values()))._type_annotation.typemap
assert typemap["x"] == nt.int32[::1], typemap["x"]
assert typemap["s"].dtype == nt.int32 and typemap["s"] == nt.int32[::1], typemap["s"]
assert typemap["t"] == nt.UniTuple(nt.int64, 2), typemap["t"]
print("ok")
"""


def test_type_annotation_gives_numbas_types_when_numba_is_imported(tmp_path):
    if importlib.util.find_spec("numba") is None:
        pytest.skip("numba is not installed")
    # In a process of its own: importing numba here would change what the other tests' typemaps hold.
    script = tmp_path / "numba_typemap.py"
    script.write_text(NUMBA_TYPEMAP)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_forall_covers_the_tasks_and_refuses_a_negative_count():
    @gpu.jit
    def bump(a):
        i = gpu.grid(1)
        if i < a.size:
            a[i] += 1

    a = np.zeros(300, np.int64)
    bump.forall(a.size)(a)
    np.testing.assert_array_equal(a, 1)
    bump.forall(0)(a)  # no tasks: nothing is launched (a grid of 0 blocks would be refused)
    np.testing.assert_array_equal(a, 1)
    with pytest.raises(ValueError, match="Can't create ForAll with negative task count: -1"):
        bump.forall(-1)


def test_kernels_run_on_the_named_default_streams():
    @gpu.jit
    def fill(a, v):
        i = gpu.grid(1)
        if i < a.size:
            a[i] = v

    d = gpu.device_array(64, np.int32)
    for v, s in enumerate((gpu.legacy_default_stream(), gpu.per_thread_default_stream())):
        fill[1, 64, s](d, v + 1)
        s.synchronize()
        np.testing.assert_array_equal(d.copy_to_host(), v + 1)


def test_local_kernels_and_configured_launches_pickle_by_value(tmp_path):
    offset = 10

    @gpu.jit(device=True)
    def inner(a):
        return a + offset

    @gpu.jit
    def outer(arr):
        arr[0] = inner(arr[0]) * SCALE

    launch = pickle.loads(pickle.dumps(outer[5, 8]))
    assert (launch.griddim, launch.blockdim, launch.sharedmem) == ((5, 1, 1), (8, 1, 1), 0)
    arr = np.array([1])
    pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(outer))))[1, 1](arr)
    assert arr[0] == (1 + offset) * SCALE
    with pytest.raises(TypeError, match="a kernel configured with a stream cannot be pickled"):
        pickle.dumps(outer[1, 1, gpu.stream()])
    # A fresh process, which cannot import this test module, runs the kernel from the pickle alone.
    blob = tmp_path / "outer.pickle"
    blob.write_bytes(pickle.dumps(outer))
    code = ("import pickle, sys, numpy as np; k = pickle.loads(open(sys.argv[1], 'rb').read()); "
            "a = np.array([2]); k[1, 1](a); print(a[0])")
    out = subprocess.run([sys.executable, "-c", code, str(blob)], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str((2 + offset) * SCALE)


SCALE = 3


class _ReadOnlyByDefault:
    """An argument extension: host arrays not already hinted are passed as gpu.In (copied to the device only)."""

    def __init__(self):
        self.seen = []

    def prepare_args(self, ty, val, stream=0, retr=None):
        self.seen.append(ty)
        if isinstance(val, np.ndarray):
            retr.append(lambda: self.seen.append("after"))
            return ty, gpu.In(val)
        return ty, val


def test_hints_and_extensions_decide_what_comes_back():
    @gpu.jit
    def set_three(a, n):
        a[0] = 3 + n

    a = np.zeros(1, np.int64)
    set_three[1, 1](gpu.In(a), 0)
    assert a[0] == 0  # the kernel's write stayed on the device
    set_three[1, 1](gpu.InOut(a), 0)
    assert a[0] == 3
    out = np.full(1, 7, np.int64)
    set_three[1, 1](gpu.Out(out), 1)
    assert out[0] == 4

    ext = _ReadOnlyByDefault()
    set_three.extensions.append(ext)
    b = np.zeros(1, np.int64)
    set_three[1, 1](b, 0)
    assert b[0] == 0 and ext.seen[-1] == "after"
    assert ext.seen[0] == gpu.int64[::1] and ext.seen[1] == gpu.int64
    set_three[1, 1](gpu.InOut(b), 0)  # an explicit hint is the extension's to keep or not: here it passes
    assert b[0] == 3
    set_three.extensions.clear()
    c = np.zeros(1, np.int64)
    set_three[1, 1](c, 0)
    assert c[0] == 3
