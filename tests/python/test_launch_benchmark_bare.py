"""benchmarks/launch_fake_driver.py's bare launcher (launch_floor.cpp built against the fake driver) builds and
launches, and the script times both sides; the callgrind counts themselves are not run here (minutes)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CUDA_H = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "include" / "cuda.h"


@pytest.mark.skipif(shutil.which("g++") is None or not CUDA_H.exists(), reason="needs g++ and the CUDA toolkit's cuda.h")
@pytest.mark.parametrize("extra", [["--bare"], []])
def test_the_bare_launcher_and_gpujit_time_every_shape(extra, fake):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", GPUJIT_WARM_UP="0")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "launch_fake_driver.py"), "--n", "50",
                          "--rounds", "1", *extra], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines()[1:]]
    # gpujit's side also launches 3 foreign arrays (objects with __cuda_array_interface__ alone) and 3 tensors
    # read through DLPack's C exchange API; the bare launcher has one kind of array.
    assert [" ".join(r[:-1]) for r in rows] == ["0 args", "1 array", "3 arrays", "16 arrays", "16 scalars",
                                                "256 scalars"] + ([] if extra else ["3 foreign", "3 exchange"])
    assert all(float(r[-1]) > 0 for r in rows)


def test_the_bare_launcher_refuses_a_shape_it_does_not_have(fake):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import launch_fake_driver
    finally:
        sys.path.pop(0)
    if shutil.which("g++") is None or not CUDA_H.exists():
        pytest.skip("needs g++ and the CUDA toolkit's cuda.h")
    code = (f"import ctypes, importlib.util; p = {str(launch_fake_driver.bare_launcher())!r}; "
            "ctypes.CDLL(p).gpujit_floor_init(); s = importlib.util.spec_from_file_location('launch_floor', p); "
            "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); m.launch(0); m.launch(6)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "ValueError: gpujit_floor_init() first, and a shape index" in out.stderr


def test_the_exchange_rows_library_part_runs_alone(fake):
    # --instructions takes the exchange function's own calls out of the "3 exchange" row by counting them
    # apart: `--library` makes only those calls (_core._library_read_ns), N per round.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", GPUJIT_WARM_UP="0")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "launch_fake_driver.py"), "--n", "50",
                          "--rounds", "1", "--only", "3 exchange", "--library"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines()[1:]]
    assert [r[:-1] for r in rows] == [["3", "exchange", "(library)"]] and float(rows[0][-1]) > 0
