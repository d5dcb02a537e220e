// FNV-1a, 64-bit: a small, stable, non-cryptographic hash of bytes. Used where a value must be the same in
// every process and build (mangled names, checksums of cache entries), which std::hash does not promise.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpujit {

inline uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace gpujit
