"""`import gpujit` stays cheap (issue 31; benchmarks/import_time.py measures it): the standard-library modules
only introspection and ahead-of-time tools need are imported by the functions that use them, and nothing
starts a thread a short process would wait for at exit."""

import os
import subprocess
import sys

# Each costs milliseconds at start (tokenize, which linecache brings, and subprocess the most) and is needed
# only by some functions: compile_ptx's tools, SASS and resource figures, generated kernels' source text,
# CUDA C's cache key (hashlib), ctypes pointers of driver memory.
LAZY = {"subprocess", "tempfile", "shutil", "linecache", "tokenize", "re", "inspect", "pathlib", "hashlib", "ctypes",
        "threading"}
# The package's own modules most programs never need (gpujit/_lazy.py): imported at first use of a name they
# define, or by the first kernel that needs them (the extension API's registry, linking).
LAZY_PACKAGE_MODULES = {
    "gpujit._linking", "gpujit._module_callbacks", "gpujit._numba_shim", "gpujit._overloads", "gpujit._overload_types",
    "gpujit.extending", "gpujit.ufunc", "gpujit.reduction", "gpujit._cuda_c", "gpujit._memory_manager", "gpujit._ipc",
    "gpujit._memory_pointers", "gpujit._deallocations", "gpujit._runtime_api", "gpujit.cudadrv", "gpujit._host_memory",
    "gpujit.random", "gpujit.fp8", "gpujit.fp16", "gpujit.bf16", "gpujit.libdevice", "gpujit._compile",
    "gpujit._driver_memory"}

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


def test_import_gpujit_loads_none_of_the_lazy_package_modules():
    assert modules_added_by_import() & LAZY_PACKAGE_MODULES == set()


def run_python(code, **env):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, GPUJIT_WARM_UP="1", **env))
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_every_lazy_public_name_resolves_and_is_listed():
    # gpujit.X and `from gpujit import X` for each name left to first use, each the object its module defines,
    # and dir(gpujit) lists them before they are used.
    out = run_python("""
import importlib, gpujit
from gpujit import _lazy
listed = set(dir(gpujit))
assert set(_lazy.PUBLIC) <= listed, set(_lazy.PUBLIC) - listed
for name, (module, attribute) in sorted(_lazy.PUBLIC.items()):
    mod = importlib.import_module("gpujit." + module)
    expected = mod if attribute is None else getattr(mod, attribute)
    assert getattr(gpujit, name) is expected, name
    ns = {}
    exec(f"from gpujit import {name}", ns)
    assert ns[name] is expected, name
assert not hasattr(gpujit, "no_such_name")
print("ok", len(_lazy.PUBLIC))
""")
    assert out.startswith("ok")


def test_star_import_still_gives_every_public_name():
    out = run_python("""
import gpujit
names = sorted(n for n in dir(gpujit) if not n.startswith("_"))
ns = {}
exec("from gpujit import *", ns)
missing = [n for n in names if n not in ns]
assert not missing, missing
assert ns["vectorize"] is gpujit.vectorize and ns["jit"] is gpujit.jit
print("ok")
""")
    assert out == "ok\n"


def test_a_lazy_name_is_imported_at_first_use_only():
    out = run_python("""
import sys, gpujit
assert "gpujit._cuda_c" not in sys.modules
gpujit.RawKernel
assert "gpujit._cuda_c" in sys.modules and "RawKernel" in vars(gpujit)
assert gpujit.random.__name__ == "gpujit.random"  # the module, not the kernel namespace of the same name
print("ok")
""")
    assert out == "ok\n"


def test_the_device_methods_of_the_memory_manager_load_at_first_use():
    # _memory_manager and _ipc add methods to the binding's Device and DeviceArray when imported; until then a
    # LoadOnUse stands under each name (_lazy.CLASS_ATTRIBUTES). The first use imports the module, and every
    # stub is replaced by the module's own attribute: no name of the module's is missing from the list.
    out = run_python("""
import sys, gpujit
from gpujit import _core, _lazy
before = {c: dict(vars(getattr(_core, c))) for c in _lazy.CLASS_ATTRIBUTES}
for c, (module, names) in _lazy.CLASS_ATTRIBUTES.items():
    assert all(isinstance(before[c][n], _lazy.LoadOnUse) for n in names), c
device = gpujit.get_current_device()
info = device.get_memory_info()  # the manager's: a MemoryInfo with free and total
assert info.total >= info.free >= 0, info
assert "gpujit._memory_manager" in sys.modules
import gpujit._ipc
for c, (module, names) in _lazy.CLASS_ATTRIBUTES.items():
    after = vars(getattr(_core, c))
    assert not [n for n, v in after.items() if isinstance(v, _lazy.LoadOnUse)], c
    changed = {n for n in after if after[n] is not before[c].get(n)}
    assert changed == set(names), (c, changed ^ set(names))
device.memory_manager = None  # the setter: gpujit's own allocator
assert type(device.memory_manager).__name__ == "GpujitMemoryManager"
print("ok")
""")
    assert out == "ok\n"


def test_reloading_gpujit_keeps_the_device_methods():
    out = run_python("""
import importlib, gpujit
from gpujit import _core, _lazy
gpujit.get_current_device().reset  # _memory_manager is imported now
importlib.reload(gpujit)
assert not [n for n, v in vars(_core.Device).items() if isinstance(v, _lazy.LoadOnUse)]
assert type(gpujit.get_current_device().memory_manager).__name__ == "GpujitMemoryManager"
print("ok")
""")
    assert out == "ok\n"


def test_a_setter_before_first_use_loads_the_module():
    out = run_python("""
import gpujit
device = gpujit.get_current_device()
device.memory_manager = None
assert type(device.memory_manager).__name__ == "GpujitMemoryManager"
print("ok")
""")
    assert out == "ok\n"


def test_numba_cuda_memory_manager_still_hooks_the_first_use_at_import():
    # A plugin named in the environment is bound at each CUDA device's first use, so _memory_manager is imported
    # with gpujit then (its module is imported at that first use, not here).
    out = run_python("import sys, gpujit; print('gpujit._memory_manager' in sys.modules)",
                     NUMBA_CUDA_MEMORY_MANAGER="no_such_plugin_module")
    assert out == "True\n"


def test_the_overload_registry_gets_the_dispatcher_class_when_imported_late():
    out = run_python("""
import sys, gpujit
assert "gpujit._overloads" not in sys.modules
from gpujit import _overloads
assert _overloads._dispatcher_class is gpujit.Dispatcher
print("ok")
""")
    assert out == "ok\n"


def test_import_gpujit_loads_no_numpy():
    # NumPy is imported when an array first needs it; its cost is counted apart from gpujit's.
    assert "numpy" not in modules_added_by_import()


def test_the_lazy_imports_still_work():
    # The functions that import them when called: SASS-free ones that need no CUDA toolkit.
    from gpujit import _ptx_tools

    assert _ptx_tools.ptx_function_name(".visible .func (.param .b32 r) my_fn(\n") == "my_fn"
    ptx_const = ".const .align 4 .b32 table[4][2];"
    import re

    assert re.findall(_ptx_tools._CONST_DECL, ptx_const, re.M) == [("32", "[4][2]")]
