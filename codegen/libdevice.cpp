// Finding, caching and linking libdevice (see libdevice.h).
//
// The bytes of the file are read once and shared by every compile of the process (a MemoryBuffer never
// changes, so concurrent lazy parses of it are safe). A failed search is not cached: a user who sets
// $GPUJIT_LIBDEVICE after a first error gets it picked up on the next compile.
#include "codegen/libdevice.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

namespace gpujit {
namespace {

constexpr const char* kFileName = "libdevice.10.bc";

std::string folder_of_core_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&find_libdevice), &info) == 0 || info.dli_fname == nullptr) return {};
  return llvm::sys::path::parent_path(info.dli_fname).str();
}

/// The candidates in search order; a candidate may name a file or a folder holding libdevice.10.bc.
std::vector<std::string> candidates() {
  std::vector<std::string> out;
  if (const char* p = std::getenv("GPUJIT_LIBDEVICE"); p && *p) out.push_back(p);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* p = std::getenv(var); p && *p) out.push_back(std::string(p) + "/nvvm/libdevice");
  out.push_back("/usr/local/cuda/nvvm/libdevice");
  if (std::string dir = folder_of_core_library(); !dir.empty()) {
    out.push_back(dir);
    out.push_back(dir + "/../nvvm/libdevice");
  }
  return out;
}

std::mutex g_mutex;
std::unique_ptr<llvm::MemoryBuffer> g_buffer;  // guarded by g_mutex until set, immutable afterwards

}  // namespace

std::string find_libdevice(std::string* searched) {
  for (const std::string& c : candidates()) {
    if (searched) *searched += (searched->empty() ? "" : ", ") + c;
    if (llvm::sys::fs::is_regular_file(c)) return c;
    std::string file = c + "/" + kFileName;
    if (llvm::sys::fs::is_regular_file(file)) return file;
  }
  return {};
}

bool link_libdevice(llvm::Module& module, std::string* error) {
  const llvm::MemoryBuffer* buffer = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_buffer) {
      std::string searched;
      std::string path = find_libdevice(&searched);
      if (path.empty()) {
        *error = "libdevice (" + std::string(kFileName) +
                 ") not found; math functions need it. Looked in: " + searched +
                 ". Install the CUDA toolkit or set GPUJIT_LIBDEVICE to the file";
        return false;
      }
      auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (!file) {
        *error = "cannot read libdevice at " + path + ": " + file.getError().message();
        return false;
      }
      g_buffer = std::move(*file);
    }
    buffer = g_buffer.get();
  }

  auto lazy = llvm::getLazyBitcodeModule(buffer->getMemBufferRef(), module.getContext());
  if (!lazy) {
    *error = "cannot parse libdevice " + buffer->getBufferIdentifier().str() + ": " +
             llvm::toString(lazy.takeError());
    return false;
  }
  std::unique_ptr<llvm::Module> lib = std::move(*lazy);
  // libdevice carries a generic NVPTX triple and an older data layout; adopt ours so that the linker does not
  // warn and the functions are compiled exactly like the kernel.
  lib->setTargetTriple(module.getTargetTriple());
  lib->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(lib), llvm::Linker::LinkOnlyNeeded)) {
    *error = "linking libdevice failed";
    return false;
  }
  return true;
}

}  // namespace gpujit
