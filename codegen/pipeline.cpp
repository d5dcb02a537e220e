// LLVM optimization and assembly emission (see pipeline.h).
#include "codegen/pipeline.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/Timer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "frontend/diagnostics.h"

namespace gpujit {
namespace {

/// GPUJIT_TIME_PASSES=1: LLVM's own per-pass timers (what `opt -time-passes` and `llc -time-passes` print)
/// over both halves of every compile, reported on stderr after its PTX is emitted. A measurement aid: the
/// timers are LLVM's process-wide ones, so each timed half takes a lock; a report covers one compile only
/// when compiles run one at a time (in Python, GPUJIT_WARM_UP=0 keeps the warm-up's compile out of it).
bool time_passes() {
  static const bool on = [] {
    const char* v = std::getenv("GPUJIT_TIME_PASSES");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

std::mutex& time_passes_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

namespace {

/// Runs the pipeline `build` makes over `module`, with LLVM's analyses for `machine` (and its passes, such
/// as NVVMReflect) and, under GPUJIT_TIME_PASSES, its timers.
template <typename Build>
void run_new_pipeline(llvm::Module& module, llvm::TargetMachine& machine, Build build) {
  std::unique_lock<std::mutex> timing;
  if (time_passes()) {
    timing = std::unique_lock<std::mutex>(time_passes_mutex());
    llvm::TimePassesIsEnabled = true;
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks callbacks;
  std::optional<llvm::StandardInstrumentations> instrumentations;
  if (time_passes()) {
    instrumentations.emplace(module.getContext(), /*DebugLogging=*/false);
    instrumentations->registerCallbacks(callbacks, &mam);
  }
  llvm::PipelineTuningOptions tuning;
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, time_passes() ? &callbacks : nullptr);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = build(builder);
  passes.run(module, mam);
}

}  // namespace

void optimize_module(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                   : llvm::OptimizationLevel::O3;
  run_new_pipeline(module, machine, [&](llvm::PassBuilder& builder) {
    return level == llvm::OptimizationLevel::O0 ? builder.buildO0DefaultPipeline(level)
                                                : builder.buildPerModuleDefaultPipeline(level);
  });
}

void run_passes(llvm::Module& module, llvm::TargetMachine& machine, const std::string& pipeline) {
  run_new_pipeline(module, machine, [&](llvm::PassBuilder& builder) {
    llvm::ModulePassManager passes;
    if (llvm::Error e = builder.parsePassPipeline(passes, pipeline))
      throw InternalError("bad LLVM pass pipeline '" + pipeline + "': " + llvm::toString(std::move(e)));
    return passes;
  });
}

bool codegen_pass_runs(std::string_view pass, std::string_view ir, std::set<std::string>* skipped) {
  if (pass == "nary-reassociate") {
    skipped->insert(std::string(ir));
    return false;
  }
  return !(pass == "early-cse" && skipped->erase(std::string(ir)) != 0);
}

namespace {

/// Legacy passes ask their context's gate before they run (FunctionPass::skipFunction).
class CodegenPassGate final : public llvm::OptPassGate {
 public:
  bool isEnabled() const override { return true; }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef ir) const override {
    return codegen_pass_runs(pass, ir, &skipped_);
  }

 private:
  mutable std::set<std::string> skipped_;
};

}  // namespace

class CodegenPasses {
 public:
  CodegenPasses() : out(text) {}
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream out;
  llvm::legacy::PassManager passes;
  bool spent = false;
};

void CodegenPassesDeleter::operator()(CodegenPasses* passes) const { delete passes; }

CodegenPassesPtr build_codegen_passes(llvm::TargetMachine& machine) {
  CodegenPassesPtr built(new CodegenPasses);
  if (machine.addPassesToEmitFile(built->passes, built->out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw InternalError("the LLVM target cannot emit assembly");
  return built;
}

std::string run_codegen_passes(llvm::Module& module, CodegenPasses& passes) {
  if (passes.spent) throw InternalError("a code generator's passes ran twice");
  passes.spent = true;
  CodegenPassGate gate;
  llvm::OptPassGate& previous = module.getContext().getOptPassGate();
  module.getContext().setOptPassGate(gate);
  struct Restore {
    llvm::LLVMContext& context;
    llvm::OptPassGate& gate;
    ~Restore() { context.setOptPassGate(gate); }
  } restore{module.getContext(), previous};
  std::unique_lock<std::mutex> timing;
  if (time_passes()) {
    timing = std::unique_lock<std::mutex>(time_passes_mutex());
    llvm::TimePassesIsEnabled = true;
  }
  passes.passes.run(module);
  if (time_passes()) llvm::TimerGroup::printAll(llvm::errs());
  return std::string(passes.text.str());
}

std::string emit_assembly(llvm::Module& module, llvm::TargetMachine& machine) {
  return run_codegen_passes(module, *build_codegen_passes(machine));
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
