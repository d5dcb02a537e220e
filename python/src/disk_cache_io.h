// The launch path's side of the on-disk cache (runtime/disk_cache.h) that is not the dispatcher's own
// bookkeeping: the CacheWarnings, loading a kernel through the device's machine code kept on disk, and the
// GPUJIT_COMPILE_TIMES report.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "compiler/compiler.h"
#include "runtime/device.h"
#include "runtime/disk_cache.h"

namespace gpujit::py {

/// The disk cache's faults, each reported once per process with gpujit.errors.CacheWarning (numba warns with
/// NumbaWarning): a cache that cannot be used costs compiles, never a failed launch. Need the GIL.
void warn_damaged(const std::string& path);
void warn_unwritable(const std::string& kernel, const std::string& where);

/// Loads a kernel whose PTX went through the disk cache (entry file `entry`, key `key`) through the device's
/// machine code kept next to it under `tag`: a hit loads the code directly (CUDA: a cubin, no PTX JIT) and
/// sets *hit; a miss, or code the device refuses, loads the PTX and keeps the code the device made of it for
/// the next process. Needs the GIL (released around the file reads and writes).
std::shared_ptr<rt::LoadedKernel> load_through_disk(const std::string& name, rt::Device& device,
                                                    const CompileResult& result, const rt::DiskCache& cache,
                                                    const std::string& entry, const std::string& key,
                                                    const std::string& tag, bool* hit);

/// GPUJIT_COMPILE_TIMES=1: each specialization's compile and load, stage by stage, on stderr (where a
/// first launch's time goes, without a profiler). Costs two clock reads per compile otherwise.
class CompileTimer {
 public:
  CompileTimer() : start_(Clock::now()) {}
  void compiled() { compiled_ = Clock::now(); }
  void loaded(const std::string& kernel, const std::string& signature, const CompileResult& result, bool disk,
              const char* how) const;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_, compiled_;
};

}  // namespace gpujit::py
