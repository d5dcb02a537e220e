// The record a kernel leaves in GPU memory when a check compiled with debug=True fails (an index out of
// bounds) or a `raise` statement runs, read by the runtime after the launch (runtime/cuda_device.cpp) and
// raised in Python as the host backend raises it (IndexError, or the raised exception). Codegen (codegen/bounds_check.cpp) writes it; this header is the layout
// both sides agree on. LLVM-free.
//
// A trap would end the thread too, but it also ends the CUDA context for good: every later call in the
// process fails with CUDA_ERROR_LAUNCH_FAILED. So the first failing thread claims the record (an atomic
// compare-and-swap of `flag` from 0 to 1), fills it and exits; threads that fail later just exit. The
// runtime synchronizes after launching a kernel that has the record, reads it, clears it and throws.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace gpujit {

/// The record's symbol in the PTX module (.visible .global, so cuModuleGetGlobal finds it).
constexpr const char* kDeviceErrorSymbol = "gpujit_error";

/// Slots of the record, each 64 bits.
enum DeviceErrorSlot : unsigned {
  kErrFlag = 0,      // 0: no error; 1: the slots below hold the first one
  kErrKind = 1,      // DeviceErrorKind
  kErrText = 2,      // generic address of the message's text in global memory (where the check is)
  kErrTextLen = 3,   // its length in bytes, no NUL
  kErrIndex = 4,     // the index as written
  kErrExtent = 5,    // the axis' extent (or the tuple's length)
  kErrAxis = 6,      // the axis
  kErrThread = 7,    // threadIdx.x, .y, .z in slots 7, 8, 9
  kErrBlock = 10,    // blockIdx.x, .y, .z in slots 10, 11, 12
  kErrSlots = 16,
};

enum DeviceErrorKind : uint64_t {
  kErrIndexOutOfBounds = 0,
  kErrTupleIndex = 1,
  kErrRaise = 2,  // a `raise` statement: the text is its description (ir/sema_raise.cpp)
};

/// The message of a failed bounds check, the same on the GPU and the host backend: `where` names the function
/// and the line; a tuple index gives the tuple's length as `extent`.
inline std::string index_error_message(bool tuple, int64_t index, int64_t extent, uint64_t axis,
                                       const std::string& where, const uint64_t thread[3],
                                       const uint64_t block[3]) {
  if (tuple) {
    return fmt::format("tuple index out of range: index {} of a tuple of {} in {}, thread ({}, {}, {}) of block "
                       "({}, {}, {})",
                       index, extent, where, thread[0], thread[1], thread[2], block[0], block[1], block[2]);
  }
  return fmt::format("index {} is out of bounds for axis {} with size {} in {}, thread ({}, {}, {}) of block "
                     "({}, {}, {})",
                     index, axis, extent, where, thread[0], thread[1], thread[2], block[0], block[1], block[2]);
}

}  // namespace gpujit
