// libdevice: NVIDIA's bitcode library of math functions (__nv_expf, __nv_erf...), linked into kernels that
// use math builtins.
//
// The file is found and parsed once per process; each function a kernel calls is cut out of it once, with
// the helpers and tables it needs, into a small bitcode blob that later compiles parse and link in
// microseconds. A kernel pays for the few functions it calls, and a kernel without math pays nothing.
//
// A kernel without loops takes its libdevice functions already optimized (link_optimized_libdevice): each
// blob is optimized once per process for an architecture and fastmath setting, and linked and inlined after
// the kernel's own optimization, which so runs over the kernel alone. Inlined first, the bodies (most of a
// math kernel's code) would be optimized again in every kernel that calls them, to the same result: over the
// example and benchmark kernels the SASS is the same either way. A kernel with a loop keeps linking them
// before its optimization: the loop optimizers (unrolling above all) decide on the size of the loop's body,
// which a call would hide.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace gpujit {

/// The libdevice file this process uses, searched in order: $GPUJIT_LIBDEVICE (a file or a folder),
/// $CUDA_HOME/nvvm/libdevice, $CUDA_PATH/nvvm/libdevice, /usr/local/cuda/nvvm/libdevice, and next to the
/// gpujit core library (its folder, then ../nvvm/libdevice). Empty if none exists; *searched lists the
/// places looked at, for the error message.
std::string find_libdevice(std::string* searched);

/// Links the libdevice functions `module` declares into it. Returns false with a message naming the places
/// searched when libdevice is missing or unreadable.
bool link_libdevice(llvm::Module& module, std::string* error);

/// Answers libdevice's __nvvm_reflect("__CUDA_PREC_SQRT") calls in `module` with `value`. LLVM's NVVMReflect
/// pass reads __CUDA_FTZ from a module flag and __CUDA_ARCH from the target, but knows __CUDA_PREC_SQRT only
/// from a process-wide option, so without this every float32 libdevice function that takes a square root
/// (hypotf, norm3df, ...) would use sqrt.approx.f32 even without fastmath; nvcc and NVVM default to the
/// correctly rounded sqrt.rn.f32.
void resolve_prec_sqrt(llvm::Module& module, int value);

/// The libdevice functions `module` declares, each optimized (O3, __nvvm_reflect answered for `machine`'s
/// architecture and `fastmath`) in a module of its own in `module`'s context, to be linked after `module` is
/// optimized (link_optimized_libdevice). Each declaration in `module` takes its function's attributes
/// (memory(none), nounwind, willreturn...), so that the optimizer can move, merge and drop the calls as it
/// would the inlined bodies. Returns false with *error set as link_libdevice does.
bool prepare_optimized_libdevice(llvm::Module& module, llvm::TargetMachine& machine, bool fastmath,
                                 std::vector<std::unique_ptr<llvm::Module>>* pieces, std::string* error);

/// Links `pieces` into the optimized `module`, inlines them everywhere and drops them.
bool link_optimized_libdevice(llvm::Module& module, llvm::TargetMachine& machine,
                              std::vector<std::unique_ptr<llvm::Module>>& pieces, std::string* error);

}  // namespace gpujit
