// A Python function's kernel source as the compiler takes it: the parsed module of its text and the values
// of its free names.
//
// The Python shim (gpujit/_source.py) reads the function's text (indented as in the file, with the user's
// file name and line numbers) and describes each free name's value as a small tuple; build_kernel_source()
// parses the text and turns the descriptions into the compiler's GlobalEnv:
//   ("int", value, dtype | None)   ("float", value, dtype | None)   ("bool", value)   ("none",)
//   ("str", text)                  ("tuple", [descriptions])        ("module", canonical name)
//   ("member", module, attribute)
//   ("dtype", name)                ("function", dispatcher[, signatures[, inline, forceinline]])
//   ("array", dtype, shape, bytes)
//   ("unsupported", reason)         ("exception", reference of an exception class)
//   ("enum", Enum class)            ("enum_member", member of an Enum class)      ("bytes", value)
//   ("extern", name, signature, abi, link inputs): a declare_device function (link_files.h)
//   ("overloaded", key): a function with @overload implementations (python/gpujit/_overloads.py)
// A device function's own free names are merged into the kernel's environment (the kernel's win on a
// clash), since semantic analysis resolves every function of a compile in one environment; its module is
// kept alive in extra_modules.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "compiler/compiler.h"

namespace gpujit::py {

namespace pyb = pybind11;

struct KernelSource {
  std::shared_ptr<const Module> module;
  std::string name;
  GlobalEnv globals;
  std::vector<std::shared_ptr<const Module>> extra_modules;
  /// The captured device arrays (and whatever owns their memory), kept alive for as long as code that holds
  /// their addresses can run.
  std::vector<pyb::object> captured;
  /// Whether a global is a captured device array, whose address makes the code valid in this process only.
  bool has_captured_arrays() const { return !captured.empty(); }
};

/// Resolves a ("function", dispatcher) description to that dispatcher's source (implemented by the
/// dispatcher, which caches it).
using SourceResolver = std::shared_ptr<const KernelSource> (*)(PyObject* dispatcher);

/// Parses `text` into a source whose free names are still empty. Raises gpujit.CompileError for a text
/// that does not parse; ValueError if it lacks the function.
std::shared_ptr<KernelSource> parse_kernel_source(const std::string& text, const std::string& filename,
                                                  unsigned first_line, const std::string& name);
/// Converts the free-name descriptions into `src`'s environment. A device function may resolve to a
/// source still being filled (one that calls itself, directly or through others): it is used as it is, so
/// recursion reaches semantic analysis, which accepts a function calling itself and names a longer cycle.
void fill_globals(KernelSource& src, pyb::handle globals, SourceResolver resolve);

}  // namespace gpujit::py
