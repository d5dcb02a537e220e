"""The drop-in mode (gpujit.install_numba_shim, `gpujit run`): a numba-cuda program runs on gpujit with no edit.

Each test runs a program in a process of its own, since the mode changes what `import numba` gives for the rest of
a process. With numba-cuda installed (scripts/setup installs it) the program's numba.cuda is numba-cuda's module
with gpujit's names bound on it; in an environment that has gpujit and NumPy but no numba (made here from links
into site-packages), `numba` and `numba.cuda` are gpujit's own modules. Kernels run on whatever backend the
process gets (the CPU backend here).
"""

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gpujit

HAS_NUMBA_CUDA = importlib.util.find_spec("numba_cuda") is not None

needs_numba_cuda = pytest.mark.skipif(not HAS_NUMBA_CUDA, reason="numba-cuda is not installed")

# A numba-cuda program, as its user wrote it: nothing of gpujit in it.
PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    from numba import cuda, float32, void, int64
    from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    @cuda.jit(void(float32[::1], float32[::1], float32))
    def axpy(x, out, a):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + out[i]

    @cuda.jit
    def uniform(states, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = xoroshiro128p_uniform_float32(states, i)

    x = np.arange(100, dtype=np.float32)
    out = np.ones(100, dtype=np.float32)
    d_out = cuda.to_device(out)
    axpy[4, 32](cuda.to_device(x), d_out, np.float32(2.0))
    assert isinstance(d_out, DeviceNDArray)
    assert np.array_equal(d_out.copy_to_host(), 2 * x + 1), d_out.copy_to_host()
    states = create_xoroshiro128p_states(64, seed=1)
    r = cuda.device_array(64, dtype=np.float32)
    uniform[2, 32](states, r)
    r = r.copy_to_host()
    assert ((r >= 0) & (r < 1)).all() and len(set(r.tolist())) > 32
    import gpujit
    print("shim", gpujit.numba_shim_active(), gpujit.info()["numba_shim"])
    print("jit is gpujit's", cuda.jit is gpujit.jit)
    print("argv", sys.argv[1:], __name__)
""")


def run(args, cwd, env=None, **kwargs):
    full_env = {k: v for k, v in os.environ.items() if k not in ("GPUJIT_DEVICE", "GPUJIT_BACKEND")}
    full_env["GPUJIT_DEVICE"] = "cpu"  # the kernels run on the CPU backend, GPU or not
    full_env.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=full_env, timeout=300, cwd=cwd, **kwargs)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@needs_numba_cuda
def test_run_binds_installed_numba_cuda(tmp_path):
    program = write(tmp_path, "prog.py", PROGRAM)
    out = run([sys.executable, "-m", "gpujit", "run", str(program), "--flag", "value"], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "shim True numba-cuda" in out.stdout
    assert "jit is gpujit's True" in out.stdout
    assert "argv ['--flag', 'value'] __main__" in out.stdout


@needs_numba_cuda
def test_numba_errors_and_warnings_catch_gpujit_s(tmp_path):
    program = write(tmp_path, "errors.py", textwrap.dedent("""
        import warnings
        import numpy as np
        from numba import cuda
        from numba.core.errors import TypingError, NumbaPerformanceWarning
        import gpujit

        @cuda.jit
        def bad(a):
            a[0] = undefined_name

        try:
            bad[1, 1](np.zeros(1))
        except TypingError as e:
            print("caught TypingError", isinstance(e, gpujit.CompileError), e.lineno)

        @cuda.jit
        def f64(a):
            a[0] = a[0] * 0.5

        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            f64[1, 1](np.zeros(1, dtype=np.float32))
        print("numba warning", any(issubclass(w.category, NumbaPerformanceWarning) for w in seen))
        print("gpujit warning", any(issubclass(w.category, gpujit.PerformanceWarning) for w in seen))
    """))
    out = run([sys.executable, "-m", "gpujit", "run", str(program)], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "caught TypingError True 10" in out.stdout
    assert "numba warning True" in out.stdout
    assert "gpujit warning True" in out.stdout


@needs_numba_cuda
def test_a_launch_the_device_cannot_run_is_cuda_core_s_error_too(tmp_path):
    # numba-cuda launches through cuda.core, whose CUDAError names the driver's CUDA_ERROR_INVALID_VALUE; gpujit
    # refuses the launch before the driver, with a LaunchError that is also that class and carries that name.
    program = write(tmp_path, "launch.py", textwrap.dedent("""
        import numpy as np
        from numba import cuda
        from cuda.core._utils.cuda_utils import CUDAError
        import gpujit

        @cuda.jit("void(int32[::1])")
        def fill(a):
            a[cuda.grid(1)] = 1

        a = np.zeros(2048, np.int32)
        for config in [(1, 1025), (0, 32), (1, (32, 33))]:
            try:
                fill[config](a)
            except CUDAError as e:
                print("CUDAError", isinstance(e, gpujit.LaunchError), isinstance(e, ValueError), e)
    """))
    out = run([sys.executable, "-m", "gpujit", "run", str(program)], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stdout
    assert all(line.startswith("CUDAError True True CUDA_ERROR_INVALID_VALUE: ") for line in lines)
    assert "block dimension x is 1025" in lines[0] and "grid dimension x is 0" in lines[1]


@needs_numba_cuda
def test_numba_vectorize_cuda_target_is_gpujit_s_and_cpu_jit_stays_numba_s(tmp_path):
    program = write(tmp_path, "ufuncs.py", textwrap.dedent("""
        import numpy as np
        import numba.cuda
        from numba import vectorize, njit
        import gpujit

        @vectorize(["float32(float32, float32)"], target="cuda")
        def add(a, b):
            return a + b

        @njit
        def twice(x):
            return 2 * x

        x = np.arange(8, dtype=np.float32)
        assert np.array_equal(add(x, x), 2 * x)
        print("ufunc", type(add).__module__)
        print("cpu jit", type(twice).__module__.split(".")[0], twice(3))
        config = numba.cuda.config
        config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
        print("forwarded", gpujit.config.CUDA_LOW_OCCUPANCY_WARNINGS)
    """))
    out = run([sys.executable, "-m", "gpujit", "run", str(program)], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ufunc gpujit.ufunc" in out.stdout
    assert "cpu jit numba 6" in out.stdout
    assert "forwarded 0" in out.stdout


@needs_numba_cuda
def test_install_in_the_program_and_names_imported_before(tmp_path):
    # A program may opt in itself; numba.cuda imported before the call is bound too.
    program = write(tmp_path, "optin.py", textwrap.dedent("""
        import numba.cuda
        import gpujit
        assert not gpujit.numba_shim_active()
        assert numba.cuda.jit is not gpujit.jit
        print(gpujit.install_numba_shim(), gpujit.install_numba_shim())
        from numba.cuda import jit, grid
        print(jit is gpujit.jit, grid is gpujit.grid, numba.cuda.to_device is gpujit.to_device)
        try:
            gpujit.install_numba_shim(standalone=True)
        except RuntimeError as e:
            print("refused:", e)
    """))
    out = run([sys.executable, str(program)], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "numba-cuda numba-cuda" in out.stdout
    assert "True True True" in out.stdout
    assert "refused: the numba shim is already installed in 'numba-cuda' mode" in out.stdout


def numba_free_path(tmp_path):
    """A folder holding gpujit and NumPy (links into this environment's site-packages) and nothing of numba."""
    site = tmp_path / "site"
    if site.exists():
        return site
    site.mkdir()
    for module in (gpujit, __import__("numpy")):
        folder = Path(module.__file__).resolve().parent
        (site / folder.name).symlink_to(folder)
        libs = folder.parent / (folder.name + ".libs")
        if libs.exists():
            (site / libs.name).symlink_to(libs)
    return site


def run_without_numba(tmp_path, args):
    # -S: no site-packages (and no .pth files: numba-cuda's redirector is one), so numba cannot be found.
    return run([sys.executable, "-S"] + args, cwd=tmp_path, env={"PYTHONPATH": str(numba_free_path(tmp_path))})


def test_standalone_without_numba(tmp_path):
    program = write(tmp_path, "prog.py", PROGRAM)
    probe = run_without_numba(tmp_path, ["-c", "import numba"])
    assert probe.returncode != 0 and "No module named 'numba'" in probe.stderr
    out = run_without_numba(tmp_path, ["-m", "gpujit", "run", str(program), "x"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "shim True standalone" in out.stdout
    assert "jit is gpujit's True" in out.stdout
    assert "argv ['x'] __main__" in out.stdout


def test_standalone_modules_and_their_errors(tmp_path):
    program = write(tmp_path, "modules.py", textwrap.dedent("""
        import numpy as np
        import numba
        from numba import cuda, njit, vectorize, types
        from numba.core.errors import TypingError
        import numba.cuda.libdevice, numba.cuda.fp16
        import gpujit

        @njit
        def square(x):  # plain Python on the host, a device function in a kernel
            return x * x

        @cuda.jit
        def k(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = square(a[i]) + numba.cuda.libdevice.fabs(np.float32(-1))

        a = np.arange(4, dtype=np.float32)
        k[1, 4](a)
        print("kernel", a.tolist(), square(3))
        print("types", types.float32 is gpujit.float32, numba.float32 is gpujit.float32)
        try:
            vectorize(["float32(float32)"], target="parallel")(lambda x: x)
        except NotImplementedError as e:
            print("vectorize:", e)
        try:
            cuda.no_such_name
        except AttributeError as e:
            print("missing:", e)
        print("typing", TypingError is gpujit.CompileError)
    """))
    out = run_without_numba(tmp_path, ["-m", "gpujit", "run", str(program)])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "kernel [1.0, 2.0, 5.0, 10.0] 9" in out.stdout
    assert "types True True" in out.stdout
    assert "numba.vectorize(target='parallel') needs numba installed" in out.stdout
    assert "missing: module 'numba.cuda' has no attribute 'no_such_name'" in out.stdout
    assert "typing True" in out.stdout


def test_run_usage_errors_and_the_program_s_exit_status(tmp_path):
    missing = run([sys.executable, "-m", "gpujit", "run", str(tmp_path / "nope.py")], cwd=tmp_path)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    empty = run([sys.executable, "-m", "gpujit", "run"], cwd=tmp_path)
    assert empty.returncode == 2 and "usage: python -m gpujit run" in empty.stderr
    failing = write(tmp_path, "fails.py", "import sys\nprint('ran')\nsys.exit(7)\n")
    out = run([sys.executable, "-m", "gpujit", "run", str(failing)], cwd=tmp_path)
    assert out.returncode == 7 and "ran" in out.stdout
    raising = write(tmp_path, "raises.py", "raise ValueError('from the program')\n")
    out = run([sys.executable, "-m", "gpujit", "run", str(raising)], cwd=tmp_path)
    assert out.returncode == 1 and "ValueError: from the program" in out.stderr


def test_run_a_module(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tool.py").write_text("import sys, gpujit\nprint('module', sys.argv[1:], gpujit.numba_shim_active())\n")
    out = run([sys.executable, "-m", "gpujit", "run", "-m", "pkg.tool", "a"], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "module ['a'] True" in out.stdout


def test_cli_tool_hands_run_over_to_python(tmp_path):
    tool = Path(sys.executable).parent / "gpujit"
    if not tool.exists():
        pytest.skip("no gpujit executable beside this interpreter")
    program = write(tmp_path, "hello.py", "import sys, gpujit\nprint('hello', sys.argv[1:], gpujit.numba_shim_active())\n")
    out = run([str(tool), "run", str(program), "--help"], cwd=tmp_path)  # the program's own option, untouched
    assert out.returncode == 0, out.stdout + out.stderr
    assert "hello ['--help'] True" in out.stdout
    helped = run([str(tool), "--help"], cwd=tmp_path)
    assert "run" in helped.stdout and "numba-cuda program" in helped.stdout


def test_cli_run_uses_the_python_beside_the_name_it_was_started_by(tmp_path):
    # A wheel install starts the tool through bin/gpujit (a console script or a link) while the binary lives in
    # the gpujit_core package; the Python to hand over to is the one in bin/, not one found on PATH.
    tool = Path(os.environ.get("GPUJIT_TEST_CLI") or Path(sys.executable).parent / "gpujit")
    if not tool.exists():
        pytest.skip("no gpujit executable beside this interpreter")
    if tool.read_bytes()[:4] != b"\x7fELF":
        pytest.skip(f"{tool} is a script, not the tool itself")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gpujit").symlink_to(tool.resolve())
    fake = bin_dir / "python3"
    fake.write_text("#!/bin/sh\necho \"the python beside: $*\"\n")
    fake.chmod(0o755)
    env = dict(os.environ)
    env.pop("GPUJIT_PYTHON", None)
    out = subprocess.run([str(bin_dir / "gpujit"), "run", "prog.py", "x"], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=60)
    assert out.stdout.strip() == "the python beside: -m gpujit run prog.py x", out.stdout + out.stderr


def test_info_reports_the_shim(tmp_path):
    out = run([sys.executable, "-m", "gpujit", "info"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "numba shim    off" in out.stdout
    assert gpujit.info()["numba_shim"] in (None, "numba-cuda", "standalone")


@needs_numba_cuda
def test_processes_the_program_starts_run_gpujit_too(tmp_path):
    site = Path(gpujit.__file__).resolve().parent.parent
    if not (site / "gpujit-numba-shim.pth").exists():
        pytest.skip("gpujit-numba-shim.pth is not installed beside this gpujit")
    program = write(tmp_path, "workers.py", textwrap.dedent("""
        import multiprocessing, subprocess, sys

        def which_jit(_):
            from numba import cuda
            import gpujit
            return cuda.jit is gpujit.jit

        if __name__ == "__main__":
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                print("worker", pool.map(which_jit, [0]))
            code = "from numba import cuda; import gpujit; print(cuda.jit is gpujit.jit)"
            child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            print("subprocess", child.stdout.strip())
    """))
    out = run([sys.executable, "-m", "gpujit", "run", str(program)], cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "worker [True]" in out.stdout
    assert "subprocess True" in out.stdout
    code = "from numba import cuda; import gpujit; print(cuda.jit is gpujit.jit)"
    plain = run([sys.executable, "-c", code], cwd=tmp_path)
    assert plain.returncode == 0 and "False" in plain.stdout  # without the variable, numba.cuda stays numba's


def test_cli_info_says_whether_python_processes_start_in_the_mode(tmp_path):
    tool = Path(sys.executable).parent / "gpujit"
    if not tool.exists():
        pytest.skip("no gpujit executable beside this interpreter")
    off = run([str(tool), "info"], cwd=tmp_path)
    assert "numba shim    off (gpujit run PROGRAM.py turns it on)" in off.stdout
    on = run([str(tool), "info"], cwd=tmp_path, env={"GPUJIT_NUMBA_SHIM": "1"})
    assert "numba shim    on (GPUJIT_NUMBA_SHIM=1" in on.stdout
