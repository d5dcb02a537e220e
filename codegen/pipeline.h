// The LLVM half of a compile: optimizing a lowered module and emitting it as target assembly (PTX).
//
// Optimization runs LLVM's standard per-module pipeline through the new pass manager, with the target's
// own passes registered into it (for NVPTX: NVVMReflect, address-space inference). Emission uses the
// legacy pass manager, which LLVM still requires for its code generators. Both reuse the caller's
// TargetMachine; neither keeps state between calls.
#pragma once

#include <string>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace gpujit {

/// Runs the O0..O3 module pipeline over `module`, in place.
void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, int opt_level);

/// Emits `module` as assembly text (PTX for NVPTX). Throws InternalError if the target cannot.
/// Runs the LLVM pass pipeline `pipeline`, in `opt -passes=` syntax, over `module`; throws InternalError when
/// it does not parse.
void run_passes(llvm::Module& module, llvm::TargetMachine& machine, const std::string& pipeline);

std::string emit_assembly(llvm::Module& module, llvm::TargetMachine& machine);

/// The module as LLVM IR text. inline_attributes: each function definition's and declaration's attributes
/// are written on its own line (`define void @f() alwaysinline nounwind {`, which LLVM reads as well) rather
/// than as a reference to an attribute group (`#0`), so a reader sees them where the function is.
std::string print_module(const llvm::Module& module, bool inline_attributes = false);

}  // namespace gpujit
