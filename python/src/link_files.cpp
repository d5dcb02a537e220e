// External device code for Python (see link_files.h).
#include "link_files.h"

#include <string>

#include "errors.h"
#include "runtime/kernel_link.h"
#include "runtime/nvvm.h"

namespace gpujit::py {

namespace {

std::string bytes_or_text(pyb::handle v) {
  if (pyb::isinstance<pyb::bytes>(v)) return v.cast<std::string>();
  if (pyb::isinstance<pyb::str>(v)) return v.cast<std::string>();
  throw pyb::value_error("link input data must be bytes or str, not " +
                         pyb::str(pyb::type::handle_of(v).attr("__name__")).cast<std::string>());
}

}  // namespace

std::vector<LinkFile> link_files_of(pyb::handle descriptions) {
  std::vector<LinkFile> out;
  for (pyb::handle item : descriptions) {
    auto d = pyb::reinterpret_borrow<pyb::tuple>(item);
    if (d.size() != 4) throw pyb::value_error("a link input is (kind, name, data, options)");
    LinkFile f;
    f.kind = d[0].cast<std::string>();
    f.name = d[1].cast<std::string>();
    f.data = bytes_or_text(d[2]);
    for (pyb::handle o : d[3]) f.options.push_back(o.cast<std::string>());
    out.push_back(std::move(f));
  }
  return out;
}

pyb::list link_files_to_py(const std::vector<LinkFile>& files) {
  pyb::list out;
  for (const LinkFile& f : files) {
    pyb::tuple options(f.options.size());
    for (size_t i = 0; i < f.options.size(); ++i) options[i] = pyb::str(f.options[i]);
    out.append(pyb::make_tuple(f.kind, f.name, pyb::bytes(f.data), options));
  }
  return out;
}

std::shared_ptr<const ExternFunction> extern_function_of(const pyb::tuple& d) {
  auto x = std::make_shared<ExternFunction>();
  x->name = d[1].cast<std::string>();
  std::string text = d[2].cast<std::string>(), error;
  std::optional<Signature> sig = parse_signature(text, &error);
  if (!sig) throw pyb::value_error("external function '" + x->name + "' signature '" + text + "': " + error);
  x->signature = std::move(*sig);
  x->c_abi = d[3].cast<std::string>() == "c";
  x->link = link_files_of(d[4]);
  x->cooperative = d.size() > 5 && d[5].cast<bool>();
  return x;
}

void register_link_files(pyb::module_& m) {
  m.def(
      "_link_kernel",
      [](const std::string& ptx, const std::string& name, pyb::handle link, const std::string& arch, bool lto,
         const std::string& nvvm_ir, const std::string& nvvm_ir_error, bool linked_ptx) -> pyb::object {
        std::vector<LinkFile> files = link_files_of(link);
        rt::KernelLinkResult r;
        try {
          pyb::gil_scoped_release release;
          rt::KernelLinkOptions options;
          options.lto = lto;
          options.nvvm_ir = nvvm_ir;
          options.nvvm_ir_error = nvvm_ir_error;
          options.ptx = linked_ptx;
          r = rt::link_kernel_detailed(ptx, name, files, arch, options);
        } catch (const std::runtime_error&) {  // NVRTC's and nvJitLink's errors as the package's classes
          set_error_from_current_exception();
          throw pyb::error_already_set();
        }
        if (linked_ptx) {  // no warning: the caller says what it does without the linked PTX
          if (!r.kernel_as_ltoir) return pyb::make_tuple(pyb::none(), r.lto_fallback);
          return pyb::make_tuple(pyb::str(r.ptx), pyb::str());
        }
        if (!r.lto_fallback.empty())  // jit(lto=True) asked for the kernel as LTO-IR and did not get it
          pyb::module_::import("warnings")
              .attr("warn")("lto=True: the kernel is linked as PTX, so its CUDA C functions stay calls: " +
                                r.lto_fallback,
                            pyb::module_::import("gpujit.errors").attr("PerformanceWarning"), 2);
        return pyb::bytes(r.cubin);
      },
      pyb::arg("ptx"), pyb::arg("name"), pyb::arg("link"), pyb::arg("arch"), pyb::arg("lto") = false,
      pyb::arg("nvvm_ir") = "", pyb::arg("nvvm_ir_error") = "", pyb::arg("linked_ptx") = false,
      "The cubin of a kernel's PTX (or, with lto and nvvm_ir, its NVVM IR compiled by libNVVM) linked with its "
      "link inputs for arch (runtime/kernel_link.h); a PerformanceWarning when lto fell back to the PTX. With "
      "linked_ptx: (the PTX of the -lto -ptx link, or None, and why not) instead.");
  m.def(
      "_nvvm_compile",
      [](const std::string& ir, const std::string& arch, bool lto) {
        std::string out;
        try {
          pyb::gil_scoped_release release;
          out = rt::compile_nvvm_ir(ir, arch, lto);
        } catch (const std::runtime_error&) {
          set_error_from_current_exception();
          throw pyb::error_already_set();
        }
        return pyb::bytes(out);
      },
      pyb::arg("ir"), pyb::arg("arch"), pyb::arg("lto") = true,
      "NVVM IR compiled by libNVVM for arch: LTO-IR (lto) or PTX (runtime/nvvm.h).");
  m.def("_nvvm_library", []() -> pyb::object {
    try {
      rt::ToolkitLibrary lib = rt::nvvm_library();
      return pyb::make_tuple(lib.path, lib.major, lib.minor);
    } catch (const rt::ToolkitMissingError& e) {
      return pyb::str(e.what());
    }
  }, "libNVVM's (path, NVVM IR major, minor), or why it cannot be loaded.");
}

}  // namespace gpujit::py
