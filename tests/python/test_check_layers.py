"""scripts/check-layers: the include-direction check scripts/test runs (docs/architecture.md).

Each test writes a small tree of C++ files under tmp_path and runs the script on it; the last one runs it on
this repository, which must pass.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-layers"


def run(root):
    proc = subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_downward_includes_pass(tmp_path):
    write(tmp_path, {
        "frontend/ast.h": "#pragma once\n#include <vector>\n",
        "ir/types.h": '#pragma once\n#include "frontend/ast.h"\n',
        "codegen/artifact.h": '#pragma once\n#include "ir/types.h"\n',
        "codegen/lower.cpp": '#include <llvm/IR/Module.h>\n#include "codegen/artifact.h"\n',
        "runtime/device.cpp": '#include "codegen/artifact.h"\n#include "ir/types.h"\n',
        "python/src/binding.cpp": '#include "local.h"\n#include "runtime/device.cpp"\n',
        "python/src/local.h": "#pragma once\n",
    })
    rc, out = run(tmp_path)
    assert rc == 0, out
    assert "7 files" in out


@pytest.mark.parametrize("source, include, rule", [
    ("frontend/parser.cpp", '"ir/types.h"', "frontend/ may include only frontend"),
    ("ir/globals.cpp", '"codegen/artifact.h"', "ir/ may include only ir, frontend"),
    ("codegen/host.cpp", '"runtime/abi.h"', "codegen/ may include only codegen, frontend, ir, llvm"),
    ("runtime/cache.h", '"codegen/lowering.h"',
     "runtime/ may include only runtime, frontend, ir, codegen's interface"),
    ("runtime/cache.h", "<llvm/IR/Module.h>", "runtime/ may include only"),
    ("cli/main.cpp", '"python/src/binding.h"', "cli/ may include only"),
])
def test_upward_include_is_named_with_file_line_and_rule(tmp_path, source, include, rule):
    write(tmp_path, {
        "ir/types.h": "#pragma once\n",
        "codegen/artifact.h": "#pragma once\n",
        "codegen/lowering.h": "#pragma once\n",
        "runtime/abi.h": "#pragma once\n",
        "python/src/binding.h": "#pragma once\n",
        source: f"// a comment line\n#include {include}\n",
    })
    rc, out = run(tmp_path)
    assert rc == 1, out
    assert f"{source}:2: #include {include} includes" in out
    assert rule in out


def test_xxhash_is_the_one_llvm_header_ir_sources_may_include(tmp_path):
    write(tmp_path, {"ir/sema.cpp": "#include <llvm/Support/xxhash.h>\n"})
    rc, out = run(tmp_path)
    assert rc == 0, out
    # Not from a header of ir/ (it would pass LLVM on to every includer), and no other LLVM header.
    write(tmp_path, {"ir/sema.h": "#pragma once\n#include <llvm/Support/xxhash.h>\n",
                     "ir/types.cpp": "#include <llvm/ADT/StringRef.h>\n"})
    rc, out = run(tmp_path)
    assert rc == 1
    assert "ir/sema.h:2:" in out and "ir/types.cpp:1:" in out and "ir/sema.cpp" not in out


def test_relative_include_counts_where_it_lands(tmp_path):
    write(tmp_path, {
        "runtime/device.h": "#pragma once\n",
        "ir/sub/x.cpp": '#include "../../runtime/device.h"\n',
    })
    rc, out = run(tmp_path)
    assert rc == 1
    assert "ir/sub/x.cpp:1:" in out and "includes runtime/ (runtime/device.h)" in out


def test_file_outside_every_layer_is_an_error(tmp_path):
    write(tmp_path, {"tools/helper.cpp": "int main() {}\n"})
    rc, out = run(tmp_path)
    assert rc == 1
    assert "tools/helper.cpp:1: this C++ file is in no layer" in out


def test_this_repository_passes():
    rc, out = run(ROOT)
    assert rc == 0, out
