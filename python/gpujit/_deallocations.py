"""numba-cuda's pending deallocations: a context's `deallocations` queue, on gpujit's caching allocator.

numba frees device memory late: a freed allocation joins its context's queue, and the queue is flushed (the
driver's frees run) when it holds more than config.CUDA_DEALLOCS_COUNT entries or more than
config.CUDA_DEALLOCS_RATIO of the device's memory, when `clear()` is called, or never while `defer_cleanup()`
is active. gpujit's caching allocator keeps the queue itself (runtime/caching_allocator.h): a freed block is
pending, where no allocation takes it, until the queue is flushed into the cache, from which allocations reuse
it (giving the cache back to the driver, `empty_cache()` or a device reset, flushes first). So, as in numba,
memory freed inside `defer_cleanup()` is not reused before the block ends.

- DeviceDeallocations is the queue of one device, what `current_context().deallocations` and
  `current_context().memory_manager.deallocations` are when no EMM plugin is bound: len() counts the pending
  frees, `_size` their requested bytes, `clear()` flushes (nothing while disabled), `disable()` is
  defer_cleanup's, and `add_item(dtor, handle, size)` queues a Python resource's release in the same queue.
- PendingDeallocs is the same queue in Python, for what a HostOnlyCUDAMemoryManager plugin frees itself.

gpujit's own limit is 0 entries (config.CUDA_DEALLOCS_COUNT): a freed block is reusable at once, which keeps a
loop of allocations on one block. The drop-in mode sets numba's config values (10 entries, 0.2 of the device's
memory), and so do NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT and _RATIO (GPUJIT_MAX_PENDING_DEALLOCS_COUNT and
_RATIO first).

Layer "base" of the Python package (docs/architecture.md): imports only _core and config.
"""

import contextlib
from collections import deque

from . import _core
from . import config


def _max_pending_bytes(capacity):
    """numba's limit in bytes: int(capacity * CUDA_DEALLOCS_RATIO)."""
    return int(capacity * config.CUDA_DEALLOCS_RATIO)


class PendingDeallocs:
    """A queue of releases `dtor(handle)` run when it passes the limits or is cleared (numba's _PendingDeallocs),
    for resources gpujit's allocator does not hold. `memory_capacity` is the device's memory (0: unknown, when
    only the count limit applies)."""

    def __init__(self, capacity=0):
        self._cons = deque()
        self._disable_count = 0
        self._size = 0
        self.memory_capacity = capacity

    @property
    def _max_pending_bytes(self):
        return _max_pending_bytes(self.memory_capacity) if self.memory_capacity else float("inf")

    def add_item(self, dtor, handle, size=0):
        """Queues `dtor(handle)`, which releases `size` bytes; flushes when the queue passes a limit."""
        self._cons.append((dtor, handle, size))
        self._size += int(size)
        if len(self._cons) > config.CUDA_DEALLOCS_COUNT or self._size > self._max_pending_bytes:
            self.clear()

    def clear(self):
        """Runs the queued releases, unless disabled."""
        if self.is_disabled:
            return
        while self._cons:
            dtor, handle, _ = self._cons.popleft()
            dtor(handle)
        self._size = 0

    @contextlib.contextmanager
    def disable(self):
        """Nothing is released inside the block (it may be nested)."""
        self._disable_count += 1
        try:
            yield
        finally:
            self._disable_count -= 1

    @property
    def is_disabled(self):
        return self._disable_count > 0

    def __len__(self):
        return len(self._cons)


class DeviceDeallocations:
    """One device's queue of pending frees, kept by gpujit's caching allocator, with numba's interface; Python
    resources queued with add_item() join it."""

    def __init__(self, device):
        self._device = device
        self._python = PendingDeallocs()

    @property
    def memory_capacity(self):
        return self._device.total_memory

    @property
    def _max_pending_bytes(self):
        return _max_pending_bytes(self.memory_capacity)

    @property
    def _size(self):
        return _core._pending_frees(self._device)[1] + self._python._size

    def add_item(self, dtor, handle, size=0):
        """Queues `dtor(handle)` (a resource that frees `size` bytes); flushes when the queue passes a limit."""
        self._python._cons.append((dtor, handle, size))
        self._python._size += int(size)
        if len(self) > config.CUDA_DEALLOCS_COUNT or self._size > self._max_pending_bytes:
            self.clear()

    def clear(self):
        """Flushes the queue: freed blocks become reusable and queued releases run; nothing while disabled."""
        if self.is_disabled:
            return
        _core._flush_pending(self._device)
        self._python.clear()

    @contextlib.contextmanager
    def disable(self):
        """Nothing is flushed inside the block (defer_cleanup()); it may be nested."""
        _core._defer_release(self._device, True)
        try:
            yield
        finally:
            _core._defer_release(self._device, False)

    @property
    def is_disabled(self):
        return _core._release_deferred(self._device)

    def __len__(self):
        return _core._pending_frees(self._device)[0] + len(self._python._cons)

    def __repr__(self):
        return f"<deallocations of {self._device!r}: {len(self)} pending, {self._size} bytes>"
