// The calling thread's capture and the checks every backend shares (see graph.h).
#include "runtime/graph.h"

#include <fmt/format.h>

namespace gpujit::rt {

namespace detail {

std::atomic<int> g_captures{0};

namespace {
thread_local Capture* tl_capture = nullptr;
}  // namespace

Capture* thread_capture() { return tl_capture; }

}  // namespace detail

void require_no_capture() {
  if (detail::tl_capture) {
    throw CaptureError(
        "a graph is already being captured on this thread: graphs do not nest; end the first capture (leave "
        "its "
        "`with` block) before starting another");
  }
}

void set_thread_capture(Capture* capture) {
  Capture*& current = detail::tl_capture;
  if (capture) require_no_capture();
  if (capture && !current) detail::g_captures.fetch_add(1, std::memory_order_relaxed);
  if (!capture && current) detail::g_captures.fetch_sub(1, std::memory_order_relaxed);
  current = capture;
}

void check_not_capturing(const Device* device, StreamHandle stream, bool any_stream, const char* what) {
  Capture* c = active_capture();
  if (!c || c->device != device || (!any_stream && !c->captures(device, stream))) return;
  throw CaptureError(fmt::format(
      "{} while this thread captures a graph: captured work does not run until the graph is launched, so "
      "there is nothing to wait for (CUDA forbids it during stream capture); synchronize after the `with "
      "gpu.graph()` block, or after g.launch()",
      what));
}

std::unique_ptr<Capture> Device::begin_capture(StreamHandle) {
  throw CaptureError(fmt::format("device '{}' cannot capture graphs", props_.name));
}

std::unique_ptr<Graph> Device::end_capture(Capture& capture) {
  abort_capture(capture);
  throw CaptureError(fmt::format("device '{}' cannot capture graphs", props_.name));
}

void Device::abort_capture(Capture&) noexcept { set_thread_capture(nullptr); }

}  // namespace gpujit::rt
