// Helpers of the codegen tests: compiling a kernel from source through compile(), assembling PTX with
// ptxas, and reading the constants a kernel stores from its optimized LLVM IR.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "ir/globals.h"
#include "ir/types.h"

namespace gpujit::test {

/// Compiles `kernel` of `source` for the signature `sig` (numba syntax) through the public entry, the way
/// the CLI does: parse_source, globals_from_module, compile.
inline CompileResult compile_kernel(const std::string& source, const std::string& kernel,
                                    const std::string& sig, CompileOptions options = {}) {
  std::string error;
  auto signature = parse_signature(sig, &error);
  if (!signature) {
    ADD_FAILURE() << "bad signature '" << sig << "': " << error;
    return {};
  }
  CompileRequest request;
  request.module = parse_source("kernel.py", source);
  Diagnostics global_diags;
  request.globals = globals_from_module(*request.module, global_diags);
  request.kernel_name = kernel;
  request.arg_types = signature->params;
  request.options = options;
  CompileResult result = compile(request);
  if (!result.ok) ADD_FAILURE() << "compiling " << kernel << " failed:\n" << result.diagnostics.render();
  return result;
}

/// ptxas from PATH or the CUDA toolkit's usual place; empty if there is none.
inline std::string find_ptxas() {
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      size_t end = p.find(':', start);
      if (end == std::string::npos) end = p.size();
      std::string candidate = p.substr(start, end - start) + "/ptxas";
      if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
  }
  const char* dirs[] = {std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH"), "/usr/local/cuda"};
  for (const char* dir : dirs) {
    if (!dir) continue;
    std::string candidate = std::string(dir) + "/bin/ptxas";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

/// Assembles `ptx` for `arch`; returns ptxas's output, and success in *ok. ptxas is part of the development
/// machine: its absence fails the calling test rather than skipping it.
inline std::string run_ptxas(const std::string& ptx, const std::string& arch, bool* ok) {
  *ok = false;
  std::string ptxas = find_ptxas();
  if (ptxas.empty()) return "ptxas not found on PATH, $CUDA_HOME/bin or /usr/local/cuda/bin";
  char dir_template[] = "/tmp/gpujit_ptxas_XXXXXX";
  char* dir = mkdtemp(dir_template);
  if (!dir) return "cannot create a temporary directory";
  std::string input = std::string(dir) + "/kernel.ptx";
  std::string output = std::string(dir) + "/kernel.cubin";
  std::ofstream(input) << ptx;
  std::string command = ptxas + " -arch=" + arch + " " + input + " -o " + output + " 2>&1";
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 512> buf;
    while (fgets(buf.data(), int(buf.size()), pipe)) text += buf.data();
    *ok = pclose(pipe) == 0;
  }
  std::filesystem::remove_all(dir);
  return text;
}

/// The integer constants of every `store` in `ir`, in order (vector stores give each lane).
inline std::vector<int64_t> stored_ints(const std::string& ir, const std::string& type = "i64") {
  std::vector<int64_t> out;
  std::regex store_line("store (<[^>]*>|" + type + " -?[0-9]+)");
  std::regex value(type + " (-?[0-9]+)");
  for (std::sregex_iterator it(ir.begin(), ir.end(), store_line), end; it != end; ++it) {
    std::string operand = (*it)[1];
    for (std::sregex_iterator v(operand.begin(), operand.end(), value); v != end; ++v)
      out.push_back(std::stoll((*v)[1]));
  }
  return out;
}

/// The double constants of every `store double` in `ir`, in order (LLVM prints them as decimal or hex).
inline std::vector<double> stored_doubles(const std::string& ir) {
  std::vector<double> out;
  std::regex store_line("store (<[^>]*>|double [^,]+),");
  for (std::sregex_iterator it(ir.begin(), ir.end(), store_line), end; it != end; ++it) {
    std::string operand = (*it)[1];
    std::regex each("double (0x[0-9A-F]+|[-+0-9.eE]+)");
    for (std::sregex_iterator v(operand.begin(), operand.end(), each); v != end; ++v) {
      std::string text = (*v)[1];
      if (text.rfind("0x", 0) == 0) {
        uint64_t bits = std::stoull(text.substr(2), nullptr, 16);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        out.push_back(d);
      } else {
        out.push_back(std::stod(text));
      }
    }
  }
  return out;
}

}  // namespace gpujit::test
