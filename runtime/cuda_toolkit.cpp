// Loading NVRTC and nvJitLink, compiling CUDA C with the one and linking with the other (see cuda_toolkit.h).
//
// The few types and entry points used are declared here, as runtime/cuda_api.h does for the driver, so that
// building gpujit needs no CUDA headers. nvJitLink's entry points are exported under their plain names since
// CUDA 12.0 and, in some releases, only under versioned ones (__nvJitLinkCreate_12_4): both are tried.
#include "runtime/cuda_toolkit.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpujit::rt {
namespace {

using nvrtcResult = int;
using nvrtcProgram = struct NvrtcProgramOpaque*;
using nvJitLinkResult = int;
using nvJitLinkHandle = struct NvJitLinkOpaque*;

struct Nvrtc {
  ToolkitLibrary lib;
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetLTOIRSize)(nvrtcProgram, size_t*) = nullptr;  // CUDA 12.0+
  nvrtcResult (*GetLTOIR)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*AddNameExpression)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*GetLoweredName)(nvrtcProgram, const char*, const char**) = nullptr;
};

struct NvJitLink {
  ToolkitLibrary lib;
  nvJitLinkResult (*Create)(nvJitLinkHandle*, uint32_t, const char**) = nullptr;
  nvJitLinkResult (*Destroy)(nvJitLinkHandle*) = nullptr;
  nvJitLinkResult (*AddData)(nvJitLinkHandle, int, const void*, size_t, const char*) = nullptr;
  nvJitLinkResult (*Complete)(nvJitLinkHandle) = nullptr;
  nvJitLinkResult (*GetLinkedCubinSize)(nvJitLinkHandle, size_t*) = nullptr;
  nvJitLinkResult (*GetLinkedCubin)(nvJitLinkHandle, void*) = nullptr;
  nvJitLinkResult (*GetLinkedPtxSize)(nvJitLinkHandle, size_t*) = nullptr;
  nvJitLinkResult (*GetLinkedPtx)(nvJitLinkHandle, char*) = nullptr;
  nvJitLinkResult (*GetErrorLogSize)(nvJitLinkHandle, size_t*) = nullptr;
  nvJitLinkResult (*GetErrorLog)(nvJitLinkHandle, char*) = nullptr;
  nvJitLinkResult (*GetInfoLogSize)(nvJitLinkHandle, size_t*) = nullptr;
  nvJitLinkResult (*GetInfoLog)(nvJitLinkHandle, char*) = nullptr;
  nvJitLinkResult (*Version)(unsigned*, unsigned*) = nullptr;  // CUDA 12.3+
};

// nvJitLinkResult's names, in the order of nvJitLink.h.
constexpr const char* kNvJitLinkResults[] = {
    "NVJITLINK_SUCCESS",
    "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
    "NVJITLINK_ERROR_MISSING_ARCH",
    "NVJITLINK_ERROR_INVALID_INPUT",
    "NVJITLINK_ERROR_PTX_COMPILE",
    "NVJITLINK_ERROR_NVVM_COMPILE",
    "NVJITLINK_ERROR_INTERNAL",
    "NVJITLINK_ERROR_THREADPOOL",
    "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
    "NVJITLINK_ERROR_FINALIZE",
    "NVJITLINK_ERROR_NULL_INPUT",
    "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
    "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
    "NVJITLINK_ERROR_ARCH_MISMATCH",
    "NVJITLINK_ERROR_OUTDATED_LIBRARY",
    "NVJITLINK_ERROR_MISSING_FATBIN",
    "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
    "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
    "NVJITLINK_ERROR_LTO_NOT_ENABLED",
};

std::mutex g_mutex;  // guards everything below
std::vector<std::string> g_search_dirs;
Nvrtc* g_nvrtc = nullptr;          // leaked on purpose, as the driver is (runtime/cuda_driver.cpp)
NvJitLink* g_nvjitlink = nullptr;  // leaked on purpose
std::string g_nvrtc_error;         // why the last search failed; "" if not tried since the dirs changed
std::string g_nvjitlink_error;

bool is_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Opens the first of `sonames` found along the search; on failure returns nullptr and sets `error` to a
// message naming `what`, the environment variable and every place looked.
void* open_library(const char* what, const char* env_var, const std::vector<std::string>& sonames,
                   std::string& path, std::string& error) {
  std::string override_path = env(env_var);
  if (!override_path.empty()) {
    void* h = dlopen(override_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      path = override_path;
      return h;
    }
    const char* why = dlerror();
    error = fmt::format("{} not found: {}={} could not be loaded ({})", what, env_var, override_path,
                        why ? why : "unknown reason");
    return nullptr;
  }
  std::vector<std::string> dirs = g_search_dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string home = env(var);
    if (!home.empty()) dirs.push_back(home + "/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  std::vector<std::string> failures;  // files that exist but would not load
  for (const std::string& dir : dirs) {
    for (const std::string& soname : sonames) {
      std::string candidate = dir + "/" + soname;
      if (!is_file(candidate)) continue;
      void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h) {
        path = candidate;
        return h;
      }
      const char* why = dlerror();
      failures.push_back(fmt::format("{} ({})", candidate, why ? why : "unknown reason"));
    }
  }
  for (const std::string& soname : sonames) {
    void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      path = soname;
      return h;
    }
    dlerror();
  }
  error = fmt::format(
      "{} not found: looked for {} in {} and on the loader path (LD_LIBRARY_PATH); install the CUDA toolkit "
      "or its pip wheel, or set {} to the library's path",
      what, fmt::join(sonames, " and "), dirs.empty() ? std::string("no directory") : fmt::format("{}", fmt::join(dirs, ", ")),
      env_var);
  if (!failures.empty()) error += fmt::format("; found but could not load: {}", fmt::join(failures, "; "));
  return nullptr;
}

template <typename F>
bool resolve(void* handle, F& fn, const char* symbol) {
  fn = reinterpret_cast<F>(dlsym(handle, symbol));
  return fn != nullptr;
}

// nvJitLink's symbol under its plain name or one of its versioned names.
template <typename F>
bool resolve_nvjitlink(void* handle, F& fn, const char* name) {
  if (resolve(handle, fn, name)) return true;
  for (int major : {13, 12}) {
    for (int minor = 9; minor >= 0; --minor) {
      if (resolve(handle, fn, fmt::format("__{}_{}_{}", name, major, minor).c_str())) return true;
    }
  }
  return false;
}

Nvrtc& load_nvrtc() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_nvrtc) return *g_nvrtc;
  if (!g_nvrtc_error.empty()) throw ToolkitMissingError(g_nvrtc_error);
  auto n = std::make_unique<Nvrtc>();
  void* h = open_library("NVRTC", "GPUJIT_NVRTC", {"libnvrtc.so.13", "libnvrtc.so.12"}, n->lib.path, g_nvrtc_error);
  if (!h) throw ToolkitMissingError(g_nvrtc_error);
  bool ok = resolve(h, n->GetErrorString, "nvrtcGetErrorString") && resolve(h, n->Version, "nvrtcVersion") &&
            resolve(h, n->CreateProgram, "nvrtcCreateProgram") &&
            resolve(h, n->DestroyProgram, "nvrtcDestroyProgram") &&
            resolve(h, n->CompileProgram, "nvrtcCompileProgram") && resolve(h, n->GetPTXSize, "nvrtcGetPTXSize") &&
            resolve(h, n->GetPTX, "nvrtcGetPTX") && resolve(h, n->GetCUBINSize, "nvrtcGetCUBINSize") &&
            resolve(h, n->GetCUBIN, "nvrtcGetCUBIN") &&
            resolve(h, n->GetProgramLogSize, "nvrtcGetProgramLogSize") &&
            resolve(h, n->GetProgramLog, "nvrtcGetProgramLog") &&
            resolve(h, n->AddNameExpression, "nvrtcAddNameExpression") &&
            resolve(h, n->GetLoweredName, "nvrtcGetLoweredName");
  if (!ok) {
    g_nvrtc_error = fmt::format("NVRTC at {} lacks an entry point gpujit needs; it is older than CUDA 11.1", n->lib.path);
    throw ToolkitMissingError(g_nvrtc_error);
  }
  resolve(h, n->GetLTOIRSize, "nvrtcGetLTOIRSize");
  resolve(h, n->GetLTOIR, "nvrtcGetLTOIR");
  n->Version(&n->lib.major, &n->lib.minor);
  g_nvrtc = n.release();
  return *g_nvrtc;
}

NvJitLink& load_nvjitlink() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_nvjitlink) return *g_nvjitlink;
  if (!g_nvjitlink_error.empty()) throw ToolkitMissingError(g_nvjitlink_error);
  auto n = std::make_unique<NvJitLink>();
  void* h = open_library("nvJitLink", "GPUJIT_NVJITLINK", {"libnvJitLink.so.13", "libnvJitLink.so.12"}, n->lib.path,
                         g_nvjitlink_error);
  if (!h) throw ToolkitMissingError(g_nvjitlink_error);
  bool ok = resolve_nvjitlink(h, n->Create, "nvJitLinkCreate") &&
            resolve_nvjitlink(h, n->Destroy, "nvJitLinkDestroy") &&
            resolve_nvjitlink(h, n->AddData, "nvJitLinkAddData") &&
            resolve_nvjitlink(h, n->Complete, "nvJitLinkComplete") &&
            resolve_nvjitlink(h, n->GetLinkedCubinSize, "nvJitLinkGetLinkedCubinSize") &&
            resolve_nvjitlink(h, n->GetLinkedCubin, "nvJitLinkGetLinkedCubin") &&
            resolve_nvjitlink(h, n->GetLinkedPtxSize, "nvJitLinkGetLinkedPtxSize") &&
            resolve_nvjitlink(h, n->GetLinkedPtx, "nvJitLinkGetLinkedPtx") &&
            resolve_nvjitlink(h, n->GetErrorLogSize, "nvJitLinkGetErrorLogSize") &&
            resolve_nvjitlink(h, n->GetErrorLog, "nvJitLinkGetErrorLog") &&
            resolve_nvjitlink(h, n->GetInfoLogSize, "nvJitLinkGetInfoLogSize") &&
            resolve_nvjitlink(h, n->GetInfoLog, "nvJitLinkGetInfoLog");
  if (!ok) {
    g_nvjitlink_error = fmt::format("nvJitLink at {} lacks an entry point gpujit needs", n->lib.path);
    throw ToolkitMissingError(g_nvjitlink_error);
  }
  unsigned major = 0, minor = 0;
  if (resolve_nvjitlink(h, n->Version, "nvJitLinkVersion") && n->Version(&major, &minor) == 0) {
    n->lib.major = static_cast<int>(major);
    n->lib.minor = static_cast<int>(minor);
  } else {
    n->lib.major = n->lib.path.find(".so.13") != std::string::npos ? 13 : 12;
  }
  g_nvjitlink = n.release();
  return *g_nvjitlink;
}

bool names_arch(const std::string& option) {
  for (const char* prefix : {"-arch", "--gpu-architecture", "-gpu-architecture"}) {
    if (option.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

void reject_arch_options(const std::vector<std::string>& options, const char* what) {
  for (const std::string& o : options) {
    if (names_arch(o))
      throw std::invalid_argument(fmt::format(
          "{} option '{}' names an architecture; pass the architecture as the arch argument instead", what, o));
  }
}

std::string nvrtc_log(const Nvrtc& n, nvrtcProgram prog) {
  size_t size = 0;
  if (n.GetProgramLogSize(prog, &size) != 0 || size <= 1) return {};
  std::string log(size, '\0');
  if (n.GetProgramLog(prog, log.data()) != 0) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

struct ProgramGuard {
  const Nvrtc& n;
  nvrtcProgram prog = nullptr;
  ~ProgramGuard() {
    if (prog) n.DestroyProgram(&prog);
  }
};

struct LinkGuard {
  const NvJitLink& n;
  nvJitLinkHandle handle = nullptr;
  ~LinkGuard() {
    if (handle) n.Destroy(&handle);
  }
};

std::string link_log(const NvJitLink& n, nvJitLinkHandle h, bool error) {
  size_t size = 0;
  if ((error ? n.GetErrorLogSize(h, &size) : n.GetInfoLogSize(h, &size)) != 0 || size <= 1) return {};
  std::string log(size, '\0');
  if ((error ? n.GetErrorLog(h, log.data()) : n.GetInfoLog(h, log.data())) != 0) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string link_result_name(nvJitLinkResult r) {
  if (r >= 0 && r < static_cast<int>(std::size(kNvJitLinkResults))) return kNvJitLinkResults[r];
  return fmt::format("NVJITLINK_ERROR_{}", r);
}

}  // namespace

void set_toolkit_search_dirs(std::vector<std::string> dirs) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_search_dirs = std::move(dirs);
  g_nvrtc_error.clear();
  g_nvjitlink_error.clear();
}

std::vector<std::string> toolkit_search_dirs() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_search_dirs;
}

ToolkitLibrary nvrtc_library() { return load_nvrtc().lib; }
ToolkitLibrary nvjitlink_library() { return load_nvjitlink().lib; }

bool nvrtc_available() {
  try {
    load_nvrtc();
    return true;
  } catch (const ToolkitMissingError&) {
    return false;
  }
}

bool nvjitlink_available() {
  try {
    load_nvjitlink();
    return true;
  } catch (const ToolkitMissingError&) {
    return false;
  }
}

CudaArch parse_cuda_arch(const std::string& arch) {
  CudaArch a;
  std::string rest = arch;
  if (rest.rfind("sm_", 0) == 0) {
    rest = rest.substr(3);
  } else if (rest.rfind("compute_", 0) == 0) {
    rest = rest.substr(8);
    a.is_virtual = true;
  }
  size_t dot = rest.find('.');
  if (dot != std::string::npos && dot > 0 && dot + 2 == rest.size()) rest.erase(dot, 1);  // "9.0" -> "90"
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  std::string suffix = rest.substr(digits);
  if (digits == 0 || digits > 4 || !(suffix.empty() || suffix == "a" || suffix == "f"))
    throw std::invalid_argument(fmt::format(
        "'{}' is not a CUDA architecture; write it as sm_90, sm_90a, compute_90, 90 or 9.0", arch));
  a.number = std::stoi(rest.substr(0, digits));
  a.suffix = suffix;
  if (a.number < 10) a.number *= 10;  // "9" as 9.0
  return a;
}

CudaCResult compile_cuda_c(const CudaCProgram& program, const std::string& arch, CudaCOutput output) {
  CudaArch a = parse_cuda_arch(arch);
  reject_arch_options(program.options, "NVRTC");
  const Nvrtc& n = load_nvrtc();
  if (output == CudaCOutput::ltoir && !n.GetLTOIR)
    throw ToolkitMissingError(fmt::format("NVRTC {}.{} at {} cannot produce LTO-IR (CUDA 12.0 or newer can)",
                                          n.lib.major, n.lib.minor, n.lib.path));

  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : program.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  ProgramGuard guard{n};
  nvrtcResult r = n.CreateProgram(&guard.prog, program.source.c_str(), program.name.c_str(),
                                  static_cast<int>(header_texts.size()), header_texts.data(), header_names.data());
  if (r != 0)
    throw CudaCCompileError(fmt::format("nvrtcCreateProgram failed for '{}': {}", program.name, n.GetErrorString(r)), {});
  for (const std::string& expr : program.name_expressions) {
    r = n.AddNameExpression(guard.prog, expr.c_str());
    if (r != 0)
      throw std::invalid_argument(fmt::format("NVRTC rejected the name expression '{}': {}", expr, n.GetErrorString(r)));
  }

  // PTX comes from a virtual architecture, a cubin from a real one; LTO-IR (-dlto) from either.
  std::string arch_option = "-arch=" + (output == CudaCOutput::ptx ? a.compute() : a.sm());
  std::vector<const char*> options{arch_option.c_str()};
  if (output == CudaCOutput::ltoir) options.push_back("-dlto");
  for (const std::string& o : program.options) options.push_back(o.c_str());
  r = n.CompileProgram(guard.prog, static_cast<int>(options.size()), options.data());
  std::string log = nvrtc_log(n, guard.prog);
  if (r != 0) {
    const char* what = n.GetErrorString(r);
    throw CudaCCompileError(
        fmt::format("NVRTC {}.{} could not compile '{}' for {} ({})", n.lib.major, n.lib.minor, program.name,
                    output == CudaCOutput::ptx ? a.compute() : a.sm(), what ? what : "error"),
        log);
  }

  CudaCResult result;
  result.log = std::move(log);
  auto fetch = [&](auto get_size, auto get, const char* kind) {
    size_t size = 0;
    bool ok = get_size(guard.prog, &size) == 0;
    if (ok) {
      result.code.resize(size);
      ok = get(guard.prog, result.code.data()) == 0;
    }
    if (!ok) throw CudaCCompileError(fmt::format("NVRTC compiled '{}' but gave no {}", program.name, kind), result.log);
  };
  switch (output) {
    case CudaCOutput::ptx:
      fetch(n.GetPTXSize, n.GetPTX, "PTX");
      while (!result.code.empty() && result.code.back() == '\0') result.code.pop_back();
      break;
    case CudaCOutput::cubin:
      fetch(n.GetCUBINSize, n.GetCUBIN, "cubin");
      break;
    case CudaCOutput::ltoir:
      fetch(n.GetLTOIRSize, n.GetLTOIR, "LTO-IR");
      break;
  }
  for (const std::string& expr : program.name_expressions) {
    const char* lowered = nullptr;
    r = n.GetLoweredName(guard.prog, expr.c_str(), &lowered);
    if (r != 0 || !lowered)
      throw std::invalid_argument(fmt::format("NVRTC found no function for the name expression '{}': {}", expr,
                                              n.GetErrorString(r)));
    result.lowered_names.emplace_back(expr, lowered);
  }
  return result;
}

LinkInputKind link_input_kind(const std::string& name) {
  static const std::pair<const char*, LinkInputKind> kinds[] = {
      {"ptx", LinkInputKind::ptx},       {"cubin", LinkInputKind::cubin},     {"fatbin", LinkInputKind::fatbin},
      {"object", LinkInputKind::object}, {"library", LinkInputKind::library}, {"ltoir", LinkInputKind::ltoir},
  };
  for (const auto& [n, k] : kinds) {
    if (name == n) return k;
  }
  throw std::invalid_argument(
      fmt::format("'{}' is not a kind of link input; use ptx, cubin, fatbin, object, library or ltoir", name));
}

LinkInputKind link_input_kind_for_path(const std::string& path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "ptx") return LinkInputKind::ptx;
  if (ext == "cubin") return LinkInputKind::cubin;
  if (ext == "fatbin") return LinkInputKind::fatbin;
  if (ext == "o") return LinkInputKind::object;
  if (ext == "a") return LinkInputKind::library;
  if (ext == "ltoir" || ext == "lto") return LinkInputKind::ltoir;
  throw std::invalid_argument(fmt::format(
      "cannot link '{}': its extension is none of .ptx, .cubin, .fatbin, .o, .a, .ltoir (a .cu file is compiled "
      "with NVRTC first)",
      path));
}

const char* link_input_kind_name(LinkInputKind kind) {
  switch (kind) {
    case LinkInputKind::ptx: return "ptx";
    case LinkInputKind::cubin: return "cubin";
    case LinkInputKind::fatbin: return "fatbin";
    case LinkInputKind::object: return "object";
    case LinkInputKind::library: return "library";
    case LinkInputKind::ltoir: return "ltoir";
  }
  return "?";
}

LinkResult link_cuda(const std::vector<LinkInput>& inputs, const std::string& arch, const LinkOptions& options) {
  CudaArch a = parse_cuda_arch(arch);
  if (inputs.empty()) throw std::invalid_argument("nothing to link: the list of inputs is empty");
  reject_arch_options(options.options, "nvJitLink");
  const NvJitLink& n = load_nvjitlink();

  std::string arch_option = "-arch=" + a.sm();
  std::vector<const char*> opts{arch_option.c_str()};
  if (options.ptx && !options.lto) throw std::invalid_argument("nvJitLink makes PTX (-ptx) of an LTO link only");
  if (options.lto) opts.push_back("-lto");
  if (options.ptx) opts.push_back("-ptx");
  for (const std::string& o : options.options) opts.push_back(o.c_str());
  // nvJitLink keeps the pointers to the inputs' names (and may keep their data) until the handle is destroyed:
  // its messages at nvJitLinkComplete name the input. They live here, declared before the handle's guard, so
  // they outlive it (ASan caught a name read after its loop iteration ended).
  std::vector<std::string> names, ptx_copies;
  names.reserve(inputs.size());
  ptx_copies.reserve(inputs.size());
  LinkGuard guard{n};
  nvJitLinkResult r = n.Create(&guard.handle, static_cast<uint32_t>(opts.size()), opts.data());
  if (r != 0) {
    // A handle may exist even when creation failed (an unrecognized option): its log says why.
    std::string log = guard.handle ? link_log(n, guard.handle, true) : std::string();
    throw CudaLinkError(fmt::format("nvJitLinkCreate failed: {} (options: {})", link_result_name(r), fmt::join(opts, " ")),
                        log, {});
  }
  for (const LinkInput& in : inputs) {
    const std::string& name =
        names.emplace_back(in.name.empty() ? fmt::format("<{} input>", link_input_kind_name(in.kind)) : in.name);
    const std::string* data = &in.data;
    if (in.kind == LinkInputKind::ptx && (in.data.empty() || in.data.back() != '\0')) {
      data = &ptx_copies.emplace_back(in.data + '\0');  // PTX needs its terminating NUL
    }
    r = n.AddData(guard.handle, static_cast<int>(in.kind), data->data(), data->size(), name.c_str());
    if (r != 0)
      throw CudaLinkError(fmt::format("nvJitLinkAddData failed for '{}' ({}): {}", name, link_input_kind_name(in.kind),
                                      link_result_name(r)),
                          link_log(n, guard.handle, true), link_log(n, guard.handle, false));
  }
  r = n.Complete(guard.handle);
  if (r != 0)
    throw CudaLinkError(fmt::format("nvJitLinkComplete failed linking for {}: {}", a.sm(), link_result_name(r)),
                        link_log(n, guard.handle, true), link_log(n, guard.handle, false));
  LinkResult result;
  size_t size = 0;
  if (options.ptx) {
    if (n.GetLinkedPtxSize(guard.handle, &size) != 0)
      throw CudaLinkError("nvJitLinkGetLinkedPtxSize failed", link_log(n, guard.handle, true), {});
    result.ptx.resize(size);
    if (size && n.GetLinkedPtx(guard.handle, result.ptx.data()) != 0)
      throw CudaLinkError("nvJitLinkGetLinkedPtx failed", link_log(n, guard.handle, true), {});
    while (!result.ptx.empty() && result.ptx.back() == '\0') result.ptx.pop_back();  // the size counts the NUL
    result.info_log = link_log(n, guard.handle, false);
    return result;
  }
  if (n.GetLinkedCubinSize(guard.handle, &size) != 0)
    throw CudaLinkError("nvJitLinkGetLinkedCubinSize failed", link_log(n, guard.handle, true), {});
  result.cubin.resize(size);
  if (n.GetLinkedCubin(guard.handle, result.cubin.data()) != 0)
    throw CudaLinkError("nvJitLinkGetLinkedCubin failed", link_log(n, guard.handle, true), {});
  result.info_log = link_log(n, guard.handle, false);
  return result;
}

}  // namespace gpujit::rt
