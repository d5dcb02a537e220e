"""Builds gpujit's binding, gpujit._core, against an installed gpujit-core wheel, without CMake.

This is the build of the `gpujit` sdist (python/pyproject.toml, docs/install.md): setuptools compiles
python/src/*.cpp with the Python headers, pybind11's headers and the core's own headers, and links the core
library the gpujit-core wheel holds. All its build requirements are small pure-Python wheels that travel in
dist/, so `pip install --no-index --find-links dist/ gpujit` works offline on a machine with a C++20
compiler and no CMake (pip's isolated build asked for the 29 MiB cmake wheel when scikit-build-core found
no CMake it would use).

The development route builds the same module through CMake (python/CMakeLists.txt, from the top-level
project); the compile and link flags below are that build's (pybind11_add_module in Release), so both
routes make the same code: -O3 with link-time optimization, hidden visibility, only PyInit__core exported
(src/exports.map), no debug information. Keep the two in step.

GPUJIT_JOBS sets how many files compile at once (default: one per CPU).
"""

import glob
import os
import shutil
import subprocess
import tempfile

import pybind11
from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import CompileError, LinkError

_HERE = os.path.dirname(os.path.abspath(__file__))

# Flags that follow the interpreter's own (sysconfig's CFLAGS and LDSHARED, which may say -O2 and -g), so
# these win. -flto needs the optimization level at the link too.
_OPT = ["-O3", "-g0", "-flto=auto"]
_COMPILE = _OPT + ["-fno-fat-lto-objects", "-Wall", "-Wextra", "-Wno-unused-parameter",
                   # pybind11's headers as system headers, out of -Wextra's reach (CMake does the same).
                   "-isystem", pybind11.get_include()]
_LINK = _OPT + [
    "-Wl,--version-script=" + os.path.join(_HERE, "src", "exports.map"),
    # site-packages/gpujit/_core*.so finds site-packages/gpujit_core/lib/libgpujit_core.so at run time.
    "-Wl,-rpath,$ORIGIN/../gpujit_core/lib",
    "-Wl,--strip-all",
]


def _compiler_on_path(compiler):
    """sysconfig names the compiler this Python was built with (x86_64-linux-gnu-g++ on Debian and Ubuntu, a
    path on the builder's machine for some standalone Pythons); where that one is not installed, use c++ or
    g++ from PATH, as CMake would."""
    fallback = shutil.which("c++") or shutil.which("g++")
    for role in ("compiler_so", "compiler_cxx", "compiler_so_cxx", "linker_so", "linker_so_cxx"):
        command = getattr(compiler, role, None)
        if not command or shutil.which(command[0]):
            continue
        if fallback is None:
            raise SystemExit(f"error: gpujit's binding needs a C++20 compiler (g++ 11 or newer): neither "
                             f"{command[0]} (this Python's) nor c++ or g++ is on PATH")
        compiler.set_executable(role, [fallback] + command[1:])


# Files for the top of site-packages, beside the package: the drop-in mode's .pth (docs/compat.md), which the
# CMake route installs there too.
TOP_LEVEL_FILES = ["gpujit-numba-shim.pth"]


_LTO_FLAGS = ("-flto=auto", "-fno-fat-lto-objects")


def _lto_links(compiler):
    """Whether this compiler can link with -flto: some toolchains (a GCC built into /opt for the Python that
    names it) lack a working lto-wrapper, and their link fails with "could not run lto-wrapper". The probe
    compiles and links one file with the commands and LTO flags the real build uses."""
    compile_command = list(compiler.compiler_so)
    link_command = list(getattr(compiler, "linker_so_cxx", None) or compiler.linker_so)
    with tempfile.TemporaryDirectory() as work:
        source, obj = os.path.join(work, "probe.cpp"), os.path.join(work, "probe.o")
        with open(source, "w") as f:
            f.write("int gpujit_probe(int x) { return x + 1; }\n")
        steps = [compile_command + ["-O2", *_LTO_FLAGS, "-c", source, "-o", obj],
                 link_command + [obj, "-O2", "-flto=auto", "-o", os.path.join(work, "probe.so")]]
        try:
            return all(subprocess.run(step, capture_output=True, timeout=120).returncode == 0 for step in steps)
        except (OSError, subprocess.SubprocessError):
            return False


class BuildPyWithTopLevelFiles(build_py):
    """build_py that also puts TOP_LEVEL_FILES at the root of the build folder, so that they sit at the
    wheel's root and pip installs them into site-packages itself."""

    def run(self):
        super().run()
        for name in TOP_LEVEL_FILES:
            self.copy_file(os.path.join(_HERE, name), os.path.join(self.build_lib, name), preserve_mode=False)

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, n) for n in TOP_LEVEL_FILES]


class BuildAgainstCore(build_ext):
    """build_ext that finds the headers and library of the installed gpujit-core, which must be the very
    version of this package: the binding and the core share C++ structs."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except (CompileError, LinkError):
            if not any(a in _LTO_FLAGS for a in ext.extra_link_args + ext.extra_compile_args):
                raise
            # The probe can pass where the real, larger link still cannot run the lto-wrapper (seen on a GPU
            # machine's /opt/gcc): build once more without link-time optimization.
            print("gpujit: the link with -flto failed; building again without link-time optimization")
            ext.extra_compile_args = [a for a in ext.extra_compile_args if a not in _LTO_FLAGS]
            ext.extra_link_args = [a for a in ext.extra_link_args if a not in _LTO_FLAGS]
            self.force = True
            super().build_extension(ext)

    def build_extensions(self):
        version = self.distribution.get_version()
        try:
            import gpujit_core
        except ImportError:
            raise SystemExit(
                f"error: gpujit's binding builds against an installed gpujit-core {version} and none is "
                f"importable: pip installs it from the build requirements (pip install --no-index "
                f"--find-links dist/ gpujit); with --no-build-isolation, pip install gpujit-core=={version} "
                f"first (docs/install.md)"
            ) from None
        found = getattr(gpujit_core, "__version__", "?")
        if found != version:
            raise SystemExit(
                f"error: gpujit {version} builds only against gpujit-core {version}, and the importable "
                f"gpujit-core is {found} ({os.path.dirname(gpujit_core.__file__)})"
            )
        library = gpujit_core.library()
        if not os.path.isfile(library):
            raise SystemExit(f"error: the installed gpujit-core has no core library: {library} is missing")
        _compiler_on_path(self.compiler)
        if not _lto_links(self.compiler):
            print("gpujit: this compiler cannot link with -flto (no working lto-wrapper); building without "
                  "link-time optimization")
            for ext in self.extensions:
                ext.extra_compile_args = [a for a in ext.extra_compile_args if a not in _LTO_FLAGS]
                ext.extra_link_args = [a for a in ext.extra_link_args if a not in _LTO_FLAGS]
        for ext in self.extensions:
            ext.include_dirs.append(gpujit_core.include_dir())
            ext.library_dirs.append(gpujit_core.library_dir())
        super().build_extensions()


# Relative to this file, as setuptools wants them (pip runs setup.py from its own folder).
_SOURCES = sorted(os.path.relpath(p, _HERE) for p in glob.glob(os.path.join(_HERE, "src", "*.cpp")))

BINDING = Pybind11Extension(
    "gpujit._core",
    _SOURCES,
    cxx_std=20,
    include_pybind11=False,  # added as -isystem above
    define_macros=[("FMT_HEADER_ONLY", "1")],  # the core's headers use fmt header-only
    libraries=["gpujit_core"],
    extra_compile_args=_COMPILE,
    extra_link_args=_LINK,
    depends=[os.path.relpath(p, _HERE) for p in sorted(glob.glob(os.path.join(_HERE, "src", "*.h")))]
    + ["src/exports.map"],
)

# setuptools runs this file as __main__; tests/python/test_packaging.py imports it to compare BINDING's
# flags with the CMake build's.
if __name__ == "__main__":
    if not _SOURCES:
        raise SystemExit(f"error: no binding sources in {_HERE}/src: the sdist is incomplete")
    ParallelCompile("GPUJIT_JOBS", default=0).install()
    setup(ext_modules=[BINDING], cmdclass={"build_ext": BuildAgainstCore, "build_py": BuildPyWithTopLevelFiles})
