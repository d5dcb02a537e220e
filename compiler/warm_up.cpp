// The compiler's background warm-up (see warm_up.h).
#include "compiler/warm_up.h"

#include <pthread.h>

#include <exception>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

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

}  // namespace

void start_warm_up() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_started) return;
  g_started = true;
  // Before a fork, wait for the thread: the child gets only the forking thread, and any lock the warm-up
  // held would stay locked there for ever.
  pthread_atfork([] { wait_warm_up(); }, nullptr, nullptr);
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
