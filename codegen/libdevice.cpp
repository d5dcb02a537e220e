// Finding, caching and linking libdevice (see libdevice.h).
//
// Parsing libdevice, even lazily, costs about 2 ms per compile: the reader creates a declaration for each of
// its ~1000 functions in the compile's context. So the process parses it once, lazily, into a private
// context, and cuts it on demand into one small bitcode blob per entry point (__nv_expf and the helpers and
// constant tables it reaches). A compile parses only the blobs of the functions it calls, which takes a
// few microseconds each, and links them with LinkOnlyNeeded (a helper two blobs share is linked once).
//
// The private context and module are used under a mutex; the blobs are immutable once made and read
// without it. An optimized blob (for kernels without loops, libdevice.h) is made from the plain one in a
// context of its own, under a lock of its own: two compiles that need the same one wait for one making,
// and different ones are made at once. A failed search is not cached: a user who sets $GPUJIT_LIBDEVICE
// after a first error gets it picked up on the next compile.
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
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GlobalVariable.h>
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
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "codegen/pipeline.h"

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

/// The libdevice functions (`__nv_*`) `module` declares and does not define, by name.
std::vector<std::string> declared_libdevice_functions(const llvm::Module& module) {
  std::vector<std::string> names;
  for (const llvm::Function& fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_")) names.push_back(fn.getName().str());
  return names;
}

/// Parses the blob of `name` into `context`. libdevice carries a generic NVPTX triple and an older data
/// layout: the piece adopts `triple` and `layout`, so that the linker does not warn and the functions are
/// compiled exactly like the kernel. Null with *error set if the blob does not parse.
std::unique_ptr<llvm::Module> parse_piece(const std::string& blob, const std::string& name,
                                          llvm::LLVMContext& context, const llvm::Triple& triple,
                                          const llvm::DataLayout& layout, std::string* error) {
  auto piece = llvm::parseBitcodeFile(llvm::MemoryBufferRef(blob, name), context);
  if (!piece) {
    *error = "cannot parse libdevice's " + name + ": " + llvm::toString(piece.takeError());
    return nullptr;
  }
  (*piece)->setTargetTriple(triple);
  (*piece)->setDataLayout(layout);
  return std::move(*piece);
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

  /// blob(name), __nvvm_reflect answered for `machine`'s architecture and `fastmath` and O3 run over it: the
  /// function keeps its name and external linkage, its helpers become internal (and mostly inlined).
  const std::string* optimized(const std::string& name, llvm::TargetMachine& machine, bool fastmath,
                               std::string* error) {
    Optimized* entry;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::unique_ptr<Optimized>& slot =
          optimized_[name + "/" + machine.getTargetCPU().str() + (fastmath ? "/fast" : "")];
      if (!slot) slot = std::make_unique<Optimized>();
      entry = slot.get();
    }
    std::lock_guard<std::mutex> lock(entry->mutex);
    if (!entry->bitcode.empty()) return &entry->bitcode;
    const std::string* plain = blob(name, error);
    if (!plain) return nullptr;
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> piece =
        parse_piece(*plain, name, context, machine.getTargetTriple(), machine.createDataLayout(), error);
    if (!piece) return nullptr;
    llvm::Module& m = *piece;
    // As a kernel module that links the plain blob has it (NvptxTarget::init_module, finalize_module).
    m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", fastmath ? 1 : 0);
    resolve_prec_sqrt(m, fastmath ? 0 : 1);
    for (llvm::Function& fn : m) {
      if (fn.isDeclaration()) continue;
      if (fn.getName() != name) fn.setLinkage(llvm::GlobalValue::InternalLinkage);
      if (fastmath) fn.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
    }
    optimize_module(m, machine, 3);
    llvm::raw_string_ostream os(entry->bitcode);
    llvm::WriteBitcodeToFile(m, os);
    os.flush();
    return &entry->bitcode;
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

  /// An optimized blob, made once (its mutex held while it is made).
  struct Optimized {
    std::mutex mutex;
    std::string bitcode;  // empty until made
  };

  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Optimized>> optimized_;  // by name/architecture[/fast]
  std::unique_ptr<llvm::MemoryBuffer> file_;
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;  // lazily materialized
  std::map<std::string, std::string> blobs_;
};

}  // namespace

void resolve_prec_sqrt(llvm::Module& module, int value) {
  llvm::Function* reflect = module.getFunction("__nvvm_reflect");
  if (!reflect) return;
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* u : reflect->users()) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(u);
    if (!call || call->getCalledFunction() != reflect || call->arg_size() != 1) continue;
    auto* var = llvm::dyn_cast<llvm::GlobalVariable>(call->getArgOperand(0)->stripPointerCasts());
    if (!var || !var->hasInitializer()) continue;
    auto* text = llvm::dyn_cast<llvm::ConstantDataSequential>(var->getInitializer());
    if (text && text->isCString() && text->getAsCString() == "__CUDA_PREC_SQRT") calls.push_back(call);
  }
  for (llvm::CallInst* call : calls) {
    call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), value));
    call->eraseFromParent();
  }
}

bool prepare_optimized_libdevice(llvm::Module& module, llvm::TargetMachine& machine, bool fastmath,
                                 std::vector<std::unique_ptr<llvm::Module>>* pieces, std::string* error) {
  for (const std::string& name : declared_libdevice_functions(module)) {
    const std::string* blob = Libdevice::instance().optimized(name, machine, fastmath, error);
    if (!blob) return false;
    std::unique_ptr<llvm::Module> piece = parse_piece(*blob, name, module.getContext(),
                                                      module.getTargetTriple(), module.getDataLayout(), error);
    if (!piece) return false;
    llvm::Function* definition = piece->getFunction(name);
    if (!definition || definition->isDeclaration()) {
      *error = "libdevice's optimized " + name + " lost its definition";
      return false;
    }
    module.getFunction(name)->setAttributes(definition->getAttributes());
    pieces->push_back(std::move(piece));
  }
  return true;
}

bool link_optimized_libdevice(llvm::Module& module, llvm::TargetMachine& machine,
                              std::vector<std::unique_ptr<llvm::Module>>& pieces, std::string* error) {
  std::vector<std::string> names;
  for (std::unique_ptr<llvm::Module>& piece : pieces) {
    for (llvm::Function& fn : *piece)
      if (!fn.isDeclaration()) names.push_back(fn.getName().str());
    if (llvm::Linker::linkModules(module, std::move(piece), llvm::Linker::LinkOnlyNeeded)) {
      *error = "linking libdevice's optimized functions failed";
      return false;
    }
  }
  pieces.clear();
  for (const std::string& name : names) {
    llvm::Function* fn = module.getFunction(name);
    if (!fn || fn->isDeclaration()) continue;
    fn->setLinkage(llvm::GlobalValue::InternalLinkage);
    fn->removeFnAttr(llvm::Attribute::NoInline);
    fn->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  // Inline them and drop them. The inliner folds what a constant argument decides as it clones a body;
  // SimplifyCFG merges the blocks the calls' edges leave. InstCombine here would cost 3% of a compile for
  // the same PTX (all 78 example and benchmark compiles, and the tests' constant arguments).
  run_passes(module, machine, "always-inline,globaldce,function(simplifycfg)");
  return true;
}

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
  for (const std::string& name : declared_libdevice_functions(module)) {
    const std::string* blob = Libdevice::instance().blob(name, error);
    if (!blob) return false;
    std::unique_ptr<llvm::Module> piece = parse_piece(*blob, name, module.getContext(),
                                                      module.getTargetTriple(), module.getDataLayout(), error);
    if (!piece) return false;
    if (llvm::Linker::linkModules(module, std::move(piece), llvm::Linker::LinkOnlyNeeded)) {
      *error = "linking libdevice's " + name + " failed";
      return false;
    }
  }
  return true;
}

}  // namespace gpujit
