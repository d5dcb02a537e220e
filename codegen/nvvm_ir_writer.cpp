// The NVVM IR writer (see nvvm_ir_writer.h): one pass over the module, printing LLVM 7's text.
//
// Every value gets a fresh name up front (%aN arguments, %vN instructions, bN blocks; %tN for the casts the
// writer adds), so the text never depends on LLVM 22's naming or escaping, and a use may precede its
// definition in block order (phis). A freeze is no value of its own: its name is its operand's.
#include "codegen/nvvm_ir_writer.h"

#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include <llvm/ADT/StringExtras.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

namespace gpujit {
namespace {

/// What the writer cannot express in LLVM 7's dialect; caught at write_nvvm_ir's boundary.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr const char* kDataLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";

std::string quoted(llvm::StringRef s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
      out += '\\';
      out += llvm::hexdigit(c >> 4, false);
      out += llvm::hexdigit(c & 15, false);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string global_name(llvm::StringRef name) {
  bool plain = !name.empty() && !llvm::isDigit(name[0]);
  for (char c : name) plain = plain && (llvm::isAlnum(c) || c == '_' || c == '.' || c == '$' || c == '-');
  return "@" + (plain ? name.str() : quoted(name));
}

std::string addrspace(unsigned as) { return as ? " addrspace(" + std::to_string(as) + ")" : ""; }

std::string type(llvm::Type* t);

std::string typed_ptr(llvm::Type* pointee, unsigned as) { return type(pointee) + addrspace(as) + "*"; }

std::string type(llvm::Type* t) {
  using llvm::Type;
  switch (t->getTypeID()) {
    case Type::VoidTyID: return "void";
    case Type::HalfTyID: return "half";
    case Type::FloatTyID: return "float";
    case Type::DoubleTyID: return "double";
    case Type::IntegerTyID: return "i" + std::to_string(t->getIntegerBitWidth());
    case Type::PointerTyID: return "i8" + addrspace(t->getPointerAddressSpace()) + "*";
    case Type::ArrayTyID:
      return "[" + std::to_string(t->getArrayNumElements()) + " x " + type(t->getArrayElementType()) + "]";
    case Type::FixedVectorTyID: {
      auto* v = llvm::cast<llvm::FixedVectorType>(t);
      if (v->getElementType()->isPointerTy()) throw Unsupported("a vector of pointers");
      return "<" + std::to_string(v->getNumElements()) + " x " + type(v->getElementType()) + ">";
    }
    case Type::StructTyID: {
      auto* s = llvm::cast<llvm::StructType>(t);
      if (s->isOpaque()) throw Unsupported("an opaque struct type");
      std::string out = s->isPacked() ? "<{ " : "{ ";
      for (unsigned i = 0; i < s->getNumElements(); ++i) out += (i ? ", " : "") + type(s->getElementType(i));
      return out + (s->getNumElements() ? " " : "") + (s->isPacked() ? "}>" : "}");
    }
    case Type::FunctionTyID: {
      auto* f = llvm::cast<llvm::FunctionType>(t);
      std::string out = type(f->getReturnType()) + " (";
      for (unsigned i = 0; i < f->getNumParams(); ++i) out += (i ? ", " : "") + type(f->getParamType(i));
      if (f->isVarArg()) out += f->getNumParams() ? ", ..." : "...";
      return out + ")";
    }
    case Type::BFloatTyID: throw Unsupported("the bfloat type (LLVM 7 has none)");
    default: {
      std::string s;
      llvm::raw_string_ostream os(s);
      t->print(os);
      throw Unsupported("the type " + s);
    }
  }
}

std::string hex_double(double d) {
  uint64_t bits;
  static_assert(sizeof bits == sizeof d);
  std::memcpy(&bits, &d, sizeof d);
  return "0x" + llvm::utohexstr(bits, false, 16);
}

class Writer {
 public:
  Writer(const llvm::Module& m, const NvvmIrEntry& entry) : m_(m), kernel_(*entry.function), entry_(entry) {}

  std::string write() {
    std::ostringstream head;
    head << "target datalayout = \"" << kDataLayout << "\"\ntarget triple = \"nvptx64-nvidia-cuda\"\n\n";
    for (const llvm::GlobalVariable& g : m_.globals()) {
      // llvm.used and its kind are LLVM's bookkeeping; the writer adds its own @llvm.used (metadata()).
      if (!g.getName().starts_with("llvm.")) write_global(g, head);
    }
    for (const llvm::Function& f : m_) {
      if (!f.isDeclaration()) write_function(f);
    }
    for (const llvm::Function& f : m_) {
      if (f.isDeclaration() && !f.isIntrinsic() && f.hasNUsesOrMore(1)) declare(f);
    }
    std::ostringstream out;
    out << head.str() << "\n";
    for (const auto& [name, decl] : decls_) out << decl << "\n";
    out << "\n" << body_.str() << "\n" << metadata();
    return out.str();
  }

 private:
  // --- names and operands ---
  std::string name(const llvm::Value* v) {
    if (auto* f = llvm::dyn_cast<llvm::FreezeInst>(v)) return val(f->getOperand(0));
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    throw Unsupported("a value defined outside its function");
  }
  std::string temp() { return "%t" + std::to_string(temps_++); }

  std::string val(const llvm::Value* v) {
    if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) return constant(c);
    if (llvm::isa<llvm::MetadataAsValue>(v)) throw Unsupported("a metadata operand");
    if (llvm::isa<llvm::InlineAsm>(v)) throw Unsupported("inline assembly as a value");
    return name(v);
  }
  std::string op(const llvm::Value* v) { return type(v->getType()) + " " + val(v); }

  std::string constant(const llvm::Constant* c) {
    if (auto* i = llvm::dyn_cast<llvm::ConstantInt>(c)) {
      if (i->getBitWidth() == 1) return i->isZero() ? "false" : "true";
      return llvm::toString(i->getValue(), 10, /*Signed=*/true);
    }
    if (auto* f = llvm::dyn_cast<llvm::ConstantFP>(c)) {
      if (f->getType()->isHalfTy())
        return "0xH" + llvm::utohexstr(f->getValueAPF().bitcastToAPInt().getZExtValue(), false, 4);
      if (f->getType()->isFloatTy()) return hex_double(f->getValueAPF().convertToFloat());
      if (f->getType()->isDoubleTy()) return hex_double(f->getValueAPF().convertToDouble());
      throw Unsupported("a floating-point constant of type " + type(f->getType()));
    }
    if (llvm::isa<llvm::ConstantPointerNull>(c)) return "null";
    if (llvm::isa<llvm::UndefValue>(c)) return "undef";  // poison too: LLVM 7 has only undef
    if (llvm::isa<llvm::ConstantAggregateZero>(c)) return "zeroinitializer";
    if (auto* g = llvm::dyn_cast<llvm::GlobalValue>(c)) return global_as_i8(g);
    if (auto* e = llvm::dyn_cast<llvm::ConstantExpr>(c)) return constant_expr(e);
    if (llvm::isa<llvm::ConstantAggregate>(c) || llvm::isa<llvm::ConstantDataSequential>(c)) {
      llvm::Type* t = c->getType();
      const bool vec = t->isVectorTy(), st = t->isStructTy();
      const bool packed = st && llvm::cast<llvm::StructType>(t)->isPacked();
      std::string out = vec ? "<" : st ? (packed ? "<{ " : "{ ") : "[";
      const unsigned n = st ? t->getStructNumElements() : vec ? llvm::cast<llvm::FixedVectorType>(t)->getNumElements()
                                                              : t->getArrayNumElements();
      for (unsigned i = 0; i < n; ++i) out += (i ? ", " : "") + op(c->getAggregateElement(i));
      return out + (vec ? ">" : st ? (packed ? " }>" : " }") : "]");
    }
    std::string s;
    llvm::raw_string_ostream os(s);
    c->print(os);
    throw Unsupported("the constant " + s);
  }

  std::string global_as_i8(const llvm::GlobalValue* g) {
    if (llvm::isa<llvm::Function>(g)) throw Unsupported("a function used as a value (" + g->getName().str() + ")");
    if (!llvm::isa<llvm::GlobalVariable>(g)) throw Unsupported("the global alias " + g->getName().str());
    const unsigned as = g->getAddressSpace();
    if (g->getValueType()->isIntegerTy(8)) return global_name(g->getName());
    return "bitcast (" + typed_ptr(g->getValueType(), as) + " " + global_name(g->getName()) + " to i8" +
           addrspace(as) + "*)";
  }

  std::string constant_expr(const llvm::ConstantExpr* e) {
    const std::string to = type(e->getType());
    switch (e->getOpcode()) {
      case llvm::Instruction::GetElementPtr: {
        auto* gep = llvm::cast<llvm::GEPOperator>(e);
        const unsigned as = gep->getPointerAddressSpace();
        llvm::Type* src = gep->getSourceElementType();
        std::string base = "bitcast (" + op(gep->getPointerOperand()) + " to " + typed_ptr(src, as) + ")";
        std::string out = std::string("getelementptr ") + (gep->isInBounds() ? "inbounds " : "") + "(" + type(src) +
                          ", " + typed_ptr(src, as) + " " + base;
        for (auto it = gep->idx_begin(); it != gep->idx_end(); ++it) out += ", " + op(*it);
        return "bitcast (" + typed_ptr(gep->getResultElementType(), as) + " " + out + ") to " + to + ")";
      }
      case llvm::Instruction::BitCast:
        if (e->getType()->isPointerTy()) return val(e->getOperand(0));
        [[fallthrough]];
      case llvm::Instruction::AddrSpaceCast:
      case llvm::Instruction::PtrToInt:
      case llvm::Instruction::IntToPtr:
      case llvm::Instruction::Trunc:
        return std::string(e->getOpcodeName()) + " (" + op(e->getOperand(0)) + " to " + to + ")";
      case llvm::Instruction::Add:
      case llvm::Instruction::Sub:
      case llvm::Instruction::Xor:
        return std::string(e->getOpcodeName()) + " (" + op(e->getOperand(0)) + ", " + op(e->getOperand(1)) + ")";
      default:
        throw Unsupported(std::string("the constant expression ") + e->getOpcodeName());
    }
  }

  /// `p` (an i8* value) as a pointer to `pointee`: a bitcast line, or `p` itself for i8.
  std::string as_typed(const llvm::Value* p, llvm::Type* pointee) {
    const unsigned as = p->getType()->getPointerAddressSpace();
    if (pointee->isIntegerTy(8)) return val(p);
    const std::string t = temp();
    line(t + " = bitcast " + op(p) + " to " + typed_ptr(pointee, as));
    return t;
  }

  void line(const std::string& s) { body_ << "  " << s << "\n"; }

  // --- globals, functions, declarations ---
  static std::string linkage(const llvm::GlobalValue& g) {
    using L = llvm::GlobalValue::LinkageTypes;
    switch (g.getLinkage()) {
      case L::ExternalLinkage: return g.isDeclaration() ? "external " : "";
      case L::InternalLinkage: return "internal ";
      case L::PrivateLinkage: return "private ";
      case L::LinkOnceODRLinkage: return "linkonce_odr ";
      case L::LinkOnceAnyLinkage: return "linkonce ";
      case L::WeakODRLinkage: return "weak_odr ";
      case L::WeakAnyLinkage: return "weak ";
      case L::CommonLinkage: return "common ";
      case L::ExternalWeakLinkage: return "extern_weak ";
      default: throw Unsupported("the linkage of " + g.getName().str());
    }
  }

  void write_global(const llvm::GlobalVariable& g, std::ostream& out) {
    if (g.isThreadLocal()) throw Unsupported("the thread-local global " + g.getName().str());
    out << global_name(g.getName()) << " = " << linkage(g) << addrspace(g.getAddressSpace()).substr(g.getAddressSpace() ? 1 : 0)
        << (g.getAddressSpace() ? " " : "") << (g.isExternallyInitialized() ? "externally_initialized " : "")
        << (g.isConstant() ? "constant " : "global ") << type(g.getValueType());
    if (g.hasInitializer()) out << " " << constant(g.getInitializer());
    if (g.getAlign()) out << ", align " << g.getAlign()->value();
    out << "\n";
  }

  std::string params(const llvm::Function& f, bool named) {
    std::string out;
    for (const llvm::Argument& a : f.args()) {
      if (a.hasByValAttr() || a.hasStructRetAttr() || a.hasInAllocaAttr() || a.hasPreallocatedAttr())
        throw Unsupported("the by-value or struct-return parameter " + std::to_string(a.getArgNo()) + " of " +
                          f.getName().str());
      out += (a.getArgNo() ? ", " : "") + type(a.getType());
      if (a.hasNoAliasAttr()) out += " noalias";
      if (named) out += " " + name(&a);
    }
    if (f.isVarArg()) throw Unsupported("the variadic function " + f.getName().str());
    return out;
  }

  std::string fn_attrs(const llvm::Function& f) const {
    std::string out;
    if (&f == &kernel_ && entry_.always_inline) return " alwaysinline";  // not with noinline: LLVM refuses both
    if (f.hasFnAttribute(llvm::Attribute::AlwaysInline)) out += " alwaysinline";
    if (f.hasFnAttribute(llvm::Attribute::NoInline)) out += " noinline";
    return out;
  }

  void declare(const llvm::Function& f) {
    decls_[f.getName().str()] = "declare " + type(f.getReturnType()) + " " + global_name(f.getName()) + "(" +
                                params(f, false) + ")";
  }
  /// Declares an intrinsic by its LLVM 7 name and returns the callee's text.
  std::string intrinsic(const std::string& n, const std::string& ret, const std::vector<std::string>& param_types) {
    std::string ps;
    for (size_t i = 0; i < param_types.size(); ++i) ps += (i ? ", " : "") + param_types[i];
    decls_[n] = "declare " + ret + " @" + n + "(" + ps + ")";
    return "@" + n;
  }

  void write_function(const llvm::Function& f) {
    unsigned next = 0, blocks = 0;
    for (const llvm::Argument& a : f.args()) names_[&a] = "%a" + std::to_string(next++);
    for (const llvm::BasicBlock& bb : f) {
      names_[&bb] = "%b" + std::to_string(blocks++);
      for (const llvm::Instruction& i : bb)
        if (!i.getType()->isVoidTy()) names_[&i] = "%v" + std::to_string(next++);
    }
    const bool is_entry = &f == &kernel_;
    body_ << "define " << (is_entry ? "" : "internal ") << type(f.getReturnType()) << " "
          << global_name(f.getName()) << "(" << params(f, true) << ")" << fn_attrs(f) << " {\n";
    for (const llvm::BasicBlock& bb : f) {
      body_ << names_[&bb].substr(1) << ":\n";
      for (const llvm::Instruction& i : bb) instruction(i);
    }
    body_ << "}\n\n";
  }

  // --- instructions ---
  static std::string fmf(const llvm::Instruction& i) {
    if (!llvm::isa<llvm::FPMathOperator>(i)) return "";
    llvm::FastMathFlags f = i.getFastMathFlags();
    if (f.isFast()) return "fast ";
    std::string out;
    if (f.allowReassoc()) out += "reassoc ";
    if (f.noNaNs()) out += "nnan ";
    if (f.noInfs()) out += "ninf ";
    if (f.noSignedZeros()) out += "nsz ";
    if (f.allowReciprocal()) out += "arcp ";
    if (f.allowContract()) out += "contract ";
    if (f.approxFunc()) out += "afn ";
    return out;
  }

  void instruction(const llvm::Instruction& i) {
    using llvm::Instruction;
    const std::string res = i.getType()->isVoidTy() ? "" : name(&i) + " = ";
    switch (i.getOpcode()) {
      case Instruction::Alloca: {
        auto& a = llvm::cast<llvm::AllocaInst>(i);
        if (a.getAddressSpace() != 0) throw Unsupported("an alloca outside address space 0");
        const std::string t = temp();
        std::string size = a.isArrayAllocation() ? ", " + op(a.getArraySize()) : "";
        line(t + " = alloca " + type(a.getAllocatedType()) + size + ", align " + std::to_string(a.getAlign().value()));
        line(res + "bitcast " + typed_ptr(a.getAllocatedType(), 0) + " " + t + " to i8*");
        return;
      }
      case Instruction::Load: {
        // libNVVM refuses `load atomic` ("unsupported operation"): a volatile load (PTX's ld.volatile, relaxed),
        // with membars for an acquire or seq_cst ordering.
        auto& l = llvm::cast<llvm::LoadInst>(i);
        const std::string p = as_typed(l.getPointerOperand(), l.getType());
        const std::string pt = typed_ptr(l.getType(), l.getPointerAddressSpace());
        const auto order = l.isAtomic() ? l.getOrdering() : llvm::AtomicOrdering::NotAtomic;
        if (order == llvm::AtomicOrdering::SequentiallyConsistent) membar(l.getSyncScopeID());
        line(res + "load " + (l.isAtomic() || l.isVolatile() ? "volatile " : "") + type(l.getType()) + ", " + pt + " " +
             p + ", align " + std::to_string(l.getAlign().value()));
        if (llvm::isAcquireOrStronger(order)) membar(l.getSyncScopeID());
        return;
      }
      case Instruction::Store: {
        // As a load: `store atomic` becomes a volatile store, after a membar for release or seq_cst.
        auto& s = llvm::cast<llvm::StoreInst>(i);
        llvm::Type* t = s.getValueOperand()->getType();
        const std::string p = as_typed(s.getPointerOperand(), t);
        const auto order = s.isAtomic() ? s.getOrdering() : llvm::AtomicOrdering::NotAtomic;
        if (llvm::isReleaseOrStronger(order)) membar(s.getSyncScopeID());
        line(std::string("store ") + (s.isAtomic() || s.isVolatile() ? "volatile " : "") + op(s.getValueOperand()) +
             ", " + typed_ptr(t, s.getPointerAddressSpace()) + " " + p + ", align " +
             std::to_string(s.getAlign().value()));
        if (order == llvm::AtomicOrdering::SequentiallyConsistent) membar(s.getSyncScopeID());
        return;
      }
      case Instruction::GetElementPtr: {
        auto& g = llvm::cast<llvm::GetElementPtrInst>(i);
        if (!g.getType()->isPointerTy()) throw Unsupported("a getelementptr over a vector of pointers");
        const unsigned as = g.getAddressSpace();
        const std::string p = as_typed(g.getPointerOperand(), g.getSourceElementType());
        std::string out = std::string("getelementptr ") + (g.isInBounds() ? "inbounds " : "") +
                          type(g.getSourceElementType()) + ", " + typed_ptr(g.getSourceElementType(), as) + " " + p;
        for (auto it = g.idx_begin(); it != g.idx_end(); ++it) out += ", " + op(*it);
        if (g.getResultElementType()->isIntegerTy(8)) {
          line(res + out);
        } else {
          const std::string t = temp();
          line(t + " = " + out);
          line(res + "bitcast " + typed_ptr(g.getResultElementType(), as) + " " + t + " to " + type(g.getType()));
        }
        return;
      }
      case Instruction::FNeg:
        line(res + "fsub " + fmf(i) + type(i.getType()) + " " + negative_zero(i.getType()) + ", " +
             val(i.getOperand(0)));
        return;
      case Instruction::Freeze: return;  // its name is its operand's (name())
      case Instruction::ICmp:
      case Instruction::FCmp: {
        auto& c = llvm::cast<llvm::CmpInst>(i);
        line(res + (c.isIntPredicate() ? "icmp " : "fcmp ") + fmf(i) +
             llvm::CmpInst::getPredicateName(c.getPredicate()).str() + " " + op(c.getOperand(0)) + ", " +
             val(c.getOperand(1)));
        return;
      }
      case Instruction::Select:
        line(res + "select " + op(i.getOperand(0)) + ", " + op(i.getOperand(1)) + ", " + op(i.getOperand(2)));
        return;
      case Instruction::PHI: {
        auto& p = llvm::cast<llvm::PHINode>(i);
        std::string out = res + "phi " + type(p.getType());
        for (unsigned k = 0; k < p.getNumIncomingValues(); ++k)
          out += std::string(k ? "," : "") + " [ " + val(p.getIncomingValue(k)) + ", " + name(p.getIncomingBlock(k)) +
                 " ]";
        line(out);
        return;
      }
      case Instruction::Br: {
        auto& b = llvm::cast<llvm::BranchInst>(i);
        if (b.isUnconditional()) {
          line("br label " + name(b.getSuccessor(0)));
        } else {
          line("br " + op(b.getCondition()) + ", label " + name(b.getSuccessor(0)) + ", label " +
               name(b.getSuccessor(1)));
        }
        return;
      }
      case Instruction::Switch: {
        auto& s = llvm::cast<llvm::SwitchInst>(i);
        std::string out = "switch " + op(s.getCondition()) + ", label " + name(s.getDefaultDest()) + " [";
        for (auto& c : s.cases()) out += " " + op(c.getCaseValue()) + ", label " + name(c.getCaseSuccessor());
        line(out + " ]");
        return;
      }
      case Instruction::Ret:
        line(i.getNumOperands() ? "ret " + op(i.getOperand(0)) : "ret void");
        return;
      case Instruction::Unreachable: line("unreachable"); return;
      case Instruction::ExtractValue: {
        auto& e = llvm::cast<llvm::ExtractValueInst>(i);
        std::string out = res + "extractvalue " + op(e.getAggregateOperand());
        for (unsigned k : e.indices()) out += ", " + std::to_string(k);
        line(out);
        return;
      }
      case Instruction::InsertValue: {
        auto& e = llvm::cast<llvm::InsertValueInst>(i);
        std::string out = res + "insertvalue " + op(e.getAggregateOperand()) + ", " + op(e.getInsertedValueOperand());
        for (unsigned k : e.indices()) out += ", " + std::to_string(k);
        line(out);
        return;
      }
      case Instruction::ExtractElement:
        line(res + "extractelement " + op(i.getOperand(0)) + ", " + op(i.getOperand(1)));
        return;
      case Instruction::InsertElement:
        line(res + "insertelement " + op(i.getOperand(0)) + ", " + op(i.getOperand(1)) + ", " + op(i.getOperand(2)));
        return;
      case Instruction::ShuffleVector: {
        auto& s = llvm::cast<llvm::ShuffleVectorInst>(i);
        std::string mask;
        for (int m : s.getShuffleMask()) mask += (mask.empty() ? "" : ", ") + (m < 0 ? std::string("i32 undef") : "i32 " + std::to_string(m));
        line(res + "shufflevector " + op(s.getOperand(0)) + ", " + op(s.getOperand(1)) + ", <" +
             std::to_string(s.getShuffleMask().size()) + " x i32> <" + mask + ">");
        return;
      }
      case Instruction::AtomicRMW: atomic_rmw(llvm::cast<llvm::AtomicRMWInst>(i), res); return;
      case Instruction::AtomicCmpXchg: {
        auto& c = llvm::cast<llvm::AtomicCmpXchgInst>(i);
        llvm::Type* t = c.getCompareOperand()->getType();
        const std::string p = as_typed(c.getPointerOperand(), t);
        line(res + "cmpxchg " + (c.isWeak() ? "weak " : "") + (c.isVolatile() ? "volatile " : "") +
             typed_ptr(t, c.getPointerAddressSpace()) + " " + p + ", " + op(c.getCompareOperand()) + ", " +
             op(c.getNewValOperand()) + " " + llvm::toIRString(c.getSuccessOrdering()) + " " +
             llvm::toIRString(c.getFailureOrdering()));
        return;
      }
      case Instruction::Fence:  // libNVVM refuses `fence`: NVVM's membar of the fence's scope
        membar(llvm::cast<llvm::FenceInst>(i).getSyncScopeID());
        return;
      case Instruction::Call: call(llvm::cast<llvm::CallInst>(i), res); return;
      default: break;
    }
    if (i.isBinaryOp()) {
      std::string flags;
      if (llvm::isa<llvm::OverflowingBinaryOperator>(i)) {
        if (i.hasNoUnsignedWrap()) flags += "nuw ";
        if (i.hasNoSignedWrap()) flags += "nsw ";
      }
      if (llvm::isa<llvm::PossiblyExactOperator>(i) && i.isExact()) flags += "exact ";
      line(res + i.getOpcodeName() + " " + flags + fmf(i) + op(i.getOperand(0)) + ", " + val(i.getOperand(1)));
      return;
    }
    if (auto* c = llvm::dyn_cast<llvm::CastInst>(&i)) {
      if (c->getOpcode() == Instruction::BitCast && c->getType()->isPointerTy()) {
        line(res + "bitcast " + op(c->getOperand(0)) + " to " + type(c->getType()));  // i8* to i8*: a copy
        return;
      }
      line(res + c->getOpcodeName() + " " + op(c->getOperand(0)) + " to " + type(c->getType()));
      return;
    }
    throw Unsupported(std::string("the instruction '") + i.getOpcodeName() + "'");
  }

  /// A memory barrier for a fence or an ordered atomic of `scope`: membar.cta for the block, membar.gl for a
  /// cluster or the device, membar.sys for the system (LLVM's default scope).
  void membar(llvm::SyncScope::ID scope) {
    std::string level = "sys";
    if (scope == llvm::SyncScope::SingleThread) {
      level = "cta";
    } else if (scope != llvm::SyncScope::System) {
      const std::optional<llvm::StringRef> n = m_.getContext().getSyncScopeName(scope);
      if (n && *n == "block") level = "cta";
      else if (n && (*n == "device" || *n == "cluster")) level = "gl";
    }
    line("call void " + intrinsic("llvm.nvvm.membar." + level, "void", {}) + "()");
  }

  static std::string negative_zero(llvm::Type* t) {
    if (t->isHalfTy()) return "0xH8000";
    if (t->isFloatTy() || t->isDoubleTy()) return hex_double(-0.0);
    throw Unsupported("fneg of " + type(t));
  }

  void atomic_rmw(const llvm::AtomicRMWInst& a, const std::string& res) {
    llvm::Type* t = a.getValOperand()->getType();
    const unsigned as = a.getPointerAddressSpace();
    const std::string p = as_typed(a.getPointerOperand(), t);
    using Op = llvm::AtomicRMWInst::BinOp;
    if (a.getOperation() == Op::FAdd && (t->isFloatTy() || t->isDoubleTy())) {
      // LLVM 7 has no atomicrmw fadd; NVVM's intrinsic is atom.add.f32/f64 (relaxed, like numba's).
      const std::string ft = t->isFloatTy() ? "f32" : "f64";
      const std::string callee = intrinsic("llvm.nvvm.atomic.load.add." + ft + ".p" + std::to_string(as) + ft,
                                           type(t), {typed_ptr(t, as), type(t)});
      line(res + "call " + type(t) + " " + callee + "(" + typed_ptr(t, as) + " " + p + ", " + op(a.getValOperand()) + ")");
      return;
    }
    if ((a.getOperation() == Op::UIncWrap || a.getOperation() == Op::UDecWrap) && t->isIntegerTy(32)) {
      // numba's atomic.inc/dec: PTX's atom.inc/dec.u32, LLVM 7's llvm.nvvm.atomic.load.inc/dec.32.
      const std::string n = std::string("llvm.nvvm.atomic.load.") + (a.getOperation() == Op::UIncWrap ? "inc" : "dec") +
                            ".32.p" + std::to_string(as) + "i32";
      const std::string callee = intrinsic(n, "i32", {typed_ptr(t, as), "i32"});
      line(res + "call i32 " + callee + "(" + typed_ptr(t, as) + " " + p + ", " + op(a.getValOperand()) + ")");
      return;
    }
    if (a.getOperation() == Op::Xchg && (t->isFloatTy() || t->isDoubleTy())) {
      // LLVM 7's xchg takes integers only: exchange the bits.
      const std::string it = t->isFloatTy() ? "i32" : "i64", v = temp(), q = temp(), r = temp();
      line(v + " = bitcast " + op(a.getValOperand()) + " to " + it);
      line(q + " = bitcast " + typed_ptr(t, as) + " " + p + " to " + it + addrspace(as) + "*");
      line(r + " = atomicrmw " + (a.isVolatile() ? "volatile " : "") + "xchg " + it + addrspace(as) + "* " + q + ", " +
           it + " " + v + " " + llvm::toIRString(a.getOrdering()));
      line(res + "bitcast " + it + " " + r + " to " + type(t));
      return;
    }
    if (!t->isIntegerTy()) throw Unsupported("atomicrmw " + llvm::AtomicRMWInst::getOperationName(a.getOperation()).str() + " on " + type(t));
    switch (a.getOperation()) {
      case Op::Xchg: case Op::Add: case Op::Sub: case Op::And: case Op::Nand: case Op::Or: case Op::Xor:
      case Op::Max: case Op::Min: case Op::UMax: case Op::UMin: break;
      default:
        throw Unsupported("atomicrmw " + llvm::AtomicRMWInst::getOperationName(a.getOperation()).str());
    }
    line(res + "atomicrmw " + (a.isVolatile() ? "volatile " : "") +
         llvm::AtomicRMWInst::getOperationName(a.getOperation()).str() + " " + typed_ptr(t, as) + " " + p + ", " +
         op(a.getValOperand()) + " " + llvm::toIRString(a.getOrdering()));
  }

  std::string args(const llvm::CallInst& c) {
    std::string out;
    for (unsigned k = 0; k < c.arg_size(); ++k) out += (k ? ", " : "") + op(c.getArgOperand(k));
    return out;
  }

  void call(const llvm::CallInst& c, const std::string& res) {
    const std::string rt = type(c.getType());
    if (auto* asm_ = llvm::dyn_cast<llvm::InlineAsm>(c.getCalledOperand())) {
      for (unsigned k = 0; k < c.arg_size(); ++k)
        if (c.getParamElementType(k)) throw Unsupported("inline assembly with a memory operand");
      line(res + "call " + rt + " asm " + (asm_->hasSideEffects() ? "sideeffect " : "") +
           (asm_->isAlignStack() ? "alignstack " : "") + quoted(asm_->getAsmString()) + ", " +
           quoted(asm_->getConstraintString()) + "(" + args(c) + ")");
      return;
    }
    const llvm::Function* f = c.getCalledFunction();
    if (!f) throw Unsupported("an indirect call");
    if (f->isIntrinsic()) {
      call_intrinsic(c, *f, res);
      return;
    }
    line(res + "call " + rt + " " + global_name(f->getName()) + "(" + args(c) + ")");
  }

  void call_intrinsic(const llvm::CallInst& c, const llvm::Function& f, const std::string& res) {
    using namespace llvm::Intrinsic;
    const std::string rt = type(c.getType());
    auto arg = [&](unsigned k) { return op(c.getArgOperand(k)); };
    auto plain = [&](const std::string& n) {
      std::vector<std::string> ps;
      for (const llvm::Value* a : c.args()) ps.push_back(type(a->getType()));
      line(res + "call " + rt + " " + intrinsic(n, rt, ps) + "(" + args(c) + ")");
    };
    switch (f.getIntrinsicID()) {
      case lifetime_start: case lifetime_end: case assume: case experimental_noalias_scope_decl: case sideeffect:
      case invariant_start: case invariant_end: case dbg_declare: case dbg_value: case dbg_label: case donothing:
        return;
      case smax: case smin: case umax: case umin: {
        const auto id = f.getIntrinsicID();
        const char* pred = id == smax ? "sgt" : id == smin ? "slt" : id == umax ? "ugt" : "ult";
        const std::string t = temp();
        line(t + " = icmp " + pred + " " + arg(0) + ", " + val(c.getArgOperand(1)));
        line(res + "select i1 " + t + ", " + arg(0) + ", " + arg(1));
        return;
      }
      case llvm::Intrinsic::abs: {
        const std::string neg = temp(), lt = temp();
        line(neg + " = sub " + rt + " 0, " + val(c.getArgOperand(0)));
        line(lt + " = icmp slt " + arg(0) + ", 0");
        line(res + "select i1 " + lt + ", " + rt + " " + neg + ", " + arg(0));
        return;
      }
      case ptrmask: {
        const std::string it = type(c.getArgOperand(1)->getType()), a = temp(), b = temp();
        line(a + " = ptrtoint " + arg(0) + " to " + it);
        line(b + " = and " + it + " " + a + ", " + val(c.getArgOperand(1)));
        line(res + "inttoptr " + it + " " + b + " to " + rt);
        return;
      }
      case fptosi_sat: case fptoui_sat: {
        // PTX's cvt.rzi saturates and gives 0 for NaN, as fptosi.sat does; NVVM's f2i/d2ll intrinsics are it.
        llvm::Type* from = c.getArgOperand(0)->getType();
        const unsigned bits = c.getType()->getIntegerBitWidth();
        if (!(from->isFloatTy() || from->isDoubleTy()) || (bits != 32 && bits != 64))
          throw Unsupported("llvm." + std::string(f.getIntrinsicID() == fptosi_sat ? "fptosi" : "fptoui") +
                            ".sat from " + type(from) + " to " + rt);
        const bool is_signed = f.getIntrinsicID() == fptosi_sat;
        const std::string n = std::string("llvm.nvvm.") + (from->isFloatTy() ? "f" : "d") + "2" +
                              (bits == 32 ? (is_signed ? "i" : "ui") : (is_signed ? "ll" : "ull")) + ".rz";
        line(res + "call " + rt + " " + intrinsic(n, rt, {type(from)}) + "(" + arg(0) + ")");
        return;
      }
      case llvm::Intrinsic::roundeven: plain("llvm.rint." + f.getName().rsplit('.').second.str()); return;
      case powi: plain(f.getName().rsplit('.').first.str()); return;  // llvm.powi.f64.i32 -> llvm.powi.f64
      case llvm::Intrinsic::memcpy: case llvm::Intrinsic::memmove: case llvm::Intrinsic::memset: {
        std::string n = f.getIntrinsicID() == llvm::Intrinsic::memcpy ? "llvm.memcpy" : f.getIntrinsicID() == llvm::Intrinsic::memmove ? "llvm.memmove" : "llvm.memset";
        n += ".p" + std::to_string(c.getArgOperand(0)->getType()->getPointerAddressSpace()) + "i8";
        if (f.getIntrinsicID() != llvm::Intrinsic::memset)
          n += ".p" + std::to_string(c.getArgOperand(1)->getType()->getPointerAddressSpace()) + "i8";
        n += "." + type(c.getArgOperand(2)->getType());
        plain(n);
        return;
      }
      case nvvm_barrier_cta_sync_aligned_all: {
        auto* id = llvm::dyn_cast<llvm::ConstantInt>(c.getArgOperand(0));
        if (id && id->isZero()) {
          line("call void " + intrinsic("llvm.nvvm.barrier0", "void", {}) + "()");
        } else {
          line("call void " + intrinsic("llvm.nvvm.barrier.n", "void", {"i32"}) + "(" + arg(0) + ")");
        }
        return;
      }
      case nvvm_barrier_cta_red_popc_aligned_all: case nvvm_barrier_cta_red_and_aligned_all:
      case nvvm_barrier_cta_red_or_aligned_all: {
        auto* id = llvm::dyn_cast<llvm::ConstantInt>(c.getArgOperand(0));
        if (!id || !id->isZero()) throw Unsupported("a reducing barrier other than barrier 0");
        const auto i = f.getIntrinsicID();
        const std::string n = i == nvvm_barrier_cta_red_popc_aligned_all ? "llvm.nvvm.barrier0.popc"
                              : i == nvvm_barrier_cta_red_and_aligned_all ? "llvm.nvvm.barrier0.and"
                                                                            : "llvm.nvvm.barrier0.or";
        // LLVM 7's take the predicate as i32, and the and/or forms return i32.
        const std::string p = temp();
        line(p + " = zext " + arg(1) + " to i32");
        if (c.getType()->isIntegerTy(32)) {
          line(res + "call i32 " + intrinsic(n, "i32", {"i32"}) + "(i32 " + p + ")");
        } else {
          const std::string r = temp();
          line(r + " = call i32 " + intrinsic(n, "i32", {"i32"}) + "(i32 " + p + ")");
          line(res + "icmp ne i32 " + r + ", 0");
        }
        return;
      }
      case nvvm_exit:
        line("call void asm sideeffect \"exit;\", \"\"()");
        return;
      case nvvm_read_ptx_sreg_dynamic_smem_size:
        line(res + "call i32 asm \"mov.u32 $0, %dynamic_smem_size;\", \"=r\"()");
        return;
      default: break;
    }
    for (const llvm::Value* a : c.args())
      if (a->getType()->isPointerTy())
        throw Unsupported("the intrinsic " + f.getName().str() + " (it takes a pointer)");
    const llvm::StringRef n = f.getName();
    static const char* const kKnown[] = {
        "llvm.nvvm.", "llvm.sqrt.", "llvm.fabs.", "llvm.minnum.", "llvm.maxnum.", "llvm.floor.", "llvm.ceil.",
        "llvm.trunc.", "llvm.round.", "llvm.rint.", "llvm.nearbyint.", "llvm.copysign.", "llvm.fma.",
        "llvm.fmuladd.", "llvm.ctlz.", "llvm.cttz.", "llvm.ctpop.", "llvm.bitreverse.", "llvm.bswap.", "llvm.fshl.",
        "llvm.fshr.", "llvm.sin.", "llvm.cos.", "llvm.exp.", "llvm.exp2.", "llvm.log.", "llvm.log2.", "llvm.log10.",
        "llvm.pow.", "llvm.sadd.with.overflow.", "llvm.uadd.with.overflow.", "llvm.ssub.with.overflow.",
        "llvm.usub.with.overflow.", "llvm.smul.with.overflow.", "llvm.umul.with.overflow."};
    for (const char* k : kKnown) {
      if (n.starts_with(k)) {
        plain(n.str());
        return;
      }
    }
    throw Unsupported("the intrinsic " + n.str() + " (newer than LLVM 7)");
  }

  // --- metadata ---
  /// A kernel's annotations (one node per property, as NVVM IR's spec writes them; a device function has
  /// none), the IR version, the ftz flag libdevice's __nvvm_reflect reads; and @llvm.used naming the entry,
  /// without which an LTO link (nvJitLink -lto) drops it as unreferenced.
  std::string metadata() {
    const std::string fn = type(kernel_.getFunctionType()) + "* " + global_name(kernel_.getName());
    std::vector<std::string> annotations;
    if (entry_.kernel) annotations.push_back("!{" + fn + ", !\"kernel\", i32 1}");
    auto annotate = [&](const char* attr, const char* property) {
      if (!entry_.kernel || !kernel_.hasFnAttribute(attr)) return;
      const long n = std::strtol(kernel_.getFnAttribute(attr).getValueAsString().str().c_str(), nullptr, 10);
      annotations.push_back("!{" + fn + ", !\"" + property + "\", i32 " + std::to_string(n) + "}");
    };
    annotate("nvvm.maxntid", "maxntidx");  // "N,1,1": strtol reads N
    annotate("nvvm.minctasm", "minctasm");
    annotate("nvvm.maxclusterrank", "cluster_max_blocks");
    annotate("nvvm.maxnreg", "maxnreg");
    std::vector<std::string> nodes;
    std::string out = "@llvm.used = appending global [1 x i8*] [i8* bitcast (" + fn +
                      " to i8*)], section \"llvm.metadata\"\n\n";
    if (!annotations.empty()) {
      out += "!nvvm.annotations = !{";
      for (size_t k = 0; k < annotations.size(); ++k) {
        out += (k ? ", !" : "!") + std::to_string(nodes.size());
        nodes.push_back(annotations[k]);
      }
      out += "}\n";
    }
    out += "!nvvmir.version = !{!" + std::to_string(nodes.size()) + "}\n";
    nodes.push_back("!{i32 2, i32 0}");
    if (auto* ftz = llvm::mdconst::extract_or_null<llvm::ConstantInt>(m_.getModuleFlag("nvvm-reflect-ftz"))) {
      out += "!llvm.module.flags = !{!" + std::to_string(nodes.size()) + "}\n";
      nodes.push_back("!{i32 4, !\"nvvm-reflect-ftz\", i32 " + std::to_string(ftz->getZExtValue()) + "}");
    }
    for (size_t k = 0; k < nodes.size(); ++k) out += "!" + std::to_string(k) + " = " + nodes[k] + "\n";
    return out;
  }

  const llvm::Module& m_;
  const llvm::Function& kernel_;  // the entry, a kernel or a device function
  NvvmIrEntry entry_;
  std::map<const llvm::Value*, std::string> names_;
  std::map<std::string, std::string> decls_;
  std::ostringstream body_;
  unsigned temps_ = 0;
};

}  // namespace

bool write_nvvm_ir(const llvm::Module& module, const NvvmIrEntry& entry, std::string* out, std::string* error) {
  try {
    *out = Writer(module, entry).write();
    return true;
  } catch (const Unsupported& e) {
    *error = std::string("the NVVM IR writer cannot write ") + e.what();
    return false;
  }
}

}  // namespace gpujit
