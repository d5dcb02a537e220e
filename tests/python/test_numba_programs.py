"""examples/numba_programs/: numba-cuda programs, unedited, run with `python -m gpujit run`, and numba's compiler
is never called for them.

The proof is a trap: a sitecustomize module, first on the path of the program's process, wraps numba-cuda's
compile entry points (numba.cuda.compiler.compile_cuda, the dispatcher's reference to it, and NVVM's
compile_ir) as their modules load, so that each call is written to a file. The control test shows that the trap
catches numba's compiler when numba-cuda compiles a kernel itself.
"""

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "examples" / "numba_programs").glob("*.py"))

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None,
                                reason="numba-cuda is not installed (the programs import numba)")

TRAP = textwrap.dedent("""
    import importlib.abc, importlib.machinery, os, sys

    TRAPPED = {"numba.cuda.compiler": ("compile_cuda",), "numba.cuda.dispatcher": ("compile_cuda",),
               "numba.cuda.cudadrv.nvvm": ("compile_ir",)}
    LOG = os.environ["NUMBA_COMPILER_TRAP_LOG"]

    def wrap(module_name, name, fn):
        def trapped(*args, **kwargs):
            with open(LOG, "a") as f:
                f.write(f"{module_name}.{name}\\n")
            return fn(*args, **kwargs)
        return trapped

    class Loader(importlib.abc.Loader):
        def __init__(self, inner):
            self.inner = inner
        def create_module(self, spec):
            return self.inner.create_module(spec)
        def exec_module(self, module):
            self.inner.exec_module(module)
            for name in TRAPPED[module.__name__]:
                if hasattr(module, name):
                    setattr(module, name, wrap(module.__name__, name, getattr(module, name)))

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname not in TRAPPED:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None:
                spec.loader = Loader(spec.loader)
            return spec

    sys.meta_path.insert(0, Finder())
""")


def run(tmp_path, *args, **env_changes):
    """Runs `python ARGS` under the trap; env_changes set variables (None: removes one)."""
    (tmp_path / "site").mkdir(exist_ok=True)
    (tmp_path / "site" / "sitecustomize.py").write_text(TRAP)
    log = tmp_path / "numba-compiles.log"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"), NUMBA_COMPILER_TRAP_LOG=str(log))
    env.pop("GPUJIT_NUMBA_SHIM", None)
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=600)
    return proc, (log.read_text().split() if log.exists() else [])


def test_there_are_programs():
    assert {p.stem for p in PROGRAMS} >= {"monte_carlo_pi", "ufuncs", "particles", "tracking_memory_manager"}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_program_runs_on_gpujit_without_numba_s_compiler(tmp_path, program):
    proc, compiles = run(tmp_path, "-m", "gpujit", "run", str(program))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("OK"), proc.stdout
    assert compiles == [], f"numba's compiler ran: {compiles}"


def test_the_trap_catches_numba_s_own_compiler(tmp_path):
    # numba-cuda compiling a kernel to PTX by itself (no GPU needed) goes through the trapped functions.
    (tmp_path / "own.py").write_text(textwrap.dedent("""
        from numba import cuda
        def add_one(x):
            x[0] += 1
        cuda.compile_ptx(add_one, "void(float32[::1])", cc=(8, 0))
    """))
    proc, compiles = run(tmp_path, str(tmp_path / "own.py"))
    if proc.returncode != 0 and not compiles:
        # numba-cuda itself cannot run here (no NVVM; on the GPU machine, NumPy 2.5 lacks names it imports).
        pytest.skip(f"numba-cuda cannot compile here: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    assert "numba.cuda.compiler.compile_cuda" in compiles or "numba.cuda.cudadrv.nvvm.compile_ir" in compiles


PLUGIN_OVER_NUMBA_S_MANAGER = textwrap.dedent("""
    import numpy as np
    from numba import cuda
    from numba.cuda.cudadrv.driver import NumbaCUDAMemoryManager

    class Counting(NumbaCUDAMemoryManager):
        sizes = []
        def memalloc(self, size):
            self.sizes.append(size)
            return super().memalloc(size)

    cuda.set_memory_manager(Counting)
    x = np.arange(1000, dtype=np.float64)
    d = cuda.to_device(x)
    e = cuda.device_array(10, dtype=np.int32)
    assert isinstance(cuda.current_context().memory_manager, Counting)
    assert Counting.sizes == [x.nbytes, e.nbytes], Counting.sizes
    assert (d.copy_to_host() == x).all()
    print("OK")
""")


def test_a_plugin_over_numba_s_default_manager_allocates_once_per_array(tmp_path):
    # On a CUDA device (here the suite's fake driver, which runs no kernels: the conftest loads it through
    # GPUJIT_CUDA_DRIVER) the EMM plugin is bound. It derives from numba's default manager, as
    # examples/numba_programs/tracking_memory_manager.py does, and calls super().memalloc, which must not come
    # back to the plugin (it recursed until gpujit's manager allocated apart from the arrays' path).
    (tmp_path / "plugin.py").write_text(PLUGIN_OVER_NUMBA_S_MANAGER)
    proc, compiles = run(tmp_path, "-m", "gpujit", "run", str(tmp_path / "plugin.py"), GPUJIT_DEVICE=None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"
    assert compiles == []
