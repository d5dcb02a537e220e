"""The launch path's host cost without a GPU: launches against the fake CUDA driver, by argument shape.

    python benchmarks/launch_fake_driver.py [--n 200000] [--bare]
    python benchmarks/launch_fake_driver.py --instructions

The fake driver (tests/unit/runtime/fake_driver/*.cpp, built here with g++ if needed) runs no kernel,
but it records each launch's parameters, so a figure here is gpujit's launch path (configuration lookup,
argument classification, specialization lookup, packing) plus that recording, with no driver or GPU time.
It needs no GPU. Prints microseconds per launch, the best of 3 rounds of N launches; with --instructions,
instructions per launch instead, counted by valgrind's callgrind (each shape run at two N, the difference
divided by the extra launches, so start-up and compiles cancel out). Instruction counts do not drift with
the machine's load: they are the way to compare two versions of the launch path on a development machine
(point PYTHONPATH at the other version's package). valgrind must be installed, and it cannot read the
debug information of an unstripped libgpujit_core.so: use the installed package, which is stripped.

The bare launcher: launch_overhead.py's `launch_floor.launch(shape)` (benchmarks/launch_floor.cpp built as
an extension module), one cuLaunchKernel of prepared parameters called from the same kind of Python loop,
is built here against the fake driver (build/fakecuda/launch_floor_fake.so). `--bare` times it instead of
gpujit; `--instructions` counts both and prints gpujit less bare, the figure the GPU run's "gpujit over it"
column gives in microseconds, and the same less each side's cuLaunchKernel (inclusive, from callgrind's
per-function counts): gpujit hands the driver one parameter buffer (`extra`) where the bare launcher hands
it kernelParams, and the fake driver's recording of the two differs by a few instructions per parameter,
which is the fake driver's and not gpujit's.

Besides the bare launcher's shapes, gpujit's side launches "3 foreign": three objects of a class with nothing but
`__cuda_array_interface__` (InterfaceArray), on the kernel of 3 arrays; --instructions subtracts the bare
launcher's "3 arrays" from it. That row less gpujit's "3 arrays" is what reading a foreign array through the
interface costs gpujit (the GPU run's foreign-array lines give CuPy's and PyTorch's own paths).

"3 exchange" launches three tensors of a type offering DLPack's C exchange API (`__dlpack_c_exchange_api__`,
as PyTorch 2.11's tensors do), on the same kernel: the table's C function is a ctypes callback that describes a
gpujit array's memory, so each read runs that callback (libffi's closure and Python code, about 6,800
instructions) where PyTorch runs its own C++. --instructions takes it out as the GPU run takes PyTorch's own
calls out: the same two callgrind runs of `_core._library_read_ns(tensors, N)` (`--library`: only the exchange
function's calls that a launch's reads make, through the same pointer, results dropped) count the library's
part per launch, which is subtracted from the row's gpujit figures and printed below the table. That loop's
own few instructions per tensor (the call, a zeroed DLTensor) go with it, so gpujit's part is, if anything,
undercounted by them. That row less "3 arrays" is what reading three such tensors costs gpujit over its own
arrays. The µs rows (without --instructions) include the callback.
"""
import argparse
import ctypes
import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# In launch_floor.cpp's order (kShapeList): the bare launcher's launch(i) is shape i's kernel.
SHAPES = {"0 args": (0, 0), "1 array": (1, 0), "3 arrays": (3, 0), "16 arrays": (16, 0), "16 scalars": (0, 16),
          "256 scalars": (0, 256)}
# Foreign arrays: objects of a class of the benchmark's own with `__cuda_array_interface__` (a dict kept on
# the instance, so reading it costs the library nothing beyond an attribute lookup and the figure is
# gpujit's own part), launched on the kernel of 3 arrays. The bare launcher's counterpart is its "3 arrays"
# launch; the figure to compare with the GPU run's foreign-array lines is this row less gpujit's "3 arrays".
FOREIGN = {"3 foreign": "3 arrays", "3 exchange": "3 arrays"}
# Rows whose library part (the exchange function's calls) --instructions counts apart and takes out.
LIBRARY_PART = {"3 exchange"}


class InterfaceArray:
    """The least a foreign device array has: `__cuda_array_interface__` (version 3), here describing the
    memory of a gpujit array, so that the launch's parameters are those of `array`."""

    def __init__(self, array):
        cai = array.__cuda_array_interface__
        self.__cuda_array_interface__ = {"shape": cai["shape"], "strides": None, "typestr": cai["typestr"],
                                         "data": cai["data"], "version": 3}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


# The exchange function's C signature, both pointers taken as ints: the callback then builds no ctypes objects.
_FROM_PY_OBJECT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


class _ExchangeAPI(ctypes.Structure):
    """DLPack 1.3's DLPackExchangeAPI (the fields up to the one gpujit calls, and the next)."""
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.c_void_p),
                ("allocator", ctypes.c_void_p), ("managed_from_py", ctypes.c_void_p),
                ("managed_to_py", ctypes.c_void_p), ("dltensor_from_py_object_no_sync", _FROM_PY_OBJECT),
                ("current_work_stream", ctypes.c_void_p)]


# Each ExchangeTensor's DLTensor by the tensor's address: the callback copies it out, as PyTorch's function
# fills the DLTensor from its tensor's own fields.
_DESCRIPTIONS = {}


class ExchangeTensor:
    """A tensor type offering DLPack's C exchange API, as PyTorch 2.11's does: its C function (a ctypes
    callback) describes the memory of a gpujit array of float32 on CUDA device 0, its shape and strides
    pointing into the tensor's own metadata as PyTorch's do. The description is made once; the callback
    copies it, so that its own cost (which --instructions subtracts) is small and steady."""

    def __init__(self, array):
        cai = array.__cuda_array_interface__
        assert cai["typestr"] == "<f4", "a float32 array"
        ndim = len(cai["shape"])
        self.shape = (ctypes.c_int64 * ndim)(*cai["shape"])
        self.strides = (ctypes.c_int64 * ndim)(*[s // 4 for s in array.strides])
        self.description = _DLTensor(cai["data"][0], _DLDevice(2, 0), ndim, _DLDataType(2, 32, 1),
                                     ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64)),
                                     ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64)), 0)
        _DESCRIPTIONS[id(self)] = ctypes.addressof(self.description)

    def __del__(self):
        _DESCRIPTIONS.pop(id(self), None)


def _describe(obj, out, copy=ctypes.memmove, size=ctypes.sizeof(_DLTensor), descriptions=_DESCRIPTIONS):
    copy(out, descriptions[obj], size)
    return 0


_EXCHANGE_API = _ExchangeAPI(1, 3, None, None, None, None, _FROM_PY_OBJECT(_describe), None)
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype, _new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
ExchangeTensor.__dlpack_c_exchange_api__ = _new_capsule(ctypes.addressof(_EXCHANGE_API), b"dlpack_exchange_api",
                                                        None)


def fake_driver():
    out = ROOT / "build" / "fakecuda" / "libfakecuda.so"
    folder = ROOT / "tests" / "unit" / "runtime" / "fake_driver"
    sources = sorted(folder.glob("*.cpp"))
    newest = max(p.stat().st_mtime for p in [*sources, *folder.glob("*.h"), ROOT / "runtime" / "cuda_api.h"])
    if not out.exists() or out.stat().st_mtime < newest:
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["g++", "-std=c++17", "-O1", "-shared", "-fPIC", f"-I{ROOT}", *map(str, sources), "-o",
                        str(out)], check=True)
    return out


def bare_launcher():
    """benchmarks/launch_floor.cpp as the extension module launch_floor, linked against the fake driver (the
    same file gpujit loads, so both see one driver state); built with g++ when missing or stale."""
    driver = fake_driver()
    out = ROOT / "build" / "fakecuda" / "launch_floor_fake.so"
    sources = [ROOT / "benchmarks" / "launch_floor.cpp", ROOT / "benchmarks" / "cuda_floor.h", driver]
    if not out.exists() or out.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
        subprocess.run(["g++", "-O2", "-std=c++17", "-shared", "-fPIC", "-DGPUJIT_FLOOR_LIBRARY",
                        f"-I{sysconfig.get_paths()['include']}", f"-I{cuda_home}/include", str(sources[0]),
                        str(driver.resolve()), f"-Wl,-rpath,{driver.resolve().parent}", "-o", str(out)], check=True)
    return out


def instructions_per_launch(shape, small=2000, large=22000, bare=False):
    """(instructions per launch, of them in cuLaunchKernel, of them the library's (LIBRARY_PART; 0 for other
    rows)) for gpujit's launch or the bare launcher's."""
    if bare:
        shape = FOREIGN.get(shape, shape)  # the bare launcher has one kind of array
    total, driver = callgrind_per_op(__file__, shape, small, large, extra=["--bare"] if bare else [],
                                     function="cuLaunchKernel")
    library = 0.0
    if not bare and shape in LIBRARY_PART:
        library = callgrind_per_op(__file__, shape, small, large, extra=["--library"])
    return total, driver, library


def inclusive_count(out_file, function):
    """The instructions callgrind counted in `function` and what it called, from its output file."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out_file],
                         capture_output=True, text=True, check=True)
    total = 0
    for line in out.stdout.splitlines():
        # "8,661,505 ( 3.80%)  ???:cuLaunchKernel [/path/libfakecuda.so]"
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+[^:]*:(.*?)(?: \[[^\]]*\])?$", line)
        if m and m.group(2) == function:
            total += int(m.group(1).replace(",", ""))
    return total


def callgrind_per_op(script, shape, small, large, extra=(), function=None):
    """Instructions per operation of `script --only SHAPE`, from two callgrind runs of `small` and `large`
    operations (the difference cancels the process' start); allocation_fake_driver.py uses it too. With
    `function`, a pair: that and the instructions per operation spent in `function` (inclusive)."""
    totals, inside = [], []
    for n in (small, large):
        out_file = tempfile.NamedTemporaryFile(suffix=".callgrind", delete=False).name if function else "/dev/null"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", sys.executable, script,
               "--only", shape, "--n", str(n), "--rounds", "1", *extra]
        # NumPy's OpenBLAS threads spin for as long as the process runs, which would add its wall time. The
        # compiler's warm-up threads (compiler/warm_up.h) are counted too, and how much of their work a run
        # does depends on timing (a code generator prepared or not before exit): off, so the two runs cancel.
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", GPUJIT_WARM_UP="0")
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        refs = [line for line in out.stderr.splitlines() if "I   refs:" in line]
        if out.returncode != 0 or not refs:
            sys.exit(f"callgrind failed for {shape!r}:\n{out.stderr[-2000:]}")
        totals.append(int(refs[-1].split()[-1].replace(",", "")))
        if function:
            inside.append(inclusive_count(out_file, function))
            os.unlink(out_file)
    per_op = (totals[1] - totals[0]) / (large - small)
    return (per_op, (inside[1] - inside[0]) / (large - small)) if function else per_op


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200000, help="launches per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of N launches; the best is printed")
    parser.add_argument("--only", choices=[*SHAPES, *FOREIGN], help="time one shape only")
    parser.add_argument("--instructions", action="store_true", help="count instructions per launch (callgrind)")
    parser.add_argument("--bare", action="store_true", help="the bare launcher (launch_floor.launch) instead")
    parser.add_argument("--library", action="store_true",
                        help=f"only the library's calls of the reads ({', '.join(sorted(LIBRARY_PART))}), N per round")
    args = parser.parse_args()
    if args.instructions:
        print("instructions per launch (fake driver): gpujit, the bare launcher, gpujit less bare; then the same "
              "less each one's cuLaunchKernel")
        print(f"{'arguments':<12} {'gpujit':>8} {'bare':>8} {'less':>8}   {'gpujit':>8} {'bare':>8} {'less':>8}")
        notes = []
        for name in [*SHAPES, *FOREIGN]:
            if not args.only or name == args.only:
                ours, ours_driver, library = instructions_per_launch(name)
                ours -= library  # the library's own calls (here a ctypes callback): not gpujit's
                bare, bare_driver, _ = instructions_per_launch(name, bare=True)
                print(f"{name:<12} {ours:>8.0f} {bare:>8.0f} {ours - bare:>+8.0f}   {ours - ours_driver:>8.0f} "
                      f"{bare - bare_driver:>8.0f} {(ours - ours_driver) - (bare - bare_driver):>+8.0f}")
                if name in LIBRARY_PART:
                    notes.append(f"{name}: less the exchange function's calls, {library:.0f} per launch "
                                 "(_core._library_read_ns, counted apart)")
        for line in notes:
            print(line)
        return
    if args.bare:
        return time_bare(args)
    os.environ["GPUJIT_CUDA_DRIVER"] = str(fake_driver())
    import numpy as np

    import gpujit as gpu

    gpu._core._set_backend("cuda")
    # gpujit compiles from source text, so the kernels live in a real file.
    lines = ["import gpujit as gpu\n"]
    for i, (na, ns) in enumerate(SHAPES.values()):
        params = [f"a{j}" for j in range(na)] + [f"s{j}" for j in range(ns)]
        lines.append(f"@gpu.jit\ndef k{i}({', '.join(params)}):\n    pass\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fake_launch_kernels.py"
        path.write_text("\n".join(lines))
        spec = importlib.util.spec_from_file_location("fake_launch_kernels", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        arrays = [gpu.to_device(np.zeros(1024, np.float32)) for _ in range(16)]
        print(f"{'arguments':<12} {'us per launch (fake driver)':>28}")
        for i, (name, (na, ns)) in enumerate(SHAPES.items()):
            if (args.only and name != args.only) or args.library:
                continue
            # A tuple: `k[...](*t)` hands the tuple's items to the launcher as they are, as a call with the
            # arguments written out does; `*list` would copy a tuple per launch, the caller's cost, not ours.
            k, call_args = getattr(mod, f"k{i}"), tuple(arrays[:na] + [1.0] * ns)
            launch = lambda: k[1, 32](*call_args)
            launch()
            print(f"{name:<12} {best_seconds_per_call(launch, args.n, args.rounds) * 1e6:>28.3f}")
        for name, like in FOREIGN.items():
            if (args.only and name != args.only) or (args.library and name not in LIBRARY_PART):
                continue
            i = list(SHAPES).index(like)
            wrap = ExchangeTensor if name == "3 exchange" else InterfaceArray
            k, call_args = getattr(mod, f"k{i}"), tuple(wrap(a) for a in arrays[:SHAPES[like][0]])
            launch = lambda: k[1, 32](*call_args)
            launch()
            if args.library:
                # N rounds of the reads' library calls in one call: its own start and end cancel out between
                # the two callgrind runs, as the process' do.
                for _ in range(args.rounds):
                    ns = gpu._core._library_read_ns(call_args, args.n)
                print(f"{name + ' (library)':<12} {ns / 1e3:>28.3f}")
                continue
            print(f"{name:<12} {best_seconds_per_call(launch, args.n, args.rounds) * 1e6:>28.3f}")


def best_seconds_per_call(call, n, rounds):
    """The best over `rounds` rounds of the mean time of `n` calls of `call`, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            call()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def time_bare(args):
    """The bare launcher's loop, as launch_overhead.py's bench_paired runs it: `lambda: launch(i)`."""
    import ctypes

    path = bare_launcher()
    lib = ctypes.CDLL(str(path))
    lib.gpujit_floor_init()
    spec = importlib.util.spec_from_file_location("launch_floor", path)
    bare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bare)
    bare_launch = bare.launch
    print(f"{'arguments':<12} {'us per bare launch (fake driver)':>33}")
    for i, name in enumerate(SHAPES):
        if args.only and name != args.only and FOREIGN.get(args.only) != name:
            continue
        launch = lambda: bare_launch(i)  # noqa: E731  as launch_overhead.py's from_python
        launch()
        print(f"{name:<12} {best_seconds_per_call(launch, args.n, args.rounds) * 1e6:>33.3f}")


if __name__ == "__main__":
    sys.exit(main())
