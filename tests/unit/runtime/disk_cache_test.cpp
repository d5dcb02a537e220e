// The on-disk kernel cache: entries read back as written, anything damaged or foreign is a miss (never an
// error), writes leave no temporary files, and the folder is chosen as documented.
#include "runtime/disk_cache.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <string>

namespace gpujit::rt {
namespace {

namespace fs = std::filesystem;

const std::string kKey(64, 'a');

/// A fresh folder under the system's temporary folder, removed with the fixture.
class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpujit_disk_cache_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static CompileResult sample() {
    CompileResult r;
    r.ok = true;
    r.entry_name = "_Z4saxpy";
    r.uses_grid_sync = true;
    Type array = Type::array_of(ScalarKind::Float32, 1, Layout::C);
    r.params = {{Type::scalar_of(ScalarKind::Float32), 0, 1}, {array, 1, 3}};
    r.ptx = ".version 8.0\n.target sm_80\n.visible .entry _Z4saxpy()\n{\n}\n";
    return r;
  }
  static std::vector<Type> arg_types() {
    return {Type::scalar_of(ScalarKind::Float32), Type::array_of(ScalarKind::Float32, 1, Layout::C)};
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static void write(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }

  fs::path dir_;
};

TEST_F(DiskCacheTest, EntriesReadBackAsWritten) {
  DiskCache cache(dir_.string());
  std::string entry = cache.entry_path("/home/me/kernels.py", "saxpy", kKey);
  EXPECT_EQ(entry, dir_ / ("kernels.saxpy." + kKey + ".gpujit"));
  EXPECT_EQ(cache.load(entry, kKey, arg_types()), nullptr);  // nothing there yet

  ASSERT_TRUE(cache.store(entry, kKey, sample()));
  auto loaded = cache.load(entry, kKey, arg_types());
  ASSERT_NE(loaded, nullptr);
  EXPECT_TRUE(loaded->ok);
  EXPECT_EQ(loaded->ptx, sample().ptx);
  EXPECT_EQ(loaded->entry_name, "_Z4saxpy");
  EXPECT_TRUE(loaded->uses_grid_sync);
  ASSERT_EQ(loaded->params.size(), 2u);
  EXPECT_EQ(loaded->params[1].type, arg_types()[1]);
  EXPECT_EQ(loaded->params[1].first, 1u);
  EXPECT_EQ(loaded->params[1].count, 3u);
  EXPECT_EQ(loaded->signature.params, arg_types());

  // The write went through a temporary file that is gone now.
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(dir_)) files += f.is_regular_file();
  EXPECT_EQ(files, 1u);
}

TEST_F(DiskCacheTest, DamagedEntriesAreMisses) {
  DiskCache cache(dir_.string());
  std::string entry = cache.entry_path("k.py", "k", kKey);
  ASSERT_TRUE(cache.store(entry, kKey, sample()));
  const std::string good = read(entry);

  // Every truncation, including an empty file.
  for (size_t n : {size_t(0), size_t(5), size_t(20), good.size() / 2, good.size() - 1}) {
    write(entry, good.substr(0, n));
    EXPECT_EQ(cache.load(entry, kKey, arg_types()), nullptr) << "truncated to " << n;
  }
  // One flipped bit anywhere: the magic, the header, the key, the PTX.
  for (size_t at : {size_t(0), size_t(10), size_t(30), good.size() - 3}) {
    std::string bad = good;
    bad[at] = char(bad[at] ^ 0x10);
    write(entry, bad);
    EXPECT_EQ(cache.load(entry, kKey, arg_types()), nullptr) << "bit flipped at " << at;
  }
  write(entry, good + "trailing");
  EXPECT_EQ(cache.load(entry, kKey, arg_types()), nullptr);
  write(entry, "not a cache entry at all");
  EXPECT_EQ(cache.load(entry, kKey, arg_types()), nullptr);

  // Whole again once stored over.
  ASSERT_TRUE(cache.store(entry, kKey, sample()));
  EXPECT_NE(cache.load(entry, kKey, arg_types()), nullptr);
}

TEST_F(DiskCacheTest, SaysWhyAnEntryMissed) {
  DiskCache cache(dir_.string());
  std::string entry = cache.entry_path("k.py", "k", kKey);
  DiskCache::Miss why = DiskCache::Miss::None;
  EXPECT_EQ(cache.load(entry, kKey, arg_types(), &why), nullptr);
  EXPECT_EQ(why, DiskCache::Miss::Missing);
  ASSERT_TRUE(cache.store(entry, kKey, sample()));
  EXPECT_NE(cache.load(entry, kKey, arg_types(), &why), nullptr);
  EXPECT_EQ(why, DiskCache::Miss::None);
  write(entry, read(entry).substr(0, 30));
  EXPECT_EQ(cache.load(entry, kKey, arg_types(), &why), nullptr);
  EXPECT_EQ(why, DiskCache::Miss::Damaged);
}

TEST_F(DiskCacheTest, MachineCodeReadsBackForItsKeyAndTagOnly) {
  DiskCache cache(dir_.string());
  std::string entry = cache.entry_path("/home/me/kernels.py", "saxpy", kKey);
  std::string path = DiskCache::machine_code_path(entry, "cuda13000.sm_90");
  EXPECT_EQ(path, dir_ / ("kernels.saxpy." + kKey + ".cuda13000.sm_90.gpujitbin"));
  DiskCache::Miss why = DiskCache::Miss::None;
  EXPECT_FALSE(cache.load_machine_code(path, kKey, "cuda13000.sm_90", &why).has_value());
  EXPECT_EQ(why, DiskCache::Miss::Missing);

  std::string cubin("\x7f" "ELF\0\1binary with NULs\0", 24);
  ASSERT_TRUE(cache.store_machine_code(path, kKey, "cuda13000.sm_90", cubin));
  EXPECT_EQ(cache.load_machine_code(path, kKey, "cuda13000.sm_90", &why), cubin);
  EXPECT_EQ(why, DiskCache::Miss::None);
  // Another tag or key inside the file (a renamed or colliding file) is no hit.
  EXPECT_FALSE(cache.load_machine_code(path, kKey, "cuda12080.sm_90").has_value());
  EXPECT_FALSE(cache.load_machine_code(path, std::string(64, 'b'), "cuda13000.sm_90").has_value());
  // Neither is a PTX entry read as machine code, nor the other way round (the magics differ).
  ASSERT_TRUE(cache.store(entry, kKey, sample()));
  EXPECT_FALSE(cache.load_machine_code(entry, kKey, "cuda13000.sm_90", &why).has_value());
  EXPECT_EQ(why, DiskCache::Miss::Damaged);
  EXPECT_EQ(cache.load(path, kKey, arg_types()), nullptr);

  const std::string good = read(path);
  for (size_t n : {size_t(0), size_t(12), good.size() / 2, good.size() - 1}) {
    write(path, good.substr(0, n));
    EXPECT_FALSE(cache.load_machine_code(path, kKey, "cuda13000.sm_90", &why).has_value()) << "cut to " << n;
    EXPECT_EQ(why, DiskCache::Miss::Damaged);
  }
  std::string flipped = good;
  flipped[good.size() - 5] = char(flipped[good.size() - 5] ^ 1);
  write(path, flipped);
  EXPECT_FALSE(cache.load_machine_code(path, kKey, "cuda13000.sm_90").has_value());
  EXPECT_FALSE(cache.store_machine_code(path, kKey, "cuda13000.sm_90", ""));
}

TEST_F(DiskCacheTest, ForeignEntriesAreMisses) {
  DiskCache cache(dir_.string());
  std::string entry = cache.entry_path("k.py", "k", kKey);
  ASSERT_TRUE(cache.store(entry, kKey, sample()));
  EXPECT_EQ(cache.load(entry, std::string(64, 'b'), arg_types()), nullptr);  // written for another key
  EXPECT_EQ(cache.load(entry, kKey, {Type::scalar_of(ScalarKind::Float32)}), nullptr);  // another arity
  CompileResult failed = sample();
  failed.ok = false;
  EXPECT_FALSE(cache.store(cache.entry_path("k.py", "failed", kKey), kKey, failed));
  EXPECT_FALSE(fs::exists(cache.entry_path("k.py", "failed", kKey)));
}

TEST_F(DiskCacheTest, StoreIntoAMissingFolderFailsCleanly) {
  DiskCache cache((dir_ / "missing").string());
  EXPECT_FALSE(cache.store(cache.entry_path("k.py", "k", kKey), kKey, sample()));
}

/// Sets an environment variable for one scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_F(DiskCacheTest, FolderFollowsTheEnvironmentThenTheSourceThenTheUserCache) {
  fs::path source = dir_ / "src" / "kernels.py";
  fs::create_directories(source.parent_path());
  write(source, "# kernels\n");
  {
    ScopedEnv env("GPUJIT_CACHE_DIR", (dir_ / "chosen" / "deep").c_str());
    auto cache = DiskCache::for_source(source.string());
    ASSERT_TRUE(cache.has_value());
    EXPECT_EQ(cache->directory(), (dir_ / "chosen" / "deep").string());
    EXPECT_TRUE(fs::is_directory(dir_ / "chosen" / "deep"));
    // Every folder the cache made is the user's alone.
    for (fs::path made : {dir_ / "chosen", dir_ / "chosen" / "deep"}) {
      struct stat st {};
      ASSERT_EQ(stat(made.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, 0700u) << made;
    }
  }
  {
    // A folder that cannot be made (a file is in its way): no cache, and nothing made.
    write(dir_ / "a_file", "x");
    ScopedEnv env("GPUJIT_CACHE_DIR", (dir_ / "a_file" / "cache").c_str());
    EXPECT_FALSE(DiskCache::for_source(source.string()).has_value());
  }
  ScopedEnv no_override("GPUJIT_CACHE_DIR", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", (dir_ / "xdg").c_str());
  {
    auto cache = DiskCache::for_source(source.string());
    ASSERT_TRUE(cache.has_value());
    EXPECT_EQ(cache->directory(), (dir_ / "src" / "__pycache__").string());
  }
  {
    // A source that is no file on disk (exec'd code, a file since deleted): the user's cache folder, and no
    // folder made where the source claimed to be.
    auto cache = DiskCache::for_source((dir_ / "gone" / "kernels.py").string());
    ASSERT_TRUE(cache.has_value());
    EXPECT_EQ(cache->directory(), (dir_ / "xdg" / "gpujit").string());
    EXPECT_FALSE(fs::exists(dir_ / "gone"));
  }
}

}  // namespace
}  // namespace gpujit::rt
