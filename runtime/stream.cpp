// Owned streams and events (see stream.h). Destructors never throw: they may run during interpreter
// shutdown, when the driver may already refuse calls.
#include "runtime/stream.h"

#include <stdexcept>

namespace gpujit::rt {

std::shared_ptr<Stream> Stream::create(Device& device) {
  return std::shared_ptr<Stream>(new Stream(device, device.create_stream(), true));
}

std::shared_ptr<Stream> Stream::adopt(Device& device, StreamHandle handle) {
  return std::shared_ptr<Stream>(new Stream(device, handle, true));
}

std::shared_ptr<Stream> Stream::borrow(Device& device, StreamHandle handle) {
  return std::shared_ptr<Stream>(new Stream(device, handle, false));
}

Stream::~Stream() {
  if (!owned_) return;
  try {
    device_.allocator().forget_stream(handle_);
    device_.destroy_stream(handle_);
  } catch (const std::exception&) {
  }
}

Event::~Event() {
  try {
    device_.destroy_event(handle_);
  } catch (const std::exception&) {
  }
}

float Event::elapsed_ms(const Event& start, const Event& end) {
  if (&start.device_ != &end.device_) throw std::invalid_argument("the two events belong to different devices");
  return start.device_.elapsed_ms(start.handle_, end.handle_);
}

}  // namespace gpujit::rt
