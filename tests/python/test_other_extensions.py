"""gpujit in one process with other C++ extensions (PyTorch's is one).

pybind11 modules built with the same compiler, standard library and pybind11 ABI share one set of
"internals", global exception translators included. A translator gpujit registered globally once turned
every std::out_of_range thrown by any such module into gpujit's ValueError, and on the GPU machine
`import gpujit, torch` aborted with `free(): invalid pointer` inside PyTorch's import. These tests build a
small pybind11 module of their own with g++ and the pybind11 the binding was built with, and check that
importing gpujit first leaves its errors as pybind11 maps them.
"""
import importlib.util
import subprocess
import sys
import sysconfig

import pytest

pybind11 = pytest.importorskip("pybind11", reason="the binding's build dependency is not installed here")

SOURCE = r"""
#include <pybind11/pybind11.h>
#include <stdexcept>

PYBIND11_MODULE(gpujit_test_neighbour, m) {
  m.def("out_of_range", [] { throw std::out_of_range("the neighbour's own index"); });
  m.def("runtime_error", [] { throw std::runtime_error("the neighbour's own failure"); });
}
"""


@pytest.fixture(scope="module")
def neighbour(tmp_path_factory):
    folder = tmp_path_factory.mktemp("neighbour")
    source = folder / "neighbour.cpp"
    source.write_text(SOURCE)
    target = folder / ("gpujit_test_neighbour" + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = ["g++", "-std=c++17", "-O0", "-shared", "-fPIC", "-fvisibility=hidden",
           f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}", str(source), "-o", str(target)]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    import gpujit  # noqa: F401  -- gpujit first, as in `import gpujit, torch`
    spec = importlib.util.spec_from_file_location("gpujit_test_neighbour", target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules.pop("gpujit_test_neighbour", None)
    return module


def test_another_modules_out_of_range_stays_its_index_error(neighbour):
    with pytest.raises(IndexError, match="the neighbour's own index"):
        neighbour.out_of_range()


def test_another_modules_runtime_error_stays_a_runtime_error(neighbour):
    with pytest.raises(RuntimeError, match="the neighbour's own failure"):
        neighbour.runtime_error()


def test_gpujits_own_out_of_range_is_still_a_value_error():
    import gpujit as gpu
    # A device ordinal out of range is std::out_of_range in the runtime; gpujit raises ValueError for it,
    # as numba-cuda does.
    with pytest.raises(ValueError):
        gpu.select_device(10_000)


def test_the_binding_exports_its_module_init_alone():
    # libstdc++ gives std:: inline functions default visibility, so without python/src/exports.map the
    # binding exported its copies of them, and libstdc++.so bound its own calls to those copies when the
    # binding loaded it first: `import gpujit, torch` aborted in PyTorch's import on the GPU machine.
    import shutil

    import gpujit._core as core

    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("binutils' nm is not installed")
    out = subprocess.run([nm, "-D", "--defined-only", core.__file__], capture_output=True, text=True, check=True)
    exported = {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}
    assert exported == {"PyInit__core"}
