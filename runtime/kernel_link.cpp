// Linking a kernel with its external code (see kernel_link.h).
#include "runtime/kernel_link.h"

#include <algorithm>
#include <stdexcept>

#include "runtime/cuda_toolkit.h"
#include "runtime/nvvm.h"

namespace gpujit::rt {

KernelLinkResult link_kernel_detailed(const std::string& ptx, const std::string& ptx_name,
                                      const std::vector<LinkFile>& link, const std::string& arch,
                                      const KernelLinkOptions& options) {
  KernelLinkResult out;
  std::vector<LinkInput> inputs;  // the link inputs after the kernel's own
  bool lto = options.lto || options.ptx;
  std::string kernel_ltoir;
  if (lto && !options.nvvm_ir.empty()) {
    try {
      kernel_ltoir = compile_nvvm_ir(options.nvvm_ir, arch, true);
      out.kernel_as_ltoir = true;
    } catch (const ToolkitMissingError& e) {
      out.lto_fallback = e.what();
    } catch (const NvvmCompileError& e) {
      out.lto_fallback = e.what();
    }
  } else if (lto) {
    out.lto_fallback = options.nvvm_ir_error;
    if (options.ptx && out.lto_fallback.empty()) out.lto_fallback = "the kernel was not written as NVVM IR";
  }
  if (options.ptx && !out.kernel_as_ltoir) return out;  // PTX comes only out of an LTO link of the kernel's LTO-IR
  for (const LinkFile& f : link) {
    if (f.kind == "cu") {
      CudaCProgram program;
      program.source = f.data;
      program.name = f.name;
      program.options = f.options;
      if (std::find(program.options.begin(), program.options.end(), "-rdc=true") == program.options.end())
        program.options.push_back("-rdc=true");
      program.options.insert(program.options.end(), options.nvrtc_options.begin(), options.nvrtc_options.end());
      CudaCResult r = compile_cuda_c(program, arch, lto ? CudaCOutput::ltoir : CudaCOutput::cubin);
      inputs.push_back({lto ? LinkInputKind::ltoir : LinkInputKind::cubin, std::move(r.code), f.name});
    } else {
      LinkInputKind kind = link_input_kind(f.kind);
      if (kind == LinkInputKind::ltoir) lto = true;  // an LTO-IR input links only with -lto
      inputs.push_back({kind, f.data, f.name});
    }
  }
  LinkOptions link_options;
  link_options.lto = lto;
  link_options.ptx = options.ptx;
  if (out.kernel_as_ltoir) {
    const std::string stem = ptx_name.size() > 4 && ptx_name.compare(ptx_name.size() - 4, 4, ".ptx") == 0
                                 ? ptx_name.substr(0, ptx_name.size() - 4)
                                 : ptx_name;
    inputs.insert(inputs.begin(), {LinkInputKind::ltoir, std::move(kernel_ltoir), stem + ".ltoir"});
    if (options.ptx) {  // no fallback: PTX comes only out of this link, and its error is the answer
      out.ptx = link_cuda(inputs, arch, link_options).ptx;
      return out;
    }
    try {
      out.cubin = link_cuda(inputs, arch, link_options).cubin;
      return out;
    } catch (const CudaLinkError& e) {  // linked again with the PTX below: an error of the inputs recurs there
      out.kernel_as_ltoir = false;
      out.lto_fallback = std::string("nvJitLink could not link the kernel's LTO-IR: ") + e.what();
      inputs.erase(inputs.begin());
    }
  }
  inputs.insert(inputs.begin(), {LinkInputKind::ptx, ptx, ptx_name});
  out.cubin = link_cuda(inputs, arch, link_options).cubin;
  return out;
}

std::string link_kernel(const CompileResult& result, const std::string& arch, std::string* lto_fallback) {
  KernelLinkOptions o;
  if (result.lto_requested()) {  // jit(lto=True): the kernel as LTO-IR where libNVVM takes it
    o.lto = true;
    o.nvvm_ir = result.nvvm_ir;
    o.nvvm_ir_error = result.nvvm_ir_error;
  }
  KernelLinkResult r = link_kernel_detailed(result.ptx, result.entry_name + ".ptx", result.link, arch, o);
  // The writer's failure (nvvm_ir_error) was reported when the kernel compiled; libNVVM's is new here.
  *lto_fallback = result.lto_requested() && !r.kernel_as_ltoir && r.lto_fallback != result.nvvm_ir_error
                      ? r.lto_fallback
                      : std::string();
  return std::move(r.cubin);
}

}  // namespace gpujit::rt
