"""The compiler's background warm-up (compiler/warm_up.h): started by the first kernel a program defines (not by
`import gpujit`), it must never change what compiles, hang a fork() right after the definition, or keep a
process from exiting."""

import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import math, os, sys
    import gpujit as gpu

    @gpu.jit
    def k(a):
        i = gpu.grid(1)
        if i < a.size:
            a[i] = math.erf(a[i]) + math.exp(a[i]) + math.log(a[i])

    SIG = "void(float64[::1])"
    if sys.argv[1] == "fork":
        # Right after the definition the warm-up is still compiling: the fork waits for it (pthread_atfork), so
        # the child inherits no lock it holds and compiles.
        pid = os.fork()
        if pid == 0:
            ok = ".entry" in k.inspect_ptx(SIG)
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
    print(k.inspect_ptx(SIG))
""")


def run(tmp_path, mode, warm_up):
    path = tmp_path / "warm_up_program.py"
    path.write_text(PROGRAM)
    env = dict(os.environ, GPUJIT_WARM_UP=warm_up)
    out = subprocess.run([sys.executable, str(path), mode], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_warm_up_changes_no_code(tmp_path):
    assert run(tmp_path, "plain", "1") == run(tmp_path, "plain", "0")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_fork_right_after_the_import_compiles_in_the_child(tmp_path):
    assert ".entry" in run(tmp_path, "fork", "1")


def test_a_process_that_exits_at_once_is_not_held_up(tmp_path):
    # The interpreter ends while the warm-up may still run: the atexit join lets it finish, no crash.
    out = subprocess.run([sys.executable, "-c", "import gpujit"], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, GPUJIT_WARM_UP="1"))
    assert out.returncode == 0, out.stderr


def test_the_first_kernel_starts_the_warm_up_and_import_alone_does_not():
    # `import gpujit` alone must not start it: a process that compiles nothing would wait for it at exit,
    # most of a short process' time (benchmarks/import_time.py).
    probe = textwrap.dedent("""
        import gpujit as gpu
        from gpujit import _dispatcher
        print(_dispatcher._warm_up_started)

        @gpu.jit
        def k(a):
            pass

        print(_dispatcher._warm_up_started)
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, GPUJIT_WARM_UP="1"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
