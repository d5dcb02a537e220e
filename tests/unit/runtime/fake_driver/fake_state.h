// The fake CUDA driver's shared state (see fake_cuda.cpp, whose comment describes the fake as a whole).
//
// The fake is three files: fake_cuda.cpp (the entry points gpujit has always called: devices, memory, copies,
// streams, events, modules, launches, graphs), fake_sharing.cpp (host-memory registration, IPC, address ranges
// and the profiler) and fake_introspection.cpp (the fakecuda_* functions tests call). They share the state,
// the fault injection and the entry macros below, which live in namespace fakecuda with inline linkage so
// that the library holds one State however many files include this.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/cuda_api.h"

namespace fakecuda {

using namespace gpujit::cuda;


constexpr CUresult kInvalidValue = 1;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kIllegalState = 401;
constexpr CUresult kCaptureUnsupported = 900;
constexpr CUresult kCaptureInvalidated = 901;
constexpr CUresult kHostMemoryAlreadyRegistered = 712;
constexpr CUresult kHostMemoryNotRegistered = 713;

// A captured operation; replayed on the stream the graph is launched on (the state's mutex held).
using Node = std::function<CUresult(CUstream)>;

struct FakeCapture {
  std::vector<Node> nodes;
  bool invalidated = false;
};

struct FakeGraph {
  std::vector<Node> nodes;
};

struct FakeFunction {
  std::string name;
  CUcontext context = nullptr;  // its module's
  std::vector<unsigned> param_sizes;
  std::vector<unsigned> param_offsets;  // each aligned to its size, or to its .align for a .b8 array
  unsigned shared_bytes = 0;
  int max_dynamic_shared = 0;
};

struct FakeLink {
  std::string ptx;
  std::string cubin;
};

struct FakeModule {
  std::string ptx;
  std::map<std::string, FakeFunction> functions;
  std::map<std::string, std::vector<char>> globals;  // cuModuleGetGlobal's memory, zeroed, by name
};

// The last launch. Its storage is reused, so recording costs no allocation once warm: benchmarks on the
// fake driver then measure gpujit's launch path, not the fake's bookkeeping.
struct Launch {
  std::string function;
  unsigned grid[3], block[3], shared;
  void* stream;
  std::vector<unsigned char> bytes;  // every parameter's bytes, back to back
  std::vector<size_t> offsets;       // where each parameter starts in `bytes`; one extra at the end
  bool buffer = false;               // the parameters came as one buffer (`extra`), not kernelParams
};

// A planted failure (see the file comment).
struct Fault {
  std::string function;  // an entry point's exported name, or "*" for all
  CUresult code = 0;
  long after = 0;  // matching calls still let through
  long times = 1;  // failures left; -1: every later call
};

struct State {
  std::mutex mutex;
  bool initialized = false;
  std::map<std::string, long> counters;
  std::map<unsigned long long, size_t> allocations;  // live device allocations: address -> bytes
  std::map<unsigned long long, CUcontext> allocation_context;
  std::set<void*> pinned;
  std::map<void*, CUcontext> streams;  // stream -> the context it was created in
  std::map<void*, double> events;  // event -> time recorded (ms since start), -1 if never recorded
  std::map<void*, CUcontext> event_context;
  std::map<CUcontext, long> launches_by_context;
  std::map<CUcontext, long> syncs_by_context;  // cuCtxSynchronize calls
  std::map<CUcontext, CUdevice> created_contexts;  // cuCtxCreate_v2's (non-primary) contexts -> their device
  std::set<CUdevice> primary_retained;  // devices whose primary context cuDevicePrimaryCtxRetain activated
  std::set<void*> modules;
  std::set<void*> links;
  std::map<void*, FakeCapture> captures;  // capturing stream -> what it recorded
  std::set<void*> graphs;
  std::set<void*> graph_execs;
  Launch last;
  long launches = 0;
  std::vector<Fault> faults;
  bool faulty = false;       // any of the fault fields below or `faults` set: the slow path of enter()
  CUresult async_armed = 0;  // fakecuda_fail_async: the next launch plants this
  bool async_sticky = false;
  CUresult async_pending = 0;  // planted by a launch; returned by the next synchronizing call
  CUresult sticky = 0;         // returned by every call
  int devices = 1;
  void* last_global = nullptr;  // the memory of the last global cuModuleGetGlobal found
  // fake_sharing.cpp's: cuMemHostRegister'ed host ranges (start -> bytes, flags), addresses opened with
  // cuIpcOpenMemHandle and not closed yet (-> times opened), and whether cuProfilerStart is in effect.
  std::map<void*, std::pair<size_t, unsigned>> registered;
  std::map<unsigned long long, long> ipc_opened;
  bool profiling = false;
};

inline void update_faulty(State& s) { s.faulty = !s.faults.empty() || s.async_armed || s.async_pending || s.sticky; }

// FAKECUDA_FAIL="function:code[:after[:times]],...".
inline void parse_fault_env(State& s) {
  const char* env = std::getenv("FAKECUDA_FAIL");
  if (!env || !*env) return;
  std::string all = env;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find(',', start);
    if (end == std::string::npos) end = all.size();
    std::string item = all.substr(start, end - start);
    start = end + 1;
    Fault f;
    size_t colon = item.find(':');
    if (colon == std::string::npos) continue;
    f.function = item.substr(0, colon);
    long fields[3] = {0, 0, 1};
    int n = std::sscanf(item.c_str() + colon + 1, "%ld:%ld:%ld", &fields[0], &fields[1], &fields[2]);
    if (n < 1) continue;
    f.code = CUresult(fields[0]);
    f.after = fields[1];
    f.times = fields[2];
    s.faults.push_back(f);
  }
  update_faulty(s);
}

inline State& state() {
  static State* s = [] {
    auto* st = new State();
    parse_fault_env(*st);
    return st;
  }();
  return *s;
}

// As in the real driver, the current context belongs to the calling thread: a new thread has none, and the
// calls that work in a context (memory, copies, streams, events, modules, synchronize) fail without one.
inline thread_local CUcontext tl_current = nullptr;

inline double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Calls that never report planted errors: the real ones do not report sticky errors either.
inline bool never_fails(const char* function) {
  return !std::strcmp(function, "cuDriverGetVersion") || !std::strcmp(function, "cuCtxGetCurrent") ||
         !std::strcmp(function, "cuCtxSetCurrent");
}

// Where an error inside a kernel surfaces: a call that waits for the GPU or the next launch.
inline bool synchronizing(const char* function) {
  static const char* const kCalls[] = {
      "cuCtxSynchronize", "cuStreamSynchronize",  "cuEventSynchronize", "cuStreamQuery",
      "cuEventQuery",     "cuMemcpyDtoHAsync_v2", "cuLaunchKernel",     "cuLaunchCooperativeKernel",
      "cuMemFree_v2"};
  for (const char* c : kCalls) {
    if (!std::strcmp(c, function)) return true;
  }
  return false;
}

// The planted failure `function` returns now, or 0.
inline CUresult planted_failure(State& s, const char* function) {
  if (never_fails(function)) return CUDA_SUCCESS;
  if (s.sticky) return s.sticky;
  if (s.async_pending && synchronizing(function)) {
    CUresult code = s.async_pending;
    s.async_pending = 0;
    if (s.async_sticky) s.sticky = code;
    update_faulty(s);
    return code;
  }
  for (size_t i = 0; i < s.faults.size(); ++i) {
    Fault& f = s.faults[i];
    if (f.function != "*" && f.function != function) continue;
    if (f.after > 0) {
      --f.after;
      continue;
    }
    CUresult code = f.code;
    if (f.times > 0 && --f.times == 0) {
      s.faults.erase(s.faults.begin() + long(i));
      update_faulty(s);
    }
    return code;
  }
  return CUDA_SUCCESS;
}

// Counts a call and reports whether a planted failure should be returned instead. One branch when no fault
// is planted, so benchmarks on the fake driver still measure gpujit's launch path.
inline CUresult enter(const char* function, long* counter) {
  State& s = state();
  ++*counter;
  if (!s.faulty) return CUDA_SUCCESS;
  return planted_failure(s, function);
}

#define FAKE_ENTER(name)                                                   \
  std::lock_guard<std::mutex> lock_(state().mutex);                        \
  static long* counter_ = &state().counters[name];                         \
  if (CUresult planted_ = enter(name, counter_)) return planted_;          \
  if (!state().initialized && std::strcmp(name, "cuInit") != 0 && std::strcmp(name, "cuDriverGetVersion") != 0 && \
      std::strcmp(name, "cuGetErrorName") != 0 && std::strcmp(name, "cuGetErrorString") != 0)                    \
    return kNotInitialized;

// For the calls that need the calling thread's current context.
#define FAKE_NEEDS_CONTEXT() \
  if (!tl_current) return kInvalidContext;


/// Whether `host` lies in a range cuMemHostRegister mapped into the device (the state's mutex held).
inline bool registered_mapped(const void* host) {
  auto& r = state().registered;
  auto it = r.upper_bound(const_cast<void*>(host));
  if (it == r.begin()) return false;
  --it;
  const char* start = static_cast<const char*>(it->first);
  bool inside = static_cast<const char*>(host) < start + it->second.first;
  return inside && (it->second.second & CU_MEMHOSTREGISTER_DEVICEMAP);
}

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

inline CUcontext fake_context(int device) { return reinterpret_cast<CUcontext>(uintptr_t(0x1000 + device)); }
inline int device_of_context(CUcontext ctx) { return int(reinterpret_cast<uintptr_t>(ctx) - 0x1000); }

/// The context of the live allocation holding [ptr, ptr + n), or null (the state's mutex held).
inline CUcontext context_of_range(CUdeviceptr ptr, size_t n) {
  auto& a = state().allocations;
  auto it = a.upper_bound(ptr);
  if (it == a.begin()) return nullptr;
  --it;
  if (ptr + n > it->first + it->second) return nullptr;
  return state().allocation_context[it->first];
}

/// The capture `stream` records into, or null (the state's mutex held).
inline FakeCapture* capturing(CUstream stream) {
  auto& c = state().captures;
  if (c.empty()) return nullptr;
  auto it = c.find(stream);
  return it == c.end() ? nullptr : &it->second;
}

/// Records a copy or memset on a capturing stream: true if `stream` captures (the state's mutex held).
inline bool capture_node(CUstream stream, Node node) {
  FakeCapture* c = capturing(stream);
  if (!c) return false;
  c->nodes.push_back(std::move(node));
  return true;
}

/// A wait on a capturing stream (or on the context while one captures): refused, and the capture is
/// invalidated, as CUDA does (the state's mutex held).
inline CUresult refuse_wait(CUstream stream, bool whole_context) {
  bool refused = false;
  for (auto& [s, c] : state().captures) {
    if (whole_context || s == stream) {
      c.invalidated = true;
      refused = true;
    }
  }
  return refused ? kCaptureUnsupported : CUDA_SUCCESS;
}

}  // namespace fakecuda
