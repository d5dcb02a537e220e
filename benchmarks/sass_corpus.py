"""PTX and SASS of every example and benchmark kernel, compiled by two variants of gpujit (no GPU needed).

    PATH=/tmp/nvtools/nvidia/cu13/bin:$PATH .venv/bin/python benchmarks/sass_corpus.py \\
        [--a ENV=VAL ...] [--b ENV=VAL ...] [--gpujit-a PATH] [--gpujit-b PATH] [-j 2] [--json OUT.json] [--keep DIR]

A variant is a gpujit CLI binary (default build/dev/cli/gpujit) run with some environment assignments (none by
default): `--a GPUJIT_LATE_LIBDEVICE=0` compares that switch off (A) with the default (B); `--gpujit-b
OTHER/cli/gpujit` compares two builds. The corpus: every `# gpujit-sig: KERNEL SIGNATURE` line of
examples/*.py, the five kernels of kernel_throughput.py (taken as sass_compare.py takes them) and compile_time.py's
Black-Scholes and tiled matmul, 26 kernels, each compiled for sm_90 --index32, sm_80 and sm_90 --index32
--fastmath: 78 compiles. Each PTX is assembled with `ptxas -arch=sm_XX` and its SASS read with `cuobjdump -sass`
(sass_compare.sass(): instructions only, NOP padding left out). A row says whether A's and B's PTX are identical,
whether their SASS is, and each one's instruction count. Both variants compile the same files (a kernel's PTX
name hashes its file's path), so with A = B every compile must be identical.

Needs ptxas (the CUDA toolkit; $CUDA_HOME/bin and /usr/local/cuda/bin are searched after PATH) and cuobjdump +
nvdisasm (pip install --target DIR nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm, then put DIR/nvidia/cu13/bin on
PATH). Exit status 0 when every compile ran (identical or not), 1 if a compile failed (said in its row), 2 if a
tool or binary is missing or an argument is bad.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compile_time  # noqa: E402  (Black-Scholes and the tiled matmul, as compile_time.py compiles them)
from sass_compare import ROOT, SIGNATURES, sass  # noqa: E402

CONFIGS = {
    "sm_90 index32": ["--arch", "sm_90", "--index32"],
    "sm_80": ["--arch", "sm_80"],
    "sm_90 index32 fastmath": ["--arch", "sm_90", "--index32", "--fastmath"],
}
# compile_time.py launches these with (float64 arrays, r, v, out) and three float32 matrices.
COMPILE_TIME_SIGNATURES = {
    "bs": "void(float64[::1], float64[::1], float64[::1], float64, float64, float64[::1])",
    "mm": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
}


def corpus(work):
    """[(label, file, kernel, signature)]: the examples' gpujit-sig lines, then the benchmarks' kernels (their
    sources written to files in `work`)."""
    kernels = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        for m in re.finditer(r"^# gpujit-sig: (\S+) (.+?)\s*$", path.read_text(), re.M):
            kernels.append((f"{path.name}:{m.group(1)}", path, m.group(1), m.group(2)))
    text = (ROOT / "benchmarks/kernel_throughput.py").read_text()
    throughput = work / "kernel_throughput_kernels.py"
    throughput.write_text("import gpujit as cuda\nimport numpy as np\n"
                          + re.search(r"KERNELS = r'''(.*?)'''", text, re.S).group(1))
    kernels += [(f"kernel_throughput.py:{name}", throughput, name, sig) for name, sig in SIGNATURES.items()]
    warm = work / "compile_time_kernels.py"
    warm.write_text(compile_time.HEADERS["gpujit"] + "import math\n" + compile_time.WARM_KERNELS)
    kernels += [(f"compile_time.py:{name}", warm, name, sig) for name, sig in COMPILE_TIME_SIGNATURES.items()]
    return kernels


def last_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:120] if lines else "(no message)"


def build(variant, env, source, kernel, sig, flags, stem):
    """One compile: gpujit ptx, ptxas, cuobjdump. {"ptx": text, "sass": {function: [instructions]}} or
    {"error": why}."""
    ptx, cubin = stem.with_suffix(".ptx"), stem.with_suffix(".cubin")
    r = subprocess.run([variant, "ptx", str(source), "--kernel", kernel, "--sig", sig, *flags, "-o", str(ptx)],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": f"gpujit exit {r.returncode}: {last_line(r.stderr)}"}
    r = subprocess.run(["ptxas", f"-arch={flags[1]}", str(ptx), "-o", str(cubin)], capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": f"ptxas: {last_line(r.stderr)}"}
    try:
        functions = sass(cubin)
    except subprocess.CalledProcessError as e:
        return {"error": f"cuobjdump: {last_line(e.stderr or '')}"}
    return {"ptx": ptx.read_text(), "sass": {f: [text for _, text in code] for f, code in functions.items()}}


def assignment(item):
    name, eq, value = item.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"'{item}' is not an environment assignment NAME=VALUE")
    return name, value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    for v in "ab":
        ap.add_argument(f"--{v}", nargs="*", type=assignment, default=[], metavar="ENV=VAL",
                        help=f"variant {v.upper()}'s environment assignments")
    ap.add_argument("--gpujit-a", default=str(ROOT / "build/dev/cli/gpujit"), help="variant A's gpujit CLI")
    ap.add_argument("--gpujit-b", default=str(ROOT / "build/dev/cli/gpujit"), help="variant B's gpujit CLI")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="compiles run at once (default 2)")
    ap.add_argument("--json", help="write every compile's result here")
    ap.add_argument("--keep", help="write the sources, PTX and cubins to this folder instead of a temporary one")
    args = ap.parse_args()

    cuda_bins = [os.path.join(os.environ["CUDA_HOME"], "bin")] if os.environ.get("CUDA_HOME") else []
    os.environ["PATH"] = os.pathsep.join([os.environ.get("PATH", ""), *cuda_bins, "/usr/local/cuda/bin"])
    missing = [tool for tool in ("ptxas", "cuobjdump", "nvdisasm") if not shutil.which(tool)]
    if missing:
        print(f"sass_corpus: {', '.join(missing)} not found on PATH. ptxas comes with the CUDA toolkit; "
              "cuobjdump and nvdisasm with `pip install --target DIR nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` "
              "(then PATH=DIR/nvidia/cu13/bin:$PATH)", file=sys.stderr)
        sys.exit(2)
    variants = {"A": (args.gpujit_a, {**os.environ, **dict(args.a)}),
                "B": (args.gpujit_b, {**os.environ, **dict(args.b)})}
    for name, (binary, _) in variants.items():
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            print(f"sass_corpus: variant {name}'s gpujit CLI {binary} is missing (build it: "
                  "cmake --build build/dev --target gpujit_cli)", file=sys.stderr)
            sys.exit(2)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep or tmp).resolve()
        work.mkdir(parents=True, exist_ok=True)
        kernels = corpus(work)
        jobs = [(k, config) for k in kernels for config in CONFIGS]
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [[pool.submit(build, binary, env, file, kernel, sig, CONFIGS[config],
                                    work / f"{i:02d}_{kernel}_{config.replace(' ', '_')}_{name}")
                        for name, (binary, env) in variants.items()]
                       for i, ((_, file, kernel, sig), config) in enumerate(jobs)]
            outcomes = [[f.result() for f in pair] for pair in futures]

    rows, failed = [], 0
    for ((label, _, _, sig), config), (a, b) in zip(jobs, outcomes):
        row = {"kernel": label, "signature": sig, "config": config}
        if "error" in a or "error" in b:
            failed += 1
            row["error"] = "; ".join(f"{n}: {o['error']}" for n, o in (("A", a), ("B", b)) if "error" in o)
        else:
            row.update(ptx_identical=a["ptx"] == b["ptx"], sass_identical=a["sass"] == b["sass"],
                       instructions_a=sum(map(len, a["sass"].values())),
                       instructions_b=sum(map(len, b["sass"].values())))
        rows.append(row)

    describe = {"A": " ".join([args.gpujit_a, *(f"{k}={v}" for k, v in args.a)]),
                "B": " ".join([args.gpujit_b, *(f"{k}={v}" for k, v in args.b)])}
    print(f"A: {describe['A']}\nB: {describe['B']}")
    print(f"{'kernel':<34} {'config':<24} {'PTX':<7} {'SASS':<7} {'instructions A / B'}")
    same = {True: "same", False: "DIFFERS"}
    for row in rows:
        if "error" in row:
            print(f"{row['kernel']:<34} {row['config']:<24} FAILED  {row['error']}")
            continue
        print(f"{row['kernel']:<34} {row['config']:<24} {same[row['ptx_identical']]:<7} "
              f"{same[row['sass_identical']]:<7} {row['instructions_a']} / {row['instructions_b']}")
    done = [row for row in rows if "error" not in row]
    summary = (f"{sum(r['sass_identical'] for r in done)} of {len(rows)} compiles give identical SASS "
               f"(PTX identical in {sum(r['ptx_identical'] for r in done)})"
               + (f"; {failed} failed" if failed else ""))
    print(summary)
    if args.json:
        Path(args.json).write_text(json.dumps({"a": describe["A"], "b": describe["B"], "summary": summary,
                                               "compiles": rows}, indent=1))
    if failed:
        print(f"sass_corpus: {failed} compile(s) failed, see FAILED above", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
