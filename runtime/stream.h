// Streams and events as owned objects over a Device's handles.
//
// A Stream either owns its handle (created here, destroyed with the object, after its cached memory blocks
// were moved off it) or borrows one: the device's default stream, or a stream another library made
// (gpu.external_stream). Device memory allocated for a stream holds a shared_ptr to it (runtime/
// device_array.h), so a stream outlives every block allocated in its order.
#pragma once

#include <memory>

#include "runtime/device.h"

namespace gpujit::rt {

class Stream {
 public:
  /// A new stream on `device`, destroyed with this object.
  static std::shared_ptr<Stream> create(Device& device);
  /// Takes ownership of a handle `device` made (a graph's capture stream): destroyed with this object.
  static std::shared_ptr<Stream> adopt(Device& device, StreamHandle handle);
  /// A stream handle owned elsewhere (null: the device's default stream); never destroyed here.
  static std::shared_ptr<Stream> borrow(Device& device, StreamHandle handle);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  Device& device() const { return device_; }
  StreamHandle handle() const { return handle_; }
  bool owned() const { return owned_; }
  void synchronize() { device_.synchronize_stream(handle_); }
  /// True when all work enqueued so far has finished.
  bool query() { return device_.query_stream(handle_); }

 private:
  Stream(Device& device, StreamHandle handle, bool owned) : device_(device), handle_(handle), owned_(owned) {}

  Device& device_;
  StreamHandle handle_;
  bool owned_;
};

class Event {
 public:
  Event(Device& device, bool timing) : device_(device), handle_(device.create_event(timing)) {}
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  Device& device() const { return device_; }
  EventHandle handle() const { return handle_; }
  void record(StreamHandle stream) { device_.record_event(handle_, stream); }
  void synchronize() { device_.synchronize_event(handle_); }
  bool query() { return device_.query_event(handle_); }
  /// Makes later work on `stream` wait for this event.
  void wait(StreamHandle stream) { device_.stream_wait_event(stream, handle_); }
  /// Milliseconds from `start` to `end`, both recorded and completed.
  static float elapsed_ms(const Event& start, const Event& end);

 private:
  Device& device_;
  EventHandle handle_;
};

}  // namespace gpujit::rt
