// The compiled artifact: what a compile is asked to produce (CompileOptions) and what it produces
// (CompileResult: PTX or the JIT-loaded host code, the parameter layout, diagnostics, the dumped stages).
//
// Codegen fills it, the compile driver (compiler/compiler.h) returns it, and the runtime, the binding and the
// disk cache consume it without seeing the compiler's internals: this header names no AST, no typed IR and no
// LLVM type. It is LLVM-free on purpose: the Python binding module is built on machines that have no LLVM
// headers and links against the core library, where LLVM lives with its symbols hidden.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "ir/extern_function.h"
#include "ir/types.h"

// codegen/ and compiler/ are compiled with hidden visibility (LLVM must not leak); their public entry points
// are exported.
#define GPUJIT_API __attribute__((visibility("default")))

namespace gpujit {

struct HostCode;  // codegen/host_jit.h
struct FunctionDef;  // frontend/ast.h

/// What a compile produces code for: PTX for an NVIDIA GPU, or machine code for this process's CPU, JIT-loaded
/// and run over the grid by the host executor (codegen/host_jit.h, runtime/host_executor.h).
enum class TargetKind { Nvptx, Host };

/// Which stages to keep as text in the result. PTX is always produced when compilation succeeds.
enum class Stage { Tokens, Ast, Typed, Llvm, Ptx };

/// What the named function is compiled as. Kernel: a kernel entry (`.entry`, returns nothing, the array ABI
/// of DESIGN.md). The Device kinds compile the function on its own as an externally visible device function
/// (`.visible .func`, numba's compile_ptx(device=True)); its parameters are its arguments by value (an array
/// is one aggregate {data pointer, int64 shape[ndim], int64 strides[ndim]}), NVPTX only:
/// - DeviceC: the C ABI; the result is the return value, the symbol is CompileOptions::abi_name or the
///   Python function's name.
/// - DeviceNumba: numba's ABI; returns an int32 status (0: success), takes a pointer to write the result
///   through and a pointer to exception information (unused, gpujit raises no exceptions on the device)
///   before the arguments; the symbol is the function's mangled name.
enum class EntryKind { Kernel, DeviceC, DeviceNumba };

struct CompileOptions {
  TargetKind target = TargetKind::Nvptx;  // Host: compile() fills CompileResult::host instead of ptx
  std::string arch = "sm_80";  // sm_75 and newer
  int opt_level = 3;           // 0..3, LLVM's pipeline level
  bool fastmath = false;       // approximate division/sqrt and flush denormals, as numba's fastmath=True
  /// Bounds-check every array index (numba's debug=True / boundscheck=True): an index outside its axis,
  /// after Python's negative wrap, stops the thread with an error naming the kernel, thread, block, index and
  /// source line (Target::index_error). Off by default: a compare and a branch per axis and access.
  bool debug = false;
  /// Line information in the PTX (numba's lineinfo=True, nvcc's -lineinfo): `.file`/`.loc` directives that
  /// map each instruction to the user's source line, and no other debug information. NVPTX only.
  bool lineinfo = false;
  /// DWARF debug information in the PTX (numba's debug=True, nvcc's -G): a `.debug_info` section with the
  /// compile unit, each function and every Python variable with its type (codegen/debug_info.h), and the
  /// `.loc` line table, for cuda-gdb and Nsight. NVPTX only; implies the line table of `lineinfo`.
  bool debug_info = false;
  /// At most this many registers per thread (numba's max_registers): `.maxnreg` on the PTX entry. 0: no
  /// limit. NVPTX only; 1..255.
  int max_registers = 0;
  /// Warn (a diagnostic of severity Warning) when float64 arithmetic enters a kernel whose floating-point
  /// arrays are all float32 (ir/sema.h). It changes no code, so it is not part of the cache key.
  bool warn_float64 = true;
  /// Launch bounds of a kernel (numba's launch_bounds): `.maxntid max_threads, 1, 1`, `.minnctapersm
  /// min_blocks`, `.maxclusterrank max_cluster_rank` on the entry; 0 leaves each out. NVPTX kernels only.
  int max_threads = 0, min_blocks = 0, max_cluster_rank = 0;
  EntryKind entry = EntryKind::Kernel;
  std::string abi_name;        // EntryKind::DeviceC: the symbol; empty: the function's name
  /// Code to link with the kernel (jit's link=), besides what its external functions bring (declare_device):
  /// CompileResult::link gets both. NVPTX only.
  std::vector<LinkFile> link;
  /// numba's jit(lto=True): also write the kernel as NVVM IR (CompileResult::nvvm_ir, codegen/nvvm_ir_writer.h),
  /// which the runtime compiles to LTO-IR with libNVVM and links with -lto, so that nvJitLink inlines the
  /// CUDA C functions of its link inputs into it. NVPTX kernels only; the PTX is produced all the same.
  bool lto = false;
  /// compile(output='ltoir'): write the entry, a kernel or a device function, as NVVM IR (CompileResult::nvvm_ir)
  /// for the caller to compile to LTO-IR; a construct the writer cannot express is an error. NVPTX only.
  bool nvvm_ir_output = false;
  /// numba's compile(forceinline=True): the entry is alwaysinline in its NVVM IR (with nvvm_ir_output).
  bool force_inline = false;
  bool keep_tokens = false;    // fill CompileResult::tokens
  bool keep_ast = false;       // fill CompileResult::ast
  bool keep_typed = false;     // fill CompileResult::typed
  bool keep_llvm = false;      // fill CompileResult::llvm_ir (optimized module) and lowered_llvm_ir
};

/// How one kernel parameter is passed at launch; the array ABI of DESIGN.md: an array is its data pointer,
/// then `ndim` int64 shapes, then `ndim` int64 strides in bytes.
struct ParamLayout {
  Type type;          // the argument's type as the kernel was specialized for it
  unsigned first = 0; // index of its first PTX parameter
  unsigned count = 0; // number of PTX parameters it occupies
};

/// One specialization of a device function a kernel calls: its definition and its argument types.
struct DeviceSpecialization {
  const FunctionDef* def = nullptr;
  std::vector<Type> args;
};

struct CompileResult {
  bool ok = false;
  Diagnostics diagnostics;  // errors and warnings, rendered with Diagnostics::render()
  std::string entry_name;   // the PTX entry's name
  Signature signature;      // the kernel's resolved signature
  /// The kernel takes cg.this_grid() (to sync on it): launch it with every block resident at once
  /// (cuLaunchCooperativeKernel on CUDA; one OS thread per block on the cpu backend).
  bool uses_grid_sync = false;
  /// The kernel's launch bound on threads per block (CompileOptions::max_threads); 0: none. The CUDA driver
  /// reads it from the PTX's .maxntid; the cpu backend enforces it from here.
  int max_threads = 0;
  std::vector<ParamLayout> params;
  std::string tokens, ast, typed, llvm_ir;  // filled as CompileOptions asks; llvm_ir is the optimized module
  /// keep_llvm: the module as gpujit lowered it, before libdevice is linked and LLVM's optimizer runs (what
  /// numba's inspect_llvm shows: device functions are calls unless jit(inline=...) inlined them).
  std::string lowered_llvm_ir;
  std::string ptx;
  /// NVPTX: the code the PTX must be linked with before it loads (jit's link= and the link= of each external
  /// function the kernel calls, in that order, each once); empty: the PTX loads on its own. The runtime links
  /// it (runtime/kernel_link.h).
  std::vector<LinkFile> link;
  /// The symbols of the external functions the kernel calls (declare_device), in first-call order.
  std::vector<std::string> extern_functions;
  /// The device functions the kernel calls, each specialization once, callees first. The binding lists them
  /// on their dispatchers, as numba's device function lists the signatures its callers compiled
  /// (`device_func.signatures`). Valid while the request's modules live; not kept by the disk cache.
  std::vector<DeviceSpecialization> device_functions;
  /// Whether the PTX must be linked before it loads: it has link inputs or calls external functions (which,
  /// with nothing to define them, nvJitLink names as undefined).
  bool needs_link() const { return !link.empty() || !extern_functions.empty(); }
  /// CompileOptions::lto: the kernel as NVVM IR (LLVM 7's text, for libNVVM), taken before LLVM's optimizer;
  /// empty when the writer could not write it, and then nvvm_ir_error says why (the link uses the PTX).
  std::string nvvm_ir, nvvm_ir_error;
  /// Whether the compile was asked for NVVM IR (CompileOptions::lto).
  bool lto_requested() const { return !nvvm_ir.empty() || !nvvm_ir_error.empty(); }
  /// NVPTX: the kernel's libdevice functions came optimized ahead and were linked after its optimization
  /// (a kernel without loops, codegen/libdevice.h), not linked before it.
  bool libdevice_optimized_ahead = false;
  /// NVPTX: the code generator's pass manager was built ahead, between compiles (prepare_nvptx_codegen).
  bool codegen_prepared_ahead = false;
  /// TargetKind::Host only: the JIT-loaded kernel, kept loaded while any copy of this pointer lives.
  std::shared_ptr<const HostCode> host;
  /// Wall time of each stage in milliseconds: parse (0 when the module came pre-parsed), sema, lower,
  /// optimize, ptx.
  double ms_parse = 0, ms_sema = 0, ms_lower = 0, ms_optimize = 0, ms_ptx = 0;
};

/// What compiles are made with, for reports such as `gpujit info`: filled by the compile driver's toolchain()
/// (compiler/compiler.h), read by the runtime's collect_system_info(), which may not include LLVM's headers.
struct Toolchain {
  std::string llvm_version;
  std::string libdevice;           // where libdevice was found; empty when it was not
  std::string libdevice_searched;  // where it was looked for
};

}  // namespace gpujit
