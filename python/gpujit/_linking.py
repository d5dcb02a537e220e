"""External device code: numba's declare_device and the code a kernel links (jit's link=, declare_device's link=).

    mul = gpu.declare_device("mul_f32_f32", "float32(float32, float32)", link="functions.cu")

    @gpu.jit
    def k(r, x, y):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = mul(x[i], y[i])

The kernel's call becomes a call of the external symbol (`.extern .func` in its PTX, with numba's ABI or the C
ABI, ir/extern_function.h); loading the kernel on a GPU links its PTX with the code of every external function
it calls into one cubin through nvJitLink (runtime/kernel_link.h). compile(..., output="cubin") does the same
without a GPU, for an architecture given by cc.

Link inputs are paths (.cu compiled by NVRTC, .ptx, .cubin, .fatbin, .o, .a, .ltoir) or code in memory: this
module's CUSource, PTXSource, Cubin, Fatbin, Object, Archive and LTOIR, or numba-cuda's classes of those names.
They are read when declared (a file changed afterwards is not seen) and described to the binding as
(kind, name, data, options) tuples (python/src/link_files.h).

Layer "compiler inputs" of the Python package (docs/architecture.md): imports _module_callbacks, _signature and
errors.
"""

import io
import os
import sys

from . import _module_callbacks
from ._cuda_c import toolkit_include_dirs
from ._signature import signature_text
from .errors import CudaSupportError, LinkerError, NvrtcCompilationError

# A file's extension -> the kind of link input it is (python/src/link_files.h).
_EXTENSIONS = {".cu": "cu", ".ptx": "ptx", ".cubin": "cubin", ".fatbin": "fatbin", ".o": "object", ".a": "library",
               ".ltoir": "ltoir", ".lto": "ltoir"}


class LinkableCode:
    """Code to link, held in memory (numba's LinkableCode): `data` is text or bytes (or a StringIO/BytesIO),
    `name` what compile and link errors call it. setup_callback(module) is called each time a kernel that links
    the code is loaded onto a device, teardown_callback(module) when that module is unloaded
    (python/gpujit/_module_callbacks.py)."""

    kind = None
    default_name = "<unnamed>"

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None, nrt=False):
        if setup_callback and not callable(setup_callback):
            raise TypeError("setup_callback must be callable")
        if teardown_callback and not callable(teardown_callback):
            raise TypeError("teardown_callback must be callable")
        self._data = data
        self._name = name
        self.setup_callback = setup_callback
        self.teardown_callback = teardown_callback
        self.nrt = nrt

    @property
    def name(self):
        return self._name or self.default_name

    @property
    def data(self):
        if isinstance(self._data, (io.StringIO, io.BytesIO)):
            return self._data.getvalue()
        return self._data

    @staticmethod
    def from_path(path):
        """The code of a file, of the class its extension names."""
        root, extension = os.path.splitext(path)
        kind = _EXTENSIONS.get(extension)
        if kind is None:
            raise ValueError(f"Don't know how to link {path}: the extension is none of {', '.join(_EXTENSIONS)}")
        with open(path, "r" if kind in ("cu", "ptx") else "rb") as f:
            data = f.read()
        return _CLASSES[kind](data, name=os.path.basename(root))

    @classmethod
    def from_path_or_obj(cls, path_or_obj):
        return cls.from_path(path_or_obj) if isinstance(path_or_obj, str) else path_or_obj

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


class PTXSource(LinkableCode):
    """PTX text in memory."""
    kind, default_name = "ptx", "<unnamed-ptx>"


class CUSource(LinkableCode):
    """CUDA C/C++ source in memory, compiled by NVRTC for the kernel's architecture."""
    kind, default_name = "cu", "<unnamed-cu>"


class Cubin(LinkableCode):
    """A cubin (device code for one architecture) in memory."""
    kind, default_name = "cubin", "<unnamed-cubin>"


class Fatbin(LinkableCode):
    """A fatbin in memory."""
    kind, default_name = "fatbin", "<unnamed-fatbin>"


class Object(LinkableCode):
    """A relocatable object (.o, nvcc -dc) in memory."""
    kind, default_name = "object", "<unnamed-object>"


class Archive(LinkableCode):
    """A static library (.a) in memory."""
    kind, default_name = "library", "<unnamed-archive>"


class LTOIR(LinkableCode):
    """LTO-IR (NVRTC or nvcc with -dlto) in memory; linked with nvJitLink's -lto."""
    kind, default_name = "ltoir", "<unnamed-ltoir>"


_CLASSES = {c.kind: c for c in (PTXSource, CUSource, Cubin, Fatbin, Object, Archive, LTOIR)}
# numba-cuda's class names for the same kinds (its objects are accepted as they are).
_NUMBA_KINDS = {"PTXSource": "ptx", "CUSource": "cu", "Cubin": "cubin", "Fatbin": "fatbin", "Object": "object",
                "Archive": "library", "LTOIR": "ltoir"}


def _cu_options(directory):
    """NVRTC's include directories for a .cu: its own folder, numba's CUDA_NVRTC_EXTRA_SEARCH_PATHS (':'-separated,
    read from gpujit.config or numba's config), and the toolkit's headers (curand_kernel.h ...): its include
    folder and, from CUDA 13 on, include/cccl, where libcu++ (<cuda/std/...>, which curand_kernel.h and
    cooperative_groups.h include), CUB and Thrust moved; without a toolkit, the headers of NVIDIA's pip wheels."""
    dirs = [directory] if directory else []
    extra = ""
    for name in ("gpujit.config", "numba.cuda.config", "numba.core.config"):
        config = sys.modules.get(name)
        value = getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "") if config is not None else ""
        if value:
            extra = value
            break
    extra = extra or os.environ.get("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
    dirs += [d for d in extra.split(":") if d]
    dirs += toolkit_include_dirs()
    return tuple("-I" + d for d in dirs)


def link_description(item):
    """One link input (a path or a code object) as the binding's (kind, name, data, options)."""
    if isinstance(item, os.PathLike):
        item = os.fspath(item)
    if isinstance(item, str):
        extension = os.path.splitext(item)[1]
        kind = _EXTENSIONS.get(extension)
        if kind is None:  # numba's words first
            what = f"with extension {extension}" if extension else "with no extension"
            raise LinkerError(f"Don't know how to link file {what} ({item}): link takes .cu, .ptx, .cubin, "
                              ".fatbin, .o, .a and .ltoir files, or code objects (CUSource, PTXSource, ...)")
        if not os.path.isfile(item):
            raise LinkerError(f"{item} not found")
        try:
            with open(item, "rb") as f:
                data = f.read()
        except OSError as e:
            raise LinkerError(f"cannot read link input {item}: {e.strerror}") from None
        options = _cu_options(os.path.dirname(os.path.abspath(item))) if kind == "cu" else ()
        return (kind, item, data, options)
    kind = getattr(item, "kind", None) if isinstance(item, LinkableCode) else None
    if kind is None and type(item).__name__ in _NUMBA_KINDS and hasattr(item, "data"):
        kind = _NUMBA_KINDS[type(item).__name__]
    if kind is None:
        raise TypeError(f"cannot link a {type(item).__name__}: link takes paths and code objects (CUSource, "
                        "PTXSource, Cubin, Fatbin, Object, Archive, LTOIR)")
    data = item.data
    if isinstance(data, memoryview):
        data = data.tobytes()
    if not isinstance(data, (bytes, bytearray, str)):
        raise TypeError(f"{type(item).__name__} {item.name!r}: its data is a {type(data).__name__}, not text or bytes")
    options = _cu_options(os.getcwd()) if kind == "cu" else ()
    description = (kind, str(item.name), bytes(data) if isinstance(data, bytearray) else data, options)
    if getattr(item, "setup_callback", None) or getattr(item, "teardown_callback", None):
        for what in ("setup_callback", "teardown_callback"):
            if getattr(item, what, None) is not None and not callable(getattr(item, what)):
                raise TypeError(f"{type(item).__name__} {item.name!r}: {what} must be callable")
        _module_callbacks.register(item, description)
    return description


def link_descriptions(link):
    """A link= value (one input, or a list, tuple or set of them) as a tuple of descriptions, each once."""
    if link is None:
        return ()
    if not isinstance(link, (list, tuple, set, frozenset)):
        link = (link,)
    out = []
    for item in link:
        d = link_description(item)
        if d not in out:
            out.append(d)
    # A set's order is arbitrary: sorted, so that the same set always makes the same kernel (and cache key).
    if isinstance(link, (set, frozenset)):
        out.sort(key=lambda d: (d[0], d[1]))
    return tuple(out)


def check_cuda_c(descriptions, stacklevel=3):
    """An eager compile's check of the CUDA C among `descriptions` (numba-cuda compiles it when an explicit
    signature compiles the kernel): NVRTC compiles each source to PTX (not cached: a cache hit has no log to
    warn with), for the current CUDA device's architecture or, on the CPU
    backend, the oldest NVRTC targets; a compile error raises NvrtcCompilationError with NVRTC's log, and NVRTC's
    warnings are a UserWarning "NVRTC log messages: ..." (numba's words). Nothing is checked where NVRTC is not
    installed: the link at the first launch says what is missing."""
    sources = [d for d in descriptions if d[0] == "cu"]
    if not sources:
        return
    import warnings

    from . import _core
    from ._cuda_c import nvrtc_compile

    arch = "compute_75"
    if _core.backend_name() == "cuda":
        try:
            major, minor = _core.get_current_device().compute_capability
            arch = f"sm_{major}{minor}"
        except Exception:
            pass
    for kind, name, data, options in sources:
        text = data.decode() if isinstance(data, bytes) else data
        try:
            result = nvrtc_compile(text, arch, "ptx", name=os.path.basename(name), options=(*options, "-rdc=true"),
                                   cache=False)
        except CudaSupportError:
            return
        except NvrtcCompilationError as e:
            raise _as_numba_nvrtc_error(e) from None
        if result.log.strip():
            warnings.warn(f"NVRTC log messages: {result.log.strip()}", UserWarning, stacklevel=stacklevel)


def linked_code(description, arch, output, lineinfo=False, debug=False):
    """compile_all's code object for one link input (its binding description): a CUDA C source compiled by NVRTC
    for `arch` to `output` ('ltoir' or 'ptx') with -rdc=true, and -lineinfo or -G as asked: a cuda.core
    ObjectCode where cuda.core is installed (numba-cuda's answer), else an LTOIR or PTXSource holding the code;
    any other input as the code object of its kind."""
    kind, name, data, options = description
    stem = os.path.basename(name)
    if os.path.splitext(stem)[1] in _EXTENSIONS:
        stem = os.path.splitext(stem)[0]
    if kind != "cu":
        if kind == "ptx" and isinstance(data, bytes):
            data = data.decode()
        return _CLASSES[kind](data, name=stem)
    from ._cuda_c import nvrtc_compile

    text = data.decode() if isinstance(data, bytes) else data
    flags = [*options, "-rdc=true"]
    if lineinfo:
        flags.append("-lineinfo")
    if debug:
        flags.append("-G")
    try:
        result = nvrtc_compile(text, arch, output, name=os.path.basename(name), options=flags)
    except NvrtcCompilationError as e:
        raise _as_numba_nvrtc_error(e) from None
    try:
        from cuda.core import ObjectCode
    except ImportError:
        return (LTOIR if output == "ltoir" else PTXSource)(result.code, name=stem)
    if output == "ltoir":
        return ObjectCode.from_ltoir(result.code, name=stem)
    return ObjectCode.from_ptx(result.code.encode(), name=stem)


def _as_numba_nvrtc_error(error):
    """The error itself, or where cuda.core is imported (numba-cuda raises its NVRTCError here, and numba programs
    catch that), the same error as an instance of a class derived from both."""
    utils = sys.modules.get("cuda.core._utils.cuda_utils")
    numba_class = getattr(utils, "NVRTCError", None) if utils is not None else None
    if numba_class is None or isinstance(error, numba_class):
        return error
    both = type("NvrtcCompilationError", (type(error), numba_class), {"__module__": type(error).__module__})
    copy = both(*error.args)
    copy.__dict__.update(error.__dict__)
    return copy


class ExternFunction:
    """A device function defined by external code (declare_device): `name` its symbol, `sig` its signature.
    Call it from kernels and device functions; with `use_cooperative`, a kernel that calls it is launched
    cooperatively (every block resident at once, as for cg.this_grid().sync())."""

    def __init__(self, name, sig, link, abi, text, use_cooperative=False):
        self.name = name
        self.sig = sig
        self.link = link
        self.abi = abi
        self.use_cooperative = bool(use_cooperative)
        self._description = ("extern", name, text, abi, link_descriptions(link), self.use_cooperative)

    def __repr__(self):
        return f"<external device function {self.name}{self._description[2][self._description[2].find('('):]}>"

    def __call__(self, *args):
        raise TypeError(f"external function '{self.name}' can only be called from a kernel or a device function")


def _normalized(sig):
    """The signature's text for the compiler, and the object `.sig` holds (numba's Signature where numba's typing
    is loaded, as numba's declare_device gives). TypeError without a return type."""
    if isinstance(sig, tuple) or (isinstance(sig, str) and sig.strip().startswith("(")):
        raise TypeError("Return type must be provided for device declarations")
    import re  # here, not at `import gpujit` (benchmarks/import_time.py)

    text = re.sub(r"CPointer\(\s*([\w.]+)\s*\)", r"\1*", signature_text(sig))
    text = text.replace("types.", "")
    shown = sig
    sigutils = sys.modules.get("numba.core.sigutils")
    if sigutils is not None:
        try:
            args, ret = sigutils.normalize_signature(sig)
            shown = ret(*args) if ret is not None else sig
        except Exception:
            shown = sig
    return text, shown


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """numba's cuda.declare_device: a function named `name` with signature `sig` ("float32(float32, float32)", a
    pointer as CPointer(float32) or "float32*"), defined by the code in `link` (a path or code object, or a list of
    them), callable from kernels. abi="numba" (the default): the symbol returns an int status (0) and writes its
    result through a pointer passed first; abi="c": a plain C function. Scalars and pointers cross the boundary
    (pass an array as ffi.from_buffer(a) to a pointer parameter). use_cooperative=True: the code needs a
    cooperative launch (a grid-wide sync), so every kernel that calls the function is launched as one."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    text, shown = _normalized(sig)
    return ExternFunction(name, shown, link, abi, text, use_cooperative)
