// The checksum of an on-disk cache entry's payload: LLVM's XXH3-64 (codegen/cache_checksum.h says why here).
#include "codegen/cache_checksum.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/xxhash.h>

namespace gpujit {

uint64_t cache_checksum(std::string_view bytes) {
  return llvm::xxh3_64bits(llvm::StringRef(bytes.data(), bytes.size()));
}

}  // namespace gpujit
