// The caching allocator against an in-memory Device that counts what reaches the backend.
#include "runtime/caching_allocator.h"

#include <gtest/gtest.h>

#include <set>

#include "runtime/cuda_api.h"
#include "runtime/device.h"
#include "runtime/runtime_error.h"

namespace gpujit::rt {
namespace {

// A Device whose memory is counted addresses; everything else is a no-op.
class CountingDevice final : public Device {
 public:
  CountingDevice() : Device(DeviceProperties{}) {}
  BackendKind backend() const override { return BackendKind::Host; }
  void activate() override {}
  DevicePtr allocate(size_t bytes) override {
    if (fail_next_) {
      fail_next_ = false;
      throw DriverError("cuMemAlloc", cuda::CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
    }
    ++allocations;
    next_ += 1 << 20;
    live.insert(next_);
    return next_;
  }
  void deallocate(DevicePtr ptr) override { live.erase(ptr); }
  void* allocate_pinned(size_t) override { return nullptr; }
  void deallocate_pinned(void*) override {}
  void* allocate_managed(size_t) override { return nullptr; }
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
  void launch(const LoadedKernel&, const LaunchConfig&, void**) override {}
  uint64_t max_cooperative_grid_blocks(const LoadedKernel&, uint32_t, uint32_t) override { return 0; }

  void fail_next_allocation() { fail_next_ = true; }

  int allocations = 0;
  int stream_syncs = 0;
  int device_syncs = 0;
  std::set<DevicePtr> live;

 private:
  DevicePtr next_ = 0;
  bool fail_next_ = false;
};

void* const kStreamA = reinterpret_cast<void*>(0xA);
void* const kStreamB = reinterpret_cast<void*>(0xB);

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

}  // namespace
}  // namespace gpujit::rt
