// NVRTC and nvJitLink, opened with dlopen at first use: CUDA C/C++ compiled from a string, and device code
// (PTX, cubin, fatbin, objects, libraries, LTO-IR) linked into one cubin.
//
// Neither library is needed to build or import gpujit; a machine without them fails only the calls below,
// with a ToolkitMissingError that names the library and every place it looked. The search, per library:
//   1. the file named by GPUJIT_NVRTC / GPUJIT_NVJITLINK (and nothing else when it is set),
//   2. the directories set_toolkit_search_dirs() was given (the Python package passes the nvidia pip wheels'
//      lib folders: nvidia/cuda_nvrtc/lib, nvidia/nvjitlink/lib, nvidia/cu13/lib, ...),
//   3. $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64,
//   4. the dynamic loader's own path (LD_LIBRARY_PATH, ldconfig),
// trying the CUDA 13 soname before the CUDA 12 one in each place (libnvrtc.so.13, libnvrtc.so.12;
// libnvJitLink.so.13, libnvJitLink.so.12). A library that loaded is kept for the process.
//
// Both work without a GPU: a compile or link names its architecture ("sm_90", "compute_90", "90", "sm_90a").
// Every call is thread-safe; each compile or link uses its own NVRTC program or nvJitLink handle.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpujit::rt {

/// NVRTC or nvJitLink could not be loaded; what() names the library and where it looked.
class ToolkitMissingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// NVRTC rejected the source: what() is a one-line summary, a newline and NVRTC's log, whose lines keep the
/// program's name and line ("vadd.cu(3): error: identifier \"x\" is undefined").
class CudaCCompileError : public std::runtime_error {
 public:
  CudaCCompileError(const std::string& summary, std::string log)
      : std::runtime_error(log.empty() ? summary : summary + "\n" + log), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

/// nvJitLink failed: what() names the failing call and its result, then the error log.
class CudaLinkError : public std::runtime_error {
 public:
  CudaLinkError(const std::string& summary, std::string error_log, std::string info_log)
      : std::runtime_error(error_log.empty() ? summary : summary + "\n" + error_log),
        error_log_(std::move(error_log)),
        info_log_(std::move(info_log)) {}
  const std::string& error_log() const { return error_log_; }
  const std::string& info_log() const { return info_log_; }

 private:
  std::string error_log_;
  std::string info_log_;
};

/// Replaces the directories searched after the environment override (step 2 above). A library that failed
/// to load is searched for again at its next use; one that loaded stays.
void set_toolkit_search_dirs(std::vector<std::string> dirs);
/// The directories set_toolkit_search_dirs() was last given (libNVVM's search starts there, runtime/nvvm.h).
std::vector<std::string> toolkit_search_dirs();

/// A loaded library: the path it came from and its version (13, 0 for CUDA 13.0).
struct ToolkitLibrary {
  std::string path;
  int major = 0;
  int minor = 0;
};
/// Loads NVRTC (or nvJitLink) if it is not yet; throws ToolkitMissingError.
ToolkitLibrary nvrtc_library();
ToolkitLibrary nvjitlink_library();
/// Whether the library can be loaded; never throws.
bool nvrtc_available();
bool nvjitlink_available();

/// An architecture as the tools take it: the number (90), its suffix ("", "a" or "f"), and whether it was
/// named as a virtual one ("compute_90").
struct CudaArch {
  int number = 0;
  std::string suffix;
  bool is_virtual = false;
  /// "sm_90a" / "compute_90a".
  std::string sm() const { return "sm_" + std::to_string(number) + suffix; }
  std::string compute() const { return "compute_" + std::to_string(number) + suffix; }
};
/// Parses "sm_90", "sm_90a", "compute_90", "90" or "9.0"; throws std::invalid_argument naming the forms.
CudaArch parse_cuda_arch(const std::string& arch);

/// What NVRTC produces: PTX text, a cubin for one real architecture, or LTO-IR (-dlto) for nvJitLink -lto.
enum class CudaCOutput { ptx, cubin, ltoir };

struct CudaCProgram {
  std::string source;
  /// The name NVRTC's log gives the source ("vadd.cu"); also the file name in #line and in the log.
  std::string name = "kernel.cu";
  /// NVRTC options ("-O3", "-DN=4", "-I/path", "--use_fast_math", "-std=c++17"); not the architecture,
  /// which compile_cuda_c() sets from its argument (an -arch/--gpu-architecture here is std::invalid_argument).
  std::vector<std::string> options;
  /// Headers by include name, as nvrtcCreateProgram takes them: (name, text).
  std::vector<std::pair<std::string, std::string>> headers;
  /// C++ names to look up after the compile ("k<float>", "&ns::f"): each gets its mangled name.
  std::vector<std::string> name_expressions;
};

struct CudaCResult {
  /// PTX text (without its terminating NUL), a cubin, or LTO-IR; bytes either way.
  std::string code;
  /// NVRTC's log: warnings; empty when there were none.
  std::string log;
  /// For each of the program's name_expressions, in order: (expression, mangled name).
  std::vector<std::pair<std::string, std::string>> lowered_names;
};

/// Compiles `program` for `arch` with NVRTC: PTX for compute_NN, a cubin for sm_NN, LTO-IR for nvJitLink's
/// -lto. Throws CudaCCompileError with NVRTC's log when the source does not compile, ToolkitMissingError
/// without NVRTC, std::invalid_argument for a bad architecture or option.
CudaCResult compile_cuda_c(const CudaCProgram& program, const std::string& arch, CudaCOutput output);

/// The kinds of input nvJitLink links, as nvJitLinkInputType numbers them.
enum class LinkInputKind { cubin = 1, ptx = 2, ltoir = 3, fatbin = 4, object = 5, library = 6 };

/// "ptx", "cubin", "fatbin", "object", "library", "ltoir" to the kind; std::invalid_argument otherwise.
LinkInputKind link_input_kind(const std::string& name);
/// The kind a file's extension names: .ptx, .cubin, .fatbin, .o, .a, .ltoir (and .lto); std::invalid_argument
/// for any other (a .cu file is compiled with compile_cuda_c first).
LinkInputKind link_input_kind_for_path(const std::string& path);
const char* link_input_kind_name(LinkInputKind kind);

struct LinkInput {
  LinkInputKind kind;
  /// The input's bytes (PTX text with or without its NUL).
  std::string data;
  /// The name nvJitLink's logs use for it ("functions.ptx").
  std::string name;
};

struct LinkOptions {
  /// Link-time optimization (-lto): needed when an input is LTO-IR; cross-module inlining.
  bool lto = false;
  /// -ptx: the link's PTX (LinkResult::ptx, what nvJitLink made of its LTO-IR inputs) instead of a cubin; with
  /// lto only.
  bool ptx = false;
  /// More nvJitLink options ("-O3", "-g", "-maxrregcount=64", "-ftz=true", "-verbose"); not -arch.
  std::vector<std::string> options;
};

struct LinkResult {
  std::string cubin;
  /// LinkOptions::ptx: the linked PTX text (and no cubin).
  std::string ptx;
  /// nvJitLink's info log (with -verbose: registers, spills); empty when it says nothing.
  std::string info_log;
};

/// Links `inputs` into one cubin for the real architecture `arch` ("sm_90"; "90" and "compute_90" mean it).
/// Throws CudaLinkError with nvJitLink's error log (an undefined symbol, an architecture mismatch),
/// ToolkitMissingError without nvJitLink, std::invalid_argument for no inputs, a bad architecture or option.
LinkResult link_cuda(const std::vector<LinkInput>& inputs, const std::string& arch, const LinkOptions& options = {});

}  // namespace gpujit::rt
