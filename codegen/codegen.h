// Codegen's entry: an analysed program (ir/typed_function.h) in, the compiled artifact (codegen/artifact.h)
// filled out. What comes before (parsing, analysis) is the compile driver's business (compiler/compiler.cpp);
// codegen never sees source text. This header is LLVM-free.
#pragma once

#include "codegen/artifact.h"
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

}  // namespace gpujit
