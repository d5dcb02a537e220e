// Helpers for the CPU-backend tests: compile a kernel from source for the host, pack its arguments the way
// CompileResult::params lays them out (the array ABI: data pointer, shapes, byte strides; scalars by value),
// and run it over a grid with the process's host executor.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "ir/globals.h"
#include "codegen/host_jit.h"
#include "runtime/host_executor.h"

namespace gpujit::testing {

/// A kernel that was expected to compile did not; the message holds the rendered diagnostics.
class CompileFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Compiles `kernel` of `source` for the host with the signature `sig` ("float32[::1], int64"), with bounds
/// checks when `debug`. Throws CompileFailed with the rendered diagnostics when it does not compile (gtest
/// reports it as a failure).
inline CompileResult compile_for_host(const std::string& source, const std::string& kernel,
                                      const std::string& sig, int opt_level = 3, bool debug = false) {
  std::shared_ptr<const Module> module = parse_source("kernels.py", source);
  CompileRequest request;
  request.module = module;
  request.kernel_name = kernel;
  std::string error;
  std::optional<Signature> signature = parse_signature(sig, &error);
  EXPECT_TRUE(signature.has_value()) << error;
  if (signature) request.arg_types = signature->params;
  Diagnostics global_diags;
  request.globals = globals_from_module(*module, global_diags);
  request.options.opt_level = opt_level;
  request.options.debug = debug;
  CompileResult result = compile_host(request);
  if (!result.ok || !result.host) throw CompileFailed(global_diags.render() + result.diagnostics.render());
  return result;
}

/// One launch's kernelParams: every flattened parameter in an 8-byte slot of its own.
class Args {
 public:
  /// A C-contiguous array of `shape` at `data`.
  template <typename T>
  Args& array(T* data, std::vector<int64_t> shape) {
    std::vector<int64_t> strides(shape.size());
    int64_t stride = sizeof(T);
    for (size_t i = shape.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= shape[i];
    }
    return strided(data, shape, strides);
  }
  /// An array with explicit byte strides (a view).
  template <typename T>
  Args& strided(T* data, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
    push(static_cast<void*>(data));
    for (int64_t s : shape) push(s);
    for (int64_t s : strides) push(s);
    return *this;
  }
  template <typename T>
  Args& scalar(T value) {
    push(value);
    return *this;
  }

  /// Runs `result`'s kernel over grid x block with `dynamic_shared` bytes of dynamic shared memory.
  /// `per_thread` runs a kernel without barriers through its thread entry instead of its block entry.
  void launch(const CompileResult& result, std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
              size_t dynamic_shared = 0, bool per_thread = false) {
    ASSERT_TRUE(result.host);
    unsigned expected = 0;
    for (const ParamLayout& p : result.params) expected = std::max(expected, p.first + p.count);
    ASSERT_EQ(slots_.size(), expected) << "argument count does not match the kernel's parameters";
    std::vector<void*> params;
    for (uint64_t& slot : slots_) params.push_back(&slot);
    HostLaunch l;
    l.entry = result.host->entry;
    l.block_entry = per_thread ? nullptr : result.host->block_entry;
    l.kernel_name = result.entry_name;
    for (int d = 0; d < 3; ++d) {
      l.grid[d] = grid[d];
      l.block[d] = block[d];
    }
    l.params = params.data();
    l.static_shared_bytes = result.host->static_shared_bytes;
    l.dynamic_shared_bytes = dynamic_shared;
    l.uses_barrier = result.host->uses_barrier;
    l.uses_grid_sync = result.uses_grid_sync;
    HostExecutor::instance().launch(l);
  }

 private:
  template <typename T>
  void push(T value) {
    static_assert(sizeof(T) <= sizeof(uint64_t));
    uint64_t slot = 0;
    std::memcpy(&slot, &value, sizeof(T));
    slots_.push_back(slot);
  }
  std::vector<uint64_t> slots_;
};

/// Blocks needed to cover n threads with `threads` per block.
inline uint32_t blocks_for(size_t n, uint32_t threads) { return uint32_t((n + threads - 1) / threads); }

}  // namespace gpujit::testing
