// The free names of a whole source file, as the CLI resolves them (the Python binding resolves a function's
// free names from the live Python objects instead).
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "ir/typed_function.h"

namespace gpujit {

/// Builds the free-name environment the CLI uses for a whole file: its imports (math, numpy as np, gpujit
/// as gpu, numba, numba.cuda as cuda...), its module-level constants and its other functions.
GlobalEnv globals_from_module(const Module& module, Diagnostics& diags);

}  // namespace gpujit
