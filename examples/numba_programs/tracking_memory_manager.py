"""An External Memory Management (EMM) plugin that tracks every device allocation of the program.

numba-cuda lets a program hand device memory to a plugin (RMM, CuPy's pool, or its own) with
cuda.set_memory_manager; this one wraps numba's default manager and counts, so a program can see its peak
device memory. Run unchanged on gpujit: `python -m gpujit run examples/numba_programs/tracking_memory_manager.py`.
On a machine without a GPU there is no device memory to manage: the plugin stays unused, as in numba's simulator.
"""

import weakref

import numpy as np
from numba import cuda
from numba.cuda.cudadrv.driver import NumbaCUDAMemoryManager


class TrackingManager(NumbaCUDAMemoryManager):
    """numba's own manager, counting the bytes it hands out and gets back."""

    allocations = 0
    live_bytes = 0
    peak_bytes = 0

    def memalloc(self, size):
        memory = super().memalloc(size)
        cls = type(self)
        cls.allocations += 1
        cls.live_bytes += size
        cls.peak_bytes = max(cls.peak_bytes, cls.live_bytes)
        weakref.finalize(memory, cls._freed, size)
        return memory

    @classmethod
    def _freed(cls, size):
        cls.live_bytes -= size


cuda.set_memory_manager(TrackingManager)


@cuda.jit
def scale_rows(matrix, factors, out):
    i, j = cuda.grid(2)
    if i < matrix.shape[0] and j < matrix.shape[1]:
        out[i, j] = matrix[i, j] * factors[i]


def main():
    rows, cols = 512, 256
    matrix = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    factors = np.linspace(0.5, 2.0, rows)
    d_matrix = cuda.to_device(matrix)
    d_factors = cuda.to_device(factors)
    d_out = cuda.device_array_like(d_matrix)
    scale_rows[(rows // 16, cols // 16), (16, 16)](d_matrix, d_factors, d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), matrix * factors[:, None])

    manager = cuda.current_context().memory_manager
    if isinstance(manager, TrackingManager):
        expected = matrix.nbytes * 2 + factors.nbytes
        assert TrackingManager.allocations >= 3 and TrackingManager.peak_bytes >= expected, vars(TrackingManager)
        print(f"{TrackingManager.allocations} device allocations through the plugin, "
              f"peak {TrackingManager.peak_bytes} bytes")
    else:
        print("no device memory here: the plugin was not used")
    print("OK")


if __name__ == "__main__":
    main()
