// The caching allocator against an in-memory Device that counts what reaches the backend, and DeviceBuffer's
// choice between it and an external allocator.
#include "runtime/caching_allocator.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

#include "runtime/cuda_api.h"
#include "runtime/device.h"
#include "runtime/device_array.h"
#include "runtime/runtime_error.h"

namespace gpujit::rt {
namespace {

// A Device whose memory is counted addresses; everything else is a no-op.
class CountingDevice final : public Device {
 public:
  CountingDevice() : Device(DeviceProperties{}) {}
  explicit CountingDevice(const DeviceProperties& props) : Device(props) {}
  BackendKind backend() const override { return BackendKind::Host; }
  void activate() override {}
  DevicePtr allocate(size_t bytes) override {
    if (fail_allocations_ > 0) {
      --fail_allocations_;
      throw DriverError("cuMemAlloc", cuda::CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
    }
    ++allocations;
    next_ += 1 << 20;
    live.insert(next_);
    return next_;
  }
  void deallocate(DevicePtr ptr) override {
    if (fail_frees_ > 0) {
      --fail_frees_;
      throw DriverError("cuMemFree", 1, "CUDA_ERROR_INVALID_VALUE", "invalid argument");
    }
    live.erase(ptr);
  }
  void* allocate_pinned(size_t) override { return nullptr; }
  void deallocate_pinned(void*) override {}
  void* allocate_managed(size_t, bool) override { return nullptr; }
  void deallocate_managed(void*) override {}
  DevicePtr mapped_pointer(void*) override { return 0; }
  void copy_to_device(DevicePtr, const void*, size_t, StreamHandle) override {}
  void copy_to_host(void*, DevicePtr, size_t, StreamHandle) override {}
  void copy_on_device(DevicePtr, DevicePtr, size_t, StreamHandle) override {}
  void fill_bytes(DevicePtr, uint8_t, size_t, StreamHandle) override {}
  std::pair<size_t, size_t> memory_info() override { return {0, 0}; }
  StreamHandle create_stream() override { return nullptr; }
  void destroy_stream(StreamHandle) override {}
  void synchronize_stream(StreamHandle) override { ++stream_syncs; }
  bool query_stream(StreamHandle) override { return true; }
  EventHandle create_event(bool) override { return nullptr; }
  void destroy_event(EventHandle) override {}
  void record_event(EventHandle, StreamHandle) override {}
  void synchronize_event(EventHandle) override {}
  bool query_event(EventHandle) override { return true; }
  void stream_wait_event(StreamHandle, EventHandle) override {}
  float elapsed_ms(EventHandle, EventHandle) override { return 0; }
  void synchronize() override { ++device_syncs; }
  void configure_compile(CompileOptions&) const override {}
  std::shared_ptr<LoadedKernel> load_kernel(const CompileResult&, const std::string&) override { return nullptr; }
  void launch(const LoadedKernel&, const LaunchConfig&, void**, const ParamBuffer*) override {}
  uint64_t max_cooperative_grid_blocks(const LoadedKernel&, uint32_t, uint32_t) override { return 0; }

  void fail_next_allocation() { fail_allocations_ = 1; }
  void fail_allocations(int n) { fail_allocations_ = n; }
  void fail_frees(int n) { fail_frees_ = n; }

  int allocations = 0;
  int stream_syncs = 0;
  int device_syncs = 0;
  std::set<DevicePtr> live;

 private:
  DevicePtr next_ = 0;
  int fail_allocations_ = 0;
  int fail_frees_ = 0;
};

void* const kStreamA = reinterpret_cast<void*>(0xA);
void* const kStreamB = reinterpret_cast<void*>(0xB);

// Sets the pending queue's limits for one test and puts gpujit's defaults (0 blocks, 0.2) back after it.
struct PendingLimits {
  PendingLimits(size_t count, double ratio) { CachingAllocator::set_pending_limits(count, ratio); }
  ~PendingLimits() { CachingAllocator::set_pending_limits(0, 0.2); }
};

TEST(CachingAllocator, PendingFreesAreNotReusedUntilTheQueuePassesItsCount) {
  PendingLimits limits(2, 1.0);
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  auto first = a.allocate(100, nullptr);
  a.free(first);
  EXPECT_EQ(a.pending_count(), 1u);
  EXPECT_EQ(a.pending_bytes(), 100u);  // the bytes asked for, not the rounded block
  auto second = a.allocate(100, nullptr);
  EXPECT_NE(second.ptr, first.ptr);  // the pending block is not handed out
  a.free(second);
  auto third = a.allocate(100, nullptr);
  a.free(third);  // a third pending free passes the count of 2: all three become reusable
  EXPECT_EQ(a.pending_count(), 0u);
  EXPECT_EQ(a.pending_bytes(), 0u);
  EXPECT_EQ(dev.allocations, 3);
  a.allocate(100, nullptr);
  EXPECT_EQ(dev.allocations, 3);
  EXPECT_EQ(a.stats().cache_hits, 1u);
}

TEST(CachingAllocator, PendingFreesFlushPastTheirShareOfTheDevicesMemory) {
  PendingLimits limits(100, 0.5);
  DeviceProperties props;
  props.total_memory = 2000;  // a limit of 1000 bytes
  CountingDevice dev(props);
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(600, nullptr));
  a.free(a.allocate(400, nullptr));
  EXPECT_EQ(a.pending_count(), 2u);  // 1000 bytes: not more than the limit
  a.free(a.allocate(1, nullptr));
  EXPECT_EQ(a.pending_count(), 0u);
}

TEST(CachingAllocator, DeferredReleaseHoldsThePendingFrees) {
  PendingLimits limits(1, 1.0);
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.defer_release();
  for (int i = 0; i < 4; ++i) a.free(a.allocate(100, nullptr));
  a.flush_pending();
  a.release_cached();
  EXPECT_EQ(a.pending_count(), 4u);
  EXPECT_EQ(dev.allocations, 4);  // nothing freed inside was reused
  EXPECT_EQ(dev.live.size(), 4u);
  a.resume_release();
  a.flush_pending();
  EXPECT_EQ(a.pending_count(), 0u);
  a.release_cached();
  EXPECT_TRUE(dev.live.empty());
}

TEST(CachingAllocator, ReleasingTheCacheFlushesThePendingFreesFirst) {
  PendingLimits limits(10, 1.0);
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(100, kStreamA));
  a.forget_stream(kStreamA);  // the pending block moves to the default stream too
  EXPECT_EQ(dev.stream_syncs, 1);
  a.release_cached();
  EXPECT_EQ(a.pending_count(), 0u);
  EXPECT_TRUE(dev.live.empty());
  EXPECT_EQ(a.stats().bytes_cached, 0u);
}

TEST(CachingAllocator, FreeThenAllocateSameSizeReusesTheBlock) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  for (int i = 0; i < 100; ++i) {
    auto block = a.allocate(4000, nullptr);
    ASSERT_NE(block.ptr, 0u);
    a.free(block);
  }
  EXPECT_EQ(dev.allocations, 1);
  EXPECT_EQ(a.stats().backend_allocations, 1u);
  EXPECT_EQ(a.stats().cache_hits, 99u);
  EXPECT_EQ(a.stats().bytes_in_use, 0u);
  EXPECT_EQ(a.stats().bytes_cached, CachingAllocator::round_size(4000));
}

TEST(CachingAllocator, RoundsTo512Bytes) {
  EXPECT_EQ(CachingAllocator::round_size(1), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024u);
}

TEST(CachingAllocator, ZeroBytesNeverReachesTheBackend) {
  CountingDevice dev;
  auto block = dev.allocator().allocate(0, nullptr);
  EXPECT_EQ(block.ptr, 0u);
  dev.allocator().free(block);
  EXPECT_EQ(dev.allocations, 0);
}

TEST(CachingAllocator, ABlockIsNotReusedOnAnotherStream) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(4096, kStreamA));
  auto b = a.allocate(4096, kStreamB);
  EXPECT_EQ(dev.allocations, 2);
  a.free(b);
  auto again = a.allocate(4096, kStreamA);
  EXPECT_EQ(dev.allocations, 2);
  a.free(again);
}

TEST(CachingAllocator, AMuchBiggerBlockIsNotSpentOnASmallRequest) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(1 << 20, nullptr));
  auto small = a.allocate(1024, nullptr);
  EXPECT_EQ(dev.allocations, 2);
  EXPECT_EQ(small.size, 1024u);
  // Up to 1/8 larger is fine: 1 MiB serves a request of 1 MiB - 64 KiB.
  auto close = a.allocate((1 << 20) - (64 << 10), nullptr);
  EXPECT_EQ(dev.allocations, 2);
  EXPECT_EQ(close.size, size_t(1) << 20);
}

TEST(CachingAllocator, OutOfMemoryReleasesTheCacheAndRetries) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(512, nullptr));
  ASSERT_EQ(dev.live.size(), 1u);
  dev.fail_next_allocation();
  auto big = a.allocate(1 << 20, nullptr);
  EXPECT_NE(big.ptr, 0u);
  EXPECT_EQ(dev.device_syncs, 1);
  EXPECT_EQ(dev.live.size(), 1u);  // the cached 512-byte block went back; the new one is live
  EXPECT_EQ(a.stats().bytes_cached, 0u);
}

TEST(CachingAllocator, OutOfMemoryWithAnEmptyCacheIsReported) {
  CountingDevice dev;
  dev.fail_next_allocation();
  EXPECT_THROW(dev.allocator().allocate(512, nullptr), DriverError);
}

TEST(CachingAllocator, OutOfMemoryAfterTheRetrySaysWhatWasTried) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(4096, nullptr));
  dev.fail_allocations(2);
  try {
    a.allocate(1 << 20, nullptr);
    ADD_FAILURE() << "the second out-of-memory is reported";
  } catch (const DriverError& e) {
    EXPECT_EQ(e.code(), cuda::CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find("retried after giving the 4096 cached bytes back"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(a.stats().bytes_cached, 0u);
  EXPECT_TRUE(dev.live.empty());
}

TEST(CachingAllocator, AFailingFreeStillEmptiesTheCache) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  auto b1 = a.allocate(1000, nullptr), b2 = a.allocate(5000, nullptr), b3 = a.allocate(20000, nullptr);
  a.free(b1);
  a.free(b2);
  a.free(b3);
  ASSERT_EQ(dev.live.size(), 3u);
  dev.fail_frees(1);
  try {
    a.release_cached();
    ADD_FAILURE() << "the failing free is reported";
  } catch (const DriverError& e) {
    EXPECT_NE(std::string(e.what()).find("cuMemFree failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("giving the allocator's cached blocks back"), std::string::npos)
        << e.what();
  }
  // The other two were freed, and no block stays cached to be freed twice by a later release.
  EXPECT_EQ(dev.live.size(), 1u);
  EXPECT_EQ(a.stats().bytes_cached, 0u);
  a.release_cached();
  EXPECT_EQ(dev.live.size(), 1u);
}

TEST(CachingAllocator, ForgetStreamMovesItsBlocksToTheDefaultStream) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(2048, kStreamA));
  a.forget_stream(kStreamA);
  EXPECT_EQ(dev.stream_syncs, 1);
  auto b = a.allocate(2048, nullptr);
  EXPECT_EQ(dev.allocations, 1);
  a.free(b);
}

TEST(CachingAllocator, DeferredReleaseKeepsTheCacheUntilResumed) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(4096, nullptr));
  a.defer_release();
  a.defer_release();  // nested blocks
  a.release_cached();
  EXPECT_EQ(dev.live.size(), 1u);
  EXPECT_EQ(dev.device_syncs, 0);  // not even the synchronize a release starts with
  a.resume_release();
  EXPECT_TRUE(a.release_deferred());
  a.release_cached();
  EXPECT_EQ(dev.live.size(), 1u);
  a.resume_release();
  EXPECT_FALSE(a.release_deferred());
  a.release_cached();
  EXPECT_TRUE(dev.live.empty());
}

TEST(CachingAllocator, OutOfMemoryWhileDeferredFailsWithoutReleasing) {
  CountingDevice dev;
  CachingAllocator& a = dev.allocator();
  a.free(a.allocate(4096, nullptr));
  a.defer_release();
  dev.fail_next_allocation();
  try {
    a.allocate(1 << 20, nullptr);
    ADD_FAILURE() << "the out-of-memory is reported";
  } catch (const DriverError& e) {
    EXPECT_NE(std::string(e.what()).find("since defer_cleanup() is active"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dev.live.size(), 1u);
  EXPECT_EQ(a.stats().bytes_cached, 4096u);
}

// An ExternalAllocator that hands out counted addresses and records which are still owned.
class CountingExternal final : public ExternalAllocator {
 public:
  Allocation allocate(size_t bytes) override {
    sizes.push_back(bytes);
    DevicePtr ptr = 0x7000000 + 0x1000 * sizes.size();
    live->insert(ptr);
    auto set = live;
    return {ptr, std::shared_ptr<void>(reinterpret_cast<void*>(ptr), [set](void* p) {
              set->erase(DevicePtr(reinterpret_cast<uintptr_t>(p)));
            })};
  }
  std::vector<size_t> sizes;
  std::shared_ptr<std::set<DevicePtr>> live = std::make_shared<std::set<DevicePtr>>();
};

TEST(DeviceBuffer, AnExternalAllocatorServesEveryBufferMadeWhileSet) {
  CountingDevice dev;
  auto external = std::make_shared<CountingExternal>();
  dev.set_external_allocator(external);
  {
    std::shared_ptr<DeviceBuffer> buffer = DeviceBuffer::make(dev, 1000, nullptr);
    EXPECT_EQ(buffer->ptr(), 0x7001000u);
    EXPECT_EQ(buffer->bytes(), 1000u);
    ASSERT_EQ(external->sizes.size(), 1u);
    EXPECT_EQ(external->sizes[0], 1000u);  // the size asked for, not the cache's 512-byte rounding
    EXPECT_EQ(external->live->size(), 1u);
    std::shared_ptr<DeviceBuffer> empty = DeviceBuffer::make(dev, 0, nullptr);  // nothing asked for no bytes
    EXPECT_EQ(empty->ptr(), 0u);
    EXPECT_EQ(external->sizes.size(), 1u);
  }
  EXPECT_TRUE(external->live->empty());  // the owner went with the buffer
  EXPECT_EQ(dev.allocations, 0);
  EXPECT_EQ(dev.allocator().stats().bytes_cached, 0u);  // nothing entered gpujit's cache
  EXPECT_EQ(dev.allocator().stats().bytes_in_use, 0u);

  dev.set_external_allocator(nullptr);
  { std::shared_ptr<DeviceBuffer> own = DeviceBuffer::make(dev, 1000, nullptr); }
  EXPECT_EQ(dev.allocations, 1);
  EXPECT_EQ(external->sizes.size(), 1u);
  EXPECT_EQ(dev.allocator().stats().bytes_cached, 1024u);  // gpujit's own block, cached again
}

}  // namespace
}  // namespace gpujit::rt
