// The dispatcher: the Dispatcher type, its source, compiles and specializations (see dispatcher.h). The
// launch configuration object and the launch path are in dispatcher_launch.cpp; the state both share is
// in dispatcher_internal.h.
#include "dispatcher.h"
#include "dispatcher_internal.h"
#include "disk_cache_io.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <structmember.h>

#include "arguments.h"
#include "arrays.h"
#include "errors.h"
#include "graphs.h"
#include "ir/type_rules.h"
#include "kernel_source.h"
#include "link_files.h"
#include "module_callbacks.h"
#include "overloads.h"
#include "runtime/disk_cache.h"
#include "runtime/host_executor.h"
#include "runtime/kernel_cache.h"
#include "runtime/runtime_error.h"
#include "runtime/runtime.h"

namespace gpujit::py {

PyTypeObject* g_dispatcher_type = nullptr;

namespace {

std::string describe_key(const std::vector<rt::ArgCode>& key) {
  std::vector<Type> types = rt::types_of_key(key.data(), key.size());
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].str();
  return s + ")";
}

// ---------------------------------------------------------------------------------------------------------
// Source and compilation

std::shared_ptr<const KernelSource> source_of(PyObject* self);

std::shared_ptr<const KernelSource> resolve_device_function(PyObject* obj) {
  if (!PyObject_TypeCheck(obj, g_dispatcher_type)) {
    throw pyb::type_error("a ('function', ...) free name must be a gpujit dispatcher");
  }
  return source_of(obj);
}

/// The dispatchers by the definition of their function, for recording the specializations of them kernels
/// compile as device functions (record_device_specializations): a device=True dispatcher, or a plain @jit one
/// a kernel calls, as numba allows. Filled when a dispatcher's source is read, emptied of it when it is freed;
/// read and written with the GIL held.
std::unordered_map<const FunctionDef*, DispatcherState*>& device_definitions() {
  static auto* defs = new std::unordered_map<const FunctionDef*, DispatcherState*>();
  return *defs;
}

/// Lists each device function specialization `result` compiled on the device function's dispatcher.
void record_device_specializations(const CompileResult& result) {
  for (const DeviceSpecialization& d : result.device_functions) {
    auto it = device_definitions().find(d.def);
    if (it == device_definitions().end()) continue;
    std::vector<rt::ArgCode> key;
    bool passable = true;  // a compile-time argument (a function, a dtype) has no code: not listed
    for (const Type& t : d.args) passable = passable && rt::append_codes(t, &key);
    auto& called = it->second->called_signatures;
    if (passable && std::find(called.begin(), called.end(), key) == called.end()) called.push_back(std::move(key));
  }
}

std::shared_ptr<const KernelSource> source_of(PyObject* self) {
  DispatcherState& st = state_of(self);
  if (st.source) return st.source;
  if (st.partial) return st.partial;
  PyObject* raw = PyObject_CallMethod(self, "_source_args", nullptr);
  if (!raw) {
    strip_traceback();
    throw pyb::error_already_set();
  }
  auto args = pyb::reinterpret_steal<pyb::tuple>(raw);
  st.partial = parse_kernel_source(args[0].cast<std::string>(), args[1].cast<std::string>(),
                                   args[2].cast<unsigned>(), args[3].cast<std::string>());
  struct Reset {
    DispatcherState& s;
    ~Reset() { s.partial.reset(); }
  } reset{st};
  fill_globals(*st.partial, args[4], &resolve_device_function);
  st.source = st.partial;
  if (const FunctionDef* def = st.source->module->find_function(st.source->name)) device_definitions()[def] = &st;
  return st.source;
}

/// The device inspect_ptx compiles for: the current device if it is a CUDA one, else none (PTX for the
/// default architecture), so PTX can be read on any machine and any backend.
rt::Device* ptx_device() {
  rt::Device* d = compile_device();
  return d && d->backend() == rt::BackendKind::Cuda ? d : nullptr;
}

std::string target_key(const CompileOptions& o) { return o.target == TargetKind::Host ? "host" : o.arch; }

struct Keep {
  bool llvm = false, typed = false;
};

/// The on-disk cache a compile with these options goes through, or null: cache=True and a PTX compile only
/// (host code is machine code loaded into this process and is not cached).
const rt::DiskCache* disk_cache_for(DispatcherState& st, const KernelSource& src,
                                    const CompileOptions& options) {
  if (!st.cache_to_disk) return nullptr;
  if (src.has_captured_arrays()) {
    // An address is valid in this process only. numba-cuda refuses to cache such a kernel with a
    // PicklingError, on every backend; so does gpujit, rather than recompile it silently in each process.
    std::string msg = "Cannot cache kernel '" + st.name + "' (cache=True): it uses global device arrays, whose "
                      "addresses are valid in this process only; pass the array as an argument, or drop cache=True";
    PyErr_SetString(pyb::module_::import("pickle").attr("PicklingError").ptr(), msg.c_str());
    throw pyb::error_already_set();
  }
  if (options.target != TargetKind::Nvptx) return nullptr;
  if (!st.disk_cache_chosen) {
    st.disk_cache = rt::DiskCache::for_source(src.module->file->name());
    st.disk_cache_chosen = true;
    if (!st.disk_cache) {
      const char* env = std::getenv("GPUJIT_CACHE_DIR");
      warn_unwritable(st.name, env && *env ? "GPUJIT_CACHE_DIR=" + std::string(env) + " cannot be created or written"
                                           : "no folder can be created and written (__pycache__ next to its "
                                             "source, $XDG_CACHE_HOME/gpujit, ~/.cache/gpujit)");
    }
  }
  return st.disk_cache ? &*st.disk_cache : nullptr;
}

/// Where a compile went in the disk cache: its folder (null when it did not), entry file and key.
struct DiskEntry {
  const rt::DiskCache* cache = nullptr;
  std::string path, key;
};

std::shared_ptr<const CompileResult> compile_key(PyObject* self, const std::vector<rt::ArgCode>& key,
                                                 rt::Device* device, Keep keep = {}, DiskEntry* where = nullptr) {
  DispatcherState& st = state_of(self);
  std::shared_ptr<const KernelSource> src = source_of(self);
  CompileRequest req;
  req.module = src->module;
  req.kernel_name = src->name;
  req.arg_types = rt::types_of_key(key.data(), key.size());
  req.globals = src->globals;
  req.extra_modules = src->extra_modules;
  req.options = st.options;
  auto overloads = std::make_shared<PyOverloadResolver>(&resolve_device_function);
  req.overloads = overloads;
  if (device) device->configure_compile(req.options);
  bool plain = !keep.llvm && !keep.typed;
  if (plain) {
    if (auto cached = st.cache.find_compiled(key, target_key(req.options))) return cached;
  }
  req.options.keep_llvm = keep.llvm;
  req.options.keep_typed = keep.typed;
  const rt::DiskCache* disk = plain ? disk_cache_for(st, *src, req.options) : nullptr;
  auto result = std::make_shared<CompileResult>();
  std::string disk_key;
  std::string entry;
  bool hit = false;
  rt::DiskCache::Miss why = rt::DiskCache::Miss::Missing;
  {
    pyb::gil_scoped_release release;
    if (disk) {
      disk_key = cache_key(req);
      entry = disk->entry_path(src->module->file->name(), st.name, disk_key);
      // An entry whose layout the launch path would not accept is as good as a corrupt one: compile again.
      auto cached = disk->load(entry, disk_key, req.arg_types, &why);
      if (cached && rt::check_param_layout(*cached).empty()) {
        result = std::move(cached);
        hit = true;
      } else if (cached) {
        why = rt::DiskCache::Miss::Damaged;
      }
    }
    if (!hit) *result = compile(req);
  }
  if (disk && why == rt::DiskCache::Miss::Damaged) warn_damaged(entry);
  if (!result->ok) raise_compile_error(result->diagnostics);
  record_device_specializations(*result);
  // Code that @overload implementations typed depends on Python functions the disk cache's key does not
  // cover (what a typing function returns): it stays in this process.
  if (!hit && overloads->used()) disk = nullptr;
  if (plain) {
    // Another thread may have compiled the same specialization while this one ran without the GIL: keep
    // the first result, so the cache holds one entry and its warnings are issued once.
    if (auto cached = st.cache.find_compiled(key, target_key(req.options))) return cached;
  }
  if (!hit) issue_compile_warnings(result->diagnostics);  // a disk-cache hit was warned about when compiled
  std::string mismatch = rt::check_param_layout(*result);
  if (!mismatch.empty()) throw InternalError("kernel '" + st.name + "': " + mismatch);
  if (disk) {
    ++(hit ? st.disk_hits : st.disk_misses)[describe_key(key)];
    if (!hit) {
      bool stored;
      {
        pyb::gil_scoped_release release;
        stored = disk->store(entry, disk_key, *result);
      }
      // A cache that cannot be written only costs the next compile.
      if (!stored) warn_unwritable(st.name, "writing " + entry + " failed");
    }
    if (where) *where = {disk, entry, disk_key};
  }
  if (plain) st.cache.add_compiled(key, target_key(req.options), result);
  return result;
}

rt::LoadedKernel* load_key(PyObject* self, const std::vector<rt::ArgCode>& key, rt::Device& device) {
  DispatcherState& st = state_of(self);
  if (rt::LoadedKernel* k = st.cache.find(key.data(), key.size(), &device)) return k;
  CompileTimer timer;
  DiskEntry disk;
  auto result = compile_key(self, key, &device, {}, &disk);
  timer.compiled();
  // compile_key releases the GIL: another thread may have loaded this specialization meanwhile.
  if (rt::LoadedKernel* k = st.cache.find(key.data(), key.size(), &device)) return k;
  // A kernel whose link inputs have module callbacks: one thread at a time loads and sets up its module
  // (python/src/module_callbacks.h); a thread that waited finds the module another loaded.
  std::optional<ModuleLoadLock> callbacks_lock;
  if (module_hook_wanted(*result)) {
    callbacks_lock.emplace();
    if (rt::LoadedKernel* k = st.cache.find(key.data(), key.size(), &device)) return k;
  }
  std::string tag = disk.cache ? device.machine_code_tag() : std::string();
  bool code_hit = false;
  std::shared_ptr<rt::LoadedKernel> kernel =
      tag.empty() ? device.load_kernel(*result, st.name)
                  : load_through_disk(st.name, device, *result, *disk.cache, disk.path, disk.key, tag, &code_hit);
  if (!tag.empty()) ++(code_hit ? st.code_hits : st.code_misses);
  if (!kernel->lto_fallback.empty()) {  // jit(lto=True), and libNVVM could not make the kernel LTO-IR
    warn_performance(("lto=True: kernel '" + st.name + "' is linked as PTX, so its CUDA C functions stay calls: " +
                      kernel->lto_fallback)
                         .c_str());
  }
  timer.loaded(st.name, describe_key(key), *result, disk.cache != nullptr,
               tag.empty() ? "PTX through the driver's JIT" : code_hit ? "cached machine code" : "PTX linked into machine code");
  // The setup callbacks run before the kernel is cached: one that raises leaves nothing loaded, and the next
  // launch loads the module (and calls them) again.
  if (callbacks_lock) run_module_hook(self, device, *kernel, *result);
  rt::LoadedKernel* raw = kernel.get();
  st.cache.add_loaded(key, &device, std::move(kernel));
  return raw;
}

/// How argument type `a` converts to parameter type `p` of an explicit signature, nullopt when it does not.
/// A pointer parameter takes an address as a Python int (numba's CPointer argument); the rest as a device
/// function's explicit signature rates its call (ir/type_rules.cpp). With `reinterpret` (a kernel of one
/// explicit signature, numba's "specialized" dispatcher), an integer array also fits a parameter whose dtype
/// is another integer of the same width: the kernel reads its elements as that type. numba-cuda passes such a
/// kernel whatever array it is given, reading the bytes as the signature's dtype; gpujit takes the integers of
/// one width (int32 data as uint32, as numba-cuda's own tests launch) and still refuses any other dtype,
/// whose elements the kernel would misread or read past.
std::optional<ConversionRank> parameter_rank(const Type& a, const Type& p, bool reinterpret) {
  if (p.is_pointer()) return a.is_integer() ? std::optional(ConversionRank::Safe) : std::nullopt;
  std::optional<ConversionRank> c = argument_rank(a, p);
  if (c || !reinterpret || !a.is_array() || !p.is_array() || a.record || p.record) return c;
  if (!is_integer(a.scalar) || !is_integer(p.scalar) || scalar_size(a.scalar) != scalar_size(p.scalar)) return c;
  Type as_p = a;
  as_p.scalar = p.scalar;
  return argument_rank(as_p, p).has_value() ? std::optional(ConversionRank::Unsafe) : std::nullopt;
}

/// How well arguments of types `args` fit a kernel compiled for `sig` (explicit signatures), as numba rates
/// an overload: the counts of unsafe, safe and promoting conversions, fewer unsafe first. nullopt when an
/// argument cannot be passed at all. Both keys are flat (kernel_args.h), so equal tuple headers keep them in
/// step; an array fits a parameter of its dtype and rank (a C or F array an any-layout one, safely).
std::optional<std::array<int, 3>> rate(const rt::ArgCode* args, size_t n, const std::vector<rt::ArgCode>& sig,
                                       bool reinterpret) {
  if (sig.size() != n) return std::nullopt;
  std::array<int, 3> rating{};
  for (size_t i = 0; i < n; ++i) {
    if (args[i] == sig[i]) continue;
    if (rt::is_header_code(args[i]) || rt::is_header_code(sig[i])) return std::nullopt;
    std::optional<ConversionRank> c =
        parameter_rank(rt::type_of_code(args[i]), rt::type_of_code(sig[i]), reinterpret);
    if (!c || !count_rank(*c, rating)) return std::nullopt;
  }
  return rating;
}

/// Whether the dispatcher was made with one explicit signature, not a list (its Python `_specialized`, as
/// numba's jit("sig") and kernel.specialize() set it).
bool is_specialized(PyObject* self) {
  PyObject* v = PyObject_GetAttrString(self, "_specialized");
  if (!v) {
    PyErr_Clear();
    return false;
  }
  int truth = PyObject_IsTrue(v);
  Py_DECREF(v);
  if (truth < 0) PyErr_Clear();
  return truth > 0;
}

/// For the error of a launch no explicit signature fits: ", where argument 'a' (position 1) is int64[::1],
/// not float32[::1]" for the first argument that does not convert to `sig`'s parameter (slow path only).
std::string first_misfit(const DispatcherState& st, const rt::ArgCode* codes, size_t n,
                         const std::vector<rt::ArgCode>& sig, bool reinterpret) {
  std::vector<Type> args = rt::types_of_key(codes, n), params = rt::types_of_key(sig.data(), sig.size());
  if (args.size() != params.size() || args.size() != st.param_names.size()) return "";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == params[i]) continue;
    bool fits = parameter_rank(args[i], params[i], reinterpret).has_value();
    if (!fits) {
      return ", where argument '" + st.param_names[i] + "' (position " + std::to_string(i + 1) + ") is " +
             args[i].str() + ", not " + params[i].str();
    }
  }
  return "";
}

/// Finds or makes the kernel for a launch whose argument types missed the cache. Sets *targets to the
/// signature the arguments must be converted to (explicit signatures), else leaves it null. Of several
/// explicit signatures the arguments fit, the best rated is taken; two rated best alike are ambiguous.
rt::LoadedKernel* specialize(PyObject* self, rt::Device& device, const rt::ArgCode* codes, size_t n,
                             const rt::ArgCode** targets) {
  DispatcherState& st = state_of(self);
  if (st.signatures.empty()) return load_key(self, std::vector<rt::ArgCode>(codes, codes + n), device);
  const std::vector<rt::ArgCode>* best = nullptr;
  const std::vector<rt::ArgCode>* tied = nullptr;
  std::array<int, 3> best_rating{};
  const bool reinterpret = st.signatures.size() == 1 && is_specialized(self);
  for (const auto& sig : st.signatures) {
    std::optional<std::array<int, 3>> r = rate(codes, n, sig, reinterpret);
    if (!r) continue;
    if (!best || *r < best_rating) {
      best = &sig;
      best_rating = *r;
      tied = nullptr;
    } else if (*r == best_rating) {
      tied = &sig;
    }
  }
  std::string args = describe_key(std::vector<rt::ArgCode>(codes, codes + n));
  if (best && tied) {
    throw pyb::type_error("Ambiguous overloading for kernel '" + st.name + "' " + args +
                          ": these signatures fit equally well:\n  " + describe_key(*best) + "\n  " +
                          describe_key(*tied) + "\npass arguments of one signature's exact types");
  }
  if (best) {
    *targets = best->data();
    return load_key(self, *best, device);
  }
  std::string sigs;
  for (const auto& sig : st.signatures)
    sigs += "\n  " + describe_key(sig) + first_misfit(st, codes, n, sig, reinterpret);
  // numba's wording first (users search for it), then which kernel and what it does accept.
  throw pyb::type_error("No matching definition for argument type(s) " + args.substr(1, args.size() - 2) +
                        " of kernel '" + st.name + "'; its signatures are:" + sigs);
}

// ---------------------------------------------------------------------------------------------------------
// Dispatcher type

PyObject* dispatcher_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (!self) return nullptr;
  reinterpret_cast<DispatcherObject*>(self)->state = new DispatcherState();
  return self;
}

int dispatcher_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"name",         "params",        "device",     "fastmath", "opt",
                                   "debug",        "lineinfo",      "max_registers", "cache", "warn_float64",
                                   "launch_bounds", "debug_info",   "link",          "lto",     nullptr};
  const char* name = nullptr;
  PyObject* params = nullptr;
  int device = 0, fastmath = 0, opt = 3, debug = 0, lineinfo = 0, max_registers = 0, cache = 0, warn_float64 = 1;
  int max_threads = 0, min_blocks = 0, max_cluster_rank = 0;  // launch_bounds; 0: left out
  int debug_info = 0;
  PyObject* link = nullptr;  // jit's link=: link input descriptions (link_files.h)
  int lto = 0;               // jit's lto=True: the kernel also as NVVM IR, linked as LTO-IR (kernel_link.h)
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|ppippipp(iii)pOp", const_cast<char**>(keywords), &name,
                                   &params, &device, &fastmath, &opt, &debug, &lineinfo, &max_registers, &cache,
                                   &warn_float64, &max_threads, &min_blocks, &max_cluster_rank, &debug_info,
                                   &link, &lto)) {
    return -1;
  }
  try {
    DispatcherState& st = state_of(self);
    st.name = name;
    st.param_names.clear();
    for (pyb::handle p : pyb::reinterpret_borrow<pyb::object>(params)) st.param_names.push_back(p.cast<std::string>());
    st.device = device != 0;
    st.options.fastmath = fastmath != 0;
    st.options.opt_level = opt;
    st.options.debug = debug != 0;  // bounds checks (debug=True or boundscheck=True)
    st.options.lineinfo = lineinfo != 0;
    st.options.debug_info = debug_info != 0;  // DWARF in the PTX (debug=True, not boundscheck=True)
    st.options.max_registers = max_registers;  // 0: no limit; the jit decorator checked the range
    st.cache_to_disk = cache != 0;
    st.options.warn_float64 = warn_float64 != 0;
    if (link && link != Py_None) st.options.link = link_files_of(link);
    st.options.lto = lto != 0 && !st.device;
    if (!st.device) {  // a kernel's entry only; the jit decorator checked the values
      st.options.max_threads = max_threads;
      st.options.min_blocks = min_blocks;
      st.options.max_cluster_rank = max_cluster_rank;
    }
  } catch (...) {
    set_error_from_current_exception();
    return -1;
  }
  return 0;
}

int dispatcher_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* d = reinterpret_cast<DispatcherObject*>(self);
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(d->last_key);
  Py_VISIT(d->last_launcher);
  return 0;
}

int dispatcher_clear(PyObject* self) {
  auto* d = reinterpret_cast<DispatcherObject*>(self);
  Py_CLEAR(d->last_key);
  Py_CLEAR(d->last_launcher);
  return 0;
}

void dispatcher_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  auto* d = reinterpret_cast<DispatcherObject*>(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(d->last_key);
  Py_CLEAR(d->last_launcher);
  for (auto it = device_definitions().begin(); it != device_definitions().end();)
    it = it->second == d->state ? device_definitions().erase(it) : std::next(it);
  delete d->state;
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyObject* dispatcher_call(PyObject* self, PyObject*, PyObject*) {
  const DispatcherState& st = state_of(self);
  if (st.device) {
    PyErr_SetString(PyExc_TypeError, ("'" + st.name + "' is a device function; call it from a kernel").c_str());
    return nullptr;
  }
  // ValueError with numba-cuda's words, which programs catch and match.
  std::string msg = "kernel '" + st.name + "': the launch configuration was not specified; launch it as " +
                    st.name + "[blocks, threads](...)";
  PyErr_SetString(PyExc_ValueError, msg.c_str());
  return nullptr;
}

/// A signature argument as text: a str as it is, anything else through gpujit._signature.signature_text.
std::string signature_text(PyObject* sig) {
  if (PyUnicode_Check(sig)) {
    // numba's "(int32[::1], int32)" is the argument types alone ("()" none at all): a kernel's returns void.
    std::string text = PyUnicode_AsUTF8(sig);
    size_t first = text.find_first_not_of(" \t");
    return first != std::string::npos && text[first] == '(' ? "void" + text : text;
  }
  return pyb::module_::import("gpujit._signature").attr("signature_text")(pyb::handle(sig)).cast<std::string>();
}

std::vector<rt::ArgCode> key_of_signature(const DispatcherState& st, const std::string& text) {
  std::string error;
  auto sig = parse_signature(text, &error);
  if (!sig) throw pyb::type_error("invalid signature '" + text + "' for '" + st.name + "': " + error);
  std::vector<rt::ArgCode> key;
  for (const Type& t : sig->params) {
    if (!rt::append_codes(t, &key)) {
      throw pyb::type_error("signature '" + text + "': parameters of type '" + t.str() + "' are not supported");
    }
  }
  if (sig->params.size() != st.param_names.size()) {
    throw pyb::type_error("signature '" + text + "' has " + std::to_string(sig->params.size()) + " parameters but '" +
                          st.name + "' takes " + std::to_string(st.param_names.size()));
  }
  return key;
}

/// jit([sig, ...]) and compile(sig): compiles a kernel's explicit signatures now and restricts the dispatcher
/// to them. Several are compiled at once, on up to one thread per CPU: a compile runs without the GIL, and the
/// specializations of one kernel share nothing but the parsed source, which is read here first. Every
/// signature is checked before any compile starts; of several that fail to compile, the first in the order
/// given raises.
void compile_signatures(PyObject* self, const std::vector<pyb::object>& sigs) {
  DispatcherState& st = state_of(self);
  std::vector<std::string> texts;
  std::vector<std::vector<rt::ArgCode>> keys;
  for (const pyb::object& sig : sigs) {
    texts.push_back(signature_text(sig.ptr()));
    keys.push_back(key_of_signature(st, texts.back()));
  }
  if (!st.device && !keys.empty()) {
    rt::Device* device = compile_device();
    source_of(self);  // once, here: reading it calls into Python
    const size_t workers = std::min<size_t>(keys.size(), std::max(1u, std::thread::hardware_concurrency()));
    st.eager_compile_threads = long(workers);
    std::vector<std::exception_ptr> errors(keys.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < keys.size();) {
        try {
          compile_key(self, keys[i], device);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    };
    if (workers == 1) {
      work();
    } else {
      pyb::gil_scoped_release release;
      std::vector<std::thread> threads;
      for (size_t t = 1; t < workers; ++t) {
        threads.emplace_back([&] {
          pyb::gil_scoped_acquire gil;
          work();
        });
      }
      {
        pyb::gil_scoped_acquire gil;
        work();
      }
      for (std::thread& t : threads) t.join();
    }
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    st.signatures.push_back(std::move(keys[i]));
    st.signature_texts.push_back(std::move(texts[i]));
  }
}

/// _compile(signature): compiles an explicit signature now and restricts the dispatcher to its signatures.
PyObject* dispatcher_compile(PyObject* self, PyObject* sig) {
  try {
    compile_signatures(self, {pyb::reinterpret_borrow<pyb::object>(sig)});
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
  Py_RETURN_NONE;
}

/// The function compiled as `abi` asks, for compile_ptx: a kernel, or on its own as a device function (numba's
/// compile_ptx(device=True), and what inspect_ptx() shows of a device=True dispatcher). `text` may carry a return type ("int32(int32, int32)");
/// with `infer_return` (or a void one) it is inferred. `arch` empty: the current device's, or sm_80.
std::shared_ptr<const CompileResult> compile_device_entry(PyObject* self, const std::string& text,
                                                          bool infer_return, EntryKind abi,
                                                          const std::string& abi_name,
                                                          const std::string& arch, Keep keep = {},
                                                          std::array<int, 3> launch_bounds = {},
                                                          bool nvvm_ir_output = false, bool force_inline = false) {
  DispatcherState& st = state_of(self);
  std::string error;
  auto parsed = parse_signature(text, &error);
  if (!parsed) throw pyb::type_error("invalid signature '" + text + "' for '" + st.name + "': " + error);
  key_of_signature(st, text);  // checks the parameter types and their number
  std::shared_ptr<const KernelSource> src = source_of(self);
  CompileRequest req;
  req.module = src->module;
  req.kernel_name = src->name;
  req.arg_types = parsed->params;
  if (!infer_return) req.return_type = parsed->ret;
  req.globals = src->globals;
  req.extra_modules = src->extra_modules;
  req.options = st.options;
  req.overloads = std::make_shared<PyOverloadResolver>(&resolve_device_function);
  req.options.target = TargetKind::Nvptx;
  if (rt::Device* device = ptx_device()) device->configure_compile(req.options);
  if (!arch.empty()) req.options.arch = arch;
  req.options.entry = abi;
  req.options.abi_name = abi_name;
  req.options.max_threads = launch_bounds[0];
  req.options.min_blocks = launch_bounds[1];
  req.options.max_cluster_rank = launch_bounds[2];
  req.options.keep_llvm = keep.llvm;
  req.options.keep_typed = keep.typed;
  req.options.nvvm_ir_output = nvvm_ir_output;
  req.options.force_inline = force_inline;
  auto result = std::make_shared<CompileResult>();
  {
    pyb::gil_scoped_release release;
    *result = compile(req);
  }
  if (!result->ok) raise_compile_error(result->diagnostics);
  issue_compile_warnings(result->diagnostics);
  return result;
}

/// _compile_entry(signature, infer_return, abi, abi_name, arch[, (max_threads, min_blocks, max_cluster_rank)
/// [, nvvm_ir_output[, force_inline]]]) -> (ptx, return type as text, link inputs, entry name, NVVM IR, why no
/// NVVM IR (lto=True)), for compile_ptx: `abi` is "kernel" (a kernel, for `arch`), or "c" or "numba" for a
/// device function on its own (codegen/artifact.h EntryKind). nvvm_ir_output: the entry also as NVVM IR, for
/// compile(output='ltoir'), alwaysinline with force_inline; a construct the writer cannot write is a
/// CompileError.
PyObject* dispatcher_compile_entry(PyObject* self, PyObject* args) {
  PyObject* sig = nullptr;
  const char* abi = "c";
  const char* abi_name = "";
  const char* arch = "";
  int infer_return = 0;
  int max_threads = 0, min_blocks = 0, max_cluster_rank = 0;
  int nvvm_ir_output = 0, force_inline = 0;
  if (!PyArg_ParseTuple(args, "Opsss|(iii)pp", &sig, &infer_return, &abi, &abi_name, &arch, &max_threads,
                        &min_blocks, &max_cluster_rank, &nvvm_ir_output, &force_inline))
    return nullptr;
  try {
    std::string abi_text = abi;
    EntryKind entry = abi_text == "kernel"  ? EntryKind::Kernel
                      : abi_text == "numba" ? EntryKind::DeviceNumba
                                            : EntryKind::DeviceC;
    auto result = compile_device_entry(self, signature_text(sig), infer_return != 0, entry, abi_name, arch,
                                       {}, {max_threads, min_blocks, max_cluster_rank}, nvvm_ir_output != 0,
                                       force_inline != 0);
    Type ret = result->signature.ret.is_valid() ? result->signature.ret : Type::void_();
    return pyb::make_tuple(result->ptx, ret.str(), link_files_to_py(result->link), result->entry_name,
                           result->nvvm_ir, result->nvvm_ir_error)
        .release()
        .ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

enum class Inspect { Ptx, Llvm, Typed };

std::string inspect_text(const CompileResult& r, Inspect what) {
  switch (what) {
    case Inspect::Ptx: return r.ptx;
    case Inspect::Llvm: return r.lowered_llvm_ir;
    case Inspect::Typed: return r.typed;
  }
  return {};
}

// Makes the dict an inspect_* call gives without a signature (text key -> text) into the package's
// SignatureDict, which finds an entry by the argument types in any spelling; unset, the dict stays as is.
PyObject* g_signature_dict = nullptr;

PyObject* by_signature(pyb::dict out) {
  if (!g_signature_dict) return out.release().ptr();
  return PyObject_CallOneArg(g_signature_dict, out.ptr());
}

PyObject* inspect(PyObject* self, PyObject* args, PyObject* kwargs, Inspect what) {
  static const char* keywords[] = {"signature", nullptr};
  PyObject* sig = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char**>(keywords), &sig)) return nullptr;
  try {
    DispatcherState& st = state_of(self);
    rt::Device* device = ptx_device();
    Keep keep{what == Inspect::Llvm, what == Inspect::Typed};
    if (st.device) {
      // A device function alone, with numba's ABI (what numba's inspect_asm shows), for `signature` or for
      // each signature it was declared with.
      auto text_of = [&](const std::string& t) {
        auto r = compile_device_entry(self, t, true, EntryKind::DeviceNumba, "", "", keep);
        return pyb::str(inspect_text(*r, what));
      };
      if (sig != Py_None) return text_of(signature_text(sig)).release().ptr();
      pyb::dict out;
      for (const auto& key : st.signatures)
        out[pyb::str(describe_key(key))] = text_of("void" + describe_key(key));
      return by_signature(std::move(out));
    }
    if (sig != Py_None) {
      auto r = compile_key(self, key_of_signature(st, signature_text(sig)), device, keep);
      return pyb::str(inspect_text(*r, what)).release().ptr();
    }
    // Every signature compiled so far (explicit ones included), keyed by its text.
    std::vector<std::vector<rt::ArgCode>> keys = st.signatures;
    for (const auto& c : st.cache.compiled()) {
      if (std::find(keys.begin(), keys.end(), c.key) == keys.end()) keys.push_back(c.key);
    }
    // Two specializations that read alike (index32 or not) share an entry: the 32-bit one, which is what
    // arrays under 2 GiB run.
    pyb::dict out;
    for (const auto& key : keys) {
      pyb::str text(describe_key(key));
      bool narrow = std::any_of(key.begin(), key.end(), [](rt::ArgCode c) { return rt::without_index32(c) != c; });
      if (out.contains(text) && !narrow) continue;
      auto r = compile_key(self, key, device, keep);
      out[text] = pyb::str(inspect_text(*r, what));
    }
    return by_signature(std::move(out));
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyObject* inspect_ptx(PyObject* self, PyObject* args, PyObject* kw) { return inspect(self, args, kw, Inspect::Ptx); }
PyObject* inspect_llvm(PyObject* self, PyObject* args, PyObject* kw) { return inspect(self, args, kw, Inspect::Llvm); }
PyObject* inspect_types(PyObject* self, PyObject* args, PyObject* kw) { return inspect(self, args, kw, Inspect::Typed); }

PyObject* called_signatures_get(PyObject* self, void*) {
  try {
    pyb::list out;
    for (const auto& key : state_of(self).called_signatures) out.append(pyb::str(describe_key(key)));
    return out.release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyObject* declared_signatures_get(PyObject* self, void*) {
  pyb::list out;
  for (const std::string& t : state_of(self).signature_texts) out.append(pyb::str(t));
  return out.release().ptr();
}

PyObject* signatures_get(PyObject* self, void*) {
  try {
    const DispatcherState& st = state_of(self);
    std::vector<std::vector<rt::ArgCode>> keys = st.signatures;
    for (const auto& k : st.called_signatures) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
    for (const auto& c : st.cache.compiled()) {
      if (std::find(keys.begin(), keys.end(), c.key) == keys.end()) keys.push_back(c.key);
    }
    // Specializations that differ only in what numba's spelling does not show (index32) read as one.
    std::vector<std::string> texts;
    for (const auto& k : keys) {
      std::string text = describe_key(k);
      if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(std::move(text));
    }
    pyb::list out;
    for (const std::string& t : texts) out.append(pyb::str(t));
    return out.release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyObject* stats_get(PyObject* self, void*) {
  const DispatcherState& st = state_of(self);
  pyb::dict d;
  d["compiled"] = st.cache.compiled().size();
  d["loaded"] = st.cache.loaded_count();
  d["source_parsed"] = bool(st.source);
  pyb::dict hits, misses;
  for (const auto& [sig, n] : st.disk_hits) hits[pyb::str(sig)] = n;
  for (const auto& [sig, n] : st.disk_misses) misses[pyb::str(sig)] = n;
  d["cache_hits"] = hits;
  d["cache_misses"] = misses;
  d["cache_path"] = st.disk_cache ? pyb::object(pyb::str(st.disk_cache->directory())) : pyb::none();
  d["machine_code_hits"] = st.code_hits;
  d["eager_compile_threads"] = st.eager_compile_threads;
  d["machine_code_misses"] = st.code_misses;
  return d.release().ptr();
}

PyObject* dispatcher_set_extensions(PyObject* self, PyObject* list) {
  if (!PyList_Check(list)) {
    PyErr_SetString(PyExc_TypeError, "_set_extensions takes a list");
    return nullptr;
  }
  state_of(self).extensions = pyb::reinterpret_borrow<pyb::object>(list);
  Py_RETURN_NONE;
}

PyObject* dispatcher_set_compile_hook(PyObject* self, PyObject* hook) {
  state_of(self).compile_hook = hook == Py_None ? pyb::object() : pyb::reinterpret_borrow<pyb::object>(hook);
  Py_RETURN_NONE;
}

/// _cooperative(signature) -> bool: whether the kernel uses a grid-wide barrier and is launched cooperatively
/// (numba's Overload.cooperative). Compiles to PTX if need be; needs no device.
PyObject* dispatcher_cooperative(PyObject* self, PyObject* sig) {
  try {
    DispatcherState& st = state_of(self);
    auto result = compile_key(self, key_of_signature(st, signature_text(sig)), ptx_device());
    return pyb::bool_(result->uses_grid_sync).release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

/// _max_cooperative_grid_blocks(signature, block_threads, dynamic_shared) -> int: the largest grid a
/// cooperative launch of the kernel may have on the current device (rt::Device::max_cooperative_grid_blocks).
PyObject* dispatcher_max_cooperative_grid_blocks(PyObject* self, PyObject* args) {
  PyObject* sig = nullptr;
  unsigned long long threads = 0, shared = 0;
  if (!PyArg_ParseTuple(args, "OKK", &sig, &threads, &shared)) return nullptr;
  try {
    DispatcherState& st = state_of(self);
    std::vector<rt::ArgCode> key = key_of_signature(st, signature_text(sig));
    rt::Device& device = rt::Runtime::get().current_device();
    rt::LoadedKernel* kernel = load_key(self, key, device);
    if (threads == 0 || threads > uint64_t(kernel->max_threads_per_block)) {
      throw pyb::value_error("max_cooperative_grid_blocks: a block of " + std::to_string(threads) + " threads; '" +
                             st.name + "' can be launched with 1 to " +
                             std::to_string(kernel->max_threads_per_block));
    }
    return PyLong_FromUnsignedLongLong(device.max_cooperative_grid_blocks(*kernel, uint32_t(threads),
                                                                           uint32_t(shared)));
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyMethodDef dispatcher_methods[] = {
    {"_cooperative", reinterpret_cast<PyCFunction>(dispatcher_cooperative), METH_O,
     "Whether the kernel compiled for a signature uses a grid barrier (a cooperative launch)."},
    {"_max_cooperative_grid_blocks", reinterpret_cast<PyCFunction>(dispatcher_max_cooperative_grid_blocks),
     METH_VARARGS, "The largest grid of a cooperative launch: (signature, block threads, dynamic shared bytes)."},
    {"_set_extensions", reinterpret_cast<PyCFunction>(dispatcher_set_extensions), METH_O,
     "The list of argument extensions (prepare_args hooks) each launch runs."},
    {"_set_compile_hook", reinterpret_cast<PyCFunction>(dispatcher_set_compile_hook), METH_O,
     "A callable every launch calls first with (dispatcher, launcher, args), returning the dispatcher to launch "
     "in; None for none."},
    {"_compile", reinterpret_cast<PyCFunction>(dispatcher_compile), METH_O,
     "Compiles an explicit signature now; the dispatcher then accepts only its explicit signatures."},
    {"_compile_entry", reinterpret_cast<PyCFunction>(dispatcher_compile_entry), METH_VARARGS,
     "(ptx, return type) of the function compiled as a kernel or on its own as a device function "
     "(compile_ptx)."},
    {"inspect_ptx", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(inspect_ptx)),
     METH_VARARGS | METH_KEYWORDS, "PTX of one signature, or a dict of every compiled signature's PTX."},
    {"inspect_asm", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(inspect_ptx)),
     METH_VARARGS | METH_KEYWORDS, "The same as inspect_ptx (numba's name)."},
    {"inspect_llvm", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(inspect_llvm)),
     METH_VARARGS | METH_KEYWORDS,
     "Optimized LLVM IR of one signature, or a dict for every compiled signature."},
    {"inspect_types", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(inspect_types)),
     METH_VARARGS | METH_KEYWORDS,
     "The typed dump of one signature, or a dict for every compiled signature."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef dispatcher_getset[] = {
    {"signatures", signatures_get, nullptr, "Signatures compiled or declared, as text.", nullptr},
    {"_declared_signatures", declared_signatures_get, nullptr,
     "The explicit signatures as written, return type included (void where none was given).", nullptr},
    {"_called_signatures", called_signatures_get, nullptr,
     "The specializations kernels that call this function compiled of it as a device function, as text.", nullptr},
    {"_stats", stats_get, nullptr, "Cache counters, for tests.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot dispatcher_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(dispatcher_new)},
    {Py_tp_init, reinterpret_cast<void*>(dispatcher_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(dispatcher_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(dispatcher_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(dispatcher_clear)},
    {Py_tp_call, reinterpret_cast<void*>(dispatcher_call)},
    {Py_mp_subscript, reinterpret_cast<void*>(dispatcher_subscript)},
    {Py_tp_methods, dispatcher_methods},
    {Py_tp_getset, dispatcher_getset},
    {Py_tp_doc, const_cast<char*>("The C++ half of a gpujit kernel: specializations, caches and the launch path.")},
    {0, nullptr},
};

PyType_Spec dispatcher_spec = {"gpujit._core.Dispatcher", sizeof(DispatcherObject), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, dispatcher_slots};

}  // namespace

rt::LoadedKernel* specialize_for_launch(PyObject* self, rt::Device& device, const rt::ArgCode* codes, size_t n,
                                        const rt::ArgCode** targets) {
  return specialize(self, device, codes, n, targets);
}

void register_dispatcher(pyb::module_& m) {
  g_dispatcher_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&dispatcher_spec));
  if (!g_dispatcher_type) throw pyb::error_already_set();
  make_launcher_type();
  m.attr("Dispatcher") = pyb::handle(reinterpret_cast<PyObject*>(g_dispatcher_type));
  m.attr("Launcher") = pyb::handle(reinterpret_cast<PyObject*>(g_launcher_type));
  m.def("_set_signature_dict", [](pyb::object factory) {
    Py_XSETREF(g_signature_dict, factory.release().ptr());
  }, "The callable that turns inspect_*()'s {signature text: text} into the dict it returns.");
  m.def("_set_arg_hint_types", [](pyb::object in, pyb::object out, pyb::object inout) {
    PyObject* types[3] = {in.ptr(), out.ptr(), inout.ptr()};
    for (int i = 0; i < 3; ++i) {
      Py_XDECREF(g_arg_hint_types[i]);
      g_arg_hint_types[i] = Py_NewRef(types[i]);
    }
  }, "The classes gpujit.In, gpujit.Out, gpujit.InOut, which the launch path recognises.");
  m.def("_forget_compiled", [](pyb::handle dispatcher) {
    if (!PyObject_TypeCheck(dispatcher.ptr(), g_dispatcher_type)) throw pyb::type_error("not a gpujit dispatcher");
    DispatcherState& st = state_of(dispatcher.ptr());
    // The next compile reads the function's source and the values of its globals again.
    for (auto it = device_definitions().begin(); it != device_definitions().end();)
      it = it->second == &st ? device_definitions().erase(it) : std::next(it);
    st.source.reset();
    st.cache = rt::KernelCache();  // compiled code, and kernels loaded on every device
  }, "Drops what `dispatcher` compiled and loaded, and its reading of the source and globals "
     "(Dispatcher.recompile).");

  // The decorator for explicit signatures: a C++ callable, so a CompileError at decoration shows the user's
  // decorator line and no gpujit frame.
  struct EagerDecorator {
    pyb::object factory;
    std::vector<pyb::object> signatures;
  };
  pyb::class_<EagerDecorator>(m, "EagerDecorator")
      .def(pyb::init([](pyb::object factory, pyb::list sigs) {
        EagerDecorator d{std::move(factory), {}};
        for (pyb::handle s : sigs) d.signatures.push_back(pyb::reinterpret_borrow<pyb::object>(s));
        return d;
      }))
      .def("__call__", [](EagerDecorator& d, pyb::object pyfunc) {
        pyb::object dispatcher = d.factory(pyfunc);
        compile_signatures(dispatcher.ptr(), d.signatures);
        return dispatcher;
      });
}

}  // namespace gpujit::py
