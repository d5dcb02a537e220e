// External device code for Python (see link_files.h).
#include "link_files.h"

#include <string>

#include "errors.h"
#include "runtime/kernel_link.h"

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
      [](const std::string& ptx, const std::string& name, pyb::handle link, const std::string& arch, bool lto) {
        std::vector<LinkFile> files = link_files_of(link);
        std::string cubin;
        try {
          pyb::gil_scoped_release release;
          rt::KernelLinkOptions options;
          options.lto = lto;
          cubin = rt::link_kernel(ptx, name, files, arch, options);
        } catch (const std::runtime_error&) {  // NVRTC's and nvJitLink's errors as the package's classes
          set_error_from_current_exception();
          throw pyb::error_already_set();
        }
        return pyb::bytes(cubin);
      },
      pyb::arg("ptx"), pyb::arg("name"), pyb::arg("link"), pyb::arg("arch"), pyb::arg("lto") = false,
      "The cubin of a kernel's PTX linked with its link inputs for arch (runtime/kernel_link.h).");
}

}  // namespace gpujit::py
