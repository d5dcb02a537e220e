// Lowering: a typed program (ir/typed_function.h) to an LLVM module, for any Target.
//
// This is the target-independent half of codegen. It reads types, symbols and operand types from the
// TypedProgram and never infers one itself: where the tables lack an entry it needs, it throws
// InternalError (a bug in semantic analysis or here, not the user's fault). The few constructs that
// analysis accepts but lowering cannot handle yet are reported as user errors in Diagnostics, naming the
// construct.
//
// Semantics fixed here, as numba-cuda has them on the GPU (see the comments at each helper for details):
// integer arithmetic wraps; integer division and modulo by zero give 0 (NumPy's result; nothing traps on a
// GPU); `//` and `%` floor (the remainder takes the divisor's sign) for signed integers and floats;
// out-of-range float-to-int conversions saturate (NaN gives 0), as PTX's cvt.rzi does; shifts by the bit
// width or more give 0 (or all sign bits for >> of a negative value).
#pragma once

#include <memory>
#include <vector>

#include "codegen/artifact.h"
#include "codegen/target.h"
#include "frontend/diagnostics.h"
#include "ir/typed_function.h"

namespace gpujit {

struct LoweredModule {
  std::unique_ptr<llvm::Module> module;
  llvm::Function* kernel = nullptr;
  /// How the kernel's arguments map to its LLVM (PTX) parameters; the array ABI of DESIGN.md.
  std::vector<ParamLayout> params;
};

/// Whether any function of `program` calls cg.this_grid().sync() (codegen/warp_lowering.cpp).
bool uses_grid_sync(const TypedProgram& program);

/// The debug information lower_program() attaches: none, the `.loc` line table alone (lineinfo=True), or
/// DWARF with it (debug=True: a .debug_info section too).
enum class LineInfo { None, Directives, Dwarf };

/// Lowers the kernel of `program` and every device function it calls into a fresh module of `ctx`.
/// `globals` resolves captured constant arrays (const.array_like). User errors go to `diags`; when it
/// gains an error the module is incomplete and must not be compiled further. `bounds_check` (debug=True)
/// checks every array index against its axis (codegen/bounds_check.cpp). `line_info` (lineinfo=True) gives
/// every function a DISubprogram and every statement's instructions the statement's line and column.
/// `entry` other than Kernel makes the program's last function an externally visible device function with
/// that ABI (artifact.h); LoweredModule::kernel is then that function and `params` stays empty.
LoweredModule lower_program(const TypedProgram& program, const GlobalEnv& globals, Target& target,
                            llvm::LLVMContext& ctx, bool fastmath, Diagnostics& diags,
                            bool bounds_check = false, LineInfo line_info = LineInfo::None,
                            EntryKind entry = EntryKind::Kernel, const std::string& abi_name = "");

}  // namespace gpujit
