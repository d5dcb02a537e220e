"""numba's `cuda.cudadrv.driver.driver`: the object whose attributes are the CUDA driver's functions, as far as a
program replaces its host<->device copies.

A program that sets `driver.cuMemcpyHtoD` or `driver.cuMemcpyDtoH` (or their `...Async` forms) to a function of
its own gets that function called, with the driver's arguments `(dst, src, nbytes)` (and the stream for the
Async forms), in place of every host<->device copy gpujit makes, on either backend (numba-cuda's test of a ufunc
on device arrays replaces them with a function that raises, to prove that nothing is copied). Reading one before
it is replaced gives gpujit's own copy with those arguments, so a program can wrap it, call it, and put it back
(or `del` its replacement). The other attributes are those of `fallback` (numba-cuda's own driver object in
drop-in mode), and setting one sets it there.
"""

from . import _core

# name -> (host to device, takes a stream)
_COPIES = {"cuMemcpyHtoD": (True, False), "cuMemcpyDtoH": (False, False),
           "cuMemcpyHtoDAsync": (True, True), "cuMemcpyDtoHAsync": (False, True)}


def _own_copy(name, to_device, takes_stream):
    if takes_stream:
        def copy(dst, src, nbytes, stream):
            _core._raw_copy(to_device, int(dst), int(src), int(nbytes), int(stream or 0))
    else:
        def copy(dst, src, nbytes):
            _core._raw_copy(to_device, int(dst), int(src), int(nbytes), 0)
    copy.__name__ = copy.__qualname__ = name
    copy.__doc__ = f"gpujit's own {name}(dst, src, nbytes{', stream' if takes_stream else ''})."
    return copy


_OWN = {name: _own_copy(name, *how) for name, how in _COPIES.items()}


class Driver:
    """The driver object (see the module's text); one per process."""

    def __init__(self, fallback=None):
        object.__setattr__(self, "_fallback", fallback)
        object.__setattr__(self, "_replaced", {})

    def _fall_back_to(self, fallback):
        object.__setattr__(self, "_fallback", fallback)

    def __getattr__(self, name):
        if name in _COPIES:
            return self._replaced.get(name, _OWN[name])
        if self._fallback is None:
            raise AttributeError(f"gpujit's driver object has no attribute {name!r}: of the CUDA driver's "
                                 f"functions it has the host<->device copies {', '.join(_COPIES)}")
        return getattr(self._fallback, name)

    def __setattr__(self, name, value):
        if name not in _COPIES:
            setattr(self._fallback, name, value) if self._fallback is not None \
                else object.__setattr__(self, name, value)
            return
        if not callable(value):
            raise TypeError(f"driver.{name} must be a function taking the driver's arguments, got {value!r}")
        if value is _OWN[name]:
            self._replaced.pop(name, None)
        else:
            self._replaced[name] = value
        self._install()

    def __delattr__(self, name):
        if name not in _COPIES:
            delattr(self._fallback, name) if self._fallback is not None else object.__delattr__(self, name)
            return
        self._replaced.pop(name, None)
        self._install()

    def _install(self):
        _core._set_transfer_hook(self._copy if self._replaced else None)

    def _copy(self, to_device, dst, src, nbytes, stream):
        name = ("cuMemcpyHtoD" if to_device else "cuMemcpyDtoH") + ("Async" if stream else "")
        replaced = self._replaced.get(name)
        if replaced is None:  # only the other direction or form is replaced
            _core._raw_copy(to_device, dst, src, nbytes, stream)
        elif stream:
            replaced(dst, src, nbytes, stream)
        else:
            replaced(dst, src, nbytes)


driver = Driver()
