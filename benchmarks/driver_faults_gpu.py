"""Real-GPU check of the driver faults docs/reliability.md describes (the tests inject them with the fake
driver): the faults a real GPU can be made to raise, each in a fresh process, since a sticky error ends the
CUDA context for good.

    python benchmarks/driver_faults_gpu.py OUTDIR

Writes OUTDIR/driver_faults.json (each scenario: passed, the exception's class, .code, .recoverable and
message) and prints one line per scenario; exits non-zero if any scenario does not behave as documented.
Scenarios: a kernel storing to an illegal address (CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronize, sticky,
the message naming the kernel; later calls fail too), an allocation larger than the GPU (out of memory,
recoverable: the next launch works), and a collected kernel (its module unloaded, the process fine).
"""
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

PRELUDE = """
import json
import numpy as np
import gpujit as gpu
gpu.select_device("cuda")
out = {}
def record(e):
    out.update(type=type(e).__name__, code=getattr(e, "code", None), recoverable=getattr(e, "recoverable", None),
               message=str(e))
"""

SCENARIOS = {
    "illegal_address": """
@gpu.jit("void(int32*)")
def poke(p):
    p[0] = 1

poke[1, 1](8)  # a store to address 8: the launch succeeds, the fault surfaces later
try:
    gpu.synchronize()
except Exception as e:
    record(e)
try:
    gpu.to_device(np.zeros(4))
    out["later_call"] = "succeeded"
except Exception as e:
    out["later_call"] = getattr(e, "code", type(e).__name__)
out["passed"] = (out.get("code") == 700 and out.get("recoverable") is False and "'poke'" in out["message"]
                 and "restart the process" in out["message"] and out["later_call"] == 700)
""",
    "out_of_memory": """
@gpu.jit
def fill(a, v):
    i = gpu.grid(1)
    if i < a.size:
        a[i] = v

try:
    gpu.device_array(1 << 50, np.uint8)  # 1 PiB
except Exception as e:
    record(e)
d = gpu.to_device(np.zeros(256, np.float32))
fill[1, 256](d, 3.0)
out["next_launch_works"] = bool((d.copy_to_host() == 3.0).all())
out["passed"] = (out.get("code") == 2 and out.get("recoverable") is True and out["next_launch_works"]
                 and "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY" in out["message"])
""",
    "kernel_collected": """
import gc
@gpu.jit
def k(a):
    a[0] = 1

d = gpu.device_array(1, np.int32)
k[1, 1](d)
gpu.synchronize()
del k
gc.collect()
@gpu.jit
def k2(a):
    a[0] = 2

k2[1, 1](d)
out["passed"] = int(d.copy_to_host()[0]) == 2
""",
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    outdir = Path(sys.argv[1])
    outdir.mkdir(parents=True, exist_ok=True)
    results, ok = {}, True
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in SCENARIOS.items():
            script = Path(tmp) / f"{name}.py"  # in a file: gpujit compiles kernels from their source
            script.write_text(PRELUDE + textwrap.dedent(body) + "\nprint(json.dumps(out))\n")
            proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
            try:
                result = json.loads(proc.stdout.strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError):
                result = {"passed": False, "returncode": proc.returncode, "stderr": proc.stderr[-3000:]}
            results[name] = result
            ok &= bool(result.get("passed"))
            print(f"{name:<18} {'ok' if result.get('passed') else 'FAILED'}  {result.get('message', '')[:200]}")
    (outdir / "driver_faults.json").write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
