// The `gpujit` command-line tool: compiles one kernel of a Python file to PTX, or shows any earlier stage
// (`gpujit ptx`); `gpujit info` reports the installation (runtime/system_info.h); `gpujit run PROGRAM.py`
// runs a numba-cuda program on gpujit (the drop-in mode, docs/compat.md) by handing over to Python.
//
// The tool is a thin shell over compile() (compiler/compiler.h): it reads the file, picks the kernel, parses
// the signature with parse_signature() and prints the artifact of the stage asked for. It never runs Python
// itself: `run` replaces this process with `python -m gpujit run ...` (python_for_run says which Python).
// Exit status is the contract scripts and lit tests rely on:
//   0  success; the chosen stage is on stdout (or in the -o file)
//   1  the kernel does not compile; the rendered diagnostics are on stderr, nothing is on stdout
//   2  bad usage: an unknown option, a bad --sig or --arch, no such kernel, an ambiguous file
//   3  an internal compiler error (a gpujit bug), with its message on stderr
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "ir/globals.h"
#include "runtime/system_info.h"

#ifndef GPUJIT_VERSION
#define GPUJIT_VERSION "unknown"
#endif
#ifndef GPUJIT_LLVM_VERSION
#define GPUJIT_LLVM_VERSION "unknown"
#endif

namespace gpujit {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitCompileError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInternal = 3;

/// The oldest architecture LLVM's NVPTX backend and CUDA 13's ptxas both still accept.
constexpr int kMinSmVersion = 75;

const char* const kPtxFooter = R"help(Signatures use numba's syntax; the return type may be left out:
  'void(float32[:], float32[:], float32[:])'   'float32[::1], float32[::1], float32'
  'float64[:, ::1], int64'   'UniTuple(int64, 2)'   'Tuple(int64, float32)'
A C-contiguous array is written [::1] (1-D) or [:, ::1] (2-D); [:] is any layout.

When the file has a single @jit kernel (device=True functions do not count), --kernel may be left out.
When the kernel's decorator carries a signature (@gpu.jit("void(float32[:])")), --sig may be left out.

Exit status: 0 success, 1 compile error (diagnostics on stderr), 2 bad usage, 3 internal compiler error.

Examples:
  gpujit ptx examples/vector_add.py --sig 'void(float32[::1], float32[::1], float32[::1])'
  gpujit ptx saxpy.py -k saxpy --sig 'float32, float32[:], float32[:], float32[:]' --arch sm_90 -o saxpy.ptx
  gpujit ptx kernels.py -k step --sig 'float64[:, ::1]' --emit llvm -O0
  gpujit ptx kernels.py -k step --sig 'float64[:, ::1]' --emit typed
  gpujit ptx funcs.py -k add --device --sig 'float32(float32, float32)'
)help";

/// A usage error: reported as "gpujit: error: <message>" with exit status 2.
struct UsageError {
  std::string message;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError{"cannot read '" + path + "'"};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The name a decorator expression calls or names: `jit` for jit, gpu.jit, numba.cuda.jit and jit(...).
const Expr* decorator_callee(const Expr* decorator) {
  if (const auto* call = decorator->as<CallExpr>()) return call->func.get();
  return decorator;
}

bool names_jit(const Expr* e) {
  if (const auto* name = e->as<NameExpr>()) return name->id == "jit";
  if (const auto* attr = e->as<AttributeExpr>()) return attr->attr == "jit";
  return false;
}

/// The jit decorator of a function, or nullptr when it has none.
const Expr* jit_decorator(const FunctionDef& fn) {
  for (const ExprPtr& d : fn.decorators) {
    if (names_jit(decorator_callee(d.get()))) return d.get();
  }
  return nullptr;
}

/// True when the kernel's decorator sets `flag=True`, as in `@cuda.jit(fastmath=True)`.
bool decorator_flag(const FunctionDef& fn, const std::string& flag) {
  const Expr* d = jit_decorator(fn);
  const auto* call = d ? d->as<CallExpr>() : nullptr;
  if (call == nullptr) return false;
  for (const Keyword& kw : call->keywords) {
    if (kw.name != flag) continue;
    const auto* value = kw.value->as<BoolLitExpr>();
    return value != nullptr && value->value;
  }
  return false;
}

/// The value of an integer keyword of the kernel's decorator, as `max_registers=32`; 0 when absent or not a
/// literal int.
int decorator_int(const FunctionDef& fn, const std::string& name) {
  const Expr* d = jit_decorator(fn);
  const auto* call = d ? d->as<CallExpr>() : nullptr;
  if (call == nullptr) return 0;
  for (const Keyword& kw : call->keywords) {
    if (kw.name != name) continue;
    const auto* value = kw.value->as<IntLitExpr>();
    return value != nullptr && value->value <= 0x7FFFFFFF ? int(value->value) : 0;
  }
  return 0;
}

bool is_kernel(const FunctionDef& fn) {
  return jit_decorator(fn) != nullptr && !decorator_flag(fn, "device");
}

std::vector<std::string> kernel_names(const Module& module) {
  std::vector<std::string> names;
  for (const FunctionDefPtr& fn : module.functions) {
    if (is_kernel(*fn)) names.push_back(fn->name);
  }
  return names;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

/// The function to compile: --kernel if given, else the file's only @jit kernel.
const FunctionDef& choose_kernel(const Module& module, const std::string& path, const std::string& kernel) {
  std::vector<std::string> kernels = kernel_names(module);
  if (!kernel.empty()) {
    if (const FunctionDef* fn = module.find_function(kernel)) return *fn;
    throw UsageError{"no function '" + kernel + "' in '" + path + "'" +
                     (kernels.empty() ? std::string() : "; its @jit kernels are: " + join(kernels))};
  }
  if (kernels.size() == 1) return *module.find_function(kernels.front());
  if (kernels.empty()) {
    throw UsageError{"'" + path + "' has no @jit kernel; name the function to compile with --kernel NAME"};
  }
  throw UsageError{"'" + path + "' has " + std::to_string(kernels.size()) + " @jit kernels (" +
                   join(kernels) + "); choose one with --kernel NAME"};
}

/// The signature string of `@jit("void(float32[:])")` (or of a list of one, `@jit(["void(float32[:])"])`),
/// if the decorator carries one.
std::optional<std::string> decorator_signature(const FunctionDef& fn) {
  const auto* call = jit_decorator(fn) ? jit_decorator(fn)->as<CallExpr>() : nullptr;
  if (call == nullptr || call->args.empty()) return std::nullopt;
  const Expr* arg = call->args.front().get();
  if (const auto* list = arg->as<TupleExpr>(); list && list->is_list && list->elts.size() == 1)
    arg = list->elts.front().get();
  if (const auto* text = arg->as<StringLitExpr>()) return text->value;
  return std::nullopt;
}

Signature signature_for(const FunctionDef& fn, const std::string& sig_option, bool device) {
  std::string text = sig_option;
  if (text.empty()) {
    std::optional<std::string> from_decorator = decorator_signature(fn);
    if (!from_decorator) {
      throw UsageError{"kernel '" + fn.name + "' needs a signature; pass one with --sig, e.g. --sig '" +
                       "void(float32[:], float32)'"};
    }
    text = *from_decorator;
  }
  std::string error;
  std::optional<Signature> sig = parse_signature(text, &error);
  if (!sig) throw UsageError{"bad signature '" + text + "': " + error};
  if (!device && !sig->ret.is_void()) {
    throw UsageError{
        "a kernel returns nothing; write its signature as 'void(...)' or leave the return type out"};
  }
  if (sig->params.size() != fn.params.size()) {
    throw UsageError{"signature '" + text + "' has " + std::to_string(sig->params.size()) +
                     " parameter types but '" + fn.name + "' takes " + std::to_string(fn.params.size())};
  }
  return *sig;
}

/// Checks "sm_NN" (optionally with an "a"/"f" feature suffix, as in sm_90a) and NN >= kMinSmVersion.
std::string check_arch(const std::string& arch) {
  size_t digits_end = 3;
  while (digits_end < arch.size() && std::isdigit(static_cast<unsigned char>(arch[digits_end]))) ++digits_end;
  bool well_formed = arch.rfind("sm_", 0) == 0 && digits_end > 3 && digits_end <= 7 &&
                     (digits_end == arch.size() ||
                      (digits_end + 1 == arch.size() && (arch.back() == 'a' || arch.back() == 'f')));
  if (!well_formed || std::stoi(arch.substr(3, digits_end - 3)) < kMinSmVersion) {
    throw UsageError{"unsupported --arch '" + arch + "'; use sm_75 or newer, e.g. sm_80 or sm_90"};
  }
  return arch;
}

void write_output(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << '\n';
    std::cout.flush();
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw UsageError{"cannot write '" + path + "'"};
}

struct PtxOptions {
  std::string file;
  std::string kernel;
  std::string sig;
  std::string arch = "sm_80";
  Stage emit = Stage::Ptx;
  int opt_level = 3;
  bool fastmath = false;
  bool debug = false;
  bool boundscheck = false;
  bool lineinfo = false;
  int max_registers = 0;  // 0: the decorator's max_registers=, if any
  bool index32 = false;
  bool device = false;    // compile the function alone as a `.visible .func` (numba's device=True)
  std::string abi = "c";  // with device: "c" or "numba" (codegen/artifact.h EntryKind)
  std::string output;
};

int run_ptx(const PtxOptions& opts) {
  std::shared_ptr<const Module> module = parse_source(opts.file, read_file(opts.file));
  if (module->errors.has_errors()) {
    std::cerr << module->errors.render();
    return kExitCompileError;
  }
  const FunctionDef& fn = choose_kernel(*module, opts.file, opts.kernel);
  Signature sig = signature_for(fn, opts.sig, opts.device);

  CompileRequest request;
  request.module = module;
  request.kernel_name = fn.name;
  request.arg_types = sig.params;
  if (opts.device) {
    request.return_type = sig.ret;
    request.options.entry = opts.abi == "numba" ? EntryKind::DeviceNumba : EntryKind::DeviceC;
  }
  if (opts.index32) {
    for (Type& t : request.arg_types) t.index32 = t.is_array();
  }
  Diagnostics global_diags;
  request.globals = globals_from_module(*module, global_diags);
  request.options.arch = check_arch(opts.arch);
  request.options.opt_level = opts.opt_level;
  request.options.fastmath = opts.fastmath || decorator_flag(fn, "fastmath");
  request.options.debug =
      opts.debug || opts.boundscheck || decorator_flag(fn, "debug") || decorator_flag(fn, "boundscheck");
  request.options.debug_info = opts.debug || decorator_flag(fn, "debug");  // boundscheck: the checks alone
  request.options.lineinfo = opts.lineinfo || decorator_flag(fn, "lineinfo");
  request.options.max_registers =
      opts.max_registers > 0 ? opts.max_registers : decorator_int(fn, "max_registers");
  request.options.keep_tokens = opts.emit == Stage::Tokens;
  request.options.keep_ast = opts.emit == Stage::Ast;
  request.options.keep_typed = opts.emit == Stage::Typed;
  request.options.keep_llvm = opts.emit == Stage::Llvm;

  CompileResult result = compile(request);
  Diagnostics diags = global_diags;
  diags.append(result.diagnostics);
  if (!result.ok || diags.has_errors()) {
    std::cerr << diags.render();
    return kExitCompileError;
  }
  if (!diags.all().empty()) std::cerr << diags.render();  // warnings

  switch (opts.emit) {
    case Stage::Tokens:
      write_output(result.tokens, opts.output);
      break;
    case Stage::Ast:
      write_output(result.ast, opts.output);
      break;
    case Stage::Typed:
      write_output(result.typed, opts.output);
      break;
    case Stage::Llvm:
      write_output(result.llvm_ir, opts.output);
      break;
    case Stage::Ptx:
      write_output(result.ptx, opts.output);
      break;
  }
  return kExitOk;
}

/// The Python that `gpujit run` hands over to: GPUJIT_PYTHON when set, else the python3 beside this executable
/// (the bin folder of the virtual environment or prefix gpujit was pip-installed into, which has the gpujit
/// package), else python3 from PATH. "Beside" is first the folder of the path the tool was started by, as
/// given (a wheel's bin/gpujit may be a link to the binary elsewhere, whose folder has no Python), then the
/// folder of the binary itself.
std::string python_for_run(const char* argv0) {
  if (const char* env = std::getenv("GPUJIT_PYTHON"); env != nullptr && *env != '\0') return env;
  std::vector<std::string> dirs;
  if (argv0 != nullptr && std::strchr(argv0, '/') != nullptr) {
    std::string dir(argv0);
    dirs.push_back(dir.substr(0, dir.rfind('/')));
  }
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    std::string dir(self);
    dirs.push_back(dir.substr(0, dir.rfind('/')));
  }
  for (const std::string& dir : dirs) {
    for (const char* name : {"python3", "python"}) {
      std::string candidate = (dir.empty() ? std::string("/") : dir) + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "python3";
}

/// `gpujit run [-m MODULE | PROGRAM.py] [ARGS...]`: every argument after `run` is the program's, passed on
/// untouched to `python -m gpujit run`, which installs the numba shim and runs the program as `__main__`.
int run_python_program(int argc, char** argv) {
  std::string python = python_for_run(argv[0]);
  std::vector<std::string> words = {python, "-m", "gpujit", "run"};
  for (int i = 2; i < argc; ++i) words.emplace_back(argv[i]);
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  execvp(python.c_str(), args.data());
  std::cerr << "gpujit: error: could not start Python ('" << python << "'): " << std::strerror(errno)
            << "\nset GPUJIT_PYTHON to the interpreter gpujit's Python package is installed in\n";
  return kExitUsage;
}

int main_impl(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return run_python_program(argc, argv);
  CLI::App app{"gpujit: compiles Python kernels (a numba-cuda style subset) to PTX.", "gpujit"};
  app.set_version_flag("--version",
                       std::string("gpujit ") + GPUJIT_VERSION + " (LLVM " + GPUJIT_LLVM_VERSION + ")");
  app.require_subcommand(1);
  app.footer(
      "Run 'gpujit ptx --help' for the options of the ptx command.\n\nExamples:\n"
      "  gpujit ptx examples/vector_add.py --sig 'void(float32[::1], float32[::1], float32[::1])'\n"
      "  gpujit info\n"
      "  gpujit run program.py ARGS   (a numba-cuda program on gpujit, unchanged)\n");

  PtxOptions opts;
  CLI::App* ptx =
      app.add_subcommand("ptx", "Compile one kernel of FILE and print its PTX (or an earlier stage).");
  ptx->add_option("file", opts.file, "Python source file holding the kernel")
      ->required()
      ->check(CLI::ExistingFile);
  ptx->add_option("-k,--kernel", opts.kernel,
                  "Kernel (function) to compile; optional if FILE has one @jit kernel");
  ptx->add_option("-s,--sig", opts.sig,
                  "Argument types in numba syntax: 'void(float32[:], float32)' or 'float32[:], float32'");
  ptx->add_option("--arch", opts.arch, "Target GPU architecture, sm_75 or newer")->capture_default_str();
  const std::map<std::string, Stage> stages{{"tokens", Stage::Tokens},
                                            {"ast", Stage::Ast},
                                            {"typed", Stage::Typed},
                                            {"llvm", Stage::Llvm},
                                            {"ptx", Stage::Ptx}};
  std::string emit = "ptx";
  ptx->add_option("--emit", emit,
                  "Stage to print: tokens, ast, typed (the typed AST), llvm (optimized LLVM IR), ptx")
      ->check(CLI::IsMember({"tokens", "ast", "typed", "llvm", "ptx"}))
      ->type_name("STAGE")
      ->capture_default_str();
  ptx->add_option("-O", opts.opt_level, "LLVM optimization level, 0 to 3")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  ptx->add_flag("--fastmath", opts.fastmath,
                "Approximate division and sqrt, flush denormals (numba's fastmath)");
  ptx->add_flag("--index32", opts.index32,
                "Compile for array arguments that span under 2 GiB, as a launch from Python does for such "
                "arrays: their index arithmetic is 32-bit");
  ptx->add_flag("--debug", opts.debug,
                "Bounds-check array indexing (an out-of-range index prints where and traps) and put DWARF "
                "line tables in the PTX for cuda-gdb (numba's debug=True)");
  ptx->add_flag("--boundscheck", opts.boundscheck,
                "Bounds-check array indexing alone, without debug information (numba's boundscheck=True)");
  ptx->add_flag("--lineinfo", opts.lineinfo,
                "Put .file/.loc line information in the PTX so profilers map instructions to source lines "
                "(numba's lineinfo=True, nvcc's -lineinfo)");
  ptx->add_option("--max-registers", opts.max_registers,
                  "At most N registers per thread: .maxnreg N on the entry (numba's max_registers)")
      ->check(CLI::Range(1, 255))
      ->type_name("N");
  ptx->add_flag("--device", opts.device,
                "Compile the function on its own as a device function (.visible .func) instead of a kernel; "
                "the signature may give a return type (numba's compile_ptx(device=True))");
  ptx->add_option("--abi", opts.abi,
                  "With --device: 'c' returns the result under the function's name, 'numba' returns a status "
                  "and writes the result through a pointer, under the mangled name")
      ->check(CLI::IsMember({"c", "numba"}))
      ->capture_default_str();
  ptx->add_option("-o,--output", opts.output, "Write the output to this file instead of stdout");
  ptx->footer(kPtxFooter);
  // Listed for --help only: main_impl hands `run` over to Python before parsing, so that the program's own
  // options reach it untouched.
  app.add_subcommand("run",
                     "Run a numba-cuda program (PROGRAM.py or -m MODULE, with its arguments) on gpujit, "
                     "unchanged: `numba.cuda` is gpujit in it (python -m gpujit run).");
  CLI::App* info = app.add_subcommand(
      "info", "Show the versions, libdevice, the CUDA driver and devices, the backend a launch would use "
              "and the kernel cache.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);  // prints help, the version or the error message
    return status == 0 ? kExitOk : kExitUsage;
  }
  opts.emit = stages.at(emit);

  try {
    if (info->parsed()) {
      std::cout << render_system_info(collect_system_info(toolchain()));
      // This process never runs Python: the line says whether Python processes started from this environment
      // begin in the drop-in mode (gpujit-numba-shim.pth reads the variable), as `python -m gpujit info` does for
      // its own process.
      const char* shim = std::getenv("GPUJIT_NUMBA_SHIM");
      std::cout << "numba shim    "
                << (shim != nullptr && std::strcmp(shim, "1") == 0
                        ? "on (GPUJIT_NUMBA_SHIM=1: Python processes start in the drop-in mode)\n"
                        : "off (gpujit run PROGRAM.py turns it on)\n");
      return kExitOk;
    }
    return run_ptx(opts);
  } catch (const UsageError& e) {
    std::cerr << "gpujit: error: " << e.message << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {  // InternalError, or anything else that escaped the compiler
    std::cerr << "gpujit: internal compiler error: " << e.what()
              << "\nthis is a bug in gpujit; please report it with the file and command line\n";
    return kExitInternal;
  }
}

}  // namespace
}  // namespace gpujit

int main(int argc, char** argv) { return gpujit::main_impl(argc, argv); }
