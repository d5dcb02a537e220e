// The compiler's one-time initialisation, done on a background thread while the program does other things
// (imports, allocates, copies), so that the first kernel of a process compiles as fast as later ones.
//
// The first compile of a process pays for work later compiles share: LLVM's NVPTX target and pass
// registries, the first parse of libdevice's bitcode, and the libdevice functions cut from it (erf, exp,
// log... each a few hundred microseconds to a few milliseconds). start_warm_up() compiles one small kernel
// that uses the common float64 math functions, on a thread of its own; a kernel that compiles meanwhile
// shares what it has done (libdevice's cache is process-wide, behind its mutex) or waits for the piece it
// needs, never compiles anything twice. The threads are joined before fork() (pthread_atfork: a child must
// not inherit a lock the warm-up holds) and at exit (start_warm_up registers wait_warm_up() with atexit).
//
// The libdevice functions a kernel without loops links are optimized per architecture (codegen/libdevice.h),
// and the start does not know the GPU's: the first compile for another architecture than the default
// (sm_80), an H100's sm_90 say, starts the same warm-up for it on a thread of its own (warm_up_arch), so a
// math kernel compiled after it finds erf, exp, log... optimized for its architecture.
#pragma once

#include <string>
#include <vector>

#include "compiler/compiler.h"  // GPUJIT_API

namespace gpujit {

/// Starts the warm-up thread once per process; later calls do nothing.
GPUJIT_API void start_warm_up();

/// Starts the warm-up for `arch` on a thread of its own, once per architecture, if start_warm_up() was
/// called (so never in a process that did not ask for the warm-up: the CLI, GPUJIT_WARM_UP=0).
GPUJIT_API void warm_up_arch(const std::string& arch);

/// The architectures a warm-up was started for so far, sorted (for tests).
GPUJIT_API std::vector<std::string> warm_up_archs();

/// Asks the background thread to build the NVPTX code generator for `arch` at `opt_level` that the next
/// compile for them takes (prepare_nvptx_codegen, codegen/nvptx_target.h), if start_warm_up() was called:
/// building one (LLVM's legacy pass manager, some 150 passes) is about a fifth of a small kernel's compile.
/// The compiler asks after each NVPTX compile, so the next one finds it ready.
GPUJIT_API void prepare_codegen(const std::string& arch, int opt_level);

/// Waits for the warm-up threads, if any was started, and stops the thread that prepares code generators
/// (the next prepare_codegen starts it again); returns at once when there is neither.
GPUJIT_API void wait_warm_up();

}  // namespace gpujit
