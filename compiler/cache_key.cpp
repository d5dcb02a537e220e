// The key of a compile in the on-disk kernel cache (see cache_key() in compiler/compiler.h).
//
// The key is the SHA-256 of a canonical byte stream of the compile's inputs. Every field is written with its
// length or its fixed width, so two different requests never make the same stream. The stream covers what
// compile() reads and nothing that varies between runs of the same program: the free names come sorted by
// name (GlobalEnv is a map), a device function is named by its source file's text and its own name (not by
// an address), and floats by their bits. Anything that could change the PTX without changing those inputs,
// a rebuilt compiler or another libdevice, changes the key through the compiler's identity: LLVM's version,
// the core library file's size and modification time, and libdevice's path, size and modification time.
// A key that differs when nothing relevant changed costs one compile; a key that stays the same when the
// PTX would differ would run stale code, so every doubt is resolved towards including a field.
#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/SHA256.h>

#include "compiler/compiler.h"
#include "codegen/libdevice.h"
#include "ir/enum_type.h"
#include "ir/record_type.h"

namespace gpujit {
namespace {

/// Bumped whenever the stream below changes meaning, so entries of an older layout are never found.
/// 2: gpujit's version joined the compiler's identity.
constexpr uint64_t kKeyFormat = 2;

/// Feeds fields into the hash, each framed so that the stream parses back unambiguously.
class KeyStream {
 public:
  void u64(uint64_t v) {
    std::array<uint8_t, 8> bytes;
    for (unsigned i = 0; i < 8; ++i) bytes[i] = uint8_t(v >> (8 * i));
    sha_.update(llvm::ArrayRef<uint8_t>(bytes));
  }
  void i64(int64_t v) { u64(uint64_t(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void str(std::string_view s) {
    u64(s.size());
    sha_.update(llvm::StringRef(s.data(), s.size()));
  }
  void bytes(const std::vector<uint8_t>& b) {
    u64(b.size());
    sha_.update(llvm::ArrayRef<uint8_t>(b));
  }

  std::string hex() {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (uint8_t b : sha_.final()) {
      out += kDigits[b >> 4];
      out += kDigits[b & 15];
    }
    return out;
  }

 private:
  llvm::SHA256 sha_;
};

/// A file's identity without reading it: path, size and modification time (zeros when it cannot be read).
void file_identity(KeyStream& k, const std::string& path) {
  llvm::sys::fs::file_status status;
  bool ok = !path.empty() && !llvm::sys::fs::status(path, status);
  k.str(path);
  k.u64(ok ? status.getSize() : 0);
  k.i64(ok ? status.getLastModificationTime().time_since_epoch().count() : 0);
}

/// The compiler that makes the PTX: LLVM's version and this build of the core library.
void compiler_identity(KeyStream& k) {
#ifdef GPUJIT_VERSION
  k.str("gpujit " GPUJIT_VERSION);
#endif
  k.str(LLVM_VERSION_STRING);
  Dl_info info{};
  std::string library;
  if (dladdr(reinterpret_cast<const void*>(&cache_key), &info) != 0 && info.dli_fname) {
    library = info.dli_fname;
  }
  file_identity(k, library);
  k.str(__DATE__ " " __TIME__);  // the build of this file, should the library's file be unreadable
  std::string searched;
  file_identity(k, find_libdevice(&searched));
}

void source_file(KeyStream& k, const SourceFile* file) {
  if (!file) {
    k.str("<no file>");
    return;
  }
  k.str(file->name());
  k.u64(file->first_line());
  k.str(file->text());
}

void constant(KeyStream& k, const ConstValue& c) {
  k.u64(uint64_t(c.kind));
  k.u64(uint64_t(c.scalar));
  k.str(c.enum_class ? c.enum_class->key : "");  // an Enum member: its class (ir/enum_type.h)
  switch (c.kind) {
    case ConstValue::Kind::Int:
    case ConstValue::Kind::Bool:
      k.i64(c.i);
      break;
    case ConstValue::Kind::Float:
      k.f64(c.f);
      break;
    case ConstValue::Kind::String:
      k.str(c.s);
      break;
    case ConstValue::Kind::Tuple:
      k.u64(c.elements.size());
      for (const ConstValue& e : c.elements) constant(k, e);
      break;
    case ConstValue::Kind::None:
      break;
  }
}

void link_files(KeyStream& k, const std::vector<LinkFile>& files) {
  k.u64(files.size());
  for (const LinkFile& f : files) {
    k.str(f.kind);
    k.str(f.name);
    k.str(f.data);
    k.u64(f.options.size());
    for (const std::string& o : f.options) k.str(o);
  }
}

void global(KeyStream& k, const GlobalValue& g) {
  k.u64(uint64_t(g.kind));
  switch (g.kind) {
    case GlobalValue::Kind::Constant:
      constant(k, g.constant);
      break;
    case GlobalValue::Kind::Module:
      k.str(g.module_name);
      break;
    case GlobalValue::Kind::DType:
      k.u64(uint64_t(g.dtype));
      k.str(g.record ? g.record->spelling : "");
      break;
    case GlobalValue::Kind::DeviceFunction:
      // The function's whole source text: a device function's own free names are merged into the kernel's
      // environment, which is hashed as a whole.
      if (!g.function) throw InternalError("cache key: a device function global without a function");
      k.str(g.function->name);
      source_file(k, g.function->file.get());
      k.u64(g.signatures.size());  // explicit signatures decide the conversions at its calls
      for (const Signature& sig : g.signatures) k.str(sig.str());
      k.u64(uint64_t(g.inline_always) | uint64_t(g.force_inline) << 1);
      break;
    case GlobalValue::Kind::ConstArray:
      k.u64(uint64_t(g.dtype));
      k.str(g.record ? g.record->spelling : "");
      k.u64(g.shape.size());
      for (int64_t s : g.shape) k.i64(s);
      k.bytes(g.bytes);
      break;
    case GlobalValue::Kind::DeviceArray:  // never on disk (dispatcher.cpp), but keys the in-memory cache too
      k.u64(uint64_t(g.dtype));
      k.str(g.record ? g.record->spelling : "");
      k.u64(g.address);
      k.u64(g.shape.size());
      for (int64_t s : g.shape) k.i64(s);
      for (int64_t s : g.strides) k.i64(s);
      break;
    case GlobalValue::Kind::ModuleMember:
      k.str(g.module_name);
      k.str(g.member);
      break;
    case GlobalValue::Kind::Unsupported:
      k.str(g.reason);
      break;
    case GlobalValue::Kind::ExceptionClass:  // a process-local reference keys only this process' entries
    case GlobalValue::Kind::Overloaded:  // the binding does not cache to disk a kernel that uses overloads
      k.str(g.member);
      break;
    case GlobalValue::Kind::ArrayTuple:  // its arrays are globals of their own, hashed with the rest
      k.u64(g.element_globals.size());
      for (const std::string& name : g.element_globals) k.str(name);
      break;
    case GlobalValue::Kind::Constants:
      k.u64(g.members.size());
      for (const auto& [name, value] : g.members) {
        k.str(name);
        constant(k, value);
      }
      break;
    case GlobalValue::Kind::ExternFunction:
      if (!g.extern_fn) throw InternalError("cache key: an external function global without its declaration");
      k.str(g.extern_fn->name);
      k.str(g.extern_fn->signature.key());
      k.u64(g.extern_fn->c_abi);
      k.u64(g.extern_fn->cooperative);
      link_files(k, g.extern_fn->link);
      break;
  }
}

}  // namespace

std::string cache_key(const CompileRequest& request) {
  if (!request.module) throw InternalError("cache_key() was given no module");
  const CompileOptions& o = request.options;
  KeyStream k;
  k.str("gpujit kernel cache");
  k.u64(kKeyFormat);
  compiler_identity(k);

  k.u64(uint64_t(o.target));
  k.str(o.arch);
  k.i64(o.opt_level);
  k.u64(o.fastmath);
  k.u64(o.debug);
  k.u64(o.lineinfo);
  k.i64(o.max_registers);
  if (o.debug_info) k.str("debug info");  // keys without it stay as they were
  if (o.max_threads || o.min_blocks || o.max_cluster_rank) {  // keys without launch bounds stay as they were
    k.str("launch bounds");
    k.i64(o.max_threads);
    k.i64(o.min_blocks);
    k.i64(o.max_cluster_rank);
  }
  if (o.lto) k.str("lto");  // keys without it stay as they were
  if (o.nvvm_ir_output) k.str("nvvm ir output");
  if (o.force_inline) k.str("forceinline");
  if (!o.link.empty()) {  // keys without link= stay as they were
    k.str("link");
    link_files(k, o.link);
  }
  if (o.entry != EntryKind::Kernel) {  // kernels' keys stay as they were before device entries existed
    k.u64(uint64_t(o.entry));
    k.str(o.abi_name);
    k.str(request.return_type.is_valid() ? request.return_type.key() : "");
  }

  k.str(request.kernel_name);
  k.u64(request.arg_types.size());
  for (const Type& t : request.arg_types) k.str(t.key());  // key(): index32 arrays compile differently
  source_file(k, request.module->file.get());
  k.u64(request.globals.size());
  for (const auto& [name, value] : request.globals) {
    k.str(name);
    global(k, value);
  }
  return k.hex();
}

}  // namespace gpujit
