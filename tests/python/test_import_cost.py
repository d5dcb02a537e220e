"""`import gpujit` stays cheap (issue 31; benchmarks/import_time.py measures it): the standard-library modules
only introspection and ahead-of-time tools need are imported by the functions that use them, and nothing
starts a thread a short process would wait for at exit."""

import os
import subprocess
import sys

# Each costs milliseconds at start (tokenize, which linecache brings, and subprocess the most) and is needed
# only by some functions: compile_ptx's tools, SASS and resource figures, generated kernels' source text,
# CUDA C's cache key (hashlib), ctypes pointers of driver memory.
LAZY = {"subprocess", "tempfile", "shutil", "linecache", "tokenize", "re", "inspect", "pathlib", "hashlib", "ctypes"}

PROBE = ("import sys; before = set(sys.modules); import gpujit; "
         "print(' '.join(sorted(set(sys.modules) - before)))")


def modules_added_by_import():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, GPUJIT_WARM_UP="1"))
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_import_gpujit_loads_none_of_the_lazy_modules():
    # Measured against the same interpreter's start: a module its site already imports (a .pth file of
    # another package may import re or pathlib) is not gpujit's to avoid.
    assert modules_added_by_import() & LAZY == set()


def test_import_gpujit_loads_no_numpy():
    # NumPy is imported when an array first needs it; its cost is counted apart from gpujit's.
    assert "numpy" not in modules_added_by_import()


def test_the_lazy_imports_still_work():
    # The functions that import them when called: SASS-free ones that need no CUDA toolkit.
    from gpujit import _dispatcher

    assert _dispatcher._ptx_function_name(".visible .func (.param .b32 r) my_fn(\n") == "my_fn"
    ptx_const = ".const .align 4 .b32 table[4][2];"
    import re

    assert re.findall(_dispatcher._CONST_DECL, ptx_const, re.M) == [("32", "[4][2]")]
