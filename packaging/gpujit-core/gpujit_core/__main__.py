"""python -m gpujit_core --cmakedir | --includedir | --libdir: where the installed core's pieces are."""

import argparse

import gpujit_core


def main():
    parser = argparse.ArgumentParser(prog="python -m gpujit_core", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--cmakedir", action="store_true", help="the folder of gpujit_coreConfig.cmake")
    group.add_argument("--includedir", action="store_true", help="the headers' folder")
    group.add_argument("--libdir", action="store_true", help="the folder of libgpujit_core.so and libdevice")
    group.add_argument("--version", action="store_true", help="this package's version")
    args = parser.parse_args()
    if args.cmakedir:
        print(gpujit_core.cmake_dir())
    elif args.includedir:
        print(gpujit_core.include_dir())
    elif args.libdir:
        print(gpujit_core.library_dir())
    else:
        print(gpujit_core.__version__)


if __name__ == "__main__":
    main()
