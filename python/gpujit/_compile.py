"""numba-cuda's ahead-of-time entry points: compile_ptx(pyfunc, sig) and its relatives.

They compile one signature of a Python function to PTX without launching it, on any machine (no GPU needed):
the same pipeline a launch uses, through a Dispatcher made for the call. They return (ptx, return type), as
numba-cuda's do. What gpujit does not do yet is refused by name: a device function compiled on its own
(device=True; gpujit compiles device functions into the kernels that call them), output other than PTX
(NVVM's LTO-IR), and ABIs other than the kernel's.
"""

from ._dispatcher import Dispatcher
from ._types import void


def compile_ptx(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, cc=None, opt=None,
                abi="numba", abi_info=None, forceinline=False, launch_bounds=None, **unsupported):
    """PTX for `pyfunc` compiled as a kernel for the signature `sig`; returns (ptx, return type).

    `sig` is what @jit takes: "void(float32[::1], int32)", a tuple of types (float32[::1], int32), or a
    signature object. `cc` is accepted for numba's sake; the PTX targets the current device's architecture
    (or sm_80 with no GPU), which the driver runs on newer ones too.
    """
    if unsupported:
        raise TypeError(f"compile_ptx() got unsupported option(s): {', '.join(sorted(unsupported))}")
    if device:
        raise NotImplementedError(
            f"compile_ptx(device=True): gpujit compiles device functions into the kernels that call them, not "
            f"on their own; compile a kernel that calls '{getattr(pyfunc, '__name__', pyfunc)}' instead")
    if abi_info is not None or abi not in ("numba", "c"):
        raise NotImplementedError(f"compile_ptx(abi={abi!r}): gpujit compiles kernels with their own ABI only")
    if isinstance(pyfunc, Dispatcher):
        pyfunc = pyfunc.py_func
    opt_level = 3 if opt is None or opt is True else 0 if opt is False else int(opt)
    if debug:
        opt_level = 0
    kernel = Dispatcher(pyfunc, fastmath=bool(fastmath), opt=opt_level, lineinfo=bool(lineinfo),
                        debug=bool(debug))
    return kernel.inspect_ptx(sig), void


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
            abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """numba's compile(): the same as compile_ptx for output='ptx' (its default for device is True)."""
    if output != "ptx":
        raise NotImplementedError(f"compile(output={output!r}): gpujit produces PTX only (output='ptx')")
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                       opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, **options):
    return compile_ptx(pyfunc, sig, **options)


def compile_for_current_device(pyfunc, sig, **options):
    return compile(pyfunc, sig, **options)

