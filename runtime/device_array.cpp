// Device buffers and strided array views (see device_array.h).
#include "runtime/device_array.h"

#include <stdexcept>

#include <fmt/format.h>

namespace gpujit::rt {

DeviceBuffer::DeviceBuffer(Device& device, size_t bytes, std::shared_ptr<Stream> stream)
    : device_(device),
      block_(device.allocator().allocate(bytes, stream ? stream->handle() : nullptr)),
      bytes_(bytes),
      stream_(std::move(stream)) {}

DeviceBuffer::DeviceBuffer(Device& device, size_t bytes, std::shared_ptr<Stream> stream, DevicePtr external)
    : device_(device), block_{external, bytes, nullptr}, bytes_(bytes), stream_(std::move(stream)) {}

DeviceBuffer::~DeviceBuffer() { device_.allocator().free(block_); }

std::shared_ptr<DeviceBuffer> DeviceBuffer::make_external(Device& device, size_t bytes,
                                                          const std::shared_ptr<Stream>& stream) {
  if (bytes == 0) return std::make_shared<DeviceBuffer>(device, bytes, stream);  // no memory to ask for
  device.activate();  // the allocator allocates in the calling thread's current context: this device's
  ExternalAllocator::Allocation a = device.external_allocator()->allocate(bytes);
  if (!a.owner) throw std::logic_error("an external allocator returned memory without an owner");
  auto* buffer = new DeviceBuffer(device, bytes, stream, a.ptr);
  return std::shared_ptr<DeviceBuffer>(buffer, [owner = std::move(a.owner)](DeviceBuffer* b) {
    b->block_.ptr = 0;  // not the cache's: the destructor gives nothing back, the owner's release frees it
    delete b;
  });
}

int64_t ArrayView::size() const {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

bool ArrayView::is_c_contiguous() const {
  int64_t expected = itemsize();
  for (int i = ndim - 1; i >= 0; --i) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

bool ArrayView::is_f_contiguous() const {
  int64_t expected = itemsize();
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

void ArrayView::set_c_strides() {
  int64_t stride = itemsize();
  for (int i = ndim - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i] > 0 ? shape[i] : 1;
  }
}

void ArrayView::extent(int64_t* lo, int64_t* hi) const {
  *lo = 0;
  *hi = 0;
  if (size() == 0) return;
  int64_t low = 0, high = 0;
  for (int i = 0; i < ndim; ++i) {
    int64_t span = (shape[i] - 1) * strides[i];
    if (span < 0) low += span; else high += span;
  }
  *lo = low;
  *hi = high + itemsize();
}

ArrayView ArrayView::sliced(int axis, int64_t start, int64_t step, int64_t length) const {
  ArrayView v = *this;
  if (length > 0) v.data = DevicePtr(int64_t(data) + start * strides[axis]);
  v.shape[axis] = length;
  v.strides[axis] = strides[axis] * step;
  return v;
}

ArrayView ArrayView::indexed(int axis, int64_t index) const {
  int64_t n = shape[axis];
  int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) {
    throw std::out_of_range(fmt::format("index {} is out of bounds for axis {} with size {}", index, axis, n));
  }
  ArrayView v = *this;
  v.data = DevicePtr(int64_t(data) + i * strides[axis]);
  for (int k = axis; k + 1 < ndim; ++k) {
    v.shape[k] = shape[k + 1];
    v.strides[k] = strides[k + 1];
  }
  v.ndim = ndim - 1;
  v.shape[v.ndim] = 0;
  v.strides[v.ndim] = 0;
  return v;
}

}  // namespace gpujit::rt
