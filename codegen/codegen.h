// Codegen's entry: an analysed program (ir/typed_function.h) in, the compiled artifact (codegen/artifact.h)
// filled out. What comes before (parsing, analysis) is the compile driver's business (compiler/compiler.cpp);
// codegen never sees source text. This header is LLVM-free.
#pragma once

#include <string>

#include "codegen/artifact.h"  // GPUJIT_API
#include "ir/typed_function.h"

namespace gpujit {

/// The NVPTX back half of a compile, after semantic analysis succeeded: lowers `program`
/// (codegen/lowering.h), applies the entry's launch bounds and register limit, links libdevice, optimizes and
/// emits PTX into `result` (params, entry_name, max_threads, lowered_llvm_ir and llvm_ir if asked, ptx, the
/// lower, optimize and ptx timings). User errors go to result.diagnostics.
void compile_typed_for_nvptx(const TypedProgram& program, const GlobalEnv& globals,
                             const CompileOptions& options, CompileResult& result);

/// The host back half (codegen/host_jit.cpp): lowers `program` with the host target, optimizes, JIT-compiles
/// and fills `result` (params, entry_name, llvm_ir if asked, host, the lower, optimize and ptx timings;
/// ms_ptx is the machine-code generation and link). User errors go to result.diagnostics.
void compile_typed_for_host(const TypedProgram& program, const GlobalEnv& globals,
                            const CompileOptions& options, CompileResult& result);

/// Builds the NVPTX code generator for `arch` at `opt_level` (codegen/pipeline.h, CodegenPasses) and keeps
/// it ready: the next compile for them takes it instead of building its own (NvptxTarget::emit); nothing
/// when one is ready already. Meant for a background thread between compiles (compiler/warm_up.h); it
/// recycles the TargetMachines of the code generators that ran since, and the PTX is the same either way.
/// False with *error set for an architecture gpujit cannot target.
GPUJIT_API bool prepare_nvptx_codegen(const std::string& arch, int opt_level, std::string* error);

/// How many compiles took a code generator prepared ahead, in this process (for tests).
GPUJIT_API int nvptx_codegen_taken();

}  // namespace gpujit
