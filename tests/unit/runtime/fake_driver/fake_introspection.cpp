// The functions tests call to inspect the fake CUDA driver and plant faults in it (see fake_cuda.cpp).
#include "tests/unit/runtime/fake_driver/fake_state.h"

using namespace fakecuda;

extern "C" {

// ---- test introspection ----

/// The memory of the last global cuModuleGetGlobal found (a test writes a kernel's error record there).
void* fakecuda_last_global() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().last_global;
}

/// Calls of a driver function so far ("cuMemAlloc_v2", "cuLaunchKernel", ...).
long fakecuda_calls(const char* function) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto it = state().counters.find(function);
  return it == state().counters.end() ? 0 : it->second;
}

/// Launches so far on device `device` (in its context).
long fakecuda_launches_on(int device) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto it = state().launches_by_context.find(fake_context(device));
  return it == state().launches_by_context.end() ? 0 : it->second;
}

/// cuCtxSynchronize calls so far with device `device`'s context current.
long fakecuda_synchronizes_on(int device) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto it = state().syncs_by_context.find(fake_context(device));
  return it == state().syncs_by_context.end() ? 0 : it->second;
}

/// The device whose memory holds address `ptr` (anywhere inside a live allocation), -1 if none does.
int fakecuda_pointer_device(unsigned long long ptr) {
  std::lock_guard<std::mutex> lock(state().mutex);
  CUcontext ctx = context_of_range(ptr, 1);
  return ctx ? device_of_context(ctx) : -1;
}

/// Number of live device allocations and their total bytes.
long fakecuda_live_allocations(long long* bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  long long total = 0;
  for (auto& [p, n] : state().allocations) total += (long long)n;
  if (bytes) *bytes = total;
  return long(state().allocations.size());
}

/// Makes `function` ("*": every entry point) return `code` on `times` calls (-1: every call) after letting
/// `after` more calls through.
void fakecuda_fail_times(const char* function, int code, long after, long times) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().faults.push_back(Fault{function, CUresult(code), after, times});
  update_faulty(state());
}

/// Makes `function` return `code` on its call after `after` more successful calls.
void fakecuda_fail(const char* function, int code, int after) {
  fakecuda_fail_times(function, code, after, 1);
}

/// The next launch succeeds; the next synchronizing call after it returns `code` (and, with `sticky`, every
/// call after that).
void fakecuda_fail_async(int code, int sticky) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().async_armed = CUresult(code);
  state().async_sticky = sticky != 0;
  update_faulty(state());
}

/// Every call from now on returns `code` (0: none).
void fakecuda_sticky(int code) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().sticky = CUresult(code);
  update_faulty(state());
}

/// Clears every planted failure.
void fakecuda_reset_faults() {
  std::lock_guard<std::mutex> lock(state().mutex);
  State& s = state();
  s.faults.clear();
  s.async_armed = s.async_pending = s.sticky = 0;
  update_faulty(s);
}

/// Live driver objects of a kind: "allocations", "pinned", "streams", "events", "modules", "graphs",
/// "graph_execs", "captures" (streams capturing now), "registered" (cuMemHostRegister'ed host ranges),
/// "ipc_opened" (IPC handles opened and not closed) or "profiling" (1 between cuProfilerStart and Stop);
/// -1 if unknown.
long fakecuda_live(const char* kind) {
  std::lock_guard<std::mutex> lock(state().mutex);
  State& s = state();
  std::string k = kind;
  if (k == "allocations") return long(s.allocations.size());
  if (k == "pinned") return long(s.pinned.size());
  if (k == "streams") return long(s.streams.size());
  if (k == "events") return long(s.events.size());
  if (k == "modules") return long(s.modules.size());
  if (k == "graphs") return long(s.graphs.size());
  if (k == "graph_execs") return long(s.graph_execs.size());
  if (k == "captures") return long(s.captures.size());
  if (k == "registered") return long(s.registered.size());
  if (k == "profiling") return long(s.profiling);
  if (k == "ipc_opened") {
    long n = 0;
    for (auto& [ptr, count] : s.ipc_opened) n += count;
    return n;
  }
  return -1;
}

/// Launches so far.
long fakecuda_launch_count() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().launches;
}

/// The last launch's function name, grid, block, dynamic shared bytes and stream; returns its parameter
/// count, -1 if there was no launch.
int fakecuda_last_launch(char* name, int name_len, unsigned* grid, unsigned* block, unsigned* shared,
                         void** stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (state().launches == 0) return -1;
  const Launch& l = state().last;
  if (name) std::snprintf(name, size_t(name_len), "%s", l.function.c_str());
  for (int i = 0; i < 3; ++i) {
    if (grid) grid[i] = l.grid[i];
    if (block) block[i] = l.block[i];
  }
  if (shared) *shared = l.shared;
  if (stream) *stream = l.stream;
  return int(l.offsets.size() - 1);
}

/// How the last launch passed its parameters: 1 as one buffer (cuLaunchKernel's `extra`), 0 as kernelParams,
/// -1 when there was none.
int fakecuda_last_launch_buffered() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().launches == 0 ? -1 : int(state().last.buffer);
}

/// Copies parameter `index` of the last launch into `out` (at most `cap` bytes); returns its size or -1.
int fakecuda_last_param(int index, void* out, int cap) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (state().launches == 0) return -1;
  const Launch& l = state().last;
  if (index < 0 || size_t(index) + 1 >= l.offsets.size()) return -1;
  size_t size = l.offsets[size_t(index) + 1] - l.offsets[size_t(index)];
  std::memcpy(out, l.bytes.data() + l.offsets[size_t(index)], size < size_t(cap) ? size : size_t(cap));
  return int(size);
}

}  // extern "C"
