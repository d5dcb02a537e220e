"""gpujit.random: numba.cuda.random's xoroshiro128+ generators, one per thread.

    from gpujit.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @gpu.jit
    def draw(states, out):
        i = gpu.grid(1)
        if i < out.size:
            out[i] = xoroshiro128p_uniform_float32(states, i)

    states = create_xoroshiro128p_states(n, seed=1)

The states are made on the host exactly as numba makes them (SplitMix64 of the seed, then jumps of 2**64
steps from one generator to the next), so a kernel draws numba's sequences. They are numba's: a device array
of n records of dtype xoroshiro128p_dtype, (s0, s1) as two uint64; the draw functions also take the same
bytes as an (n, 2) uint64 array. The draw functions only exist inside kernels; they advance the state of
generator `index` in place.

Layer "base" of the Python package (docs/architecture.md): imports _core and _kernel_api.
"""

from . import _core
from ._kernel_api import KernelFunction

# numba's record dtype of one state.
_STATE_FIELDS = [("s0", "u8"), ("s1", "u8")]

xoroshiro128p_next = KernelFunction("random", "xoroshiro128p_next")
xoroshiro128p_uniform_float32 = KernelFunction("random", "xoroshiro128p_uniform_float32")
xoroshiro128p_uniform_float64 = KernelFunction("random", "xoroshiro128p_uniform_float64")
xoroshiro128p_normal_float32 = KernelFunction("random", "xoroshiro128p_normal_float32")
xoroshiro128p_normal_float64 = KernelFunction("random", "xoroshiro128p_normal_float64")


def __getattr__(name):
    if name == "xoroshiro128p_dtype":
        import numpy as np

        return np.dtype(_STATE_FIELDS, align=True)
    raise AttributeError(f"module 'gpujit.random' has no attribute '{name}'")


def _host_states(n, seed, subsequence_start):
    import numpy as np

    n = int(n)
    if n < 0:
        raise ValueError(f"the number of generators must be non-negative, got {n}")
    mask = (1 << 64) - 1
    raw = _core._xoroshiro128p_states(n, int(seed) & mask, int(subsequence_start) & mask)
    return np.frombuffer(raw, dtype=np.dtype(_STATE_FIELDS, align=True)).copy()


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initializes the device array `states` in place for its n generators (numba's signature): n
    xoroshiro128p_dtype records, or an (n, 2) uint64 array."""
    host = _host_states(states.shape[0], seed, subsequence_start)
    if states.dtype != host.dtype:
        host = host.view(states.dtype).reshape(states.shape)
    states.copy_to_device(host, stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A device array of the states of n generators, seeded as numba seeds them: generator i starts
    (subsequence_start + i) * 2**64 steps into the sequence of `seed`."""
    return _core.to_device(_host_states(n, seed, subsequence_start), stream=stream)
