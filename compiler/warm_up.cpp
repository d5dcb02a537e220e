// The compiler's background warm-up (see warm_up.h).
#include "compiler/warm_up.h"

#include <pthread.h>
#include <sched.h>

#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "codegen/codegen.h"
#include "compiler/compiler.h"
#include "ir/globals.h"

namespace gpujit {
namespace {

// The kernel whose compile initialises what every later compile shares. float64 math: the functions whose
// libdevice bodies are the largest to cut (erf, exp, log, pow), and a float32 one.
constexpr const char* kSource = R"(import math
import gpujit as gpu


def gpujit_warm_up(a, b):
    i = gpu.grid(1)
    if i < a.size:
        x = a[i]
        a[i] = math.erf(x) + math.exp(x) + math.log(x) + math.sqrt(x) + math.pow(x, 1.5) + math.sin(x) + math.cos(x)
        b[i] = math.exp(b[i])
)";

std::mutex g_mutex;
std::vector<std::thread> g_threads;
std::set<std::string> g_archs;  // the architectures warmed or being warmed
bool g_started = false;
thread_local bool t_warming_up = false;  // on a warm-up thread, whose compiles start no other warm-up

void warm_up(const std::string& arch) {
  t_warming_up = true;
  try {
    CompileRequest request;
    request.module = parse_source("<gpujit warm-up>", kSource);
    Diagnostics diags;
    request.globals = globals_from_module(*request.module, diags);
    request.kernel_name = "gpujit_warm_up";
    request.arg_types = {Type::array_of(ScalarKind::Float64, 1, Layout::C),
                         Type::array_of(ScalarKind::Float32, 1, Layout::C)};
    request.options.target = TargetKind::Nvptx;
    request.options.arch = arch;
    compile(request);  // the result is of no use; a failure here surfaces again in the user's compile
  } catch (const std::exception&) {
  }
}

// The thread that prepares code generators (prepare_codegen): started by the first request, stopped by
// wait_warm_up(), started again by a request after that; a process may exit with it waiting for work. Never
// destroyed: a process that exits without wait_warm_up() must not meet a joinable std::thread in a static
// destructor.
std::thread* g_preparer = nullptr;
// Never destroyed either: at exit, destroying a condition variable a thread still waits on blocks for ever.
std::condition_variable& g_prepare_wake = *new std::condition_variable;
std::vector<std::pair<std::string, int>>& g_prepare_queue = *new std::vector<std::pair<std::string, int>>;
bool g_preparer_stopping = false;

void prepare_loop() {
  // Only on a CPU nothing else wants: woken by a compile's end, the thread would otherwise often take the
  // compiling thread's own CPU from it (Linux lets a freshly woken thread preempt its waker) and delay the
  // caller by as long as it builds; a compile that comes before it is done builds its own code generator.
  // The locks it shares with compiling threads (this one and the pool's) guard a few map operations: a
  // thread blocked on one gives up its CPU, which is then free for this one to finish and let go.
  sched_param idle{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
  std::unique_lock<std::mutex> lock(g_mutex);
  for (;;) {
    g_prepare_wake.wait(lock, [] { return g_preparer_stopping || !g_prepare_queue.empty(); });
    if (g_prepare_queue.empty()) return;  // stopping, with nothing left to prepare
    auto [arch, opt_level] = g_prepare_queue.back();
    g_prepare_queue.pop_back();
    lock.unlock();
    try {
      std::string error;
      prepare_nvptx_codegen(arch, opt_level, &error);  // a failure shows in the next compile, which builds its own
    } catch (const std::exception&) {
    }
    lock.lock();
  }
}

void stop_preparer() {
  std::thread* preparer;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    preparer = g_preparer;
    if (!preparer) return;
    g_preparer = nullptr;
    g_preparer_stopping = true;  // it finishes what was asked (a few hundred microseconds each), then stops
  }
  g_prepare_wake.notify_all();
  preparer->join();
  delete preparer;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_preparer_stopping = false;
}

}  // namespace

void prepare_codegen(const std::string& arch, int opt_level) {
  // GPUJIT_PREPARE_CODEGEN=0: every compile builds its own code generator, as before (to compare the two).
  static const bool off = [] {
    const char* v = std::getenv("GPUJIT_PREPARE_CODEGEN");
    return v && std::string_view(v) == "0";
  }();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (off || !g_started || g_preparer_stopping) return;
  auto request = std::make_pair(arch, opt_level);
  for (const auto& queued : g_prepare_queue)
    if (queued == request) return;
  g_prepare_queue.push_back(std::move(request));
  if (!g_preparer) g_preparer = new std::thread(prepare_loop);
  g_prepare_wake.notify_one();
}

void start_warm_up() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_started) return;
  g_started = true;
  // Before a fork, wait for the thread: the child gets only the forking thread, and any lock the warm-up
  // held would stay locked there for ever.
  pthread_atfork([] { wait_warm_up(); }, nullptr, nullptr);
  // And at exit, before the static objects the threads use are destroyed (they were made before this
  // call, so their destructors run after it): a joinable std::thread destroyed there would end the process.
  std::atexit([] { wait_warm_up(); });
  const std::string arch = CompileOptions{}.arch;
  g_archs.insert(arch);
  g_threads.emplace_back(warm_up, arch);
}

void warm_up_arch(const std::string& arch) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (t_warming_up || !g_started || !g_archs.insert(arch).second) return;
  g_threads.emplace_back(warm_up, arch);
}

std::vector<std::string> warm_up_archs() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return {g_archs.begin(), g_archs.end()};
}

void wait_warm_up() {
  // Joined without the lock: a warm-up thread's compile may call warm_up_arch(), which takes it.
  for (;;) {
    stop_preparer();
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      threads.swap(g_threads);
    }
    if (threads.empty()) return;
    for (std::thread& t : threads) t.join();
  }
}

}  // namespace gpujit
