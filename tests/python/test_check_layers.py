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


# The Python package (python/gpujit): its modules' imports against PY_LAYERS, and no import cycle. Module names
# are the real ones, since the table names them; each tree holds only the few modules a case needs.

def package(root, modules):
    write(root, {f"python/gpujit/{name}.py": text for name, text in modules.items()})


def test_python_imports_down_the_layers_pass(tmp_path):
    package(tmp_path, {
        "__init__": "from . import _core\nfrom ._dispatcher import jit\nfrom . import _signature\n"
                    "random = __import__('importlib').import_module('.random', __name__)\n",
        "_types": "from . import _core\n",
        "_signature": "from ._types import DType\n",
        "_arg_hints": "def f():\n    from ._signature import type_of_value\n",  # a layer imports its own
        "_dispatcher": "import gpujit._signature as sig\nfrom gpujit import _arg_hints\n",
        "random": "from . import _core\n",
    })
    rc, out = run(tmp_path)
    assert rc == 0, out
    assert "6 Python modules, 7 imports between them, all pointing down, no cycle" in out


def test_python_import_cycle_is_named_with_file_line_and_circle(tmp_path):
    # Within one layer, in functions: still a circle.
    package(tmp_path, {
        "_types": "from . import _core\n",
        "_signature": "import os\n\n\ndef f():\n    from . import _source\n",
        "_source": "from ._arg_hints import In\n",
        "_arg_hints": "from ._types import DType\n\n\ndef g():\n    from gpujit._signature import type_text\n",
    })
    rc, out = run(tmp_path)
    assert rc == 1, out
    assert "python/gpujit/_arg_hints.py:5: import cycle _arg_hints -> _signature -> _source -> _arg_hints" in out
    assert out.count("import cycle") == 1  # one circle, printed once


def test_python_two_circles_are_both_printed(tmp_path):
    package(tmp_path, {
        "_signature": "from . import _source\nfrom . import _arg_hints\n",
        "_source": "from . import _signature\n",
        "_arg_hints": "import importlib\nx = importlib.import_module('gpujit._signature')\n",
    })
    rc, out = run(tmp_path)
    assert rc == 1
    assert "python/gpujit/_arg_hints.py:2: import cycle _arg_hints -> _signature -> _arg_hints" in out
    assert "python/gpujit/_signature.py:1: import cycle _signature -> _source -> _signature" in out


def test_python_upward_import_is_named_with_the_layers(tmp_path):
    package(tmp_path, {
        "_types": "def f(x):\n    from ._source import _numba_type_name\n    return _numba_type_name(x)\n",
        "_source": "import os\n",
    })
    rc, out = run(tmp_path)
    assert rc == 1
    assert ('python/gpujit/_types.py:2: from ._source import _numba_type_name imports _source (layer "compiler '
            'inputs"), above _types\'s layer "base"') in out


@pytest.mark.parametrize("text", ["import gpujit\n", "import gpujit.errors\n", "from . import to_device\n",
                                  "from gpujit import jit\n", "def f():\n    import gpujit as gpu\n"])
def test_python_root_is_for_the_top_layer_only(tmp_path, text):
    package(tmp_path, {"__init__": "from .ufunc import vectorize\n\nto_device = jit = None\n", "errors": "",
                       "ufunc": text})
    rc, out = run(tmp_path)
    assert rc == 1
    assert "python/gpujit/ufunc.py:" in out and "imports the package root, which only the top layer" in out
    assert "import cycle __init__ -> ufunc -> __init__" in out


def test_python_top_module_imports_the_root_and_the_root_hands_over_in_a_function(tmp_path):
    shim = "import sys\n\n\ndef install():\n    import gpujit\n    return gpujit.jit\n"
    package(tmp_path, {
        "__init__": "jit = None\n\n\ndef install_numba_shim():\n    from ._numba_shim import install\n"
                    "    return install()\n",
        "_numba_shim": shim,
        "__main__": "def main():\n    import gpujit\n",
    })
    rc, out = run(tmp_path)
    assert rc == 0, out
    # When the package loads, the root imports no module of the top layer: that would run the shim's module
    # code before `import gpujit` has finished.
    package(tmp_path, {"__init__": "from ._numba_shim import install\n"})
    rc, out = run(tmp_path)
    assert rc == 1
    assert ('python/gpujit/__init__.py:1: from ._numba_shim import install imports _numba_shim (layer "top") when '
            'the package loads') in out


def test_python_module_outside_every_layer_is_an_error(tmp_path):
    package(tmp_path, {"_helpers": "import os\n", "errors": "from . import _helpers\n"})
    rc, out = run(tmp_path)
    assert rc == 1
    assert "python/gpujit/_helpers.py:1: this module is in no layer of scripts/check-layers' PY_LAYERS" in out


def test_python_subpackage_is_placed_whole_and_its_imports_count(tmp_path):
    package(tmp_path, {
        "__init__": "from . import sub\n",
        "_types": "",
        "sub/__init__": "from . import driver\n",
        "sub/driver": "from .. import _types\n\n\ndef f():\n    from .. import jit\n",
    })
    rc, out = run(tmp_path)
    assert rc == 1
    assert "python/gpujit/sub/__init__.py:1: this subpackage is in no layer" in out
    # `from .. import jit` in sub/driver.py is the root's name; `from . import driver` is sub's own module.
    assert "python/gpujit/__init__.py:1: import cycle __init__ -> sub -> sub.driver -> __init__" in out
