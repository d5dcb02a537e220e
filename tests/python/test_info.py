"""`gpujit info`, `python -m gpujit info` and gpujit.info(): what they report on the CPU backend, against the
fake CUDA driver and with no driver at all. Each case runs in a fresh process, since the driver and the
backend are chosen once per process."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gpujit
from conftest import build_fake_driver


def run(args, **env_changes):
    env = {k: v for k, v in os.environ.items() if k not in ("GPUJIT_DEVICE", "GPUJIT_BACKEND")}
    env.update(env_changes)
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, cwd="/tmp")


def info_in_child(**env_changes):
    code = "import gpujit, json; print(json.dumps(gpujit.info()))"
    out = run([sys.executable, "-c", code], **env_changes)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def cli_tool():
    """The `gpujit` executable of this interpreter's environment, if there is one; GPUJIT_TEST_CLI names another
    (scripts/sanitize: the sanitized build's)."""
    if os.environ.get("GPUJIT_TEST_CLI"):
        return os.environ["GPUJIT_TEST_CLI"]
    here = Path(sys.executable).parent / "gpujit"
    return str(here) if here.exists() else shutil.which("gpujit")


def test_cpu_backend_and_cache_size(tmp_path):
    cache = tmp_path / "cache"
    (cache / "sub").mkdir(parents=True)
    (cache / "a.gpujit").write_bytes(b"x" * 1000)
    (cache / "sub" / "b.gpujit").write_bytes(b"y" * 24)
    info = info_in_child(GPUJIT_DEVICE="cpu", GPUJIT_CACHE_DIR=str(cache), GPUJIT_CUDA_DRIVER=str(build_fake_driver()))
    assert info["gpujit_version"] == gpujit.__version__
    assert re.fullmatch(r"22\.\d+\.\d+.*", info["llvm_version"])
    assert info["backend"] == "cpu" and info["backend_reason"] == "GPUJIT_DEVICE=cpu chooses it"
    assert Path(info["core_library"]).name == "libgpujit_core.so" and Path(info["core_library"]).is_file()
    assert info["libdevice"] is not None and Path(info["libdevice"]).name == "libdevice.10.bc"
    assert ".." not in Path(info["libdevice"]).parts and ".." not in Path(info["core_library"]).parts
    assert (info["cache_directory"], info["cache_files"], info["cache_bytes"]) == (str(cache), 2, 1024)
    assert f"{cache}: 2 files, 1.0 KiB" in info["text"]
    assert "__pycache__" not in info["text"]  # GPUJIT_CACHE_DIR holds every kernel


def test_fake_driver_devices():
    info = info_in_child(GPUJIT_CUDA_DRIVER=str(build_fake_driver()))
    assert info["driver"] == str(build_fake_driver()) and info["driver_version"] == 13000
    assert info["devices"] and info["devices"][0]["name"] == "Fake CUDA Device 0"
    assert all(len(d["compute_capability"]) == 2 and d["compute_capability"][0] >= 7 for d in info["devices"])
    assert info["backend"] == "cuda"
    n = len(info["devices"])
    assert info["backend_reason"] == f"the CUDA driver sees {n} device{'' if n == 1 else 's'}"
    cc = info["devices"][0]["compute_capability"]
    assert re.search(rf"^devices +cuda:0 Fake CUDA Device 0, compute capability {cc[0]}\.{cc[1]}, ", info["text"], re.M)
    assert "(CUDA 13.0)" in info["text"]


def test_no_driver():
    info = info_in_child(GPUJIT_CUDA_DRIVER="/nonexistent/libcuda.so.1")
    assert info["driver"] is None and info["devices"] == []
    assert "/nonexistent/libcuda.so.1" in info["driver_error"]
    assert info["backend"] == "cpu" and info["backend_reason"] == "no CUDA driver"
    assert re.search(r"^CUDA driver +not loaded: ", info["text"], re.M)
    assert re.search(r"^backend +cpu \(no CUDA driver; kernels run on the CPU\)$", info["text"], re.M)


def test_python_m_gpujit():
    out = run([sys.executable, "-m", "gpujit", "info"], GPUJIT_DEVICE="cpu")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"gpujit        {gpujit.__version__}"
    assert any(re.fullmatch(r"backend +cpu \(GPUJIT_DEVICE=cpu chooses it; kernels run on the CPU\)", l) for l in lines)
    assert f"python        {sys.version.split()[0]} ({sys.executable})" in lines
    assert any(l.startswith("numpy         ") for l in lines)
    version = run([sys.executable, "-m", "gpujit", "--version"])
    assert re.fullmatch(rf"gpujit {re.escape(gpujit.__version__)} \(LLVM 22\.\d+\.\d+.*\)\n", version.stdout)
    bad = run([sys.executable, "-m", "gpujit"])
    assert bad.returncode == 2 and "give --version or a command" in bad.stderr


def test_cli_info_matches_python():
    tool = cli_tool()
    if tool is None:
        pytest.skip("no gpujit executable in this environment")
    env = {"GPUJIT_DEVICE": "cpu", "GPUJIT_CUDA_DRIVER": str(build_fake_driver())}
    out = run([tool, "info"], **env)
    assert out.returncode == 0, out.stderr
    # The same core library reports the same lines as the Python side (which adds python, package, numpy).
    py = run([sys.executable, "-m", "gpujit", "info"], **env)
    assert py.stdout.startswith(out.stdout)
    assert re.search(r"^devices +cuda:0 Fake CUDA Device 0, compute capability \d+\.\d+", out.stdout, re.M)
    version = run([tool, "--version"])
    assert version.returncode == 0
    assert re.fullmatch(rf"gpujit {re.escape(gpujit.__version__)} \(LLVM 22\.\d+\.\d+.*\)\n", version.stdout)
