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
Refused by name: output other than PTX (NVVM's LTO-IR) and the C ABI for kernels.

Layer "on the dispatcher" of the Python package (docs/architecture.md): imports _dispatcher and _signature.
"""

import warnings

from . import _core
from . import config
from ._dispatcher import Dispatcher, _launch_bounds, default_opt
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
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    abi_info = dict(abi_info or {})
    if isinstance(pyfunc, Dispatcher):
        pyfunc = pyfunc.py_func
    if debug is None:  # numba's defaults: config.CUDA_DEBUGINFO_DEFAULT and config.OPT, with its warning
        debug = bool(config.CUDA_DEBUGINFO_DEFAULT)
    opt = default_opt(debug, opt, stacklevel=2)
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
            _launch_bounds(None if device else launch_bounds))
        if output == "cubin":
            # The PTX linked with the code of the external functions it calls (declare_device, link=).
            # No nvvm_ir_error: the compile warned of the writer's failure already; the link warns of its own.
            cubin = _core._link_kernel(ptx, entry + ".ptx", link, _arch(cc) or "sm_80", lto, nvvm_ir)
            return cubin, _return_type(ret, sig)
        return ptx, _return_type(ret, sig)
    except CompileError as e:
        if "must have void return type" in str(e):
            # numba's error for a kernel that returns a value is a TypeError.
            raise TypeError(f"CUDA kernel must have void return type.\n{e}") from None
        raise


def nvvm_ir(pyfunc, sig, cc=None, fastmath=False):
    """The kernel `pyfunc` for `sig` as NVVM IR: the text jit(lto=True) hands to libNVVM (codegen/nvvm_ir_writer.h,
    docs/cuda_c.md). ValueError naming the construct when the writer cannot write it."""
    pyfunc = getattr(pyfunc, "py_func", pyfunc)  # a gpujit or numba dispatcher: its Python function
    dispatcher = Dispatcher(pyfunc, fastmath=bool(fastmath), lto=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the writer's failure is the ValueError below
        ir, error = dispatcher._compile_entry(sig, True, "kernel", "", _arch(cc))[4:6]
    if not ir:
        raise ValueError(error)
    return ir


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
            abi_info=None, output="ptx", forceinline=False, launch_bounds=None, link=None, lto=False):
    """numba's compile(): compile_ptx with numba's defaults for it (a device function, the C ABI).

    gpujit's output="cubin" (a kernel, device=False) links the PTX with the code of the external functions it
    calls (declare_device) and with `link` into a cubin for `cc` (sm_80 without one), through NVRTC and
    nvJitLink, without a GPU; lto=True links with nvJitLink's -lto (CUDA C sources compiled to LTO-IR, and the
    kernel written as NVVM IR and compiled to LTO-IR by libNVVM, so that its CUDA C functions are inlined)."""
    if output not in ("ptx", "cubin"):
        if output == "ltoir":
            raise NotImplementedError("compile(output='ltoir'): gpujit produces PTX (output='ptx') or, linked with "
                                      "its external code, a cubin (output='cubin')")
        raise NotImplementedError(f"Unsupported output type: {output}")
    if output == "cubin" and not device:
        abi = "numba"  # a kernel has no ABI to choose; compile()'s default, the C ABI, is for device functions
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                       opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline, launch_bounds=launch_bounds,
                       link=link, output=output, lto=lto)


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
                abi_info=None, output="ltoir", forceinline=False, launch_bounds=None):
    """numba's compile_all(): ([code of the function and of each external function it links], return type).
    gpujit links no external code, so the list is the function's PTX alone (output='ptx' only)."""
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    ptx, resty = compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                         opt=opt, abi=abi, abi_info=abi_info, output=output, launch_bounds=launch_bounds)
    return [ptx], resty


def compile_ptx_for_current_device(pyfunc, sig, **options):
    return compile_ptx(pyfunc, sig, **options)


def compile_for_current_device(pyfunc, sig, **options):
    return compile(pyfunc, sig, **options)
