// The on-disk kernel cache (see disk_cache.h).
//
// An entry file is a fixed header and a payload:
//   "GPUJITKC"  u32 format  u64 payload size  u64 FNV-1a-64 of the payload
//   payload: key, entry name, u8 uses_grid_sync, u32 parameter count, (u32 first, u32 count) per parameter,
//            PTX
// with strings as a u64 length and their bytes, every integer little-endian. The checksum catches a torn or
// edited file; the key inside catches two keys whose file names collide (they never should: the name holds
// the whole key).
#include "runtime/disk_cache.h"
#include "ir/fnv1a.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>

namespace gpujit::rt {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'G', 'P', 'U', 'J', 'I', 'T', 'K', 'C'};
constexpr uint32_t kFormat = 1;
constexpr size_t kHeaderSize = sizeof kMagic + 4 + 8 + 8;
/// Names longer than this are cut in the entry's file name (the key alone makes it unique).
constexpr size_t kMaxNamePart = 64;

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(char(v)); }
  void u32(uint32_t v) {
    for (unsigned i = 0; i < 4; ++i) u8(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (unsigned i = 0; i < 8; ++i) u8(uint8_t(v >> (8 * i)));
  }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void raw(std::string_view s) { out_.append(s); }
  std::string& text() { return out_; }

 private:
  std::string out_;
};

/// Reads what Writer wrote; every read checks the bounds and turns ok() false instead of overrunning.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == in_.size(); }
  uint64_t uint(unsigned bytes) {
    if (!take(bytes)) return 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= uint64_t(uint8_t(in_[pos_ - bytes + i])) << (8 * i);
    return v;
  }
  std::string_view raw(size_t n) {
    if (!take(n)) return {};
    return in_.substr(pos_ - n, n);
  }
  std::string str() { return std::string(raw(size_t(uint(8)))); }

 private:
  bool take(uint64_t n) {
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return false;
    }
    pos_ += size_t(n);
    return true;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

/// Whether `dir` is (or could be made) a folder this process can write; `parents` allows creating missing
/// parent folders (for the folders users name), else only `dir` itself is made (a __pycache__ next to a
/// source file, never a tree under a path that does not exist).
bool usable_directory(const fs::path& dir, bool parents) {
  std::error_code ec;
  if (parents) {
    fs::create_directories(dir, ec);
  } else {
    fs::create_directory(dir, ec);
  }
  return fs::is_directory(dir, ec) && access(dir.c_str(), W_OK | X_OK) == 0;
}

std::string name_part(std::string s) {
  if (s.size() > kMaxNamePart) s.resize(kMaxNamePart);
  return s;
}

}  // namespace

std::optional<DiskCache> DiskCache::for_source(const std::string& source_file) {
  if (const char* dir = std::getenv("GPUJIT_CACHE_DIR"); dir && *dir) {
    // The user chose the folder: use it or nothing, never a folder they did not ask for.
    if (usable_directory(dir, /*parents=*/true)) return DiskCache(dir);
    return std::nullopt;
  }
  std::error_code ec;
  if (!source_file.empty() && fs::is_regular_file(source_file, ec)) {
    fs::path dir = fs::absolute(source_file, ec).parent_path() / "__pycache__";
    if (!ec && usable_directory(dir, /*parents=*/false)) return DiskCache(dir.string());
  }
  fs::path user;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && fs::path(xdg).is_absolute()) {
    user = fs::path(xdg) / "gpujit";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    user = fs::path(home) / ".cache" / "gpujit";
  }
  if (!user.empty() && usable_directory(user, /*parents=*/true)) return DiskCache(user.string());
  return std::nullopt;
}

std::string DiskCache::entry_path(const std::string& source_file, const std::string& kernel_name,
                                  const std::string& key) const {
  std::string stem = fs::path(source_file).stem().string();
  if (stem.empty()) stem = "kernel";
  return (fs::path(directory_) / (name_part(stem) + "." + name_part(kernel_name) + "." + key + ".gpujit")).string();
}

std::shared_ptr<CompileResult> DiskCache::load(const std::string& entry, const std::string& key,
                                               const std::vector<Type>& arg_types) const {
  std::ifstream in(entry, std::ios::binary);
  if (!in) return nullptr;
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return nullptr;

  Reader header(file);
  if (header.raw(sizeof kMagic) != std::string_view(kMagic, sizeof kMagic)) return nullptr;
  uint64_t format = header.uint(4);
  uint64_t size = header.uint(8);
  uint64_t checksum = header.uint(8);
  if (!header.ok() || format != kFormat || size != file.size() - kHeaderSize) return nullptr;
  std::string_view payload = std::string_view(file).substr(kHeaderSize);
  if (fnv1a(payload) != checksum) return nullptr;

  Reader r(payload);
  auto result = std::make_shared<CompileResult>();
  if (r.str() != key) return nullptr;
  result->entry_name = r.str();
  result->uses_grid_sync = r.uint(1) != 0;
  uint64_t count = r.uint(4);
  if (!r.ok() || count != arg_types.size()) return nullptr;
  for (const Type& t : arg_types) {
    ParamLayout p;
    p.type = t;
    p.first = unsigned(r.uint(4));
    p.count = unsigned(r.uint(4));
    result->params.push_back(p);
  }
  result->ptx = r.str();
  if (!r.ok() || !r.at_end() || result->entry_name.empty() || result->ptx.empty()) return nullptr;
  result->signature.params = arg_types;
  result->signature.ret = Type::void_();
  result->ok = true;
  return result;
}

bool DiskCache::store(const std::string& entry, const std::string& key, const CompileResult& result) const {
  if (!result.ok || result.ptx.empty()) return false;
  Writer payload;
  payload.str(key);
  payload.str(result.entry_name);
  payload.u8(result.uses_grid_sync ? 1 : 0);
  payload.u32(uint32_t(result.params.size()));
  for (const ParamLayout& p : result.params) {
    payload.u32(p.first);
    payload.u32(p.count);
  }
  payload.str(result.ptx);

  Writer file;
  file.raw(std::string_view(kMagic, sizeof kMagic));
  file.u32(kFormat);
  file.u64(payload.text().size());
  file.u64(fnv1a(payload.text()));
  file.raw(payload.text());

  // A name no other writer uses (process id and a per-process counter), in the entry's own folder so that
  // the rename is atomic.
  static std::atomic<uint64_t> counter{0};
  fs::path tmp = entry;
  tmp += ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(file.text().data(), std::streamsize(file.text().size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, entry, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace gpujit::rt
