"""The on-disk cache's integrity (cache=True): damaged entries, folders that cannot be written, processes that
race to write the same entry, what invalidates an entry, and the device's machine code kept next to the PTX.

Each test runs kernels in fresh processes (a hit can only be seen in a process that did not compile). The
CUDA ones run on conftest's fake driver (or a real GPU), whose linker makes a fake cubin; the cpu-backend
ones compile PTX through inspect_ptx, the cache's path on a machine without a GPU.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpujit as gpu
from conftest import FAKE_LIB, cuda_device_here

HELPERS = """
import gpujit as gpu


@gpu.jit(device=True)
def offset(x):
    return x + {offset}
"""

# A constant of its own module: changing it changes no source text the key reads, only the value.
CONSTS = """
SCALE = {scale}
"""

MODULE = """
import gpujit as gpu
from cache_consts import SCALE
from cache_helpers import offset


@gpu.jit(cache=True)
def scale(a, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = offset(a[i]) * SCALE


@gpu.jit(cache=True)
def twice(a, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a[i] * 2
"""

# argv: project folder, mode ("launch": CUDA backend; "inspect": inspect_ptx on the cpu backend), kernels to
# use (comma-separated). Prints one JSON line: cache counters, the CacheWarnings seen, the results, and the
# fake driver's module-loading calls when it is the driver.
CHILD = """
import ctypes, json, os, sys, warnings
import numpy as np
import gpujit as gpu

sys.path.insert(0, sys.argv[1])
driver = os.environ.get("GPUJIT_CUDA_DRIVER", "")
lib = None
if driver.endswith("libfakecuda.so"):
    lib = ctypes.CDLL(driver)
    lib.fakecuda_calls.restype = ctypes.c_long
    lib.fakecuda_calls.argtypes = [ctypes.c_char_p]
    lib.fakecuda_fail.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    if os.environ.get("CHILD_FAIL"):  # "function:code": the fake driver's next call of it fails so
        function, code = os.environ["CHILD_FAIL"].split(":")
        lib.fakecuda_fail(function.encode(), int(code), 0)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    import cached_kernels as mod
    out = {"ok": []}
    for name in sys.argv[3].split(","):
        k = getattr(mod, name)
        if sys.argv[2] == "launch":
            gpu.select_device("cuda")
            a = np.arange(8, dtype=np.float32)
            res = np.zeros_like(a)
            k[1, 8](a, res)
            out["ok"].append(res.tolist())
        else:
            gpu._core._set_backend("cpu")
            out["ok"].append(len(k.inspect_ptx("void(float32[::1], float32[::1])")))
kernels = [getattr(mod, n) for n in sys.argv[3].split(",")]
out["hits"] = sum(sum(k.stats.cache_hits.values()) for k in kernels)
out["misses"] = sum(sum(k.stats.cache_misses.values()) for k in kernels)
out["code_hits"] = sum(k._stats["machine_code_hits"] for k in kernels)
out["code_misses"] = sum(k._stats["machine_code_misses"] for k in kernels)
out["path"] = kernels[0].stats.cache_path
out["warnings"] = [str(w.message) for w in seen if issubclass(w.category, gpu.CacheWarning)]
if lib is not None:
    out["calls"] = {f: lib.fakecuda_calls(f.encode()) for f in
                    ("cuModuleLoadData", "cuModuleLoadDataEx", "cuLinkComplete", "cuLinkDestroy")}
print(json.dumps(out))
"""



class Project:
    """A folder holding cached_kernels.py, cache_consts.py and cache_helpers.py, and fresh processes that use
    them."""

    def __init__(self, root, cache_dir):
        self.root = root
        self.cache_dir = cache_dir
        (root / "child.py").write_text(CHILD)
        self.write()

    def write(self, scale=2.0, offset=1.0):
        (self.root / "cached_kernels.py").write_text(MODULE)
        (self.root / "cache_consts.py").write_text(CONSTS.format(scale=scale))
        (self.root / "cache_helpers.py").write_text(HELPERS.format(offset=offset))

    def start(self, mode="launch", kernels="scale", **env_vars):
        env = dict(os.environ)
        env.pop("GPUJIT_CACHE_DIR", None)
        if self.cache_dir is not None:
            env["GPUJIT_CACHE_DIR"] = str(self.cache_dir)
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # the child must read a rewritten module's new source
        env.update(env_vars)
        return subprocess.Popen([sys.executable, str(self.root / "child.py"), str(self.root), mode, kernels],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    @staticmethod
    def finish(proc):
        stdout, stderr = proc.communicate(timeout=180)
        assert proc.returncode == 0, stderr
        return json.loads(stdout.strip().splitlines()[-1])

    def run(self, mode="launch", kernels="scale", **env_vars):
        return self.finish(self.start(mode, kernels, **env_vars))

    def entries(self, pattern="cached_kernels.scale.*.gpujit"):
        return sorted(Path(self.cache_dir).glob(pattern))


EXPECTED = [(i + 1.0) * 2.0 for i in range(8)]
TWICE = [i * 2.0 for i in range(8)]


def ran(r, *expected):
    """Whether the child's launches gave `expected`; the fake driver runs no kernel, so there only that they
    launched."""
    return len(r["ok"]) == len(expected) and (FAKE_LIB is not None or r["ok"] == list(expected))


@pytest.fixture
def project(tmp_path):
    if not cuda_device_here():
        pytest.skip("no CUDA driver loads here (conftest's fake driver would)")
    root = tmp_path / "project"
    root.mkdir()
    return Project(root, tmp_path / "cache")


@pytest.fixture
def cpu_project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    return Project(root, tmp_path / "cache")


def counters(r):
    return r["hits"], r["misses"]


# ---------------------------------------------------------------------------------------------------------
# Damaged entries


def damage(path, how):
    data = path.read_bytes()
    if how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flip":
        path.write_bytes(data[:-40] + bytes([data[-40] ^ 1]) + data[-39:])
    elif how == "empty":
        path.write_bytes(b"")
    else:  # garbage of the right length
        path.write_bytes(bytes(len(data)))
    return data


@pytest.mark.parametrize("how", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_entry_warns_once_and_is_rebuilt(project, how):
    project.run(kernels="scale,twice")
    entries = project.entries("cached_kernels.*.gpujit")
    assert len(entries) == 2
    good = [damage(e, how) for e in entries]
    r = project.run(kernels="scale,twice")
    assert ran(r, EXPECTED, TWICE)
    assert counters(r) == (0, 2)
    assert len(r["warnings"]) == 1  # two damaged entries, one warning per process
    assert "damaged" in r["warnings"][0] and "compiled again" in r["warnings"][0]
    assert [e.read_bytes() for e in entries] == good  # rewritten, whole
    again = project.run(kernels="scale,twice")
    assert counters(again) == (2, 0) and again["warnings"] == []


@pytest.mark.parametrize("how", ["truncate", "flip"])
def test_a_damaged_entry_on_the_cpu_backend_is_rebuilt(cpu_project, how):
    first = cpu_project.run("inspect")
    assert counters(first) == (0, 1)
    [entry] = cpu_project.entries()
    good = damage(entry, how)
    r = cpu_project.run("inspect")
    assert counters(r) == (0, 1) and r["ok"] == first["ok"]
    assert len(r["warnings"]) == 1 and "damaged" in r["warnings"][0]
    assert entry.read_bytes() == good
    assert counters(cpu_project.run("inspect")) == (1, 0)


# ---------------------------------------------------------------------------------------------------------
# Folders that cannot be used


def test_a_folder_that_cannot_be_made_warns_once_and_compiles(tmp_path):
    (tmp_path / "a_file").write_text("in the way")
    root = tmp_path / "project"
    root.mkdir()
    project = Project(root, tmp_path / "a_file" / "cache")
    r = project.run("inspect", kernels="scale,twice")
    assert r["ok"][0] > 0 and r["ok"][1] > 0  # compiled all the same
    assert r["path"] is None and counters(r) == (0, 0)
    assert len(r["warnings"]) == 1  # two kernels, one warning
    assert "cannot be cached" in r["warnings"][0] and "GPUJIT_CACHE_DIR" in r["warnings"][0]


def test_a_folder_whose_entries_cannot_be_written_warns_once(tmp_path):
    # /proc/self is a folder no one can create files in, root included (a read-only folder would not stop root).
    root = tmp_path / "project"
    root.mkdir()
    project = Project(root, "/proc/self")
    r = project.run("inspect", kernels="scale,twice")
    assert r["ok"][0] > 0 and r["ok"][1] > 0
    assert len(r["warnings"]) == 1 and "cannot be cached" in r["warnings"][0]


def test_a_missing_folder_is_made_private(cpu_project):
    cpu_project.cache_dir = cpu_project.root.parent / "new" / "deeper" / "cache"
    r = cpu_project.run("inspect")
    assert r["warnings"] == [] and counters(r) == (0, 1)
    for folder in (cpu_project.root.parent / "new", cpu_project.cache_dir):
        assert folder.stat().st_mode & 0o777 == 0o700
    assert counters(cpu_project.run("inspect")) == (1, 0)


def test_a_folder_removed_between_processes_is_made_again(cpu_project):
    cpu_project.run("inspect")
    for f in cpu_project.cache_dir.iterdir():
        f.unlink()
    cpu_project.cache_dir.rmdir()
    r = cpu_project.run("inspect")
    assert counters(r) == (0, 1) and r["warnings"] == []
    assert len(cpu_project.entries()) == 1


# ---------------------------------------------------------------------------------------------------------
# Processes racing


@pytest.mark.parametrize("mode", ["launch", "inspect"])
def test_processes_compiling_the_same_kernel_at_once(tmp_path, mode):
    if mode == "launch" and not cuda_device_here():
        pytest.skip("no CUDA driver loads here")
    root = tmp_path / "project"
    root.mkdir()
    project = Project(root, tmp_path / "cache")
    procs = [project.start(mode, kernels="scale,twice") for _ in range(4)]
    results = [project.finish(p) for p in procs]
    for r in results:
        assert r["warnings"] == []  # nobody read half an entry
        assert sum(counters(r)) == 2
    # Whatever the interleaving, one whole entry per kernel and no temporary file is left.
    names = sorted(f.name for f in project.cache_dir.iterdir())
    assert not [n for n in names if ".tmp." in n], names
    assert len(project.entries("cached_kernels.*.gpujit")) == 2
    after = project.run(mode, kernels="scale,twice")
    assert counters(after) == (2, 0) and after["warnings"] == []
    assert after["ok"] == results[0]["ok"]


# ---------------------------------------------------------------------------------------------------------
# What invalidates an entry


def test_every_input_of_the_code_changes_the_key(cpu_project):
    assert counters(cpu_project.run("inspect")) == (0, 1)
    cpu_project.write(scale=3.0)  # a global constant (of another module)
    assert counters(cpu_project.run("inspect")) == (0, 1)
    cpu_project.write(scale=3.0, offset=2.0)  # a device function in another module
    assert counters(cpu_project.run("inspect")) == (0, 1)
    source = cpu_project.root / "cached_kernels.py"
    source.write_text(source.read_text().replace("* SCALE", "* SCALE + 0.5"))  # the kernel's own source
    assert counters(cpu_project.run("inspect")) == (0, 1)
    assert counters(cpu_project.run("inspect")) == (1, 0)
    assert len(cpu_project.entries()) == 4
    # The options: fastmath compiles other code, so another entry.
    source.write_text(source.read_text().replace("@gpu.jit(cache=True)\ndef scale",
                                                 "@gpu.jit(cache=True, fastmath=True)\ndef scale"))
    assert counters(cpu_project.run("inspect")) == (0, 1)
    assert len(cpu_project.entries()) == 5
    # gpujit's, LLVM's versions and the architecture: tests/unit/codegen/cache_key_test.cpp.


# ---------------------------------------------------------------------------------------------------------
# The device's machine code


def needs_fake():
    if FAKE_LIB is None:
        pytest.skip("counts the fake driver's calls")


def test_a_hit_loads_the_cubin_without_the_ptx_jit(project):
    needs_fake()
    first = project.run()
    assert ran(first, EXPECTED)
    assert (first["code_hits"], first["code_misses"]) == (0, 1)
    assert first["calls"]["cuLinkComplete"] == 1 and first["calls"]["cuLinkDestroy"] == 1
    [code] = project.entries("cached_kernels.scale.*.cuda13000.sm_90.gpujitbin")
    second = project.run()
    assert ran(second, EXPECTED)
    assert (second["hits"], second["code_hits"], second["code_misses"]) == (1, 1, 0)
    assert second["calls"]["cuLinkComplete"] == 0 and second["calls"]["cuModuleLoadDataEx"] == 0
    assert second["calls"]["cuModuleLoadData"] == 1
    assert code.read_bytes().count(b"FAKECUBIN 13000 9.0") == 1


def test_the_cubin_is_keyed_by_driver_and_compute_capability(project):
    needs_fake()
    project.run()
    newer = project.run(FAKECUDA_DRIVER_VERSION="13010")
    assert (newer["hits"], newer["code_hits"], newer["code_misses"]) == (1, 0, 1)  # same PTX, new cubin
    assert len(project.entries("cached_kernels.scale.*.gpujitbin")) == 2
    other = project.run(FAKECUDA_CC="8.9")
    assert (other["code_hits"], other["code_misses"]) == (0, 1)  # sm_89 PTX: a PTX miss too
    assert other["misses"] == 1
    assert len(project.entries("cached_kernels.scale.*.gpujitbin")) == 3
    assert project.run(FAKECUDA_DRIVER_VERSION="13010")["code_hits"] == 1


@pytest.mark.parametrize("how", ["truncate", "flip"])
def test_a_damaged_cubin_warns_and_is_linked_again(project, how):
    needs_fake()
    project.run()
    [code] = project.entries("cached_kernels.scale.*.gpujitbin")
    good = damage(code, how)
    r = project.run()
    assert ran(r, EXPECTED)
    assert (r["hits"], r["code_hits"], r["code_misses"]) == (1, 0, 1)
    assert len(r["warnings"]) == 1 and "damaged" in r["warnings"][0]
    assert code.read_bytes() == good
    assert project.run()["code_hits"] == 1


def test_a_cubin_the_driver_refuses_falls_back_to_the_ptx(project):
    needs_fake()
    project.run()
    # The driver refuses the cached cubin (CUDA_ERROR_INVALID_IMAGE, as for another device's code): the
    # kernel is loaded from its PTX, warned about once, and the cubin made again.
    r = project.run(CHILD_FAIL="cuModuleLoadData:200")
    assert ran(r, EXPECTED)
    assert (r["hits"], r["code_hits"], r["code_misses"]) == (1, 0, 1)
    assert r["calls"]["cuLinkComplete"] == 1
    assert len(r["warnings"]) == 1
    assert project.run()["code_hits"] == 1


# ---------------------------------------------------------------------------------------------------------
# The kernel's text, read on every hit: _source._block finds a def's end by its indentation (checked by
# compiling the cut) and leaves every doubtful case to inspect.getblock; both must always agree.

BLOCKS = [
    "def k(a):\n    a[0] = 1\n",
    "@gpu.jit\ndef k(a):\n    a[0] = 1\n\n\nx = 2\n",
    "@gpu.jit('void(float32[:])',\n         fastmath=True)\ndef k(a):\n    a[0] = 1\ny = 1\n",
    "def k(a,\n      b):\n    a[0] = b[0]\nz = 3\n",
    "def k(a):\n    '''doc\nat column 0\n    '''\n    a[0] = 1\nw = 1\n",
    "def k(a):\n    s = (1 +\n2)\n    a[0] = s\nq = 1\n",
    "def k(a):\n    a[0] = 1 + \\\n2\n    # inner comment\n    a[1] = 2\n    # trailing comment\n\nr = 0\n",
    "    @gpu.jit\n    def k(a):\n        a[0] = 1\n    return k\n",
    "def k(a): a[0] = 1\nnext_one = 1\n",
    "def k(a):\n\ta[0] = 1\nt = 1\n",
    "async def k(a):\n    pass\nu = 1\n",
    "def k(a):\n    if a[0]:\n        a[0] = 1\n    else:\n        a[0] = 2\n# a comment at column 0\nv = 1\n",
    "@gpu.jit(cache=True)\n\ndef k(a):\n    a[0] = 1\nv = 1\n",
    "@gpu.jit\n# the kernel\n@other\n\ndef k(a):\n    a[0] = 1\n\nv = 1\n",
]

# The plain defs: found without the tokenizer (whose first use costs about 2 ms of a disk-cache hit).
FAST_BLOCKS = [BLOCKS[i] for i in (0, 1, 7, 12, 13)]


@pytest.mark.parametrize("text", BLOCKS)
def test_the_fast_block_finder_agrees_with_inspect(text):
    import inspect

    from gpujit import _source

    lines = text.splitlines(keepends=True)
    assert _source._block(lines) == inspect.getblock(lines)


@pytest.mark.parametrize("text", FAST_BLOCKS)
def test_plain_defs_are_cut_without_the_tokenizer(text, monkeypatch):
    from gpujit import _source

    def no_tokenizer(lines):
        raise AssertionError("fell back to inspect.getblock")

    monkeypatch.setattr(_source, "_getblock", no_tokenizer)
    assert _source._block(text.splitlines(keepends=True))
