// Specialization cache entries (see kernel_cache.h).
#include "runtime/kernel_cache.h"

#include <algorithm>

namespace gpujit::rt {

void KernelCache::add_loaded(std::vector<ArgCode> key, const Device* device, std::shared_ptr<LoadedKernel> kernel) {
  loaded_.push_back({std::move(key), device, std::move(kernel)});
  last_ = loaded_.size() - 1;
}

size_t KernelCache::drop_loaded(const Device* device) {
  size_t before = loaded_.size();
  loaded_.erase(std::remove_if(loaded_.begin(), loaded_.end(), [&](const Loaded& l) { return l.device == device; }),
                loaded_.end());
  last_ = 0;
  return before - loaded_.size();
}

std::shared_ptr<const CompileResult> KernelCache::find_compiled(const std::vector<ArgCode>& key,
                                                                const std::string& arch) const {
  for (const Compiled& c : compiled_) {
    if (c.key == key && c.arch == arch) return c.result;
  }
  return nullptr;
}

void KernelCache::add_compiled(std::vector<ArgCode> key, std::string arch, std::shared_ptr<const CompileResult> result) {
  compiled_.push_back({std::move(key), std::move(arch), std::move(result)});
}

}  // namespace gpujit::rt
