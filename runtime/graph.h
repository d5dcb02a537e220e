// Graphs: a sequence of launches (and copies, fills) captured once and replayed as one unit.
//
// A Device captures the calling thread's work into a graph between begin_capture() and end_capture(), and
// end_capture() returns the instantiated graph, which launch() replays on any stream of that device. On CUDA
// this is stream capture (cuStreamBeginCapture_v2 in thread-local mode, cuStreamEndCapture,
// cuGraphInstantiateWithFlags, cuGraphLaunch); on the CPU backend the device records each launch (the kernel,
// a copy of its parameters, its configuration) and each copy or fill, and replay runs them in order.
//
// The capture belongs to the thread that began it (CUDA's CU_STREAM_CAPTURE_MODE_THREAD_LOCAL): while it
// lasts, that thread's work on the capture stream, and on the device's default stream (null), goes into the
// graph instead of running; work on other streams, and every other thread's work, runs as usual. Waiting for
// the device or for a captured stream cannot be captured: synchronize() and synchronize_stream() of a
// captured stream throw CaptureError, before any driver call, so the capture stays usable. One thread
// captures at most one graph at a time (begin_capture() throws CaptureError when it already captures).
//
// The launch path pays one relaxed load of a process-wide count, and a branch, to learn that no thread
// captures (active_capture()).
#pragma once

#include <atomic>
#include <cstddef>
#include <stdexcept>

#include "runtime/device.h"
#include "runtime/stream.h"

namespace gpujit::rt {

/// Work that cannot be captured (a synchronize, a nested capture, a host array argument), raised before the
/// driver sees it. The Python binding raises it as gpujit.CaptureError, a RuntimeError.
class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An instantiated graph, owned by whoever ended the capture; destroying it frees the driver's objects.
class Graph {
 public:
  virtual ~Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// Enqueues every captured operation on `stream` of the graph's device (null: the default stream), in
  /// capture order, asynchronously as a launch is.
  virtual void launch(StreamHandle stream) = 0;
  /// Kernel launches captured.
  size_t kernel_count() const { return kernels_; }
  /// Operations in the graph: kernels, copies and fills (CUDA: cuGraphGetNodes).
  size_t node_count() const { return nodes_; }
  Device& device() const { return device_; }

 protected:
  Graph(Device& device, size_t kernels, size_t nodes) : device_(device), kernels_(kernels), nodes_(nodes) {}

 private:
  Device& device_;
  size_t kernels_;
  size_t nodes_;
};

/// The calling thread's capture in progress. The device that owns it keeps its own state beside these.
struct Capture {
  virtual ~Capture() = default;
  Device* device = nullptr;
  StreamHandle stream = nullptr;  // the stream being captured (never null)
  /// The stream made for a capture of the default stream: destroyed once the capture has ended and nobody
  /// else holds it (the Python binding hands it out as the graph's stream).
  std::shared_ptr<Stream> own_stream;
  size_t kernels = 0;  // launches captured so far
  /// For the layer that began the capture (the Python binding keeps its graph object here).
  void* owner = nullptr;

  /// Where work of this device addressed to `s` goes: the capture stream for the default stream (null),
  /// else `s` itself.
  StreamHandle route(StreamHandle s) const { return s ? s : stream; }
  /// Whether work of `d` on `s` is captured.
  bool captures(const Device* d, StreamHandle s) const { return d == device && (!s || s == stream); }
};

namespace detail {
extern std::atomic<int> g_captures;  // threads capturing now
Capture* thread_capture();
}  // namespace detail

/// The calling thread's capture, or null: one relaxed load when no thread captures anything.
inline Capture* active_capture() {
  if (detail::g_captures.load(std::memory_order_relaxed) == 0) return nullptr;
  return detail::thread_capture();
}

/// The calling thread's capture if it captures work of `device` on `stream`, else null.
inline Capture* capture_of(const Device* device, StreamHandle stream) {
  Capture* c = active_capture();
  return c && c->captures(device, stream) ? c : nullptr;
}

/// Throws CaptureError if the calling thread captures a graph already (graphs do not nest).
void require_no_capture();
/// Makes `capture` the calling thread's (null: ends it). Throws CaptureError if the thread already captures.
/// Called by the devices' begin_capture/end_capture/abort_capture.
void set_thread_capture(Capture* capture);

/// Throws CaptureError for `what` ("synchronizing the device") when the calling thread captures work of
/// `device` on `stream` (null stream: any of the device's streams).
void check_not_capturing(const Device* device, StreamHandle stream, bool any_stream, const char* what);

}  // namespace gpujit::rt
