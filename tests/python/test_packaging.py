"""The `gpujit` sdist of docs/install.md: what it holds, how its build fails, and that its binding is built
with the CMake build's flags.

The sdist (python/pyproject.toml) builds the binding with setuptools (python/setup.py), so that pip's
isolated build needs only pure-Python wheels (setuptools, pybind11) besides gpujit-core, and no CMake. The
whole offline install takes minutes (the binding compiles), too long for this suite:
scripts/check-offline-install proves it (docs/install.md quotes its times). These tests take seconds.
"""
import json
import runpy
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

pytest.importorskip("pybind11", reason="python/setup.py imports pybind11, the sdist's build requirement")
setuptools = pytest.importorskip("setuptools", reason="the sdist builds with setuptools")

ROOT = Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
VERSION = next(line.split('"')[1] for line in (PYTHON_DIR / "pyproject.toml").read_text().splitlines()
               if line.startswith("version = "))


def _tracked(folder, pattern):
    return sorted(p.relative_to(PYTHON_DIR).as_posix() for p in (PYTHON_DIR / folder).glob(pattern))


def _copy_sources(dest):
    """python/ without what a build leaves in it."""
    shutil.copytree(PYTHON_DIR, dest, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    return dest


def _setup_py(folder, *args, pythonpath=None):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder)}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "setup.py", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=120)


def _fake_core(folder, version):
    """A gpujit_core package of the given version, with an empty library: enough for the checks that run
    before anything compiles."""
    package = folder / "gpujit_core"
    (package / "lib").mkdir(parents=True)
    (package / "include").mkdir()
    (package / "lib" / "libgpujit_core.so").write_bytes(b"")
    source = (ROOT / "packaging" / "gpujit-core" / "gpujit_core" / "__init__.py").read_text()
    (package / "__init__.py").write_text(source.replace(f'__version__ = "{VERSION}"', f'__version__ = "{version}"'))
    return folder


def test_sdist_holds_everything_the_binding_build_needs(tmp_path):
    source = _copy_sources(tmp_path / "python")
    (source / "gpujit" / "_core.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")  # an in-place build's
    built = subprocess.run(
        [sys.executable, "-c", "import sys; out = sys.argv[1]; from setuptools.build_meta import build_sdist; "
         "print(build_sdist(out))", str(tmp_path / "dist")],
        cwd=source, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr[-3000:]
    sdist = tmp_path / "dist" / f"gpujit-{VERSION}.tar.gz"
    prefix = f"gpujit-{VERSION}/"
    with tarfile.open(sdist) as archive:
        members = {name[len(prefix):] for name in archive.getnames() if name.startswith(prefix)}
    needed = (["pyproject.toml", "setup.py", "src/exports.map"] + _tracked("src", "*.cpp") + _tracked("src", "*.h")
              + _tracked("gpujit", "*.py") + _tracked(".", "*.pth"))
    assert not [name for name in needed if name not in members]
    assert not [name for name in members if name.endswith(".so")]


def test_binding_build_without_gpujit_core_says_what_to_do(tmp_path):
    try:
        import gpujit_core  # noqa: F401
        pytest.skip("gpujit_core is importable here, so its absence cannot be tested")
    except ImportError:
        pass
    source = _copy_sources(tmp_path / "python")
    result = _setup_py(source, "build_ext")
    assert result.returncode != 0
    assert (f"error: gpujit's binding builds against an installed gpujit-core {VERSION} and none is importable"
            in result.stderr + result.stdout)


def test_binding_build_refuses_another_gpujit_core_version(tmp_path):
    source = _copy_sources(tmp_path / "python")
    result = _setup_py(source, "build_ext", pythonpath=_fake_core(tmp_path / "site", "0.0.1"))
    assert result.returncode != 0
    assert (f"error: gpujit {VERSION} builds only against gpujit-core {VERSION}, and the importable gpujit-core "
            "is 0.0.1" in result.stderr + result.stdout)
    assert not list((source / "build").rglob("*.o"))  # refused before compiling anything


def _cmake_command(build_dir):
    """The CMake build's compile command of python/src/module.cpp (or of the unity batch that holds it,
    GPUJIT_UNITY_BUILD) and the link flags of the module."""
    ninja = build_dir / "build.ninja"
    if not ninja.is_file():
        pytest.skip(f"no CMake build of the binding in {build_dir} (scripts/setup makes it)")
    text = ninja.read_text()
    commands = json.loads((build_dir / "compile_commands.json").read_text())
    compile_cmd = next(e["command"] for e in commands if e["file"].endswith("python/src/module.cpp") or
                       "/gpujit_python.dir/Unity/unity_" in e["file"])
    block = text[text.index("build python/_core"):]
    link_flags = next(line.split("=", 1)[1] for line in block.splitlines() if line.strip().startswith("LINK_FLAGS"))
    return shlex.split(compile_cmd), shlex.split(link_flags)


def test_binding_flags_match_the_cmake_build():
    """python/setup.py and python/CMakeLists.txt build the same module: the same optimization, LTO,
    visibility, standard, warnings and macros, and the same exports map."""
    compile_cmd, link_flags = _cmake_command(ROOT / "build" / "dev")
    binding = runpy.run_path(str(PYTHON_DIR / "setup.py"), run_name="setup_under_test")["BINDING"]
    ours = set(binding.extra_compile_args) | {f"-D{name}={value}" for name, value in binding.define_macros}
    theirs = {flag for flag in compile_cmd if flag.startswith(("-O", "-f", "-W", "-std", "-D"))}
    # -fPIC comes from the interpreter's own flags (sysconfig's CCSHARED), -DNDEBUG from its CFLAGS, and the
    # _EXPORTS macro is CMake's own; -Wno-subobject-linkage comes with the unity build (CMakeLists.txt's
    # gpujit_unity), where the files are compiled in batches, which setup.py does not do.
    theirs -= {"-fPIC", "-DNDEBUG", "-Dgpujit_python_EXPORTS", "-Wno-subobject-linkage"}
    assert sorted(theirs - ours) == []
    exports = [f for f in link_flags if f.startswith("-Wl,--version-script=")]
    assert [Path(f.split("=", 1)[1]).name for f in exports] == ["exports.map"]
    assert f"-Wl,--version-script={PYTHON_DIR / 'src' / 'exports.map'}" in binding.extra_link_args
    assert [f for f in link_flags if f.startswith("-flto")] == [f for f in binding.extra_link_args
                                                              if f.startswith("-flto")]
    assert "-Wl,-rpath,$ORIGIN/../gpujit_core/lib" in binding.extra_link_args
    assert sorted(binding.sources) == _tracked("src", "*.cpp")


def test_binding_build_uses_a_compiler_on_path_when_this_pythons_is_missing(tmp_path):
    """sysconfig may name a compiler that is not installed (a standalone Python's, or Ubuntu's
    x86_64-linux-gnu-g++ without the g++ package): the build takes c++ or g++ from PATH instead. Against an
    empty fake core the compile then fails on the first missing header, which shows the compiler ran."""
    source = _copy_sources(tmp_path / "python")
    missing = "/nonexistent/bin/x86_64-linux-gnu-g++"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(_fake_core(tmp_path / "site", VERSION)),
           "CC": missing, "CXX": missing, "LDSHARED": f"{missing} -shared", "LDCXXSHARED": f"{missing} -shared",
           "GPUJIT_JOBS": "2"}
    result = subprocess.run([sys.executable, "setup.py", "build_ext"], cwd=source, env=env, capture_output=True,
                            text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "fatal error:" in output and ".h: No such file or directory" in output, output[-3000:]
    assert missing not in output  # never run


def test_wheel_puts_the_top_level_files_beside_the_package(tmp_path):
    """The drop-in mode's .pth goes to the top of site-packages on the pip route too (docs/compat.md): at the
    root of the build folder, which becomes the wheel's root."""
    source = _copy_sources(tmp_path / "python")
    result = _setup_py(source, "build_py", "--build-lib", "out")
    assert result.returncode == 0, result.stderr[-3000:]
    names = sorted(p.name for p in (PYTHON_DIR).glob("*.pth"))
    assert names == ["gpujit-numba-shim.pth"]
    for name in names:
        assert (source / "out" / name).read_text() == (PYTHON_DIR / name).read_text()
    assert (source / "out" / "gpujit" / "__init__.py").is_file()
