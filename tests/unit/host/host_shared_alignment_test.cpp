// shared.array(..., alignment=N) on the CPU backend: the executor's shared buffers are only 16-byte aligned,
// so the generated code rounds the arrays' base at run time (codegen/host_target.cpp). These tests call the
// kernel's thread entry themselves with shared buffers placed at every 16-byte offset from a 1024-byte
// boundary, find where each array's first element landed, and check its address against its alignment and
// that no two arrays (static or dynamic) overlap.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "host_kernel_test.h"
#include "codegen/host_abi.h"

namespace gpujit {
namespace {

using testing::compile_for_host;

template <typename T>
const uint8_t* find_value(const uint8_t* begin, const uint8_t* end, T value) {
  for (const uint8_t* p = begin; p + sizeof(T) <= end; ++p) {
    if (std::memcmp(p, &value, sizeof(T)) == 0) return p;
  }
  return nullptr;
}

TEST(HostSharedAlignment, EveryArrayLandsOnItsAlignmentWhereverTheBufferIs) {
  // No barrier, no print and no bounds check: the thread entry calls no runtime entry point, so a bare
  // context is enough.
  CompileResult r = compile_for_host(R"(
import numpy as np
import gpujit as cuda

@cuda.jit
def k():
    small = cuda.shared.array(3, np.uint8)
    wide = cuda.shared.array(4, np.float64, alignment=256)
    mid = cuda.shared.array(2, np.int32, alignment=64)
    dyn = cuda.shared.array(0, np.float64, alignment=128)
    small[0] = 7
    wide[0] = 1234.5
    mid[0] = 987654
    dyn[0] = -42.25
)",
                                     "k", "");
  // The arrays take 3 + 32 + 8 bytes at most 256-aligned; the slack of both roundings is on top.
  const size_t static_bytes = r.host->static_shared_bytes;
  EXPECT_GE(static_bytes, 256u + 8 + (256 - 16) + (128 - 16));
  constexpr size_t kDynamicBytes = 64;
  const size_t dynamic_offset = (static_bytes + kHostSharedAlign - 1) / kHostSharedAlign * kHostSharedAlign;
  std::unique_ptr<uint8_t, decltype(&std::free)> storage(
      static_cast<uint8_t*>(std::aligned_alloc(1024, 4096)), &std::free);
  for (size_t misalign = 0; misalign < 1024; misalign += kHostSharedAlign) {
    uint8_t* shared = storage.get() + misalign;
    std::memset(storage.get(), 0, 4096);
    HostThreadContext ctx{};
    for (int d = 0; d < 3; ++d) ctx.ntid[d] = ctx.nctaid[d] = 1;
    ctx.warpsize = kHostWarpSize;
    ctx.shared = shared;
    ctx.dynamic_shared = shared + dynamic_offset;
    ctx.dynamic_shared_bytes = kDynamicBytes;
    r.host->entry(nullptr, &ctx);

    const uint8_t* end = ctx.dynamic_shared + kDynamicBytes;
    const uint8_t* small = find_value<uint8_t>(shared, end, 7);
    const uint8_t* wide = find_value<double>(shared, end, 1234.5);
    const uint8_t* mid = find_value<int32_t>(shared, end, 987654);
    const uint8_t* dyn = find_value<double>(shared, end, -42.25);
    ASSERT_TRUE(small && wide && mid && dyn) << "misalign " << misalign;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(wide) % 256, 0u) << "misalign " << misalign;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(mid) % 64, 0u) << "misalign " << misalign;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(dyn) % 128, 0u) << "misalign " << misalign;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 16, 0u) << "misalign " << misalign;
    // Static arrays lie in the static buffer, the dynamic one after all of them with its bytes whole.
    EXPECT_LE(std::max({small + 3, wide + 32, mid + 8}), shared + static_bytes) << misalign;
    EXPECT_GT(dyn, std::max({small + 3, wide + 32, mid + 8}) - 1) << misalign;
    EXPECT_LE(dyn + kDynamicBytes, end) << misalign;
  }
}

}  // namespace
}  // namespace gpujit
