"""numba's cuda.require_context (docs/python.md): a decorator that makes the current device's context current
before each call; numba-cuda's cudadrv/test_linker.py wraps a test in it."""

import gpujit as gpu


def test_require_context_wraps_and_calls(cpu_backend):
    calls = []

    @gpu.require_context
    def work(a, b=2):
        """Adds."""
        calls.append(gpu.current_context())
        return a + b

    assert work(1, b=3) == 4
    assert work.__name__ == "work" and work.__doc__ == "Adds."
    assert calls == [gpu.get_current_device()]
    assert gpu.cudadrv.devices.require_context(lambda: 5)() == 5


def test_get_primary_context_is_the_device(cpu_backend):
    # numba's device.get_primary_context(): gpujit's device is numba's context (current_context()).
    device = gpu.get_current_device()
    assert device.get_primary_context() is device
    context = gpu.current_context()
    assert context.get_primary_context() is context and context.id == device.id
