"""CUDA C/C++ with gpujit: NVRTC compiles, nvJitLink links, and CUDA C kernels launch as gpujit kernels do.

- compile_cuda_c(source, arch, output) compiles CUDA C/C++ to PTX, a cubin or LTO-IR; nvrtc_compile() also
  gives NVRTC's log and the mangled names of C++ name expressions.
- link_cuda(inputs, arch, lto=) links PTX, cubins, fatbins, objects, libraries, LTO-IR and `.cu` files into
  one cubin.
- RawKernel(code, name, options) is CuPy's RawKernel; SourceModule(source, options) is PyCUDA's, whose
  get_function(name) gives its kernels. Both compile for the current device with NVRTC, through the disk
  cache, and launch with `k[grid, block](args)` (also `k[grid, block, stream, shared_bytes]`, CuPy's
  `k(grid, block, args)` and PyCUDA's `f(*args, block=, grid=)`) through gpujit's C++ launch path
  (python/src/raw_kernel.cpp says how arguments are passed).

NVRTC and nvJitLink are loaded at their first use (runtime/cuda_toolkit.h); besides the toolkit they are
looked for in the nvidia pip wheels of this Python's site-packages, the folders this module hands over.
docs/cuda_c.md documents it all.

Layer "base" of the Python package (docs/architecture.md): imports only `_core` and `errors`.
"""

import os
import sys

from . import _core
from .errors import CudaSupportError

# The lib folders of the nvidia pip wheels (CUDA 13's single wheel, then CUDA 12's per-library ones).
_WHEEL_LIB_DIRS = ("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", "nvidia/nvjitlink/lib", "nvidia/cu12/lib",
                   "nvidia/cuda_nvcc/nvvm/lib64")  # the last: CUDA 12's libNVVM (runtime/nvvm.h)
_search_dirs_set = False
_nvrtc_version = None


def _wheel_dirs():
    dirs = []
    for root in sys.path:
        if not root or not os.path.isdir(os.path.join(root, "nvidia")):
            continue
        for sub in _WHEEL_LIB_DIRS:
            d = os.path.join(root, sub)
            if os.path.isdir(d) and d not in dirs:
                dirs.append(d)
    return dirs


def _ensure_search_dirs():
    global _search_dirs_set
    if not _search_dirs_set:
        _core._set_toolkit_search_dirs(_wheel_dirs())
        _search_dirs_set = True


def toolkit_libraries():
    """{'nvrtc': ..., 'nvjitlink': ...}: each (path, major, minor) when it loads, else the reason it does not."""
    _ensure_search_dirs()
    return {"nvrtc": _core._toolkit_library(True), "nvjitlink": _core._toolkit_library(False)}


def nvrtc_version():
    """NVRTC's (major, minor); CudaSupportError naming where it looked when it is not installed."""
    global _nvrtc_version
    if _nvrtc_version is None:
        _ensure_search_dirs()
        lib = _core._toolkit_library(True)
        if isinstance(lib, str):
            raise CudaSupportError(lib)
        _nvrtc_version = (lib[1], lib[2])
    return _nvrtc_version


def toolkit_include_dirs():
    """The CUDA toolkit's header folders NVRTC needs for the toolkit's own headers (cooperative_groups.h,
    curand_kernel.h): $CUDA_HOME/include (or $CUDA_PATH's, or /usr/local/cuda's) and, from CUDA 13 on, its
    include/cccl, where libcu++ (<cuda/std/...>, which those headers include), CUB and Thrust moved; without a
    toolkit, the header folders of NVIDIA's pip wheels (the CUDA runtime's, CCCL's, curand's) as
    cuda.pathfinder finds them, as numba-cuda finds them."""
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        include = os.path.join(home, "include") if home else ""
        if include and os.path.isdir(include):
            cccl = os.path.join(include, "cccl")
            return [include, cccl] if os.path.isdir(cccl) else [include]
    return _wheel_include_dirs()


def _wheel_include_dirs():
    try:
        from cuda import pathfinder
    except ImportError:
        return []
    dirs = []
    for library in ("cudart", "cccl", "curand"):
        try:
            found = pathfinder.locate_nvidia_header_directory(library)
        except Exception:  # an unknown name in another pathfinder version, or a broken install: look no further
            found = None
        path = getattr(found, "abs_path", None)
        if path and path not in dirs:
            dirs.append(path)
    return dirs


def _toolkit_include_options():
    return tuple("-I" + d for d in toolkit_include_dirs())


class CompiledCudaC:
    """What nvrtc_compile() gives: `code` (str for PTX, bytes for a cubin or LTO-IR), NVRTC's `log` (warnings;
    empty on a cache hit) and `lowered_names` ({name expression: mangled name})."""

    __slots__ = ("code", "log", "lowered_names", "cache_hit")

    def __init__(self, code, log, lowered_names, cache_hit):
        self.code, self.log, self.lowered_names, self.cache_hit = code, log, lowered_names, cache_hit

    def __repr__(self):
        return f"<CompiledCudaC {len(self.code)} bytes, cache_hit={self.cache_hit}>"


def _options(options):
    if isinstance(options, str):
        return [options]
    out = []
    for o in options or ():
        if not isinstance(o, str):
            raise TypeError(f"NVRTC options are strings, not {type(o).__name__} ({o!r})")
        out.append(o)
    return out


def nvrtc_compile(source, arch, output="ptx", *, name="kernel.cu", options=(), headers=None, name_expressions=(),
                  cache=True):
    """Compiles CUDA C/C++ `source` with NVRTC for `arch` ("sm_90", "compute_90", "90" or (9, 0)) to
    `output`: "ptx", "cubin" or "ltoir". `name` is the file name NVRTC's messages give; `options` are NVRTC's
    ("-O3", "-DN=4", "-rdc=true", "-std=c++17"), not the architecture; `headers` maps include names to their
    text; `name_expressions` are C++ names ("k<float>") whose mangled names come back. With `cache` the
    result is kept in the disk cache (GPUJIT_CACHE_DIR, else ~/.cache/gpujit), keyed by everything above
    and NVRTC's version. Raises NvrtcCompilationError with NVRTC's log, CudaSupportError without NVRTC."""
    if not isinstance(source, str):
        raise TypeError(f"CUDA C source must be a str, not {type(source).__name__}")
    if isinstance(arch, tuple):
        arch = f"sm_{arch[0]}{arch[1]}"
    opts = _options(options)
    header_items = sorted((headers or {}).items())
    exprs = list(name_expressions or ())
    key = ""
    if cache:
        import hashlib  # here, not at `import gpujit`: some ms at every start (benchmarks/import_time.py)

        h = hashlib.sha256()
        for part in (str(nvrtc_version()), source, name, str(arch), output, *opts, *(k + "\0" + v for k, v in header_items)):
            h.update(part.encode())
            h.update(b"\0")
        key = h.hexdigest()[:40]
    _ensure_search_dirs()
    code, log, lowered, hit = _core._compile_cuda_c(source, name, opts, str(arch), output, header_items, exprs, key)
    if output == "ptx":
        code = code.decode()
    return CompiledCudaC(code, log, dict(lowered), hit)


def compile_cuda_c(source, arch, output="ptx", *, name="kernel.cu", options=(), headers=None, cache=True):
    """nvrtc_compile()'s code alone: PTX text, or the bytes of a cubin or LTO-IR."""
    return nvrtc_compile(source, arch, output, name=name, options=options, headers=headers, cache=cache).code


def link_cuda(inputs, arch, *, lto=False, options=()):
    """Links `inputs` into one cubin (bytes) for `arch` with nvJitLink. Each input is a file path (its
    extension says what it is: .ptx, .cubin, .fatbin, .o, .a, .ltoir; a .cu file is compiled here with
    NVRTC, -rdc=true, to LTO-IR when `lto` else PTX) or a (kind, data) or (kind, data, name) tuple, kind
    one of "ptx", "cubin", "fatbin", "object", "library", "ltoir", "cu". `lto` links with link-time
    optimization (needed for LTO-IR). Raises LinkerError with nvJitLink's log."""
    if isinstance(arch, tuple):
        arch = f"sm_{arch[0]}{arch[1]}"
    items = []
    for item in inputs:
        if isinstance(item, (str, os.PathLike)):
            path = os.fspath(item)
            kind = "cu" if path.endswith(".cu") else _core._link_input_kind(path)
            with open(path, "rb") as f:
                data = f.read()
            name = os.path.basename(path)
        else:
            if not isinstance(item, tuple) or len(item) not in (2, 3):
                raise TypeError(f"a link input is a path or a (kind, data[, name]) tuple, not {item!r}")
            kind, data = item[0], item[1]
            name = item[2] if len(item) == 3 else f"input{len(items)}.{kind}"
        if kind == "cu":
            text = data.decode() if isinstance(data, bytes) else data
            out = "ltoir" if lto else "ptx"
            data = nvrtc_compile(text, arch, out, name=name, options=["-rdc=true"]).code
            kind = out
        if isinstance(data, str):
            data = data.encode()
        items.append((kind, bytes(data), name))
    _ensure_search_dirs()
    cubin, _info = _core._link_cuda(items, str(arch), bool(lto), _options(options))
    return cubin


class RawKernel(_core.RawFunction):
    """CuPy's RawKernel: the `__global__` function `name` of CUDA C/C++ `code`, compiled with NVRTC and
    `options` for the device it is launched on. Launch it as a gpujit kernel, `k[grid, block](*args)` (or
    `k[grid, block, stream, shared_bytes]`), or as CuPy does, `k(grid, block, args, shared_mem=, stream=)`.
    A kernel of C++ linkage is named by its mangled name (or declare it extern "C"). The toolkit's headers
    (cooperative_groups.h, curand_kernel.h) are on NVRTC's include path. With `enable_cooperative_groups`
    every launch is cooperative (cuLaunchCooperativeKernel: all blocks resident at once, so the kernel may
    call cooperative_groups::this_grid().sync()); the driver refuses a grid larger than fits at once."""

    def __init__(self, code, name, options=(), backend="nvrtc", *, translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        if backend != "nvrtc":
            raise ValueError(f"gpujit compiles CUDA C with NVRTC only, not backend={backend!r}")
        if jitify or translate_cucomplex:
            raise ValueError("gpujit's RawKernel does not support jitify or translate_cucomplex")
        if not isinstance(name, str) or not name:
            raise TypeError("RawKernel needs the kernel's name as a str")
        # A grid-wide sync needs no separate compilation (-rdc) since CUDA 11: the cubin stays loadable as is.
        super().__init__(name, cooperative=bool(enable_cooperative_groups))
        self.code = code
        self.name = name
        self.options = tuple(_options(options))
        self.file_name = f"{name}.cu"
        self.enable_cooperative_groups = bool(enable_cooperative_groups)

    def _code(self, major, minor, kind):
        return self.compile_for(f"sm_{major}{minor}", kind)

    def compile_for(self, arch, output="cubin"):
        """The kernel's code for `arch` without a GPU: PTX text or cubin bytes (also warms the disk cache)."""
        options = self.options + _toolkit_include_options()
        return nvrtc_compile(self.code, arch, output, name=self.file_name, options=options).code

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        if not isinstance(args, tuple):
            args = tuple(args)
        self[grid, block, stream, shared_mem](*args)

    def __repr__(self):
        return f"<gpujit.RawKernel {self.name!r}>"


_EXTERN_C_OPEN = 'extern "C" {\n'


class SourceModule:
    """PyCUDA's SourceModule: CUDA C/C++ `source` with any number of kernels, compiled with NVRTC and
    `options`; get_function(name) gives one. Unless `no_extern_c`, the source is wrapped in extern "C" as
    PyCUDA does, so kernels keep their plain names (NVRTC's messages keep the source's own line numbers).
    `arch` ("sm_80") compiles for that architecture instead of the current device's. `include_dirs` become
    -I options; `nvcc`, `keep`, `cache_dir` and `code` are PyCUDA's and ignored."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=(), *, name="module.cu"):
        if not isinstance(source, str):
            raise TypeError(f"CUDA C source must be a str, not {type(source).__name__}")
        self.name = name
        self.options = tuple(_options(options)) + tuple(f"-I{d}" for d in include_dirs)
        self.arch = arch
        if no_extern_c:
            self.source = source
        else:
            self.source = f'{_EXTERN_C_OPEN}#line 1 "{name}"\n{source}\n}}\n'
        self._functions = {}
        self._cubin = None  # the last cubin compiled, to check get_function's names against
        # PyCUDA compiles at construction: a compile error shows here. Without a CUDA device the compile
        # waits for the first launch (or compile_for()).
        if arch is not None:
            self.compile_for(arch)
        elif _core.backend_name() == "cuda":
            try:
                major, minor = _core.get_current_device().compute_capability
            except Exception:
                return
            self._code(major, minor, "cubin")

    def _code(self, major, minor, kind):
        return self.compile_for(self.arch or f"sm_{major}{minor}", kind)

    def compile_for(self, arch, output="cubin"):
        """The module's code for `arch`: PTX text or cubin bytes."""
        options = self.options + _toolkit_include_options()  # nvcc's own include path, as PyCUDA has it
        code = nvrtc_compile(self.source, arch, output, name=self.name, options=options).code
        if output == "cubin":
            self._cubin = code
        return code

    def get_function(self, name):
        """The kernel `name` of the module (its mangled name when no_extern_c and it has C++ linkage). A name
        the compiled module lacks is a ValueError here, as PyCUDA raises one; before the module is compiled
        (no CUDA device and no arch=) it is at the first launch."""
        f = self._functions.get(name)
        if f is None:
            # A cubin's symbol names are NUL-terminated strings of its string tables.
            if self._cubin is not None and b"\0" + name.encode() + b"\0" not in self._cubin:
                raise ValueError(f"the CUDA C module {self.name!r} has no kernel named {name!r} (a __global__ "
                                 "function of C++ linkage has a mangled name: leave no_extern_c=False, or give "
                                 "its mangled name)")
            f = self._functions[name] = SourceFunction(self, name)
        return f


class SourceFunction(_core.RawFunction):
    """A kernel of a SourceModule. Launch it as a gpujit kernel, `f[grid, block](*args)`, or as PyCUDA does,
    `f(*args, block=(x, y, z), grid=(x, y), stream=None, shared=0)`; gpujit.In/Out/InOut copy NumPy arrays
    as PyCUDA's drv.In/Out/InOut do."""

    def __init__(self, module, name):
        super().__init__(name)
        self.module = module
        self.name = name

    def _code(self, major, minor, kind):
        return self.module._code(major, minor, kind)

    def __call__(self, *args, block=(1, 1, 1), grid=(1, 1), stream=None, shared=0, time_kernel=False):
        if time_kernel:
            raise ValueError("time_kernel is PyCUDA's; time launches with gpujit.event() instead")
        self[grid, block, stream, shared](*args)

    def __repr__(self):
        return f"<gpujit.SourceFunction {self.name!r}>"
