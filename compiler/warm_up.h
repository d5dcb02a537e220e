// The compiler's one-time initialisation, done on a background thread while the program does other things
// (imports, allocates, copies), so that the first kernel of a process compiles as fast as later ones.
//
// The first compile of a process pays for work later compiles share: LLVM's NVPTX target and pass
// registries, the first parse of libdevice's bitcode, and the libdevice functions cut from it (erf, exp,
// log... each a few hundred microseconds to a few milliseconds). start_warm_up() compiles one small kernel
// that uses the common float64 math functions, on a thread of its own; a kernel that compiles meanwhile
// shares what it has done (libdevice's cache is process-wide, behind its mutex) or waits for the piece it
// needs, never compiles anything twice. The thread is joined before fork() (pthread_atfork: a child must not
// inherit a lock the warm-up holds) and by wait_warm_up(), which the Python package calls at exit.
#pragma once

#include "compiler/compiler.h"  // GPUJIT_API

namespace gpujit {

/// Starts the warm-up thread once per process; later calls do nothing.
GPUJIT_API void start_warm_up();

/// Waits for the warm-up thread, if one was started; returns at once otherwise.
GPUJIT_API void wait_warm_up();

}  // namespace gpujit
