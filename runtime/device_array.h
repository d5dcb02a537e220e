// Device memory owned by arrays, and the strided view every array argument is passed as.
//
// DeviceBuffer owns one block from a device's caching allocator and gives it back when destroyed; it keeps
// the stream it was allocated for alive, so the block is reused in that stream's order. Arrays make their
// buffers with DeviceBuffer::make(), the one place where a device with an ExternalAllocator (device.h, numba's
// External Memory Management plugins) takes over: the memory then comes from that allocator, and the buffer's
// shared_ptr holds what it returned until the buffer dies. Without one, make() costs one pointer test more than
// constructing the buffer, and the buffer itself is as it always was. ArrayView describes
// an n-dimensional array in device memory the way the kernel ABI wants it (DESIGN.md): a data pointer, a
// dtype, shapes and byte strides, plus a keep-alive owner (a DeviceBuffer, or memory lent by another library).
// Slicing makes new views of the same owner; nothing here copies data.
#pragma once

#include <cstdint>
#include <memory>

#include "ir/record_type.h"
#include "ir/types.h"
#include "runtime/caching_allocator.h"
#include "runtime/device.h"
#include "runtime/stream.h"

namespace gpujit::rt {

/// The most dimensions an array may have.
constexpr int kMaxDims = 8;

class DeviceBuffer {
 public:
  /// `bytes` of device memory from the device's caching allocator, for use in the order of `stream` (null:
  /// the default stream). Arrays allocate through make() instead, which honors an external allocator.
  DeviceBuffer(Device& device, size_t bytes, std::shared_ptr<Stream> stream);
  /// The buffer of `bytes` an array needs: from the device's external allocator when it has one, else as the
  /// constructor makes it.
  static std::shared_ptr<DeviceBuffer> make(Device& device, size_t bytes, const std::shared_ptr<Stream>& stream) {
    if (device.external_allocator()) [[unlikely]] return make_external(device, bytes, stream);
    return std::make_shared<DeviceBuffer>(device, bytes, stream);
  }
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  Device& device() const { return device_; }
  DevicePtr ptr() const { return block_.ptr; }
  size_t bytes() const { return bytes_; }

 private:
  /// A buffer over memory of the device's external allocator; its shared_ptr's deleter releases it.
  DeviceBuffer(Device& device, size_t bytes, std::shared_ptr<Stream> stream, DevicePtr external);
  static std::shared_ptr<DeviceBuffer> make_external(Device& device, size_t bytes,
                                                     const std::shared_ptr<Stream>& stream);

  Device& device_;
  CachingAllocator::Block block_;
  size_t bytes_;
  std::shared_ptr<Stream> stream_;
};

struct ArrayView {
  DevicePtr data = 0;
  ScalarKind dtype = ScalarKind::Float64;
  const RecordType* record = nullptr;  // the dtype when it is a structured one (then `dtype` is unused)
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};  // in bytes
  Device* device = nullptr;
  std::shared_ptr<void> owner;  // keeps the memory alive

  unsigned itemsize() const { return record ? unsigned(record->size) : scalar_size(dtype); }
  /// Whether the two views have the same element type.
  bool same_dtype(const ArrayView& o) const { return record == o.record && (record || dtype == o.dtype); }
  int64_t size() const;
  int64_t nbytes() const { return size() * itemsize(); }
  bool is_c_contiguous() const;
  bool is_f_contiguous() const;
  /// The layout the array is specialized for, as numba's typeof gives it: C when C-contiguous, else F when
  /// Fortran-contiguous (two or more axes; not for records, whose codes have no room for it), else Any.
  Layout layout() const {
    if (is_c_contiguous()) return Layout::C;
    return ndim > 1 && !record && is_f_contiguous() ? Layout::F : Layout::Any;
  }
  /// The kernel-language type of this array.
  Type type() const {
    Type t = Type::array_of(dtype, unsigned(ndim), layout());
    t.record = record;
    return t;
  }

  /// Fills C-order strides for the current shape and dtype.
  void set_c_strides();
  /// Byte range [lo, hi) relative to data that the elements cover (0, 0 for an empty array).
  void extent(int64_t* lo, int64_t* hi) const;

  /// The view with axis `axis` restricted to start:stop:step, as Python slices it (start and stop already
  /// clamped by the caller with PySlice_AdjustIndices; `length` the resulting number of elements).
  ArrayView sliced(int axis, int64_t start, int64_t step, int64_t length) const;
  /// The view with axis `axis` fixed at `index` (negative counts from the end); the axis is dropped.
  /// Throws std::out_of_range.
  ArrayView indexed(int axis, int64_t index) const;
};

}  // namespace gpujit::rt
