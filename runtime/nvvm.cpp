// Loading libNVVM and compiling NVVM IR with it (see nvvm.h). Its few entry points are declared here, as
// cuda_toolkit.cpp declares NVRTC's, so that building gpujit needs no CUDA headers.
#include "runtime/nvvm.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpujit::rt {
namespace {

using nvvmResult = int;
using nvvmProgram = struct NvvmProgramOpaque*;

struct Nvvm {
  ToolkitLibrary lib;
  std::string libdevice;  // libdevice.10.bc beside the library; empty when it is not there
  const char* (*GetErrorString)(nvvmResult) = nullptr;
  nvvmResult (*IRVersion)(int*, int*, int*, int*) = nullptr;
  nvvmResult (*CreateProgram)(nvvmProgram*) = nullptr;
  nvvmResult (*DestroyProgram)(nvvmProgram*) = nullptr;
  nvvmResult (*AddModuleToProgram)(nvvmProgram, const char*, size_t, const char*) = nullptr;
  nvvmResult (*LazyAddModuleToProgram)(nvvmProgram, const char*, size_t, const char*) = nullptr;
  nvvmResult (*CompileProgram)(nvvmProgram, int, const char**) = nullptr;
  nvvmResult (*GetCompiledResultSize)(nvvmProgram, size_t*) = nullptr;
  nvvmResult (*GetCompiledResult)(nvvmProgram, char*) = nullptr;
  nvvmResult (*GetProgramLogSize)(nvvmProgram, size_t*) = nullptr;
  nvvmResult (*GetProgramLog)(nvvmProgram, char*) = nullptr;
};

std::mutex g_mutex;
Nvvm* g_nvvm = nullptr;  // leaked on purpose, as NVRTC is
std::string g_error;     // why the last search failed

bool is_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void* open_nvvm(std::string& path) {
  const std::string override_path = env("GPUJIT_NVVM");
  if (!override_path.empty()) {
    if (void* h = dlopen(override_path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      path = override_path;
      return h;
    }
    const char* why = dlerror();
    g_error = fmt::format("libNVVM not found: GPUJIT_NVVM={} could not be loaded ({})", override_path,
                          why ? why : "unknown reason");
    return nullptr;
  }
  std::vector<std::string> dirs;
  for (const std::string& d : toolkit_search_dirs()) {
    dirs.push_back(d);
    dirs.push_back(d + "/../nvvm/lib64");
  }
  std::vector<std::string> homes;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (!env(var).empty()) homes.push_back(env(var));
  homes.push_back("/usr/local/cuda");
  for (const std::string& h : homes)
    for (const char* sub : {"/nvvm/lib64", "/lib", "/lib64"}) dirs.push_back(h + sub);
  std::vector<std::string> failures;
  for (const std::string& dir : dirs) {
    for (const char* soname : {"libnvvm.so.4", "libnvvm.so"}) {
      const std::string candidate = dir + "/" + soname;
      if (!is_file(candidate)) continue;
      if (void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        path = candidate;
        return h;
      }
      const char* why = dlerror();
      failures.push_back(fmt::format("{} ({})", candidate, why ? why : "unknown reason"));
    }
  }
  for (const char* soname : {"libnvvm.so.4", "libnvvm.so"}) {
    if (void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
      path = soname;
      return h;
    }
    dlerror();
  }
  g_error = fmt::format(
      "libNVVM not found: looked for libnvvm.so.4 in {} and on the loader path; install the CUDA toolkit or its "
      "pip wheel (nvidia-cuda-nvvm), or set GPUJIT_NVVM to the library's path",
      fmt::join(dirs, ", "));
  if (!failures.empty()) g_error += fmt::format("; found but could not load: {}", fmt::join(failures, "; "));
  return nullptr;
}

template <typename F>
bool resolve(void* handle, F& fn, const char* symbol) {
  fn = reinterpret_cast<F>(dlsym(handle, symbol));
  return fn != nullptr;
}

Nvvm& load_nvvm() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_nvvm) return *g_nvvm;
  auto n = std::make_unique<Nvvm>();
  void* h = open_nvvm(n->lib.path);
  if (!h) throw ToolkitMissingError(g_error);
  const bool ok = resolve(h, n->GetErrorString, "nvvmGetErrorString") && resolve(h, n->IRVersion, "nvvmIRVersion") &&
                  resolve(h, n->CreateProgram, "nvvmCreateProgram") &&
                  resolve(h, n->DestroyProgram, "nvvmDestroyProgram") &&
                  resolve(h, n->AddModuleToProgram, "nvvmAddModuleToProgram") &&
                  resolve(h, n->LazyAddModuleToProgram, "nvvmLazyAddModuleToProgram") &&
                  resolve(h, n->CompileProgram, "nvvmCompileProgram") &&
                  resolve(h, n->GetCompiledResultSize, "nvvmGetCompiledResultSize") &&
                  resolve(h, n->GetCompiledResult, "nvvmGetCompiledResult") &&
                  resolve(h, n->GetProgramLogSize, "nvvmGetProgramLogSize") &&
                  resolve(h, n->GetProgramLog, "nvvmGetProgramLog");
  if (!ok) {
    g_error = fmt::format("libNVVM at {} lacks an entry point gpujit needs", n->lib.path);
    throw ToolkitMissingError(g_error);
  }
  int ir_major = 0, ir_minor = 0, dbg_major = 0, dbg_minor = 0;
  n->IRVersion(&ir_major, &ir_minor, &dbg_major, &dbg_minor);
  n->lib.major = ir_major;
  n->lib.minor = ir_minor;
  const std::string dir = dir_of(n->lib.path);
  for (const char* rel : {"/../libdevice/libdevice.10.bc", "/../nvvm/libdevice/libdevice.10.bc"}) {
    if (is_file(dir + rel)) {
      n->libdevice = dir + rel;
      break;
    }
  }
  g_nvvm = n.release();
  return *g_nvvm;
}

std::string program_log(const Nvvm& n, nvvmProgram prog) {
  size_t size = 0;
  if (n.GetProgramLogSize(prog, &size) != 0 || size <= 1) return {};
  std::string log(size, '\0');
  if (n.GetProgramLog(prog, log.data()) != 0) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

ToolkitLibrary nvvm_library() { return load_nvvm().lib; }

bool nvvm_available() {
  try {
    load_nvvm();
    return true;
  } catch (const ToolkitMissingError&) {
    return false;
  }
}

std::string compile_nvvm_ir(const std::string& ir, const std::string& arch, bool lto) {
  const CudaArch a = parse_cuda_arch(arch);
  Nvvm& n = load_nvvm();
  nvvmProgram prog = nullptr;
  if (nvvmResult r = n.CreateProgram(&prog))
    throw NvvmCompileError(fmt::format("nvvmCreateProgram failed ({})", n.GetErrorString(r)));
  struct Guard {
    Nvvm& n;
    nvvmProgram& p;
    ~Guard() { n.DestroyProgram(&p); }
  } guard{n, prog};
  if (nvvmResult r = n.AddModuleToProgram(prog, ir.data(), ir.size(), "kernel.ll"))
    throw NvvmCompileError(fmt::format("libNVVM could not add the kernel's NVVM IR ({})\n{}", n.GetErrorString(r),
                                       program_log(n, prog)));
  if (ir.find("@__nv_") != std::string::npos) {
    if (n.libdevice.empty())
      throw NvvmCompileError(fmt::format("the kernel calls libdevice, and libdevice.10.bc is not beside {}",
                                         n.lib.path));
    std::ifstream in(n.libdevice, std::ios::binary);
    std::stringstream bc;
    bc << in.rdbuf();
    const std::string code = bc.str();
    if (nvvmResult r = n.LazyAddModuleToProgram(prog, code.data(), code.size(), "libdevice.10.bc"))
      throw NvvmCompileError(fmt::format("libNVVM could not add {} ({})", n.libdevice, n.GetErrorString(r)));
  }
  std::vector<std::string> options = {"-arch=compute_" + std::to_string(a.number) + a.suffix, "-opt=3"};
  if (lto) options.push_back("-gen-lto");
  // A fastmath kernel (the writer's ftz module flag): approximate division and square root, denormals flushed,
  // as gpujit's own fastmath=True compiles them.
  if (ir.find("!\"nvvm-reflect-ftz\", i32 1}") != std::string::npos)
    options.insert(options.end(), {"-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"});
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  if (nvvmResult r = n.CompileProgram(prog, static_cast<int>(argv.size()), argv.data()))
    throw NvvmCompileError(fmt::format("libNVVM could not compile the kernel for {} ({})\n{}", a.compute(),
                                       n.GetErrorString(r), program_log(n, prog)));
  size_t size = 0;
  if (nvvmResult r = n.GetCompiledResultSize(prog, &size))
    throw NvvmCompileError(fmt::format("nvvmGetCompiledResultSize failed ({})", n.GetErrorString(r)));
  std::string out(size, '\0');
  if (nvvmResult r = n.GetCompiledResult(prog, out.data()))
    throw NvvmCompileError(fmt::format("nvvmGetCompiledResult failed ({})", n.GetErrorString(r)));
  if (!lto)
    while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

}  // namespace gpujit::rt
