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
// - Only PTX is cached, and next to it the device's machine code (a CUDA cubin) in a file of its own, keyed
//   by the PTX entry's key plus a tag naming the driver and the device (Device::machine_code_tag()); a hit
//   there loads machine code directly, the PTX stays the portable fallback. Host (cpu backend) code is
//   machine code JIT-loaded into the process and is compiled again in every process.
// - Folders the cache creates are private to the user (0700); folders that exist are left as they are.
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

  /// Why load() found nothing: no file (a plain miss) or a file it could not use (truncated, failed its
  /// checksum, another format or key), which the caller reports once and compiles over.
  enum class Miss { None, Missing, Damaged };

  /// The cached compile for `key`, or null when there is no usable entry. The result has ok, ptx,
  /// entry_name, uses_grid_sync and params set; params take their types from `arg_types` (which the key
  /// covers), and an entry whose parameter count differs from them is a miss. `why` (optional) says why.
  std::shared_ptr<CompileResult> load(const std::string& entry, const std::string& key,
                                      const std::vector<Type>& arg_types, Miss* why = nullptr) const;

  /// The machine-code file that goes with PTX entry `entry` on a device whose tag is `tag`.
  static std::string machine_code_path(const std::string& entry, const std::string& tag);
  /// The machine code stored for (`key`, `tag`) at `path`, or nullopt (with `why` as in load()).
  std::optional<std::string> load_machine_code(const std::string& path, const std::string& key,
                                               const std::string& tag, Miss* why = nullptr) const;
  /// Writes machine code as store() writes an entry (temporary file, rename). False when it cannot.
  bool store_machine_code(const std::string& path, const std::string& key, const std::string& tag,
                          const std::string& code) const;

  /// Writes `result` (a successful PTX compile) as the entry for `key`. Returns false, leaving no file
  /// behind, when it cannot be written; the caller goes on without the cache.
  bool store(const std::string& entry, const std::string& key, const CompileResult& result) const;

 private:
  std::string directory_;
};

}  // namespace gpujit::rt
