// The compile driver's entry: source + kernel name + argument types + options -> artifacts of every stage.
//
// The CLI, the tests, the Python bindings and `kernel.inspect_*()` all go through compile(). The request
// names the parsed module and the kernel's free names; consumers keep the result (codegen/artifact.h).
// compiler/compiler.cpp reads as the pipeline's table of contents; docs/architecture.md shows the layers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/artifact.h"
#include "frontend/diagnostics.h"
#include "ir/overloads.h"
#include "ir/typed_function.h"
#include "ir/types.h"

namespace gpujit {

struct CompileRequest {
  /// The module holding the kernel (and, in the CLI path, its device functions).
  std::shared_ptr<const Module> module;
  std::string kernel_name;
  /// The kernel's argument types; a kernel's return type is void.
  std::vector<Type> arg_types;
  /// A device entry's declared return type (numba's `int32(int32, int32)`); invalid or void: inferred.
  Type return_type;
  /// The kernel's free names. DeviceFunction entries point into `module` or into `extra_modules`.
  GlobalEnv globals;
  /// Modules of device functions defined elsewhere (other files, other Python functions); kept alive here.
  std::vector<std::shared_ptr<const Module>> extra_modules;
  CompileOptions options;
  /// Answers the calls that @overload implementations type (ir/overloads.h); null: none.
  std::shared_ptr<OverloadResolver> overloads;
};

/// Compiles one kernel specialization. Never throws for user errors (they are in result.diagnostics);
/// throws InternalError for compiler bugs.
GPUJIT_API CompileResult compile(const CompileRequest& request);

/// The key of `request`'s entry in the on-disk kernel cache (runtime/disk_cache.h): 64 hex digits of the
/// SHA-256 of everything the compile's PTX depends on: the kernel's name and source text, the source text of
/// every device function its free names reach, the value of every free name (constants, dtypes, captured
/// arrays), the argument types, the options that change code (target, architecture, optimization level,
/// fastmath, debug, lineinfo, max_registers), and the identity of the compiler (gpujit's and LLVM's
/// versions and the core library's build). The keep_* options are not part of it.
GPUJIT_API std::string cache_key(const CompileRequest& request);

/// LLVM's version and where libdevice is (the compiler's part of `gpujit info`).
GPUJIT_API Toolchain toolchain();

/// Compiles one kernel for the host: compile() with options.target set to TargetKind::Host. On success
/// result.host is set and result.ptx is empty; user errors are in result.diagnostics as for PTX.
GPUJIT_API CompileResult compile_host(CompileRequest request);

/// Parses source text into a Module (imports, globals, functions), keeping parse errors in the module.
GPUJIT_API std::shared_ptr<const Module> parse_source(const std::string& filename, const std::string& text,
                                           unsigned first_line = 1);

}  // namespace gpujit
