#!/usr/bin/env python3
"""Assembles gpujit's PTX with the CUDA toolkit's ptxas for every architecture gpujit supports.

Two uses:
  ptxas_check.py --ptxas PTXAS FILE.ptx
      assembles one PTX file (the lit tests' %ptxas-all) for each architecture in ARCHES that is at least the
      file's `.target`: PTX written for sm_75 must assemble for sm_75, sm_80 and sm_90 alike.
  ptxas_check.py --ptxas PTXAS --gpujit GPUJIT --example EXAMPLE.py
      compiles every kernel named by the example's `# gpujit-sig: KERNEL SIGNATURE` lines with the CLI for
      each architecture in ARCHES and assembles each PTX for that same architecture.
Exits 1 with ptxas's message when any of them fails, so a ctest or lit RUN line fails with the reason.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# CUDA 13 dropped sm_70 and older; gpujit's floor is sm_75.
ARCHES = ["sm_75", "sm_80", "sm_90"]
SIG_LINE = re.compile(r"^# gpujit-sig:\s+(\w+)\s+(.+?)\s*$")
# An example whose kernels the CLI cannot compile (they call @overload implementations, which only the Python
# package resolves) says why on a `# gpujit-sig-none: REASON` line; the check then exits SKIPPED (ctest's
# SKIP_RETURN_CODE, tests/CMakeLists.txt), so ctest reports it skipped rather than passed.
NONE_LINE = re.compile(r"^# gpujit-sig-none:\s+(.+?)\s*$")
SKIPPED = 77
TARGET_LINE = re.compile(r"^\s*\.target\s+sm_(\d+)", re.MULTILINE)


def sm_number(arch):
    return int(re.match(r"sm_(\d+)", arch).group(1))


def assemble(ptxas, ptx_path, arch):
    """Runs ptxas; returns None on success, else a message with ptxas's output."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [ptxas, f"-arch={arch}", ptx_path, "-o", os.path.join(tmp, "out.cubin")]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return f"ptxas -arch={arch} {ptx_path} failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"
    return None


def check_ptx_file(ptxas, path):
    with open(path) as f:
        text = f.read()
    target = TARGET_LINE.search(text)
    if target is None:
        return [f"{path}: no .target directive; is this PTX?"]
    arches = [a for a in ARCHES if sm_number(a) >= int(target.group(1))]
    if not arches:
        return [f"{path}: .target sm_{target.group(1)} is newer than every checked architecture {ARCHES}"]
    errors = [e for e in (assemble(ptxas, path, a) for a in arches) if e]
    if not errors:
        print(f"{path}: assembled for {', '.join(arches)}")
    return errors


def check_example(ptxas, gpujit, example):
    with open(example) as f:
        lines = f.readlines()
    kernels = [m.groups() for m in map(SIG_LINE.match, lines) if m]
    reasons = [m.group(1) for m in map(NONE_LINE.match, lines) if m]
    if reasons and not kernels:
        print(f"{example}: skipped: {reasons[0]}")
        return SKIPPED
    if not kernels:
        return [f"{example}: no '# gpujit-sig: KERNEL SIGNATURE' line"]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for kernel, sig in kernels:
            for arch in ARCHES:
                ptx = os.path.join(tmp, f"{kernel}.{arch}.ptx")
                cmd = [gpujit, "ptx", example, "--kernel", kernel, "--sig", sig, "--arch", arch, "-o", ptx]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    errors.append(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr}")
                    continue
                error = assemble(ptxas, ptx, arch)
                if error:
                    errors.append(error)
                else:
                    print(f"{example}: {kernel} {sig}: compiled and assembled for {arch}")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ptxas", default="ptxas", help="the ptxas to run")
    parser.add_argument("--gpujit", help="the gpujit CLI (with --example)")
    parser.add_argument("--example", action="store_true", help="FILE is an example with gpujit-sig lines")
    parser.add_argument("file")
    args = parser.parse_args()
    if args.example:
        if not args.gpujit:
            parser.error("--example needs --gpujit")
        errors = check_example(args.ptxas, args.gpujit, args.file)
        if errors == SKIPPED:
            return SKIPPED
    else:
        errors = check_ptx_file(args.ptxas, args.file)
    for error in errors:
        print(error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
