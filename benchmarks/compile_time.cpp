// compile_time: how long gpujit takes from source text to PTX, in process, per kernel.
//
// For every kernel named by a `# gpujit-sig: KERNEL SIGNATURE` line of the given files (by default every
// example in examples/), it times the whole path the CLI takes (parse_source, globals_from_module, compile)
// and reports the median over --repeat runs next to the medians of CompileResult's per-stage fields, so the
// time LLVM's own PTX emission takes (ms_ptx) stands beside ours. The first compile of the process is
// reported on its own: it also pays for LLVM's target set-up and for loading libdevice.
// Not a test: timings on a shared machine are noisy; see benchmarks/README.md.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "compiler/compiler.h"
#include "compiler/warm_up.h"
#include "ir/globals.h"

#ifndef GPUJIT_EXAMPLES_DIR
#define GPUJIT_EXAMPLES_DIR "examples"
#endif

namespace gpujit {
namespace {

/// The vector add target of PERFORMANCE.md's "a new kernel after another was compiled" row, in ms.
constexpr double kVectorAddTargetMs = 10.0;

struct KernelSpec {
  std::string file;
  std::string text;
  std::string kernel;
  std::string sig;
};

/// Milliseconds. parse is parse_source's time as measured here (compile() gets the module pre-parsed);
/// sema to ptx are CompileResult's fields; other is the rest of compile() and globals_from_module (context
/// and target set-up, linking libdevice, copying out the artifacts).
struct Timing {
  double total = 0, parse = 0, sema = 0, lower = 0, optimize = 0, ptx = 0, other = 0;
};

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<KernelSpec> kernels_in(const std::string& path) {
  static const std::regex kSigLine(R"(^# gpujit-sig:\s+(\w+)\s+(.+?)\s*$)");
  std::vector<KernelSpec> specs;
  std::string text = read_text(path);
  std::istringstream lines(text);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, kSigLine)) specs.push_back({path, text, m[1], m[2]});
  }
  return specs;
}

/// Compiles one kernel from its source text, as the CLI does; throws with the diagnostics on failure.
Timing compile_once(const KernelSpec& spec, const Signature& sig, const std::string& arch, bool index32) {
  auto start = std::chrono::steady_clock::now();
  std::shared_ptr<const Module> module = parse_source(spec.file, spec.text);
  auto parsed = std::chrono::steady_clock::now();
  CompileRequest request;
  request.module = module;
  request.kernel_name = spec.kernel;
  request.arg_types = sig.params;
  // As a launch from Python compiles for arrays under 2 GiB (the CLI's --index32).
  if (index32) {
    for (Type& t : request.arg_types) t.index32 = t.is_array();
  }
  Diagnostics diags;
  request.globals = globals_from_module(*module, diags);
  request.options.arch = arch;
  CompileResult result = compile(request);
  auto end = std::chrono::steady_clock::now();
  if (!result.ok || diags.has_errors()) {
    diags.append(result.diagnostics);
    throw std::runtime_error(spec.kernel + " does not compile:\n" + diags.render());
  }
  Timing t;
  t.total = ms_between(start, end);
  t.parse = ms_between(start, parsed) + result.ms_parse;
  t.sema = result.ms_sema;
  t.lower = result.ms_lower;
  t.optimize = result.ms_optimize;
  t.ptx = result.ms_ptx;
  t.other = t.total - t.parse - t.sema - t.lower - t.optimize - t.ptx;
  return t;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Timing median_of(const std::vector<Timing>& runs) {
  auto field = [&](double Timing::*member) {
    std::vector<double> values;
    for (const Timing& t : runs) values.push_back(t.*member);
    return median(values);
  };
  return {field(&Timing::total),    field(&Timing::parse), field(&Timing::sema), field(&Timing::lower),
          field(&Timing::optimize), field(&Timing::ptx),   field(&Timing::other)};
}

int run(int argc, char** argv) {
  CLI::App app{"Median time from kernel source text to PTX, in process, per kernel."};
  std::vector<std::string> files;
  int repeat = 20;
  std::string arch = "sm_80";
  app.add_option("files", files,
                 "Python files with '# gpujit-sig: KERNEL SIGNATURE' lines (default: examples/)");
  app.add_option("-n,--repeat", repeat, "Timed compiles per kernel, after two warm-up compiles")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--arch", arch, "Target architecture")->capture_default_str();
  bool index32 = false;
  app.add_flag("--index32", index32, "Compile for arrays under 2 GiB, as a launch from Python does");
  bool warm_up = false;
  app.add_flag("--warm-up", warm_up,
               "Start the background warm-up, as the Python package does: each compile then finds its code "
               "generator built ahead (the compiles here follow one another with no pause between)");
  CLI11_PARSE(app, argc, argv);
  if (warm_up) start_warm_up();
  struct Wait {
    bool on;
    ~Wait() {
      if (on) wait_warm_up();
    }
  } wait{warm_up};

  if (files.empty()) {
    for (const auto& entry : std::filesystem::directory_iterator(GPUJIT_EXAMPLES_DIR)) {
      if (entry.path().extension() == ".py") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
  }
  std::vector<KernelSpec> specs;
  for (const std::string& file : files) {
    std::vector<KernelSpec> found = kernels_in(file);
    specs.insert(specs.end(), found.begin(), found.end());
  }
  if (specs.empty()) {
    std::cerr << "compile_time: no '# gpujit-sig:' line in the given files\n";
    return 2;
  }

  fmt::print("gpujit compile time, source text to PTX for {}, median of {} runs after 2 warm-ups (ms)\n",
             arch, repeat);
  fmt::print("{:<16} {:>8} | {:>7} {:>7} {:>7} {:>8} {:>10} {:>7}\n", "kernel", "total", "parse", "sema",
             "lower", "optimize", "ptx (LLVM)", "other");
  bool first = true;
  int status = 0;
  for (const KernelSpec& spec : specs) {
    std::string error;
    std::optional<Signature> sig = parse_signature(spec.sig, &error);
    if (!sig) {
      std::cerr << spec.file << ": bad signature '" << spec.sig << "': " << error << "\n";
      return 2;
    }
    try {
      Timing cold = compile_once(spec, *sig, arch, index32);
      if (first) {
        fmt::print("{:<16} {:>8.2f}   (first compile of the process: LLVM target set-up, libdevice load)\n",
                   spec.kernel, cold.total);
        first = false;
      }
      compile_once(spec, *sig, arch, index32);
      std::vector<Timing> runs;
      for (int i = 0; i < repeat; ++i) runs.push_back(compile_once(spec, *sig, arch, index32));
      Timing m = median_of(runs);
      fmt::print("{:<16} {:>8.2f} | {:>7.2f} {:>7.2f} {:>7.2f} {:>8.2f} {:>10.2f} {:>7.2f}\n", spec.kernel,
                 m.total, m.parse, m.sema, m.lower, m.optimize, m.ptx, m.other);
      if (spec.kernel == "vadd") {
        fmt::print("  vadd target: under {:.0f} ms: {}\n", kVectorAddTargetMs,
                   m.total < kVectorAddTargetMs ? "met" : "NOT met");
      }
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}

}  // namespace
}  // namespace gpujit

int main(int argc, char** argv) { return gpujit::run(argc, argv); }
