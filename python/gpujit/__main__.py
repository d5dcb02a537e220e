"""`python -m gpujit info`, `python -m gpujit --version` and `python -m gpujit run`.

`info` and `--version` say what the `gpujit` command-line tool reports (docs/cli.md), from Python, through this
interpreter's gpujit; `info` adds the Python side: the interpreter, where the package is, NumPy's version and
whether the numba shim is on. `run PROGRAM.py [ARGS]` (or `run -m MODULE [ARGS]`) runs a numba-cuda program on
gpujit with no edit: it installs the drop-in mode (gpujit.install_numba_shim) and then runs the program as Python
would, as `__main__`, with sys.argv set to the program and its arguments (docs/compat.md, "Moving a numba-cuda
program"). The C++ tool's `gpujit run` hands over to this.

Layer "top" of the Python package (docs/architecture.md): imports the package root.
"""

import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gpujit",
                                     description="gpujit's version and what it finds on this machine.")
    parser.add_argument("--version", action="store_true", help="print gpujit's and LLVM's versions")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("info", help="versions, libdevice, CUDA driver and devices, backend, kernel cache")
    run = commands.add_parser("run", help="run a numba-cuda program on gpujit, unchanged (the drop-in mode)",
                              usage="python -m gpujit run [-m MODULE | PROGRAM.py] [ARGS ...]")
    run.add_argument("program", nargs=argparse.REMAINDER, help="the program (or -m MODULE) and its arguments")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:  # everything after `run` is the program's, its options too
        return run_program(argv[1:])
    args = parser.parse_args(argv)
    if not args.version and args.command is None:
        parser.print_usage(sys.stderr)
        print("python -m gpujit: error: give --version or a command (info)", file=sys.stderr)
        return 2

    import gpujit

    report = gpujit.info()
    if args.version:
        print(f"gpujit {report['gpujit_version']} (LLVM {report['llvm_version']})")
        return 0
    text = report["text"]
    try:
        import numpy
        numpy_version = numpy.__version__
    except ImportError:
        numpy_version = "not installed"
    text += f"{'python':<14}{sys.version.split()[0]} ({sys.executable})\n"
    text += f"{'package':<14}{os.path.dirname(os.path.abspath(gpujit.__file__))}\n"
    text += f"{'numpy':<14}{numpy_version}\n"
    sys.stdout.write(text)
    return 0


def run_program(argv):
    """Runs PROGRAM.py (or -m MODULE) with its arguments as `python PROGRAM.py ARGS` would, with the numba shim on."""
    import runpy

    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m gpujit run [-m MODULE | PROGRAM.py] [ARGS ...]\n\n"
              "Runs a numba-cuda program on gpujit with no edit: `numba.cuda` is gpujit in it "
              "(docs/compat.md, \"Moving a numba-cuda program\").", file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m gpujit run: error: -m needs a module name", file=sys.stderr)
            return 2
        module, rest = argv[1], argv[2:]
    else:
        module, rest = None, argv[1:]
        program = argv[0]
        if not os.path.isfile(program):
            print(f"python -m gpujit run: error: no such file: {program!r}", file=sys.stderr)
            return 2

    import gpujit

    # Processes the program starts (multiprocessing workers, subprocesses of Python) turn the mode on at their
    # start too, through gpujit-numba-shim.pth in site-packages.
    os.environ["GPUJIT_NUMBA_SHIM"] = "1"
    gpujit.install_numba_shim()
    if module is not None:
        sys.argv = [module] + rest
        sys.path.insert(0, os.getcwd())
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [program] + rest
        sys.path[0] = os.path.dirname(os.path.abspath(program))  # as `python PROGRAM.py` sets it
        runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
