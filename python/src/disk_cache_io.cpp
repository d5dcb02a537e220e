// The launch path's side of the on-disk cache (see disk_cache_io.h).
#include "disk_cache_io.h"

#include <pybind11/pybind11.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace gpujit::py {
namespace pyb = pybind11;

namespace {

bool g_warned_damaged = false, g_warned_unwritable = false;

void warn_cache(bool& once, const std::string& message) {
  if (once) return;
  once = true;
  pyb::object cls = pyb::module_::import("gpujit.errors").attr("CacheWarning");
  if (PyErr_WarnEx(cls.ptr(), message.c_str(), 1) < 0) throw pyb::error_already_set();
}

bool report_compile_times() {
  static const bool on = [] {
    const char* v = std::getenv("GPUJIT_COMPILE_TIMES");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

}  // namespace

void warn_damaged(const std::string& path) {
  warn_cache(g_warned_damaged, "gpujit cache: the entry " + path + " is damaged (truncated, edited or of another "
                               "format); the kernel is compiled again and the entry rewritten");
}

void warn_unwritable(const std::string& kernel, const std::string& where) {
  warn_cache(g_warned_unwritable, "gpujit cache: kernel '" + kernel + "' (cache=True) cannot be cached: " + where +
                                      "; it is compiled in every process until the folder can be written "
                                      "(set GPUJIT_CACHE_DIR to choose another)");
}

std::shared_ptr<rt::LoadedKernel> load_through_disk(const std::string& name, rt::Device& device,
                                                    const CompileResult& result, const rt::DiskCache& cache,
                                                    const std::string& entry, const std::string& key,
                                                    const std::string& tag, bool* hit) {
  *hit = false;
  std::string path = rt::DiskCache::machine_code_path(entry, tag);
  rt::DiskCache::Miss why = rt::DiskCache::Miss::Missing;
  std::optional<std::string> code;
  {
    pyb::gil_scoped_release release;
    code = cache.load_machine_code(path, key, tag, &why);
  }
  if (code) {
    if (auto kernel = device.load_kernel_code(result, *code, name)) {
      *hit = true;
      return kernel;
    }
    why = rt::DiskCache::Miss::Damaged;  // the device refused it
  }
  if (why == rt::DiskCache::Miss::Damaged) warn_damaged(path);
  std::string made;
  std::shared_ptr<rt::LoadedKernel> kernel = device.load_kernel_keeping_code(result, name, &made);
  if (!made.empty()) {
    bool stored;
    {
      pyb::gil_scoped_release release;
      stored = cache.store_machine_code(path, key, tag, made);
    }
    if (!stored) warn_unwritable(name, "writing " + path + " failed");
  }
  return kernel;
}

void CompileTimer::loaded(const std::string& kernel, const std::string& signature, const CompileResult& result,
                          bool disk, const char* how) const {
  if (!report_compile_times()) return;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  bool hit = disk && result.ms_optimize == 0 && result.ms_ptx == 0;  // a disk hit ran no stage
  std::fprintf(stderr,
               "gpujit: kernel '%s' %s: compile %.2f ms (analyze %.2f, lower + libdevice %.2f, optimize %.2f, "
               "emit %.2f)%s, load %.2f ms (%s)\n",
               kernel.c_str(), signature.c_str(), ms(start_, compiled_), result.ms_sema, result.ms_lower,
               result.ms_optimize, result.ms_ptx, disk ? (hit ? " [disk hit]" : " [disk miss]") : "",
               ms(compiled_, Clock::now()), how);
}

}  // namespace gpujit::py
