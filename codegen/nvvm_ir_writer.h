// Writing a gpujit module as NVVM IR: the text of LLVM 7's dialect that libNVVM (CUDA's "NVVM 7.0.1")
// reads, so that libNVVM can turn a gpujit kernel into LTO-IR and nvJitLink can inline CUDA C functions into
// it (jit(lto=True) with link=, docs/cuda_c.md). libNVVM reads neither LLVM 22's bitcode nor its text (opaque
// pointers, fneg, freeze, poison, llvm.smax, ...), so this writer prints every construct itself.
//
// The invariants of what it prints:
// - every pointer value is `i8*` in its address space (`i8 addrspace(1)*`); an instruction that needs a typed
//   pointer (load, store, getelementptr, alloca, cmpxchg, atomicrmw) gets a bitcast right before it, and a
//   getelementptr's or alloca's result is cast back to `i8*`; a global used as a value is a bitcast constant;
// - modern instructions are lowered to LLVM 7's: fneg to fsub from -0.0, freeze to its operand, poison to
//   undef, llvm.smax/smin/umax/umin/abs to icmp and select, atomicrmw fadd to llvm.nvvm.atomic.load.add;
//   atomics lose their `align` and syncscope (a wider scope is still correct); libNVVM refuses fence and atomic
//   load/store, so a fence is a membar of its scope (llvm.nvvm.membar.cta/gl/sys) and an atomic load or store
//   a volatile one with membars as its ordering asks; instruction flags LLVM 7 lacks
//   (disjoint, nneg, samesign, gep's nusw) are dropped;
// - attributes are reduced to alwaysinline/noinline; instruction metadata and debug information are dropped;
// - the kernel is marked by `!nvvm.annotations` (with maxntidx, minctasm, cluster_max_blocks, maxnreg when
//   set), not a calling convention, and kept by `@llvm.used` (an LTO link drops an unreferenced kernel); the
//   other defined functions become internal; datalayout, triple and `!nvvmir.version` are libNVVM's;
// - barriers, exit and the dynamic shared memory size use LLVM 7's names (llvm.nvvm.barrier0, ...) or inline
//   PTX; fptosi/fptoui.sat are NVVM's f2i/d2ll.rz (PTX's cvt.rzi saturates as they do).
// - a device function as the entry (compile(output='ltoir'), NvvmIrEntry::kernel false) gets no annotation:
//   it stays externally visible, kept by `@llvm.used`, and marked alwaysinline when asked (numba's
//   forceinline), so that the code that links its LTO-IR inlines it.
// Anything else (a vector of pointers, an indirect call, a byval parameter, an intrinsic newer than LLVM 7 or
// one that takes a pointer and is not known here, bfloat) is a failure whose message names the construct; the
// caller then links the PTX as before.
#pragma once

#include <string>

namespace llvm {
class Function;
class Module;
}  // namespace llvm

namespace gpujit {

/// The function a module's NVVM IR is written for, and how.
struct NvvmIrEntry {
  const llvm::Function* function = nullptr;
  /// A kernel (marked in `!nvvm.annotations`, with its launch bounds); else a device function.
  bool kernel = true;
  /// Marked alwaysinline (numba's compile(forceinline=True)).
  bool always_inline = false;
};

/// `module` as NVVM IR text for its entry; the entry is the one externally visible definition. Take the module
/// as lowered, before LLVM's optimizer (libNVVM optimizes it): fewer modern intrinsics appear. Calls of
/// libdevice's `__nv_*` functions stay declarations (libNVVM links libdevice). Returns false and sets
/// `*error` to a message naming the construct it cannot write.
bool write_nvvm_ir(const llvm::Module& module, const NvvmIrEntry& entry, std::string* out, std::string* error);

}  // namespace gpujit
