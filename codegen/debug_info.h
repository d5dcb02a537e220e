// Debug information of a lowered module: the compile unit, one DISubprogram per function, and, for
// debug=True, the DWARF description of every Python variable (its name, its type, its stack slot).
//
// Two levels, chosen by the compile options and fixed for the module:
// - Line tables (lineinfo=True): a compile unit that asks for DebugDirectivesOnly, so NVPTX writes `.file`
//   and `.loc` and no .debug_info section (nvcc -lineinfo). Subprograms carry no types; no variables.
// - Full DWARF (debug=True, CompileOptions::debug_info): FullDebug. Each subprogram gets its subroutine type
//   (void, then the Python parameters' types); each parameter and local variable a DILocalVariable (arguments
//   numbered from 1) and an llvm.dbg.declare on its entry-block slot. LLVM's inliner turns the locations of an
//   inlined device function into inlined-at locations, and mem2reg/SROA the declares into dbg.values, when
//   the module is optimized.
//
// A module lowered without either never creates this object: nothing here runs on that path.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>

#include "frontend/ast.h"
#include "ir/types.h"

namespace llvm {
class AllocaInst;
class Function;
class Module;
}  // namespace llvm

namespace gpujit {

struct TypedFunction;

class DebugInfo {
 public:
  /// Starts the module's debug info for `kernel`'s file; `full`: DWARF with variables (debug=True), else
  /// line tables alone (lineinfo=True).
  DebugInfo(llvm::Module& module, const FunctionDef& kernel, bool full);

  /// Full DWARF: variables and types are described.
  bool full() const { return full_; }

  /// Gives `fn` the DISubprogram of `typed` (its Python name and `def` line; with full DWARF, its parameters'
  /// types).
  llvm::DISubprogram* attach(llvm::Function& fn, const TypedFunction& typed);

  /// Full DWARF: describes the Python variable `name` of type `type` held in `slot` (an entry-block alloca of
  /// `fn`), an argument when `arg_no` > 0, declared at `line`, with an llvm.dbg.declare at `line`:`column`
  /// placed after `slot`'s initialization (`after`). Names that are not the user's (compiler temporaries)
  /// and types of no size are left out.
  void declare(llvm::Function& fn, llvm::AllocaInst* slot, llvm::Instruction* after, const std::string& name,
               const Type& type, unsigned arg_no, unsigned line, unsigned column);

  /// Resolves forward references; call once every function is lowered.
  void finalize() { builder_.finalize(); }

  /// The DWARF type of a value of `t` as gpujit represents it (function_lowering.h); null for a type with
  /// no data (None, a grid group) or one debug info does not describe.
  llvm::DIType* type(const Type& t);

 private:
  llvm::DIFile* file(const FunctionDef& def);
  llvm::DIType* scalar_type(ScalarKind k);
  llvm::DIType* struct_of(const std::string& name, llvm::Type* layout_type,
                          const std::vector<std::pair<std::string, llvm::DIType*>>& members);
  llvm::DIType* record_type(const RecordType& r);

  llvm::Module& module_;
  llvm::DIBuilder builder_;
  bool full_;
  llvm::DICompileUnit* unit_ = nullptr;
  std::map<const SourceFile*, llvm::DIFile*> files_;
  std::map<std::string, llvm::DIType*> types_;  // by Type::key(): one node per type and module
};

}  // namespace gpujit
