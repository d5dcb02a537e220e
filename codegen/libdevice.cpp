// Finding, caching and linking libdevice (see libdevice.h).
//
// Parsing libdevice, even lazily, costs about 2 ms per compile: the reader creates a declaration for each of
// its ~1000 functions in the compile's context. So the process parses it once, lazily, into a private
// context, and cuts it on demand into one small bitcode blob per entry point (__nv_expf and the helpers and
// constant tables it reaches). A compile parses only the blobs of the functions it calls, which takes a
// few microseconds each, and links them with LinkOnlyNeeded (a helper two blobs share is linked once).
//
// The private context and module are used under a mutex; the blobs are immutable once made and read
// without it. A failed search is not cached: a user who sets $GPUJIT_LIBDEVICE after a first error gets it
// picked up on the next compile.
#include "codegen/libdevice.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

namespace gpujit {
namespace {

constexpr const char* kFileName = "libdevice.10.bc";

std::string folder_of_core_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&find_libdevice), &info) == 0 || info.dli_fname == nullptr)
    return {};
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

/// The process's libdevice: the file's bytes, the lazily parsed module in a private context, and the blobs
/// cut from it so far.
class Libdevice {
 public:
  static Libdevice& instance() {
    static Libdevice* lib = new Libdevice;  // never destroyed: compiles may run during static destruction
    return *lib;
  }

  /// The bitcode of `name` and everything it reaches; null with *error set if libdevice is missing or has
  /// no such function.
  const std::string* blob(const std::string& name, std::string* error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = blobs_.find(name); it != blobs_.end()) return &it->second;
    if (!module_ && !load(error)) return nullptr;
    llvm::Function* root = module_->getFunction(name);
    if (!root || root->isDeclaration()) {
      *error = "libdevice has no function '" + name + "'";
      return nullptr;
    }
    std::set<const llvm::GlobalValue*> closure;
    if (!reach(root, &closure, error)) return nullptr;
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> piece =
        llvm::CloneModule(*module_, map, [&](const llvm::GlobalValue* gv) { return closure.count(gv) != 0; });
    // Drop the declarations of the ~1000 functions and tables the piece does not use.
    std::vector<llvm::GlobalValue*> unused;
    for (llvm::GlobalValue& gv : piece->global_values())
      if (gv.use_empty() && gv.getName() != name) unused.push_back(&gv);
    for (llvm::GlobalValue* gv : unused) gv->eraseFromParent();
    std::string bitcode;
    llvm::raw_string_ostream os(bitcode);
    llvm::WriteBitcodeToFile(*piece, os);
    return &(blobs_[name] = std::move(bitcode));
  }

 private:
  bool load(std::string* error) {
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
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto lazy = llvm::getLazyBitcodeModule((*file)->getMemBufferRef(), *ctx);
    if (!lazy) {
      *error = "cannot parse libdevice at " + path + ": " + llvm::toString(lazy.takeError());
      return false;
    }
    file_ = std::move(*file);
    context_ = std::move(ctx);
    module_ = std::move(*lazy);
    return true;
  }

  /// Adds `fn`, every function it calls and every table it reads to `closure`, materializing their bodies.
  bool reach(llvm::Function* fn, std::set<const llvm::GlobalValue*>* closure, std::string* error) {
    std::vector<llvm::GlobalValue*> work{fn};
    while (!work.empty()) {
      llvm::GlobalValue* gv = work.back();
      work.pop_back();
      if (gv->isDeclaration() && !gv->isMaterializable()) continue;  // an intrinsic or __nvvm_reflect
      if (!closure->insert(gv).second) continue;
      if (llvm::Error e = gv->materialize()) {
        *error = "cannot read libdevice's " + gv->getName().str() + ": " + llvm::toString(std::move(e));
        return false;
      }
      auto visit = [&](llvm::Value* v) {
        if (auto* g = llvm::dyn_cast<llvm::GlobalValue>(v->stripPointerCasts())) work.push_back(g);
      };
      if (auto* f = llvm::dyn_cast<llvm::Function>(gv)) {
        for (llvm::Instruction& inst : llvm::instructions(*f))
          for (llvm::Value* op : inst.operands()) visit(op);
      } else if (auto* var = llvm::dyn_cast<llvm::GlobalVariable>(gv); var && var->hasInitializer()) {
        visit(var->getInitializer());
      }
    }
    return true;
  }

  std::mutex mutex_;
  std::unique_ptr<llvm::MemoryBuffer> file_;
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;  // lazily materialized
  std::map<std::string, std::string> blobs_;
};

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
  std::vector<std::string> needed;
  for (llvm::Function& fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_")) needed.push_back(fn.getName().str());
  for (const std::string& name : needed) {
    const std::string* blob = Libdevice::instance().blob(name, error);
    if (!blob) return false;
    auto piece = llvm::parseBitcodeFile(llvm::MemoryBufferRef(*blob, name), module.getContext());
    if (!piece) {
      *error = "cannot parse libdevice's " + name + ": " + llvm::toString(piece.takeError());
      return false;
    }
    // libdevice carries a generic NVPTX triple and an older data layout; adopt ours so that the linker does
    // not warn and the functions are compiled exactly like the kernel.
    (*piece)->setTargetTriple(module.getTargetTriple());
    (*piece)->setDataLayout(module.getDataLayout());
    if (llvm::Linker::linkModules(module, std::move(*piece), llvm::Linker::LinkOnlyNeeded)) {
      *error = "linking libdevice's " + name + " failed";
      return false;
    }
  }
  return true;
}

}  // namespace gpujit
