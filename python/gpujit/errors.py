"""The exceptions gpujit raises.

CompileError carries the position of the first error in the user's file and, as its message, every
diagnostic rendered clang-style (file:line:col, the source line, a caret). The runtime's errors follow
numba-cuda's names: CudaSupportError when no CUDA driver can be used, CudaAPIError when a driver call fails
(with the driver function and the CUDA error's name), LaunchError for a launch refused before the driver
is called (a bad grid or block, too much shared memory).

PerformanceWarning is for code that is correct but likely slower than meant: float64 arithmetic creeping into a
float32 kernel (issued by the compiler at the kernel's file and line), a grid too small to occupy a CUDA
device and a NumPy array copied to a CUDA device for a launch (issued at the launching line).
InvalidConfigWarning is for jit options that contradict each other, issued at the decorator's line.

Layer "base" of the Python package (docs/architecture.md): imports no module of the package.
"""


class CompileError(Exception):
    """A kernel could not be compiled: `.filename`, `.lineno`, `.col` locate the first error.

    A compile that failed because a library's callback raised (numba's LoweringError from an @intrinsic's
    codegen, _lowlevel.py) is also an instance of that exception's class, as numba-cuda raises that one."""

    _callback_failure = None  # message -> the callback's exception it reports, once (_lowlevel sets it)
    _with_cause = {}  # (class, the callback exception's class) -> the class deriving from both

    def __new__(cls, message="", *args, **kwargs):
        take = CompileError._callback_failure
        cause = take(str(message)) if take is not None else None
        if cause is not None and not isinstance(cause, CompileError):
            key = (cls, type(cause))
            both = CompileError._with_cause.get(key)
            if both is None:
                try:
                    both = type(cls.__name__, key, {"__module__": cls.__module__})
                except TypeError:  # classes whose layouts do not combine: the CompileError alone
                    both = cls
                CompileError._with_cause[key] = both
            cls = both
        return super().__new__(cls, message, *args, **kwargs)

    def __init__(self, message, filename=None, lineno=None, col=None):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col


# The class raised under each name where it is not the class of that name here: the numba shim's classes,
# made at run time, that derive from gpujit's and numba-cuda's (_numba_shim._refresh_error_classes).
_raised = {}


def _class_for(name):
    """The class gpujit raises as `name` ("CudaAPIError") now: the shim's where it made one, else this module's."""
    return _raised.get(name) or globals()[name]


def _rebuild(name, args):
    """Unpickles an error of this module's CudaError family as the class raised under its name here."""
    return _class_for(name)(*args)


class CudaError(RuntimeError):
    """Base class of the runtime's CUDA errors.

    They pickle by name (an error raised in a worker process reaches the parent as the class the parent raises
    under that name): pickle finds a class by its module and name, and the numba shim's classes, made at run
    time, are not found that way."""

    def __reduce__(self):
        name = type(self).__name__
        if type(self).__module__ != __name__ or not isinstance(globals().get(name), type):
            return super().__reduce__()  # a class of the program's own
        return _rebuild, (name, self.args), (self.__dict__ or None)


class CudaSupportError(CudaError):
    """No usable CUDA driver or device here ("no CUDA driver found")."""


class CudaDriverError(CudaError):
    """The CUDA driver cannot be used in this process: it was forked from a process that had initialized CUDA
    ("CUDA initialized before forking", numba's CudaDriverError). Start workers with the 'spawn' method."""


class CudaAPIError(CudaError):
    """A CUDA driver call failed; `.function`, `.code` and `.name` say which and how.

    `.recoverable` is False after an error CUDA does not recover from in this process: a sticky error raised
    inside a kernel (CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED, ...) or a lost device; every later
    CUDA call fails too, and the message says to restart the process.
    """

    function = None
    code = None
    name = None
    recoverable = True


class KernelRuntimeError(RuntimeError):
    """numba's KernelRuntimeError: an exception raised in a kernel, with the thread (`tid`) and block (`ctaid`)
    that raised it.

    Neither numba-cuda (0.30, on the GPU and in its simulator) nor gpujit raises it for a kernel's `raise` (or
    numba's failed `assert`): the launch raises the kernel's own exception class (ValueError, a class of the
    program), whose message starts with the function, file, line, tid and ctaid. It is here so that
    programs that import or catch it run unchanged; a program that wants every kernel exception catches
    Exception around the launch (or the classes its kernels raise).
    """

    def __init__(self, msg, tid=None, ctaid=None):
        self.tid = tid
        self.ctaid = ctaid
        self.msg = msg
        super().__init__(f"An exception was raised in thread={tid} block={ctaid}\n\t{msg}")


class LaunchError(ValueError):
    """A launch configuration the device cannot run, refused before any driver call."""


class CaptureError(RuntimeError):
    """Work that a graph capture (`with gpu.graph():`) cannot take: a synchronize, a nested capture, a NumPy
    argument, a debug kernel. Raised before the driver is called, so the capture ends cleanly."""


class PerformanceWarning(UserWarning):
    """Correct code that is likely slower than meant; issued at the kernel's file and line when it compiles."""


class CacheWarning(UserWarning):
    """The on-disk cache (cache=True) met a damaged entry or a folder it cannot write; the kernel compiles as if
    uncached. Issued once per process for each kind (numba's NumbaWarning)."""


class DebugInfoWarning(UserWarning):
    """debug=True for a function whose source inspect cannot find (exec'd text gpujit recovered): the debug info
    names a file a debugger cannot open (numba's NumbaDebugInfoWarning)."""


class InvalidConfigWarning(UserWarning):
    """jit options that contradict each other; gpujit says which one wins (numba's NumbaInvalidConfigWarning)."""


class NvrtcError(CudaError):
    """NVRTC, NVIDIA's runtime compiler of CUDA C/C++, failed (numba's nvrtc.NvrtcError)."""


class NvrtcCompilationError(NvrtcError):
    """CUDA C/C++ source did not compile: the message is a summary line and NVRTC's log, whose lines keep the
    source's name and line ("vadd.cu(3): error: ..."); `.log` is the log alone (docs/cuda_c.md)."""

    log = ""


class LinkerError(CudaError):
    """nvJitLink could not link device code (an undefined symbol, an architecture mismatch): `.error_log` and
    `.info_log` are its logs (numba's driver.LinkerError)."""

    error_log = ""
    info_log = ""
