// A Python function's kernel source as the compiler takes it: the parsed module of its text and the values
// of its free names.
//
// The Python shim (gpujit/_source.py) reads the function's text (dedented, keeping the user's file name and
// line numbers) and describes each free name's value as a small tuple; build_kernel_source() parses the text
// and turns the descriptions into the compiler's GlobalEnv:
//   ("int", value, dtype | None)   ("float", value, dtype | None)   ("bool", value)   ("none",)
//   ("tuple", [descriptions])      ("module", canonical name)       ("member", module, attribute)
//   ("dtype", name)                ("function", dispatcher)         ("array", dtype, shape, bytes)
//   ("unsupported", reason)
// A device function's own free names are merged into the kernel's environment (the kernel's win on a
// clash), since semantic analysis resolves every function of a compile in one environment; its module is
// kept alive in extra_modules.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "codegen/compiler.h"

namespace gpujit::py {

namespace pyb = pybind11;

struct KernelSource {
  std::shared_ptr<const Module> module;
  std::string name;
  GlobalEnv globals;
  std::vector<std::shared_ptr<const Module>> extra_modules;
};

/// Resolves a ("function", dispatcher) description to that dispatcher's source (implemented by the
/// dispatcher, which caches it).
using SourceResolver = std::shared_ptr<const KernelSource> (*)(PyObject* dispatcher);

/// Parses `text` and converts the free-name descriptions. Raises gpujit.CompileError for a text that does
/// not parse or lacks the function.
std::shared_ptr<const KernelSource> build_kernel_source(const std::string& text, const std::string& filename,
                                                        unsigned first_line, const std::string& name,
                                                        pyb::handle globals, SourceResolver resolve);

}  // namespace gpujit::py
