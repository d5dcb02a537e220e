// Linking a kernel with its external code (see kernel_link.h).
#include "runtime/kernel_link.h"

#include <algorithm>
#include <stdexcept>

#include "runtime/cuda_toolkit.h"

namespace gpujit::rt {

std::string link_kernel(const std::string& ptx, const std::string& ptx_name, const std::vector<LinkFile>& link,
                        const std::string& arch, const KernelLinkOptions& options) {
  std::vector<LinkInput> inputs;
  inputs.push_back({LinkInputKind::ptx, ptx, ptx_name});
  bool lto = options.lto;
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
  return link_cuda(inputs, arch, link_options).cubin;
}

std::string link_kernel(const CompileResult& result, const std::string& arch, const KernelLinkOptions& options) {
  return link_kernel(result.ptx, result.entry_name + ".ptx", result.link, arch, options);
}

}  // namespace gpujit::rt
