// A caching device allocator: freed blocks go to per-stream free lists instead of back to the driver.
//
// Allocating and freeing device memory through the driver is slow (cuMemAlloc/cuMemFree take microseconds
// to milliseconds and cuMemFree synchronizes the device), and array code allocates in loops. Here a freed
// block is kept, keyed by the stream it was allocated for, and handed out again for a request of about the
// same size on the same stream. Reuse on the same stream is safe without any synchronization: stream order
// puts every use of the new owner after every use of the old one. A block is never handed to another stream
// while cached, except after the stream it belongs to was synchronized (forget_stream()).
//
// Sizes are rounded up to 512 bytes; a cached block serves a request if it is at most 1/8 larger (so a big
// block is not wasted on a small request). When the device runs out of memory, every cached block is
// returned to the driver (after a device synchronize) and the allocation is tried once more.
//
// numba's defer_cleanup(): while release is deferred, nothing is given back to the driver (a free synchronizes
// the device), neither by release_cached() nor after running out of memory, which then fails at once.
//
// numba's pending deallocations (a context's `deallocations`): a freed block first joins a queue of pending
// frees, where no allocation takes it, and the queue is flushed into the cache when it holds more than
// `count` blocks or more than `ratio` of the device's memory (the requested sizes, as numba counts them),
// when flush_pending() is called, and before cached memory is given back. Nothing is flushed while release is
// deferred, so memory freed inside defer_cleanup() is not reused before the block ends (numba's promise, which
// keeps memory that asynchronous work on another stream may still read). gpujit's default limit is 0 blocks:
// the queue is flushed at each free and a block is reusable at once; numba's is 10 (and 0.2), which the
// drop-in mode sets from numba's config (set_pending_limits).
//
// Not thread-safe on its own: the Python binding calls it with the GIL held; other callers lock around it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace gpujit::rt {

class Device;

class CachingAllocator {
 public:
  struct Stats {
    uint64_t backend_allocations = 0;  // times the backend's allocate() was called
    uint64_t cache_hits = 0;           // allocations served from the cache
    uint64_t bytes_in_use = 0;         // held by live blocks
    uint64_t bytes_cached = 0;         // held by free blocks in the cache (pending ones too)
  };

  explicit CachingAllocator(Device& device) : device_(device) {}
  ~CachingAllocator() = default;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// A block of memory and the stream whose order it is used in.
  struct Block {
    uint64_t ptr = 0;
    size_t size = 0;  // the block's real size, at least what was asked for
    void* stream = nullptr;
    size_t requested = 0;  // the bytes asked for, which the pending queue counts
  };

  /// A block of at least `bytes` for use in order on `stream` (null: the default stream). 0 bytes gives a
  /// block with ptr 0.
  Block allocate(size_t bytes, void* stream);
  /// Takes back a block from allocate().
  void free(const Block& block);
  /// Synchronizes the device and gives every cached block back to the backend; nothing while deferred.
  void release_cached();
  /// Defers release_cached() until as many resume_release() calls (nested blocks each defer once).
  void defer_release() { ++deferred_; }
  void resume_release() {
    if (deferred_ > 0) --deferred_;
  }
  bool release_deferred() const { return deferred_ > 0; }
  /// Called before a stream is destroyed: waits for it and moves its cached blocks to the default stream.
  void forget_stream(void* stream);

  const Stats& stats() const { return stats_; }

  /// The pending queue's limits for every device: more than `count` blocks, or more than `ratio` times the
  /// device's memory in requested bytes, flush it (numba's CUDA_DEALLOCS_COUNT and CUDA_DEALLOCS_RATIO).
  static void set_pending_limits(size_t count, double ratio);
  static std::pair<size_t, double> pending_limits();
  /// Moves the pending blocks into the cache, where allocations reuse them; nothing while deferred.
  void flush_pending();
  size_t pending_count() const { return pending_.size(); }
  uint64_t pending_bytes() const { return pending_bytes_; }
  /// The size a request of `bytes` is rounded up to.
  static size_t round_size(size_t bytes);

 private:
  using Key = std::pair<void*, size_t>;  // (stream, rounded size)

  Device& device_;
  std::multimap<Key, uint64_t> cache_;
  std::vector<Block> pending_;
  uint64_t pending_bytes_ = 0;
  Stats stats_;
  int deferred_ = 0;
};

}  // namespace gpujit::rt
