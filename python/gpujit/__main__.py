"""`python -m gpujit info` and `python -m gpujit --version`: what the `gpujit` command-line tool reports
(docs/cli.md), from Python, through this interpreter's gpujit. `info` adds the Python side: the
interpreter, where the package is, and NumPy's version.
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


if __name__ == "__main__":
    sys.exit(main())
