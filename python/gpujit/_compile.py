"""numba-cuda's ahead-of-time entry points: compile_ptx(pyfunc, sig) and its relatives.

They compile one signature of a Python function to PTX without launching it, on any machine (no GPU needed):
the same pipeline a launch uses, through a Dispatcher made for the call. They return (ptx, return type), as
numba-cuda's do.

A kernel (device=False) compiles to a `.entry` and returns nothing. A device function (device=True) compiles
on its own to a `.visible .func` whose parameters are the signature's arguments (an array is one aggregate
parameter: data pointer, int64 shape[ndim], int64 strides[ndim], gpujit's layout, not numba's), with one of
numba's two ABIs:
- abi="c": the result is the function's return value and the symbol is the Python function's name, or
  abi_info["abi_name"];
- abi="numba" (compile_ptx's default): the function returns an int32 status (0) in func_retval0 and takes a
  pointer to write the result through and a pointer for exception information (unused) before the
  arguments, as numba's device functions do; the symbol is gpujit's mangled name, not numba's.
compile(output="ltoir") (and compile_all's default) writes the function as NVVM IR (codegen/nvvm_ir_writer.h) and
has libNVVM compile it to LTO-IR (runtime/nvvm.h), for nvJitLink's -lto: a device function stays externally
visible under its symbol (alwaysinline with forceinline=True), a kernel is a kernel. Refused by name: other
outputs, the C ABI for kernels, and forceinline without LTO-IR.

Layer "on the dispatcher" of the Python package (docs/architecture.md): imports _dispatcher and _signature.
"""

import warnings

from . import _core
from . import config
from ._dispatcher import Dispatcher, _launch_bounds, default_opt, ptx_arch
from ._signature import _declared_return, _return_type
from .errors import CompileError

# The oldest architecture gpujit compiles for (LLVM's NVPTX and CUDA 13's ptxas); an older cc gets it.
_MIN_CC = (7, 5)


def _arch(cc):
    """The PTX target for numba's cc argument: sm_XY (sm_90a for (9, 0, "a"), an architecture-specific
    target), or '' for the current device's (sm_80 without one)."""
    if cc is None:
        return ""
    major, minor = int(cc[0]), int(cc[1])
    suffix = str(cc[2]) if len(cc) > 2 and cc[2] else ""
    if suffix not in ("", "a", "f"):
        raise ValueError(f"cc={cc!r}: the third element, if any, is 'a' or 'f' (sm_90a, sm_100f)")
    if (major, minor) < _MIN_CC:
        major, minor, suffix = *_MIN_CC, ""
    return f"sm_{major}{minor}{suffix}"


def compile_ptx(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, cc=None, opt=None,
                abi="numba", abi_info=None, forceinline=False, launch_bounds=None, link=None, output="ptx",
                lto=False, **unsupported):
    """PTX for `pyfunc` compiled for the signature `sig`; returns (ptx, return type).

    `sig` is what @jit takes: "void(float32[::1], int32)", a tuple of types (float32[::1], int32), or a
    signature object; with device=True it may name a return type ("int32(int32, int32)"), else the return
    type is inferred. `cc` picks the architecture (sm_75 at least); None: the current device's (or sm_80
    with no GPU). `launch_bounds` (a kernel's max threads per block[, min blocks per SM[, max blocks per
    cluster]]) become `.maxntid`, `.minnctapersm`, `.maxclusterrank`. See the module's documentation for the
    device-function ABIs.
    """
    if unsupported:
        raise TypeError(f"compile_ptx() got unsupported option(s): {', '.join(sorted(unsupported))}")
    return _compile_function(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                             opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline,
                             launch_bounds=launch_bounds, link=link, output=output, lto=lto)[:2]


def _compile_function(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, forceinline,
                      launch_bounds, link, output, lto):
    """compile_ptx's work: (the code `output` names, return type, the link inputs as the binding describes
    them, the architecture of the code)."""
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    abi_info = dict(abi_info or {})
    if isinstance(pyfunc, Dispatcher):
        pyfunc = pyfunc.py_func
    if debug is None:  # numba's defaults: config.CUDA_DEBUGINFO_DEFAULT and config.OPT, with its warning
        debug = bool(config.CUDA_DEBUGINFO_DEFAULT)
    opt = default_opt(debug, opt, stacklevel=4)
    opt_level = 3 if opt is True else 0 if opt is False else int(opt)
    if debug:
        opt_level = 0
    # lto=True with output="cubin": the kernel also as NVVM IR, linked as libNVVM's LTO-IR (docs/cuda_c.md).
    dispatcher = Dispatcher(pyfunc, device=bool(device), fastmath=bool(fastmath), opt=opt_level,
                            lineinfo=bool(lineinfo), debug=bool(debug), debug_info=bool(debug),
                            lto=bool(lto) and output == "cubin" and not device,
                            targetoptions={"link": link} if link else None)
    # Without abi_name the core names a C-ABI function after its definition (a lambda's is lambda_L_C).
    abi_name = str(abi_info.get("abi_name", "")) if abi == "c" else ""
    try:
        ptx, ret, link, entry, nvvm_ir, _ = dispatcher._compile_entry(
            sig, not (device and _declared_return(sig)), abi if device else "kernel", abi_name, _arch(cc),
            _launch_bounds(None if device else launch_bounds), output == "ltoir", bool(forceinline))
        arch = ptx_arch(ptx)
        if output == "ltoir":
            return _ltoir(nvvm_ir, arch), _return_type(ret, sig), link, arch
        if output == "cubin":
            # The PTX linked with the code of the external functions it calls (declare_device, link=).
            # No nvvm_ir_error: the compile warned of the writer's failure already; the link warns of its own.
            cubin = _core._link_kernel(ptx, entry + ".ptx", link, _arch(cc) or "sm_80", lto, nvvm_ir)
            return cubin, _return_type(ret, sig), link, arch
        return ptx, _return_type(ret, sig), link, arch
    except CompileError as e:
        if "must have void return type" in str(e):
            # numba's error for a kernel that returns a value is a TypeError.
            raise TypeError(f"CUDA kernel must have void return type.\n{e}") from None
        raise


def _ltoir(nvvm_ir, arch):
    """libNVVM's LTO-IR of NVVM IR for `arch`. CudaSupportError naming where libNVVM was looked for when it is
    not installed; RuntimeError with libNVVM's log when it refuses the IR."""
    from ._cuda_c import _ensure_search_dirs

    _ensure_search_dirs()
    library = _core._nvvm_library()
    if isinstance(library, str):
        from .errors import CudaSupportError

        raise CudaSupportError(f"output='ltoir' needs libNVVM (the CUDA toolkit's nvvm/lib64 or lib): {library}")
    return _core._nvvm_compile(nvvm_ir, arch, True)


def nvvm_ir(pyfunc, sig, cc=None, fastmath=False, device=False, abi="c", forceinline=False):
    """`pyfunc` for `sig` as NVVM IR: the text jit(lto=True) (a kernel) or compile(output='ltoir') (a kernel, or with
    device=True a device function of numba's `abi`) hands to libNVVM (codegen/nvvm_ir_writer.h, docs/cuda_c.md).
    ValueError naming the construct when the writer cannot write it."""
    pyfunc = getattr(pyfunc, "py_func", pyfunc)  # a gpujit or numba dispatcher: its Python function
    if not device:
        dispatcher = Dispatcher(pyfunc, fastmath=bool(fastmath), lto=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the writer's failure is the ValueError below
            ir, error = dispatcher._compile_entry(sig, True, "kernel", "", _arch(cc))[4:6]
        if not ir:
            raise ValueError(error)
        return ir
    dispatcher = Dispatcher(pyfunc, device=True, fastmath=bool(fastmath))
    try:
        return dispatcher._compile_entry(sig, not _declared_return(sig), abi, "", _arch(cc), (0, 0, 0), True,
                                         bool(forceinline))[4]
    except CompileError as e:
        raise ValueError(str(e)) from None


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
            abi_info=None, output="ptx", forceinline=False, launch_bounds=None, link=None, lto=False):
    """numba's compile(): compile_ptx with numba's defaults for it (a device function, the C ABI).

    gpujit's output="cubin" (a kernel, device=False) links the PTX with the code of the external functions it
    calls (declare_device) and with `link` into a cubin for `cc` (sm_80 without one), through NVRTC and
    nvJitLink, without a GPU; lto=True links with nvJitLink's -lto (CUDA C sources compiled to LTO-IR, and the
    kernel written as NVVM IR and compiled to LTO-IR by libNVVM, so that its CUDA C functions are inlined)."""
    if output not in ("ptx", "cubin", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output}")
    if output == "cubin" and not device:
        abi = "numba"  # a kernel has no ABI to choose; compile()'s default, the C ABI, is for device functions
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                       opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline, launch_bounds=launch_bounds,
                       link=link, output=output, lto=lto)


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
                abi_info=None, output="ltoir", forceinline=False, launch_bounds=None):
    """numba's compile_all(): ([the function's code, then one per external link input], return type).

    The function's code is its LTO-IR (bytes, output='ltoir') or PTX (str, output='ptx'). The link inputs are
    those of the external functions it calls (declare_device's link=), each once: a CUDA C source compiled by
    NVRTC for the same architecture, to LTO-IR or PTX as `output` says, with -lineinfo or -G as lineinfo and debug
    say (a cuda.core ObjectCode where cuda.core is installed, as numba's, its `code` the bytes; else gpujit's LTOIR
    or PTXSource holding them in `data`); any other input as a code object of its kind (gpujit's PTXSource, Cubin,
    Fatbin, Object, Archive, LTOIR)."""
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if debug is None:
        debug = bool(config.CUDA_DEBUGINFO_DEFAULT)
    code, resty, link, arch = _compile_function(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                                                fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                                                forceinline=forceinline, launch_bounds=launch_bounds, link=None,
                                                output=output, lto=False)
    from ._linking import linked_code

    return [code] + [linked_code(d, arch, output, lineinfo=lineinfo, debug=debug) for d in link], resty


def compile_ptx_for_current_device(pyfunc, sig, **options):
    return compile_ptx(pyfunc, sig, **options)


def compile_for_current_device(pyfunc, sig, **options):
    return compile(pyfunc, sig, **options)
