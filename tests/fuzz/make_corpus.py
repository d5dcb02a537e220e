#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus from the repository's own kernels (tests/fuzz/fuzz_input.h's format).

Seeds, one file each, named by the SHA-1 of their bytes so that reruns add nothing twice:
- every kernel an example names in a `# gpujit-sig: KERNEL SIGNATURE` line: the whole example, then a NUL and
  a trailer naming the kernel and its signature;
- every `%gpujit ptx FILE -k KERNEL --sig SIG` line of the FileCheck suite (tests/filecheck), the same way;
- every function decorated with `jit` in the Python tests (tests/python): its source with the test module's
  imports and module-level constants, a trailer naming it and no signature (the target derives one), and the
  function's text alone (the parser's view of a kernel the Python shim hands over).

Usage: make_corpus.py OUT_DIR
"""

import ast
import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIG_LINE = re.compile(r"^# gpujit-sig:\s+(\w+)\s+(.+?)\s*$", re.M)
RUN_LINE = re.compile(r"%gpujit ptx %s\s+-k\s+(\w+)\s+--sig\s+'([^']*)'")
OPTIONS = 0x30  # optimization level 3, a kernel entry, no other option (fuzz_input.h)
ARCH = 0


def seed(source: str, kernel: str, signature: str | None) -> bytes:
    trailer = bytes([OPTIONS, ARCH]) + kernel.encode()
    if signature is not None:
        trailer += b"\n" + signature.encode()
    return source.encode() + b"\0" + trailer


def python_test_seeds(path: Path):
    text = path.read_text()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    # Imports and simple constants of the module: the free names its kernels use.
    header = "".join(ast.get_source_segment(text, node) + "\n" for node in tree.body
                     if isinstance(node, (ast.Import, ast.ImportFrom)) or
                     (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)))
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        if not any("jit" in ast.unparse(d) for d in node.decorator_list):
            continue
        segment = ast.get_source_segment(text, node, padded=False)
        if segment is None:
            continue
        decorators = "".join("@" + ast.unparse(d) + "\n" for d in node.decorator_list)
        function = decorators + "\n".join(line[node.col_offset:] for line in segment.splitlines()) + "\n"
        yield seed(header + function, node.name, None)
        yield segment.encode()


def seeds():
    for example in sorted((ROOT / "examples").glob("*.py")):
        text = example.read_text()
        for kernel, signature in SIG_LINE.findall(text):
            yield seed(text, kernel, signature)
    for test in sorted((ROOT / "tests" / "filecheck").glob("*.py")):
        text = test.read_text()
        for kernel, signature in RUN_LINE.findall(text):
            yield seed(text, kernel, signature)
    for test in sorted((ROOT / "tests" / "python").glob("test_*.py")):
        yield from python_test_seeds(test)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for data in seeds():
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
        count += 1
    print(f"make_corpus: {count} seeds in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
