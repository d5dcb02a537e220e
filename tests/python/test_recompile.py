"""Dispatcher.recompile() (numba's): every signature compiled so far is compiled again from the function's
source and the current values of its globals; until then a compiled kernel keeps the values it was compiled
with."""

import importlib.util
import sys

import numpy as np
import pytest

import gpujit as gpu

MODULE = """
import gpujit as gpu

Z = 1


@gpu.jit{options}
def add_z(r, x):
    r[0] = x + Z


@gpu.jit(device=True)
def plus_z(x):
    return x + Z


@gpu.jit
def call_plus_z(r, x):
    r[0] = plus_z(x)
"""


def load(tmp_path, name, options=""):
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(options=options))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def run(kernel, x):
    r = np.zeros(1, dtype=np.int64)
    kernel[1, 1](r, x)
    return int(r[0])


@pytest.mark.parametrize("options", ["", "('void(int64[::1], int64)')", "(cache=True)"])
def test_recompile_reads_the_globals_again(tmp_path, options):
    mod = load(tmp_path, f"recompile_fodder_{len(options)}", options)
    assert run(mod.add_z, 2) == 3
    mod.Z = 10
    assert run(mod.add_z, 2) == 3  # compiled with Z = 1, kept until recompiled
    signatures = list(mod.add_z.signatures)
    mod.add_z.recompile()
    assert list(mod.add_z.signatures) == signatures  # compiled again, at once
    assert run(mod.add_z, 2) == 12
    mod.Z = 100
    assert run(mod.add_z, 2) == 12


def test_recompile_of_a_kernel_never_compiled_compiles_nothing(tmp_path):
    mod = load(tmp_path, "recompile_fodder_never")
    mod.add_z.recompile()
    assert list(mod.add_z.signatures) == []
    mod.Z = 5
    assert run(mod.add_z, 2) == 7  # the first compile reads the value it finds


def test_a_device_functions_callers_keep_their_code_until_they_recompile(tmp_path):
    mod = load(tmp_path, "recompile_fodder_device")
    assert run(mod.call_plus_z, 2) == 3
    mod.Z = 10
    mod.plus_z.recompile()
    assert run(mod.call_plus_z, 2) == 3
    mod.call_plus_z.recompile()
    assert run(mod.call_plus_z, 2) == 12


def test_recompile_tears_down_the_modules_it_unloads(cpu_backend):
    """numba's module callbacks of linked code: the modules recompile() unloads get their teardown callbacks,
    once, and the next launch loads a fresh module and sets it up."""
    setups, teardowns = [], []
    lib = gpu.CUSource("", setup_callback=lambda m: setups.append(m.handle),
                       teardown_callback=lambda m: teardowns.append(m.handle))

    @gpu.jit(link=[lib])
    def kernel(a):
        pass

    kernel[1, 1](1)
    kernel[1, 1](1.5)
    assert len(setups) == 2 and teardowns == []
    kernel.recompile()
    assert sorted(teardowns) == sorted(setups)
    kernel[1, 1](1)
    assert len(setups) == 3 and len(teardowns) == 2
    gpu.current_context().reset()
    assert len(teardowns) == 3  # the fresh module, once
