// The on-disk kernel cache behind `@jit(cache=True)`: one file per compiled PTX kernel, named after its
// cache key (cache_key() in compiler/compiler.h), holding what a launch needs so that a later process skips
// semantic analysis, lowering, optimization and PTX emission: the PTX, the entry's name, the parameter
// layout and the uses_grid_sync flag.
//
// Invariants:
// - An entry is written to a temporary file in the same folder and renamed over its final name, so a reader
//   sees a whole entry or none, whatever crashes or races with another process writing the same key.
// - A reader trusts nothing: an entry that is truncated, fails its checksum, was written for another key or
//   by another format version is a miss (and is overwritten by the next store), never an error.
// - Only PTX is cached. Host (cpu backend) code is machine code JIT-loaded into the process and is compiled
//   again in every process.
// Where entries go (directory_for): $GPUJIT_CACHE_DIR when set; else, as numba does, a `__pycache__` folder
// next to the kernel's source file when that can be created and written; else $XDG_CACHE_HOME/gpujit
// (~/.cache/gpujit). This file is LLVM-free (C++17 <filesystem>), like the rest of runtime/. Paths cross
// this interface as std::string, never std::string: the Python binding is built on the GPU
// machine by another compiler, whose <filesystem> objects need not match the core library's.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/artifact.h"

namespace gpujit::rt {

class DiskCache {
 public:
  explicit DiskCache(std::string directory) : directory_(std::move(directory)) {}

  /// The cache for kernels defined in `source_file` (the Python file's path), created if needed; nullopt
  /// when no candidate folder can be created and written.
  static std::optional<DiskCache> for_source(const std::string& source_file);

  const std::string& directory() const { return directory_; }

  /// The entry file of `kernel_name`'s compile with this key: "<source stem>.<kernel>.<key>.gpujit".
  std::string entry_path(const std::string& source_file, const std::string& kernel_name,
                                   const std::string& key) const;

  /// The cached compile for `key`, or null when there is no usable entry. The result has ok, ptx,
  /// entry_name, uses_grid_sync and params set; params take their types from `arg_types` (which the key
  /// covers), and an entry whose parameter count differs from them is a miss.
  std::shared_ptr<CompileResult> load(const std::string& entry, const std::string& key,
                                      const std::vector<Type>& arg_types) const;

  /// Writes `result` (a successful PTX compile) as the entry for `key`. Returns false, leaving no file
  /// behind, when it cannot be written; the caller goes on without the cache.
  bool store(const std::string& entry, const std::string& key, const CompileResult& result) const;

 private:
  std::string directory_;
};

}  // namespace gpujit::rt
