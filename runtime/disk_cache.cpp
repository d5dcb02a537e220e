// The on-disk kernel cache (see disk_cache.h).
//
// An entry file is a fixed header and a payload:
//   magic (8 bytes)  u32 format  u64 payload size  u64 XXH3-64 of the payload (cache_checksum())
//   PTX entry ("GPUJITKC"): key, entry name, u8 uses_grid_sync, u32 parameter count, (u32 first, u32 count)
//                           per parameter, PTX
//   machine code ("GPUJITMC"): key, tag, the code's bytes
// with strings as a u64 length and their bytes, every integer little-endian. The checksum catches a torn or
// edited file; the key inside catches two keys whose file names collide (they never should: the name holds
// the whole key).
#include "runtime/disk_cache.h"
#include "codegen/cache_checksum.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace gpujit::rt {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'G', 'P', 'U', 'J', 'I', 'T', 'K', 'C'};
constexpr char kCodeMagic[8] = {'G', 'P', 'U', 'J', 'I', 'T', 'M', 'C'};
/// 2: XXH3 checksums (1 had FNV-1a); an entry of another format is a damaged one.
constexpr uint32_t kFormat = 2;
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

/// Makes the missing folders of `dir` (0700 each) and says whether it is a folder now.
bool usable_parent(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return true;
  if (dir.has_parent_path() && dir.parent_path() != dir && !usable_parent(dir.parent_path())) return false;
  return (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) && fs::is_directory(dir, ec);
}

/// The whole file at `path`, or nullopt when it cannot be opened (a miss) or read.
std::optional<std::string> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string data;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) data.reserve(size_t(st.st_size));
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::string();  // unreadable: as damaged as an empty file
    }
    if (n == 0) break;
    data.append(buffer, size_t(n));
  }
  ::close(fd);
  return data;
}

/// The payload of a file written by write_entry() with `magic`, or nullopt when the header or the checksum
/// do not hold.
std::optional<std::string_view> payload_of(std::string_view file, const char (&magic)[8]) {
  Reader header(file);
  if (header.raw(sizeof magic) != std::string_view(magic, sizeof magic)) return std::nullopt;
  uint64_t format = header.uint(4);
  uint64_t size = header.uint(8);
  uint64_t checksum = header.uint(8);
  if (!header.ok() || format != kFormat || size != file.size() - kHeaderSize) return std::nullopt;
  std::string_view payload = file.substr(kHeaderSize);
  if (cache_checksum(payload) != checksum) return std::nullopt;
  return payload;
}

/// Writes header and `payload` to a temporary file in `path`'s folder and renames it over `path`, so that a
/// reader sees the old file or the new one, never a part. False, leaving nothing behind, when it cannot.
bool write_entry(const std::string& path, const char (&magic)[8], const std::string& payload) {
  Writer file;
  file.raw(std::string_view(magic, sizeof magic));
  file.u32(kFormat);
  file.u64(payload.size());
  file.u64(cache_checksum(payload));
  file.raw(payload);

  // A name no other writer uses (process id and a per-process counter), in the entry's own folder so that
  // the rename is atomic.
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const std::string& bytes = file.text();
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  bool ok = ::close(fd) == 0 && done == bytes.size();
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

/// Whether `dir` is (or could be made) a folder this process can write; `parents` allows creating missing
/// parent folders (for the folders users name), else only `dir` itself is made (a __pycache__ next to a
/// source file, never a tree under a path that does not exist).
bool usable_directory(const fs::path& dir, bool parents) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    // Each missing level is made 0700 (what a umask allows of it): the entries are code this user runs,
    // which no other user should be able to plant or swap.
    if (parents && dir.has_parent_path() && dir.parent_path() != dir) {
      if (!usable_parent(dir.parent_path())) return false;
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
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
                                               const std::vector<Type>& arg_types, Miss* why) const {
  Miss ignored;
  Miss& miss = why ? *why : ignored;
  miss = Miss::Missing;
  std::optional<std::string> file = read_file(entry);
  if (!file) return nullptr;
  miss = Miss::Damaged;
  std::optional<std::string_view> payload = payload_of(*file, kMagic);
  if (!payload) return nullptr;

  Reader r(*payload);
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
  miss = Miss::None;
  return result;
}

bool DiskCache::store(const std::string& entry, const std::string& key, const CompileResult& result) const {
  // A kernel linked with external code is not stored: the entry would need its link inputs too.
  if (!result.ok || result.ptx.empty() || result.needs_link()) return false;
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
  return write_entry(entry, kMagic, payload.text());
}

std::string DiskCache::machine_code_path(const std::string& entry, const std::string& tag) {
  std::string base = entry;
  constexpr std::string_view kSuffix = ".gpujit";
  if (base.size() > kSuffix.size() && base.compare(base.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    base.resize(base.size() - kSuffix.size());
  }
  return base + "." + tag + ".gpujitbin";
}

std::optional<std::string> DiskCache::load_machine_code(const std::string& path, const std::string& key,
                                                        const std::string& tag, Miss* why) const {
  Miss ignored;
  Miss& miss = why ? *why : ignored;
  miss = Miss::Missing;
  std::optional<std::string> file = read_file(path);
  if (!file) return std::nullopt;
  miss = Miss::Damaged;
  std::optional<std::string_view> payload = payload_of(*file, kCodeMagic);
  if (!payload) return std::nullopt;
  Reader r(*payload);
  if (r.str() != key || r.str() != tag) return std::nullopt;
  std::string code = r.str();
  if (!r.ok() || !r.at_end() || code.empty()) return std::nullopt;
  miss = Miss::None;
  return code;
}

bool DiskCache::store_machine_code(const std::string& path, const std::string& key, const std::string& tag,
                                   const std::string& code) const {
  if (code.empty()) return false;
  Writer payload;
  payload.str(key);
  payload.str(tag);
  payload.str(code);
  return write_entry(path, kCodeMagic, payload.text());
}

}  // namespace gpujit::rt
