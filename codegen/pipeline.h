// The LLVM half of a compile: optimizing a lowered module and emitting it as target assembly (PTX).
//
// Optimization runs LLVM's standard per-module pipeline through the new pass manager, with the target's
// own passes registered into it (for NVPTX: NVVMReflect, address-space inference). Emission uses the
// legacy pass manager, which LLVM still requires for its code generators (less two passes that find nothing
// left to do: codegen_pass_runs). Both reuse the caller's TargetMachine; neither keeps state between calls.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "codegen/artifact.h"  // GPUJIT_API

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace gpujit {

/// The rule of the pass gate emit_assembly sets on the module's context: whether the NVPTX code generator
/// runs its legacy pass `pass` (its argument name) over the IR unit `ir` ("function (name)"). It leaves out
/// NaryReassociate and the EarlyCSE that follows it to clean up after it; `skipped` keeps the units whose
/// NaryReassociate was left out. By then the O3 pipeline's reassociation and GVN have found what
/// NaryReassociate would, and ptxas finds the rest: over the 78 compiles of the example and benchmark
/// kernels (sm_90 with --index32, sm_80, sm_90 with fastmath) the PTX is byte for byte the same without the
/// two, which were 3-4% of a compile's instructions (benchmarks/README.md, "Libdevice optimized ahead").
GPUJIT_API bool codegen_pass_runs(std::string_view pass, std::string_view ir, std::set<std::string>* skipped);

/// Runs the O0..O3 module pipeline over `module`, in place.
void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, int opt_level);

/// Runs the LLVM pass pipeline `pipeline`, in `opt -passes=` syntax, over `module`; throws InternalError when
/// it does not parse.
void run_passes(llvm::Module& module, llvm::TargetMachine& machine, const std::string& pipeline);

/// Emits `module` as assembly text (PTX for NVPTX). Throws InternalError if the target cannot.
std::string emit_assembly(llvm::Module& module, llvm::TargetMachine& machine);

/// A code generator built for one module, before that module exists: LLVM's legacy pass manager filled by
/// TargetMachine::addPassesToEmitFile (PMTopLevelManager's scheduling of some 150 passes, about a fifth of
/// vadd's compile and 4% of a tiled matmul's), and the text it will write. It runs once, with the
/// TargetMachine it was built for and on one thread at a time; it is built on any thread.
class CodegenPasses;
struct CodegenPassesDeleter {
  void operator()(CodegenPasses* passes) const;
};
using CodegenPassesPtr = std::unique_ptr<CodegenPasses, CodegenPassesDeleter>;

/// What emit_assembly builds before it runs. Throws InternalError if the target cannot emit assembly.
CodegenPassesPtr build_codegen_passes(llvm::TargetMachine& machine);

/// emit_assembly with passes built ahead by build_codegen_passes (for a TargetMachine of the same target,
/// architecture and level as the module's); `passes` is spent.
std::string run_codegen_passes(llvm::Module& module, CodegenPasses& passes);

/// The module as LLVM IR text. inline_attributes: each function definition's and declaration's attributes
/// are written on its own line (`define void @f() alwaysinline nounwind {`, which LLVM reads as well) rather
/// than as a reference to an attribute group (`#0`), so a reader sees them where the function is.
std::string print_module(const llvm::Module& module, bool inline_attributes = false);

}  // namespace gpujit
