// The caching allocator's free lists (see caching_allocator.h).
#include "runtime/caching_allocator.h"

#include <atomic>
#include <exception>

#include <fmt/format.h>

#include "runtime/cuda_api.h"
#include "runtime/device.h"
#include "runtime/runtime_error.h"

namespace gpujit::rt {

namespace {
// Process-wide, as numba's config is; read at each free.
std::atomic<size_t> g_pending_count{0};
std::atomic<double> g_pending_ratio{0.2};
}  // namespace

void CachingAllocator::set_pending_limits(size_t count, double ratio) {
  g_pending_count.store(count);
  g_pending_ratio.store(ratio);
}

std::pair<size_t, double> CachingAllocator::pending_limits() {
  return {g_pending_count.load(), g_pending_ratio.load()};
}

size_t CachingAllocator::round_size(size_t bytes) {
  constexpr size_t kGranule = 512;
  return (bytes + kGranule - 1) / kGranule * kGranule;
}

CachingAllocator::Block CachingAllocator::allocate(size_t bytes, void* stream) {
  if (bytes == 0) return {0, 0, stream};
  size_t size = round_size(bytes);
  auto it = cache_.lower_bound({stream, size});
  if (it != cache_.end() && it->first.first == stream && it->first.second - size <= size / 8) {
    uint64_t ptr = it->second;
    size_t block = it->first.second;
    cache_.erase(it);
    stats_.cache_hits++;
    stats_.bytes_cached -= block;
    stats_.bytes_in_use += block;
    return {ptr, block, stream, bytes};
  }
  uint64_t ptr = 0;
  try {
    ptr = device_.allocate(size);
  } catch (const DriverError& e) {
    if (e.code() != cuda::CUDA_ERROR_OUT_OF_MEMORY) throw;
    uint64_t cached = stats_.bytes_cached;
    if (cached == 0) {
      throw e.with_context(
          fmt::format("{} bytes are in use by live arrays and none are cached", stats_.bytes_in_use));
    }
    if (deferred_ > 0) {
      throw e.with_context(fmt::format(
          "{} bytes are in use by live arrays and {} cached bytes were not given back to the driver, since "
          "defer_cleanup() is active",
          stats_.bytes_in_use, cached));
    }
    release_cached();
    try {
      ptr = device_.allocate(size);
    } catch (const DriverError& again) {
      if (again.code() != cuda::CUDA_ERROR_OUT_OF_MEMORY) throw;
      throw again.with_context(
          fmt::format("retried after giving the {} cached bytes back to the driver; {} bytes are "
                      "in use by live arrays",
                      cached, stats_.bytes_in_use));
    }
  }
  stats_.backend_allocations++;
  stats_.bytes_in_use += size;
  return {ptr, size, stream, bytes};
}

void CachingAllocator::free(const Block& block) {
  if (block.ptr == 0) return;
  stats_.bytes_in_use -= block.size;
  stats_.bytes_cached += block.size;
  if (deferred_ == 0 && pending_.empty() && g_pending_count.load() == 0) {
    cache_.emplace(Key{block.stream, block.size}, block.ptr);  // gpujit's default: reusable at once
    return;
  }
  pending_.push_back(block);
  pending_bytes_ += block.requested;
  if (deferred_ > 0) return;
  if (pending_.size() > g_pending_count.load()) {
    flush_pending();
    return;
  }
  // numba's byte limit, int(capacity * ratio): the device's memory as read once when it was first used (a free
  // runs in destructors, where a driver call that may fail has no place).
  // A device of unknown size (0) has the count limit only.
  uint64_t capacity = device_.properties().total_memory;
  if (capacity > 0 && pending_bytes_ > uint64_t(double(capacity) * g_pending_ratio.load())) flush_pending();
}

void CachingAllocator::flush_pending() {
  if (deferred_ > 0) return;
  for (const Block& b : pending_) cache_.emplace(Key{b.stream, b.size}, b.ptr);
  pending_.clear();
  pending_bytes_ = 0;
}

void CachingAllocator::release_cached() {
  if (deferred_ > 0) return;
  flush_pending();
  if (cache_.empty()) return;
  device_.synchronize();
  // A block leaves the cache before its free is tried, so a failing free (the device lost, a sticky error)
  // neither frees a block twice later nor stops the others from being freed; the first failure is rethrown.
  std::exception_ptr first_failure;
  while (!cache_.empty()) {
    auto it = cache_.begin();
    uint64_t ptr = it->second;
    stats_.bytes_cached -= it->first.second;
    cache_.erase(it);
    try {
      device_.deallocate(ptr);
    } catch (const DriverError& e) {
      if (!first_failure) {
        first_failure = std::make_exception_ptr(e.with_context("giving the allocator's cached blocks back"));
      }
    } catch (const std::exception&) {
      if (!first_failure) first_failure = std::current_exception();
    }
  }
  if (first_failure) std::rethrow_exception(first_failure);
}

void CachingAllocator::forget_stream(void* stream) {
  if (stream == nullptr) return;
  auto first = cache_.lower_bound({stream, 0});
  auto last = first;
  while (last != cache_.end() && last->first.first == stream) ++last;
  bool pending = false;
  for (const Block& b : pending_) pending = pending || b.stream == stream;
  if (first == last && !pending) return;
  device_.synchronize_stream(stream);
  for (Block& b : pending_) {
    if (b.stream == stream) b.stream = nullptr;
  }
  for (auto it = first; it != last; ++it) cache_.emplace(Key{nullptr, it->first.second}, it->second);
  cache_.erase(first, last);
}

}  // namespace gpujit::rt
