// The contract between kernels compiled for the host CPU (codegen/host_target.cpp) and the host executor
// (runtime/host_executor.cpp): the per-thread context struct and the runtime entry points generated code calls.
//
// This is the one place the layout is written down. Codegen reads fields at offsetof() of this struct, so a
// field added here is picked up by both sides at once; the static_asserts below pin the layout generated code
// was written against. The header is LLVM-free and C-compatible (plain fields, fixed widths).
//
// How a kernel runs on the host:
// - Every lowered function (the kernel and each device function) takes a trailing hidden argument,
//   `HostThreadContext* ctx`, which the lowering passes on at every call.
// - Special registers (threadIdx, blockIdx, blockDim, gridDim, laneid, warpsize) are loads from ctx.
// - shared.array with a constant shape lives in the block's static shared buffer at a byte offset chosen at
//   compile time (HostKernel::static_shared_bytes in total); shared.array(0, ...) is `dynamic_shared`.
// - Barriers call gpujit_host_syncthreads*(ctx) and gpujit_host_syncwarp(ctx, mask); when a kernel has
//   any, its compile records `uses_barrier`, and only then does the executor run the block's threads as
//   fibers.
// - The JIT also emits a wrapper with one calling convention for every kernel, HostEntryFn: `params[i]`
//   points at the value of the kernel's i-th flattened parameter (the layout of CompileResult::params, the same
//   array cuLaunchKernel takes as kernelParams).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpujit {

/// The executor's per-block state (barrier bookkeeping, fibers). Opaque to generated code.
struct HostBlockState;

/// What one kernel thread sees. The executor owns it; generated code only reads it (the fields stay fixed
/// for the thread's whole run) and hands it back to the runtime entry points.
struct HostThreadContext {
  uint32_t tid[3];          // threadIdx.x, .y, .z
  uint32_t ntid[3];         // blockDim
  uint32_t ctaid[3];        // blockIdx
  uint32_t nctaid[3];       // gridDim
  uint32_t laneid;          // linear thread index within the block, modulo warpsize
  uint32_t warpsize;        // kHostWarpSize
  uint8_t* shared;          // this block's static shared memory, 16-byte aligned
  uint8_t* dynamic_shared;  // this block's dynamic shared memory (launch's shared_mem_bytes), 16-byte aligned
  HostBlockState* block;    // for the runtime entry points below
  uint32_t dynamic_shared_bytes;  // the size of `dynamic_shared` (shared.array(0, ...) takes its shape from it)
};

/// The warp size the host backend reports (gpu.warpsize), as on NVIDIA hardware.
constexpr uint32_t kHostWarpSize = 32;

/// The `axis` of an index error (gpujit_host_index_error, Target::index_error) that is a run-time index into a
/// tuple rather than into an array's axis: the message is Python's "tuple index out of range".
constexpr uint32_t kTupleIndexAxis = 0xFFFFFFFFu;

/// Alignment of the shared buffers and of each shared array placed in the static one.
constexpr size_t kHostSharedAlign = 16;

static_assert(offsetof(HostThreadContext, tid) == 0);
static_assert(offsetof(HostThreadContext, ntid) == 12);
static_assert(offsetof(HostThreadContext, ctaid) == 24);
static_assert(offsetof(HostThreadContext, nctaid) == 36);
static_assert(offsetof(HostThreadContext, laneid) == 48);
static_assert(offsetof(HostThreadContext, warpsize) == 52);
static_assert(offsetof(HostThreadContext, shared) == 56);
static_assert(offsetof(HostThreadContext, dynamic_shared) == 64);
static_assert(offsetof(HostThreadContext, block) == 72);
static_assert(offsetof(HostThreadContext, dynamic_shared_bytes) == 80);
static_assert(sizeof(HostThreadContext) == 88);

/// The uniform entry every host-compiled kernel gets: `params` as cuLaunchKernel's kernelParams.
using HostEntryFn = void (*)(void** params, HostThreadContext* ctx);

/// The warp-level operations gpujit_host_warp() performs (shfl_*_sync, the votes, match_*_sync,
/// activemask), as PTX's shfl.sync/vote.sync/match.sync with numba-cuda's operands.
enum class HostWarpOp : uint32_t {
  ShflIdx,     // value of lane arg % 32
  ShflUp,      // value of lane laneid - arg % 32, or the caller's own below lane 0
  ShflDown,    // value of lane laneid + arg % 32, or the caller's own past lane 31
  ShflXor,     // value of lane laneid ^ (arg % 32)
  VoteAll,     // 1 if value is nonzero in every taking part lane of mask, else 0
  VoteAny,     // 1 if value is nonzero in some lane
  VoteEq,      // 1 if value is zero in every lane or nonzero in every lane
  VoteBallot,  // the lanes whose value is nonzero
  MatchAny,    // the lanes holding the caller's value (compared as 64 bits)
  MatchAll,    // low 32 bits: mask if every lane holds the same value, else 0; bit 32: whether they do
  ActiveMask,  // the lanes of the warp calling activemask() together
};

}  // namespace gpujit

// Entry points generated code calls; C names so the JIT can bind them by symbol. All block until every live
// thread of the block has arrived. The *_count/_and/_or variants reduce `predicate` (nonzero = true) over
// the block, as CUDA's __syncthreads_count/_and/_or.
extern "C" {
__attribute__((visibility("default"))) void gpujit_host_syncthreads(gpujit::HostThreadContext* ctx);
__attribute__((visibility("default"))) int32_t gpujit_host_syncthreads_count(gpujit::HostThreadContext* ctx,
                                                                             int32_t predicate);
__attribute__((visibility("default"))) int32_t gpujit_host_syncthreads_and(gpujit::HostThreadContext* ctx,
                                                                           int32_t predicate);
__attribute__((visibility("default"))) int32_t gpujit_host_syncthreads_or(gpujit::HostThreadContext* ctx,
                                                                          int32_t predicate);
/// syncwarp(mask): waits until every lane of the caller's warp named in `mask` has reached a syncwarp()
/// (or returned).
__attribute__((visibility("default"))) void gpujit_host_syncwarp(gpujit::HostThreadContext* ctx,
                                                                 uint32_t mask);
/// A warp-level operation (HostWarpOp `op`): a rendezvous of the lanes of the caller's warp named in `mask`
/// (every lane of the warp still running, for ActiveMask); each deposits `value` (a predicate, or a value's
/// bits zero-extended to 64) and `arg`, and gets its result once every named lane has arrived or returned.
__attribute__((visibility("default"))) uint64_t gpujit_host_warp(gpujit::HostThreadContext* ctx, uint32_t op,
                                                                 uint32_t mask, uint64_t value, uint32_t arg);
/// cg.this_grid().sync(): waits until every thread of the grid has arrived (the executor runs a grid that
/// uses it with all its blocks at once).
__attribute__((visibility("default"))) void gpujit_host_grid_sync(gpujit::HostThreadContext* ctx);
/// A bounds check failed in a kernel compiled with debug=True: index `index` of axis `axis` is outside
/// [0, extent). `where` names the function and source line ("kernel 'k' at file.py:12"); tid_* is the
/// thread's index (ctx->tid is not kept current inside a block entry's loop). Records the first such error of
/// the block and ends it: the executor abandons the block's other threads and raises the error after the
/// launch (rt::KernelIndexError). Never returns.
[[noreturn]] __attribute__((visibility("default"))) void gpujit_host_index_error(
    gpujit::HostThreadContext* ctx, const char* where, int64_t index, int64_t extent, uint32_t axis,
    uint32_t tid_x, uint32_t tid_y, uint32_t tid_z);
/// A `raise` ran: `description` is its text (ir/sema_raise.cpp). Records it with the thread's place (the first
/// error of the block wins) and ends the block as gpujit_host_index_error does; the launch throws
/// rt::KernelRaise. Never returns.
[[noreturn]] __attribute__((visibility("default"))) void gpujit_host_raise(gpujit::HostThreadContext* ctx,
                                                                           const char* description,
                                                                           uint32_t tid_x, uint32_t tid_y,
                                                                           uint32_t tid_z);
}
