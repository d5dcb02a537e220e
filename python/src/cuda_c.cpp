// NVRTC and nvJitLink for Python (runtime/cuda_toolkit.h): compiling CUDA C/C++ through the on-disk cache,
// linking, and the toolkit's errors as the package's exception classes.
//
// `_core._compile_cuda_c` is what gpujit.compile_cuda_c, RawKernel and SourceModule call. With a cache key
// (the package hashes the source, options, architecture, output and NVRTC's version) the code is looked up
// in and stored to the disk cache (runtime/disk_cache.h: GPUJIT_CACHE_DIR, else ~/.cache/gpujit) as a
// machine-code file tagged with NVRTC's version and the architecture; the log of a cache hit is empty.
// The GIL is released while NVRTC and nvJitLink run.
#include "cuda_c.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "errors.h"
#include "runtime/cuda_toolkit.h"
#include "runtime/disk_cache.h"

namespace gpujit::py {
namespace {

// Raises gpujit.errors.<cls>(message) with the given attributes set.
[[noreturn]] void raise_package_error(const char* cls, const std::string& message,
                                      std::initializer_list<std::pair<const char*, std::string>> attrs) {
  pyb::object type = pyb::module_::import("gpujit.errors").attr(cls);
  pyb::object err = type(message);
  for (const auto& [name, value] : attrs) err.attr(name) = pyb::str(value);
  PyErr_SetObject(type.ptr(), err.ptr());
  throw pyb::error_already_set();
}

// Runs `body`, turning the toolkit's errors into the package's.
template <typename F>
auto translating(F&& body) {
  try {
    return body();
  } catch (const rt::CudaCCompileError& e) {
    raise_package_error("NvrtcCompilationError", e.what(), {{"log", e.log()}});
  } catch (const rt::CudaLinkError& e) {
    raise_package_error("LinkerError", e.what(), {{"error_log", e.error_log()}, {"info_log", e.info_log()}});
  } catch (const rt::ToolkitMissingError& e) {
    raise_package_error("CudaSupportError", e.what(), {});
  }
}

rt::CudaCOutput output_of(const std::string& name) {
  if (name == "ptx") return rt::CudaCOutput::ptx;
  if (name == "cubin") return rt::CudaCOutput::cubin;
  if (name == "ltoir") return rt::CudaCOutput::ltoir;
  throw pyb::value_error("output must be 'ptx', 'cubin' or 'ltoir', not '" + name + "'");
}

// A name safe in a file name: letters, digits, '_', '-' and '.', at most 40 characters.
std::string file_part(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    out += ok ? c : '_';
    if (out.size() == 40) break;
  }
  return out.empty() ? "kernel" : out;
}

pyb::tuple compile_cuda_c(const std::string& source, const std::string& name, std::vector<std::string> options,
                          const std::string& arch, const std::string& output,
                          std::vector<std::pair<std::string, std::string>> headers,
                          std::vector<std::string> name_expressions, const std::string& cache_key) {
  return translating([&]() -> pyb::tuple {
    rt::CudaCOutput out = output_of(output);
    rt::CudaCProgram program{source, name, std::move(options), std::move(headers), std::move(name_expressions)};
    // Lowered names are not cached: a program that asks for them is compiled every time.
    std::optional<rt::DiskCache> cache;
    std::string path, tag;
    if (!cache_key.empty() && program.name_expressions.empty()) {
      rt::ToolkitLibrary nvrtc = rt::nvrtc_library();
      cache = rt::DiskCache::for_source("");
      std::string canonical = out == rt::CudaCOutput::ptx ? rt::parse_cuda_arch(arch).compute() : rt::parse_cuda_arch(arch).sm();
      tag = "nvrtc" + std::to_string(nvrtc.major) + "." + std::to_string(nvrtc.minor) + "." + canonical + "." + output;
      if (cache) path = cache->directory() + "/cuda_c." + file_part(name) + "." + cache_key + "." + output;
    }
    if (cache) {
      std::optional<std::string> hit;
      {
        pyb::gil_scoped_release release;
        hit = cache->load_machine_code(path, cache_key, tag);
      }
      if (hit) return pyb::make_tuple(pyb::bytes(*hit), std::string(), pyb::list(), true);
    }
    rt::CudaCResult r;
    {
      pyb::gil_scoped_release release;
      r = rt::compile_cuda_c(program, arch, out);
      if (cache) cache->store_machine_code(path, cache_key, tag, r.code);
    }
    pyb::list lowered;
    for (const auto& [expr, mangled] : r.lowered_names) lowered.append(pyb::make_tuple(expr, mangled));
    return pyb::make_tuple(pyb::bytes(r.code), r.log, lowered, false);
  });
}

pyb::tuple link_cuda(const std::vector<std::tuple<std::string, pyb::bytes, std::string>>& inputs,
                     const std::string& arch, bool lto, std::vector<std::string> options) {
  return translating([&]() -> pyb::tuple {
    std::vector<rt::LinkInput> in;
    for (const auto& [kind, data, name] : inputs) in.push_back({rt::link_input_kind(kind), std::string(data), name});
    rt::LinkOptions o;
    o.lto = lto;
    o.options = std::move(options);
    rt::LinkResult r;
    {
      pyb::gil_scoped_release release;
      r = rt::link_cuda(in, arch, o);
    }
    return pyb::make_tuple(pyb::bytes(r.cubin), r.info_log);
  });
}

pyb::object library_info(bool nvrtc) {
  try {
    rt::ToolkitLibrary lib = nvrtc ? rt::nvrtc_library() : rt::nvjitlink_library();
    return pyb::make_tuple(lib.path, lib.major, lib.minor);
  } catch (const rt::ToolkitMissingError& e) {
    return pyb::str(e.what());
  }
}

}  // namespace

void register_cuda_c(pyb::module_& m) {
  m.def("_set_toolkit_search_dirs", [](std::vector<std::string> dirs) { rt::set_toolkit_search_dirs(std::move(dirs)); });
  m.def("_toolkit_library", &library_info, pyb::arg("nvrtc"),
        "(path, major, minor) of NVRTC (nvrtc=True) or nvJitLink, loading it; or why it cannot be loaded.");
  m.def("_compile_cuda_c", &compile_cuda_c, pyb::arg("source"), pyb::arg("name"), pyb::arg("options"),
        pyb::arg("arch"), pyb::arg("output"), pyb::arg("headers"), pyb::arg("name_expressions"),
        pyb::arg("cache_key"), "(code bytes, log, [(expression, mangled)], cache hit)");
  m.def("_link_cuda", &link_cuda, pyb::arg("inputs"), pyb::arg("arch"), pyb::arg("lto"), pyb::arg("options"),
        "Links [(kind, bytes, name)] for arch with nvJitLink: (cubin bytes, info log).");
  m.def("_link_input_kind", [](const std::string& path) { return rt::link_input_kind_name(rt::link_input_kind_for_path(path)); });
}

}  // namespace gpujit::py
