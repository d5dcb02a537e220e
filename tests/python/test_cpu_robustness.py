"""The CPU backend's kernels that never end, fault or recurse too deep (docs/reliability.md, "CPU backend
faults"): Ctrl-C stops a launch with KeyboardInterrupt, a wild write or a stack overflow fails the launch
with an error naming the kernel, the block and the thread, and the process goes on.

The Ctrl-C tests run in a child process with a time limit, so a launch that cannot be interrupted fails the
test instead of hanging the suite.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpujit as gpu

CHILD_TIMEOUT = 120


def _run_child(code, tmp_path):
    script = tmp_path / "child.py"  # gpujit reads kernel source from a file
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, GPUJIT_DEVICE="cpu")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                          env=env)
    assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


# The kernels the children interrupt, and a good kernel run after each interrupt to show the executor works.
_KERNELS = """
import os, signal, threading, time, _thread
import numpy as np
import gpujit as gpu

@gpu.jit
def spin(out, flag):
    # flag[0] stays 0: an endless loop with no barrier in it, in every thread of the grid.
    i = 0
    while flag[0] == 0:
        i += 1
        out[gpu.grid(1)] = i

@gpu.jit
def spin_at_barrier(out, flag):
    i = 0
    while flag[0] == 0:
        i += 1
        gpu.syncthreads()
    out[gpu.grid(1)] = i

@gpu.jit
def fill(out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = i

def interrupted(kernel, blocks, threads, how):
    out = np.zeros(blocks * threads, dtype=np.int64)
    flag = np.zeros(1, dtype=np.int64)
    if how == "interrupt_main":
        timer = threading.Timer(0.5, _thread.interrupt_main)
    else:
        timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.perf_counter()
    try:
        kernel[blocks, threads](out, flag)
    except KeyboardInterrupt:
        waited = time.perf_counter() - t0
        print("interrupted", "quickly" if waited < 30 else f"after {waited:.1f} s")
    else:
        print("not interrupted")
    timer.join()
    out = np.zeros(1000, dtype=np.int64)
    fill[4, 256](out)
    print("after", bool((out == np.arange(1000)).all()))
"""


# The launching thread runs blocks too, so Ctrl-C reaches a kernel it runs through a real SIGINT (the guard's
# hook around Python's handler); _thread.interrupt_main(), which sends no signal, is seen only while the
# launching thread waits (the cooperative case below).
@pytest.mark.parametrize("kernel,blocks,threads", [("spin", 1, 1), ("spin", 64, 32), ("spin_at_barrier", 8, 64)])
def test_ctrl_c_stops_an_endless_kernel(kernel, blocks, threads, tmp_path):
    out = _run_child(_KERNELS + f"\ninterrupted({kernel}, {blocks}, {threads}, 'sigint')\n", tmp_path)
    assert out.split("\n")[:2] == ["interrupted quickly", "after True"], out


@pytest.mark.parametrize("how", ["interrupt_main", "sigint"])
def test_ctrl_c_stops_an_endless_cooperative_kernel(how, tmp_path):
    code = _KERNELS + """
from gpujit import cg

@gpu.jit
def spin_grid(out, flag):
    i = 0
    while flag[0] == 0:
        i += 1
        cg.this_grid().sync()
    out[gpu.grid(1)] = i

interrupted(spin_grid, 4, 32, HOW)
"""
    out = _run_child(code.replace("HOW", repr(how)), tmp_path)
    assert out.split("\n")[:2] == ["interrupted quickly", "after True"], out


@gpu.jit
def _wild_write(out):
    i = gpu.grid(1)
    if i == 37:
        out[i + (1 << 40)] = 1.0  # no bounds check without debug=True: far outside any mapping
    elif i < out.size:
        out[i] = 2.0


@gpu.jit
def _wild_write_at_barrier(out):
    i = gpu.grid(1)
    gpu.syncthreads()
    if i == 37:
        out[i + (1 << 40)] = 1.0
    elif i < out.size:
        out[i] = 2.0


@gpu.jit
def _fill(out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = i


# A kernel without barriers runs each block's threads in one generated loop, so its report names the block
# only; one with barriers runs each thread as a fiber, and its report names the thread too.
@pytest.mark.parametrize("kernel,where", [(_wild_write, "block (1, 0, 0)"),
                                          (_wild_write_at_barrier, "thread (5, 0, 0) of block (1, 0, 0)")])
def test_a_wild_write_fails_the_launch_naming_the_thread(cpu_backend, kernel, where):
    out = np.zeros(64, dtype=np.float64)
    with pytest.raises(RuntimeError) as info:
        kernel[2, 32](out)
    message = str(info.value)
    name = kernel.__name__
    assert f"kernel '{name}' crashed in {where} on the cpu backend" in message
    assert "SIGSEGV" in message
    # The process and the executor go on.
    out = np.zeros(500, dtype=np.int64)
    _fill[2, 256](out)
    np.testing.assert_array_equal(out, np.arange(500))


@gpu.jit(device=True)
def _deep(n):
    if n == 0:
        return 1
    # Not a tail call and no accumulator LLVM could turn into a loop.
    return (_deep(n - 1) * 3 + n) % 1000003


@gpu.jit
def _recurse(out, n):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = _deep(n)


@gpu.jit
def _recurse_at_barrier(out, n):
    i = gpu.grid(1)
    gpu.syncthreads()
    if i < out.size:
        out[i] = _deep(n)


def _deep_reference(n):
    v = 1
    for k in range(1, n + 1):
        v = (v * 3 + k) % 1000003
    return v


@pytest.mark.parametrize("kernel,where,stack", [
    (_recurse, "block (0, 0, 0)", "the worker thread's stack"),
    (_recurse_at_barrier, "thread (0, 0, 0) of block (0, 0, 0)", "256 KiB stack")])
def test_recursion_too_deep_is_an_error(cpu_backend, kernel, where, stack):
    out = np.zeros(4, dtype=np.int64)
    kernel[1, 4](out, 100)  # shallow recursion works
    np.testing.assert_array_equal(out, _deep_reference(100))
    with pytest.raises(RuntimeError) as info:
        kernel[1, 4](out, 50_000_000)
    message = str(info.value)
    assert f"kernel '{kernel.__name__}' overflowed its stack in {where} on the cpu backend" in message
    assert "recursion too deep" in message and stack in message
    kernel[1, 4](out, 100)
    np.testing.assert_array_equal(out, _deep_reference(100))
