// The checksum of an on-disk cache entry's payload (runtime/disk_cache.cpp): LLVM's XXH3-64, which reads a
// PTX or cubin entry of a few hundred KiB in microseconds. Part of codegen's interface (scripts/check-layers),
// defined in codegen/cache_checksum.cpp, so that runtime/ stays free of LLVM's headers.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpujit {

uint64_t cache_checksum(std::string_view bytes);

}  // namespace gpujit
