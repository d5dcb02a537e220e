// The in-memory cache of one kernel's specializations: (argument types, device) -> loaded kernel, and
// (argument types, architecture) -> compile result.
//
// A kernel has few specializations (usually one), so entries are kept in small vectors and found by a
// linear scan that starts at the last hit; a key is a short array of ArgCodes compared with memcmp. Compile
// results are shared by every device of the same architecture; loaded kernels belong to one device.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/artifact.h"
#include "runtime/device.h"
#include "runtime/kernel_args.h"

namespace gpujit::rt {

class KernelCache {
 public:
  /// The kernel loaded on `device` for argument types `key`, or null.
  LoadedKernel* find(const ArgCode* key, size_t n, const Device* device) {
    if (last_ < loaded_.size() && loaded_[last_].matches(key, n, device)) return loaded_[last_].kernel.get();
    for (size_t i = 0; i < loaded_.size(); ++i) {
      if (loaded_[i].matches(key, n, device)) {
        last_ = i;
        return loaded_[i].kernel.get();
      }
    }
    return nullptr;
  }
  void add_loaded(std::vector<ArgCode> key, const Device* device, std::shared_ptr<LoadedKernel> kernel);
  /// Unloads every kernel loaded on `device` (a context reset); returns how many. A launch must not be using
  /// one at the time (the caller holds the GIL, which every launch of a linked kernel takes to find it).
  size_t drop_loaded(const Device* device);

  /// The compile result for `key` on architecture `arch`, or null.
  std::shared_ptr<const CompileResult> find_compiled(const std::vector<ArgCode>& key, const std::string& arch) const;
  void add_compiled(std::vector<ArgCode> key, std::string arch, std::shared_ptr<const CompileResult> result);

  /// Every compile result, in the order they were made (for inspect_ptx and friends).
  struct Compiled {
    std::vector<ArgCode> key;
    std::string arch;
    std::shared_ptr<const CompileResult> result;
  };
  const std::vector<Compiled>& compiled() const { return compiled_; }
  size_t loaded_count() const { return loaded_.size(); }

 private:
  struct Loaded {
    std::vector<ArgCode> key;
    const Device* device;
    std::shared_ptr<LoadedKernel> kernel;
    bool matches(const ArgCode* k, size_t n, const Device* d) const {
      return device == d && key.size() == n && (n == 0 || std::memcmp(key.data(), k, n * sizeof(ArgCode)) == 0);
    }
  };
  std::vector<Loaded> loaded_;
  std::vector<Compiled> compiled_;
  size_t last_ = 0;
};

}  // namespace gpujit::rt
