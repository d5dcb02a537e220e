// LLVM optimization and assembly emission (see pipeline.h).
#include "codegen/pipeline.h"

#include <map>

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "frontend/diagnostics.h"

namespace gpujit {

void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                   : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0
                                       ? builder.buildO0DefaultPipeline(level)
                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
}

std::string emit_assembly(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw InternalError("the LLVM target cannot emit assembly");
  passes.run(module);
  return std::string(text.str());
}

std::string print_module(const llvm::Module& module, bool inline_attributes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  if (!inline_attributes) return text;
  // The groups, from their lines "attributes #0 = { nounwind }" at the end of the text.
  std::map<std::string, std::string> groups;
  llvm::SmallVector<llvm::StringRef, 0> lines;
  llvm::StringRef(text).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.consume_front("attributes #")) continue;
    auto [id, rest] = line.split(" = { ");
    if (rest.consume_back(" }")) groups["#" + id.str()] = rest.str();
  }
  std::string out;
  for (llvm::StringRef line : lines) {
    if (line.starts_with("define ") || line.starts_with("declare ")) {
      // The group reference follows the parameter list: "... @f(i32 %a) #0 {" or "declare ... @g() #1".
      size_t hash = line.rfind(" #");
      size_t end = hash == llvm::StringRef::npos ? hash : line.find_first_not_of("0123456789", hash + 2);
      if (hash != llvm::StringRef::npos && end != hash + 2) {
        auto group = groups.find(line.substr(hash + 1, (end == llvm::StringRef::npos ? line.size() : end) - hash - 1).str());
        if (group != groups.end()) {
          out += line.substr(0, hash + 1).str() + group->second;
          if (end != llvm::StringRef::npos) out += line.substr(end).str();
          out += '\n';
          continue;
        }
      }
    }
    out += line.str();
    out += '\n';
  }
  if (!out.empty()) out.pop_back();  // split() gave the text's last line without its newline
  return out;
}

}  // namespace gpujit
