"""SASS instruction counts of the throughput kernels: gpujit next to nvcc on the same algorithm (no GPU needed).

    .venv/bin/python benchmarks/sass_compare.py [--arch sm_90] [--gpujit build/dev/cli/gpujit] [--flags ...]

Takes the kernels of benchmarks/kernel_throughput.py (the numba-dialect source and its CUDA C twin), compiles
the first with the gpujit CLI (--index32 by default, as a launch with arrays under 2 GiB does) and the second
with nvcc, assembles both with ptxas and counts the SASS instructions cuobjdump prints for each kernel: all
of them, and those of its innermost loop (the instructions between a backward branch and its target). It
needs the CUDA toolkit's nvcc and ptxas and cuobjdump + nvdisasm (pip install nvidia-cuda-cuobjdump
nvidia-cuda-nvdisasm, then put their bin folder on PATH).
"""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIGNATURES = {
    "vadd": "void(float32[::1], float32[::1], float32[::1])",
    "matmul": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
    "reduce_sum": "void(float32[::1], float32[::1])",
    "transpose": "void(float32[:, ::1], float32[:, ::1])",
    "histogram": "void(int32[::1], int32[::1])",
}
LINE = re.compile(r"^\s+/\*([0-9a-f]{4})\*/\s+([^;]*);")


def sass(cubin):
    """{function name: [(address, instruction), ...]} from cuobjdump, NOP padding left out."""
    out = subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    functions, current = {}, None
    for line in out.splitlines():
        if m := re.match(r"\s+Function : (\S+)", line):
            current = functions.setdefault(m.group(1), [])
        elif current is not None and (m := LINE.match(line)) and not m.group(2).strip().startswith("NOP"):
            current.append((int(m.group(1), 16), m.group(2).strip()))
    return functions


def innermost_loop(code):
    """Instructions of the shortest backward-branch loop, 0 without a loop."""
    best = 0
    for address, text in code:
        m = re.search(r"BRA (?:`\(\.L_x_\d+\) )?0x([0-9a-f]+)", text)
        if m and int(m.group(1), 16) < address:
            size = sum(1 for a, _ in code if int(m.group(1), 16) <= a <= address)
            best = size if best == 0 else min(best, size)
    return best


def find_kernel(functions, name):
    for f, code in functions.items():
        if f == name or f.startswith(f"_gpujit_{name}_"):
            return code
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--gpujit", default=str(ROOT / "build/dev/cli/gpujit"))
    ap.add_argument("--flags", nargs="*", default=["--index32"], help="extra gpujit ptx flags")
    args = ap.parse_args()
    for tool in ("nvcc", "ptxas", "cuobjdump", "nvdisasm"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found on PATH (see this script's docstring)")
    text = (ROOT / "benchmarks/kernel_throughput.py").read_text()
    kernels = re.search(r"KERNELS = r'''(.*?)'''", text, re.S).group(1)
    cuda_c = re.search(r"CUDA_C = r'''(.*?)'''", text, re.S).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "k.py").write_text("import gpujit as cuda\nimport numpy as np\n" + kernels)
        (tmp / "k.cu").write_text(cuda_c)
        subprocess.run(["nvcc", f"-arch={args.arch}", "-cubin", "-o", str(tmp / "c.cubin"), str(tmp / "k.cu")],
                       check=True)
        theirs = sass(tmp / "c.cubin")
        print(f"{'kernel':<12} {'gpujit':>7} {'CUDA C':>7} {'loop: gpujit':>13} {'CUDA C':>7}   ({args.arch}, {' '.join(args.flags)})")
        for name, sig in SIGNATURES.items():
            ptx, cubin = tmp / f"{name}.ptx", tmp / f"{name}.cubin"
            subprocess.run([args.gpujit, "ptx", str(tmp / "k.py"), "--kernel", name, "--sig", sig, "--arch", args.arch,
                            *args.flags, "-o", str(ptx)], check=True)
            subprocess.run(["ptxas", f"-arch={args.arch}", str(ptx), "-o", str(cubin)], check=True)
            ours, c = find_kernel(sass(cubin), name), find_kernel(theirs, name)
            print(f"{name:<12} {len(ours):>7} {len(c):>7} {innermost_loop(ours):>13} {innermost_loop(c):>7}")


if __name__ == "__main__":
    main()
