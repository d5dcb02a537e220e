"""gpujit's compiler core, as the gpujit-core wheel installs it (docs/install.md).

The package holds no Python code of gpujit's: it is where the core library, the `gpujit` command-line tool,
libdevice and the headers live, and these functions say where, for a build of the binding against it:

    python -m gpujit_core --cmakedir     # for -Dgpujit_core_DIR=..., as `python -m pybind11 --cmakedir`
"""

import os
import sys

__version__ = "0.1.0"

_ROOT = os.path.dirname(os.path.abspath(__file__))


def include_dir():
    """The folder holding frontend/, ir/, codegen/ and runtime/ headers."""
    return os.path.join(_ROOT, "include")


def library_dir():
    """The folder of libgpujit_core.so and libdevice.10.bc."""
    return os.path.join(_ROOT, "lib")


def library():
    """The core library's path."""
    return os.path.join(library_dir(), "libgpujit_core.so")


def libdevice():
    """The libdevice.10.bc this package carries (the core library finds it by itself)."""
    return os.path.join(library_dir(), "libdevice.10.bc")


def cmake_dir():
    """The folder of gpujit_coreConfig.cmake."""
    return os.path.join(library_dir(), "cmake", "gpujit_core")


def cli():
    """The `gpujit` command-line tool's executable."""
    return os.path.join(_ROOT, "bin", "gpujit")


def _run_cli():
    """The `gpujit` console script: replaces this process with the C++ tool, so its exit status is the tool's."""
    tool = cli()
    sys.stdout.flush()
    # argv[0] stays this script's path: `gpujit run` hands over to the Python beside the name it was started by
    # (this environment's bin folder), which the tool's own folder inside the package is not.
    os.execv(tool, [sys.argv[0] or tool] + sys.argv[1:])
