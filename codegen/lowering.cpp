// Module-level lowering: types, functions, the kernel's argument ABI, and the entry point lower_program().
//
// The kernel's LLVM signature is the flattened array ABI of DESIGN.md: an array argument becomes its data
// pointer, then ndim int64 shapes, then ndim int64 strides in bytes (int32 both for an index32 array); a
// tuple argument becomes its elements' parameters in order; a bool is passed as one byte. Inside the kernel each argument is rebuilt into its
// value representation (function_lowering.h) and stored in the parameter's local slot.
//
// Pointers are not marked noalias, as numba does not mark them: NumPy semantics let a kernel receive the same
// array twice (an in-place `a[i] = a[i] + b[i]` launched with a is b), and noalias would miscompile that. The
// loads of an elementwise kernel are independent of each other anyway, and the index math that feeds them is
// built so LLVM can narrow it (grid indices are zero-extended from 32-bit registers with known ranges).
//
// Line information (lineinfo=True) is debug info of the smallest kind: one compile unit that asks for
// DebugDirectivesOnly (NVPTX then emits `.file` and `.loc` and no .debug_info section, as nvcc -lineinfo),
// a DISubprogram per function, and statement locations (lower_stmt.cpp). It never changes the code.
// debug=True (CompileOptions::debug_info) asks for full DWARF instead: the same, plus a .debug_info
// section describing the compile unit, the functions and every Python variable, for cuda-gdb
// (codegen/debug_info.h). The variables' llvm.dbg.declares are made in FunctionLowering's constructor.
#include "codegen/lowering.h"

#include <functional>
#include <set>

#include <llvm/IR/ConstantRange.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "codegen/function_lowering.h"
#include "ir/enum_type.h"

namespace gpujit {

// ---------------------------------------------------------------------------------------------------------
// ModuleLowering

ModuleLowering::ModuleLowering(const TypedProgram& program, const GlobalEnv& globals, Target& target,
                               llvm::Module& module, bool fastmath, Diagnostics& diags, bool bounds_check)
    : program_(program),
      globals_(globals),
      target_(target),
      module_(module),
      fastmath_(fastmath),
      bounds_check_(bounds_check),
      diags_(diags) {}

ModuleLowering::~ModuleLowering() = default;

llvm::Type* ModuleLowering::llvm_type(const Type& t) {
  llvm::LLVMContext& c = ctx();
  switch (t.kind) {
    case Type::Kind::Void:
      return llvm::Type::getVoidTy(c);
    case Type::Kind::None:
    case Type::Kind::GridGroup:  // no data: g.sync() needs none
    case Type::Kind::Class:      // a dtype argument: compile-time only
    case Type::Kind::Opaque:     // a library's opaque type: compile-time only (ir/opaque_type.h)
      return llvm::StructType::get(c);
    case Type::Kind::Array:
      return array_struct_type(t.ndim);
    case Type::Kind::Record:
    case Type::Kind::Pointer:
      return llvm::PointerType::get(c, 0);
    case Type::Kind::EnumMember:  // its value (ir/enum_type.h)
      return llvm_type(t.enum_class->value_type);
    case Type::Kind::CharSeq:  // its code units (codegen/text_lowering.cpp)
      return llvm::ArrayType::get(llvm::Type::getIntNTy(c, 8 * scalar_size(t.scalar)), t.length);
    case Type::Kind::Vector:  // codegen/vector_lowering.cpp
      return llvm::FixedVectorType::get(llvm_type(Type::scalar_of(t.scalar)), t.lanes);
    case Type::Kind::Tuple: {
      std::vector<llvm::Type*> elts;
      for (const Type& e : t.elements) elts.push_back(llvm_type(e));
      return llvm::StructType::get(c, elts);
    }
    case Type::Kind::Scalar:
      switch (t.scalar) {
        case ScalarKind::Bool:
          return llvm::Type::getInt1Ty(c);
        case ScalarKind::Int8:
        case ScalarKind::UInt8:
          return llvm::Type::getInt8Ty(c);
        case ScalarKind::Int16:
        case ScalarKind::UInt16:
          return llvm::Type::getInt16Ty(c);
        case ScalarKind::Int32:
        case ScalarKind::UInt32:
          return llvm::Type::getInt32Ty(c);
        case ScalarKind::Int64:
        case ScalarKind::UInt64:
          return llvm::Type::getInt64Ty(c);
        case ScalarKind::Float16:
          return llvm::Type::getHalfTy(c);
        case ScalarKind::Float32:
          return llvm::Type::getFloatTy(c);
        case ScalarKind::Float64:
          return llvm::Type::getDoubleTy(c);
        case ScalarKind::Complex64: {  // {re, im}, NumPy's layout (codegen/complex_lowering.cpp)
          llvm::Type* f = llvm::Type::getFloatTy(c);
          return llvm::StructType::get(c, {f, f});
        }
        case ScalarKind::Complex128: {
          llvm::Type* d = llvm::Type::getDoubleTy(c);
          return llvm::StructType::get(c, {d, d});
        }
        case ScalarKind::BFloat16:
          return llvm::Type::getBFloatTy(c);
        default:
          if (is_npdatetime(t.scalar)) return llvm::Type::getInt64Ty(c);  // codegen/datetime_lowering.cpp
          if (is_fp8(t.scalar)) return llvm::Type::getInt8Ty(c);  // its bits (codegen/fp8_lowering.cpp)
          break;
      }
      break;
    case Type::Kind::Invalid:
      break;
  }
  throw InternalError("codegen: no LLVM type for '" + t.str() + "'");
}

llvm::Type* ModuleLowering::memory_type(ScalarKind k) {
  if (k == ScalarKind::Bool) return llvm::Type::getInt8Ty(ctx());
  return llvm_type(Type::scalar_of(k));
}

llvm::Type* ModuleLowering::element_memory_type(const Type& element) {
  if (element.is_record()) return llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx()), element.record->size);
  if (element.is_charseq()) return llvm_type(element);
  return memory_type(element.scalar);
}

llvm::StructType* ModuleLowering::array_struct_type(unsigned ndim) {
  llvm::LLVMContext& c = ctx();
  llvm::Type* dims = llvm::ArrayType::get(llvm::Type::getInt64Ty(c), ndim);
  return llvm::StructType::get(c, {llvm::PointerType::get(c, 0), dims, dims});
}

llvm::Function* ModuleLowering::device_function(const TypedFunction& fn) {
  if (auto it = functions_.find(&fn); it != functions_.end()) return it->second;
  std::vector<llvm::Type*> params;
  // A parameter of no size (an empty tuple, None, a compile-time argument: a dtype, a function) passes
  // nothing and is left out: NVPTX's code generator refuses empty parameter types, which the optimizer's
  // inlining hides at -O1 and above but not at -O0 (debug=True).
  for (const Type& p : fn.signature.params)
    if (llvm::Type* t = llvm_type(p); !t->isEmptyTy()) params.push_back(t);
  llvm::Type* ret = llvm_type(fn.signature.ret.is_valid() ? fn.signature.ret : Type::void_());
  auto* type = llvm::FunctionType::get(ret, params, false);
  std::string name = fn.mangled_name.empty() ? fn.name : fn.mangled_name;
  // An internal function's symbol has its Python name length-prefixed, as Itanium (and numba) mangle:
  // _gpujit_8set_zero_<hash>, so that neither a reader nor a search confuses set_zero with call_set_zero.
  if (std::string plain = "_gpujit_" + fn.name + "_"; name.starts_with(plain))
    name = "_gpujit_" + std::to_string(fn.name.size()) + name.substr(plain.size() - 1 - fn.name.size());
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module_);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  functions_[&fn] = f;
  return f;
}

llvm::Function* ModuleLowering::int_pow_function(unsigned bits, bool is_signed) {
  auto key = std::make_pair(bits, is_signed);
  if (auto it = int_pow_.find(key); it != int_pow_.end()) return it->second;
  llvm::LLVMContext& c = ctx();
  llvm::IntegerType* t = llvm::IntegerType::get(c, bits);
  auto* f = llvm::Function::Create(
      llvm::FunctionType::get(t, {t, t}, false), llvm::GlobalValue::InternalLinkage,
      "gpujit.ipow." + std::string(is_signed ? "i" : "u") + std::to_string(bits), module_);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* base = f->getArg(0);
  llvm::Value* exp = f->getArg(1);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
  llvm::BasicBlock* negative = llvm::BasicBlock::Create(c, "negative", f);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(c, "loop", f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(c, "done", f);
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::BasicBlock* entry = b.GetInsertBlock();
  if (is_signed) {
    b.CreateCondBr(b.CreateICmpSLT(exp, zero), negative, loop);
  } else {
    b.CreateBr(loop);
  }

  // A negative exponent (signed types only), as numba: 1 ** -n is 1, (-1) ** -n is +-1 by parity, any
  // other base gives 0 (the integer part of 1 / base**n; 0 ** -n gives 0 too, where Python raises).
  b.SetInsertPoint(negative);
  llvm::Value* odd = b.CreateTrunc(exp, b.getInt1Ty());
  llvm::Value* minus_one_result = b.CreateSelect(odd, llvm::ConstantInt::getSigned(t, -1), one);
  llvm::Value* neg_result = b.CreateSelect(
      b.CreateICmpEQ(base, one), one,
      b.CreateSelect(b.CreateICmpEQ(base, llvm::ConstantInt::getSigned(t, -1)), minus_one_result, zero));
  b.CreateBr(done);

  // Exponentiation by squaring; wraps on overflow like every integer operation.
  b.SetInsertPoint(loop);
  llvm::PHINode* acc = b.CreatePHI(t, 2, "acc");
  llvm::PHINode* x = b.CreatePHI(t, 2, "x");
  llvm::PHINode* e = b.CreatePHI(t, 2, "e");
  acc->addIncoming(one, entry);
  x->addIncoming(base, entry);
  e->addIncoming(exp, entry);
  llvm::Value* exhausted = b.CreateICmpEQ(e, zero);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(c, "body", f, done);
  b.CreateCondBr(exhausted, done, body);
  b.SetInsertPoint(body);
  llvm::Value* bit = b.CreateTrunc(e, b.getInt1Ty());
  llvm::Value* next_acc = b.CreateSelect(bit, b.CreateMul(acc, x), acc);
  llvm::Value* next_x = b.CreateMul(x, x);
  llvm::Value* next_e = b.CreateLShr(e, one);
  acc->addIncoming(next_acc, body);
  x->addIncoming(next_x, body);
  e->addIncoming(next_e, body);
  b.CreateBr(loop);

  b.SetInsertPoint(done);
  llvm::PHINode* result = b.CreatePHI(t, 2, "result");
  result->addIncoming(acc, loop);
  if (is_signed) {
    result->addIncoming(neg_result, negative);
  } else {
    negative->eraseFromParent();
  }
  b.CreateRet(result);
  int_pow_[key] = f;
  return f;
}

// ---------------------------------------------------------------------------------------------------------
// Line information

void ModuleLowering::enable_line_info(const FunctionDef& kernel, bool dwarf) {
  debug_ = std::make_unique<DebugInfo>(module_, kernel, dwarf);
}

void ModuleLowering::attach_line_info(llvm::Function& fn, const TypedFunction& typed) {
  if (debug_) debug_->attach(fn, typed);
}

void ModuleLowering::finish_line_info() {
  if (debug_) debug_->finalize();
}

// ---------------------------------------------------------------------------------------------------------
// FunctionLowering: set-up, entry blocks and shared helpers

FunctionLowering::FunctionLowering(ModuleLowering& m, const TypedFunction& fn, llvm::Function* llvm_fn)
    : m_(m), fn_(fn), llvm_fn_(llvm_fn), b_(m.ctx()) {
  alloca_block_ = llvm::BasicBlock::Create(m.ctx(), "entry", llvm_fn);
  b_.SetInsertPoint(alloca_block_);
  // With line information, the prologue (parameter stores) and the implicit return are the `def` line's.
  if (llvm::DISubprogram* sp = llvm_fn->getSubprogram()) {
    b_.SetCurrentDebugLocation(
        llvm::DILocation::get(m.ctx(), fn.def->range.begin.line, fn.def->range.begin.col, sp));
  }
  if (m.fastmath()) b_.setFastMathFlags(llvm::FastMathFlags::getFast());
  // Every local gets its slot up front, zeroed: a variable assigned on some paths only reads as zero (Python
  // would raise UnboundLocalError; numba reads garbage), and mem2reg folds the zero away where unused.
  for (const auto& [name, type] : fn.locals) {
    if (!type.is_valid() || type.is_void()) continue;
    llvm::Type* t = llvm_type(type);
    llvm::AllocaInst* slot = b_.CreateAlloca(t, nullptr, name);
    llvm::StoreInst* zero = b_.CreateStore(llvm::Constant::getNullValue(t), slot);
    locals_[name] = slot;
    if (DebugInfo* di = m.variable_info()) declare_variable(*di, slot, zero, name, type);
  }
}

void FunctionLowering::declare_variable(DebugInfo& di, llvm::AllocaInst* slot, llvm::Instruction* after,
                                        const std::string& name, const Type& type) {
  // A parameter is argument i + 1 (DWARF's numbering); any other variable an automatic one. Both are placed
  // on the `def` line: a variable's slot lives for the whole call.
  unsigned arg_no = 0;
  const auto& params = fn_.def->params;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name) arg_no = unsigned(i + 1);
  di.declare(*llvm_fn_, slot, after, name, type, arg_no, fn_.def->range.begin.line, fn_.def->range.begin.col);
}

llvm::AllocaInst* FunctionLowering::entry_alloca(llvm::Type* t, const std::string& name) {
  llvm::IRBuilder<> tmp(alloca_block_, alloca_block_->begin());
  return tmp.CreateAlloca(t, nullptr, name);
}

llvm::Value* FunctionLowering::local_slot(const std::string& name) {
  auto it = locals_.find(name);
  if (it == locals_.end()) internal("no slot for local '" + name + "' in " + fn_.name);
  return it->second;
}

llvm::BasicBlock* FunctionLowering::new_block(const std::string& name) {
  return llvm::BasicBlock::Create(m_.ctx(), name, llvm_fn_);
}

llvm::Value* FunctionLowering::unsupported(const Expr& e, const std::string& message) {
  m_.diags().error(fn_.def->file, e.range, message);
  const Type& t = type_of(e);
  llvm::Type* lt = t.is_void() ? llvm::StructType::get(m_.ctx()) : llvm_type(t);
  return llvm::PoisonValue::get(lt);
}

void FunctionLowering::internal(const std::string& message) const {
  throw InternalError("codegen: " + message);
}

void FunctionLowering::lower_device_function() {
  // `*args` is one more parameter, the tuple of the extra arguments (ir/sema_device_call.cpp).
  std::vector<const Param*> params;
  for (const Param& p : fn_.def->params) params.push_back(&p);
  if (fn_.def->vararg) params.push_back(&*fn_.def->vararg);
  if (params.size() != fn_.signature.params.size()) internal("signature arity differs from the definition");
  unsigned next = 0;  // the LLVM argument of the next parameter that has a size (ModuleLowering::device_function)
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& name = params[i]->name;
    llvm::Type* type = llvm_type(fn_.signature.params[i]);
    llvm::Value* arg = llvm::Constant::getNullValue(type);
    if (!type->isEmptyTy()) {
      arg = llvm_fn_->getArg(next++);
      arg->setName(name);
    }
    // A compile-time argument (None-typed, ir/sema_device_call.cpp) is no variable: nothing to store.
    if (fn_.signature.params[i].kind == Type::Kind::None && !locals_.count(name)) continue;
    const Type& local = fn_.locals.count(name) ? fn_.locals.at(name) : fn_.signature.params[i];
    b_.CreateStore(cast(arg, fn_.signature.params[i], local), local_slot(name));
  }
  llvm::BasicBlock* body = new_block("body");
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  lower_block(fn_.def->body);
  finish_function();
}

namespace {

/// Appends the LLVM parameter types of one kernel argument in the flattened ABI.
void flatten_param_types(ModuleLowering& m, const Type& t, std::vector<llvm::Type*>* out) {
  llvm::LLVMContext& c = m.ctx();
  if (t.is_array()) {
    out->push_back(llvm::PointerType::get(c, 0));
    llvm::Type* extent = t.index32 ? llvm::Type::getInt32Ty(c) : llvm::Type::getInt64Ty(c);
    for (unsigned i = 0; i < 2u * t.ndim; ++i) out->push_back(extent);
  } else if (t.is_tuple()) {
    for (const Type& e : t.elements) flatten_param_types(m, e, out);
  } else if (t.kind == Type::Kind::EnumMember) {
    flatten_param_types(m, t.enum_class->value_type, out);  // passed as its value
  } else if (t.is_bool()) {
    out->push_back(llvm::Type::getInt8Ty(c));
  } else if (t.is_complex()) {
    // Two parameters, the real and the imaginary part, as the launch path packs a complex argument.
    llvm::Type* part = llvm::cast<llvm::StructType>(m.llvm_type(t))->getElementType(0);
    out->insert(out->end(), {part, part});
  } else if (t.is_scalar() || t.is_record() || t.is_pointer()) {
    out->push_back(m.llvm_type(t));  // a record: the address of its copy; a pointer: the address given
  } else if (t.is_class() || t.is_opaque()) {
    // A dtype argument (numba's NumberClass) or a library's opaque value is compile-time only: no parameter.
  } else {
    throw InternalError("codegen: a kernel argument of type '" + t.str() + "' cannot be passed");
  }
}

}  // namespace

// The bounds are unsigned: as signed 32-bit values, index32's bound 2**31 made APInt assert in builds with
// LLVM's assertions on (found by fuzz_compile) and relied on its silent truncation in the others.
llvm::Attribute FunctionLowering::range_attribute(uint64_t lo, uint64_t hi, unsigned bits) {
  return llvm::Attribute::get(m_.ctx(), llvm::Attribute::Range,
                              llvm::ConstantRange(llvm::APInt(bits, lo, /*isSigned=*/false),
                                                  llvm::APInt(bits, hi, /*isSigned=*/false)));
}

void FunctionLowering::lower_kernel(std::vector<ParamLayout>* layout) {
  const auto& params = fn_.def->params;
  if (params.size() != fn_.signature.params.size())
    internal("kernel signature arity differs from the definition");
  unsigned next = 0;
  // Rebuilds one argument's value from consecutive LLVM arguments, naming them after the Python parameter.
  std::function<llvm::Value*(const Type&, const std::string&)> rebuild =
      [&](const Type& t, const std::string& name) -> llvm::Value* {
    auto take = [&](const std::string& suffix) {
      llvm::Argument* a = llvm_fn_->getArg(next++);
      a->setName(name + suffix);
      return a;
    };
    if (t.is_array()) {
      ArrayParts parts;
      parts.data = take("");
      // The data pointer is aligned to at least the element size (NumPy allocates so; views keep it).
      unsigned align = t.element_align();
      llvm::cast<llvm::Argument>(parts.data)
          ->addAttr(llvm::Attribute::getWithAlignment(m_.ctx(), llvm::Align(align ? align : 1)));
      // What the launch path guarantees of the shapes (runtime/kernel_args.h), told to LLVM: with extents
      // below 2**62, `i += stride` below an extent cannot overflow, so LLVM proves grid-stride indices
      // non-negative and drops their negative-index wrap. An index32 array passes its shapes and strides
      // as i32 (extents below 2**31), so comparisons and products with them stay 32-bit.
      for (unsigned i = 0; i < t.ndim; ++i) {
        llvm::Argument* shape = take(".shape" + std::to_string(i));
        if (t.index32) {
          shape->addAttr(range_attribute(0, uint64_t{1} << 31, 32));
          parts.shape.push_back(b_.CreateZExt(shape, b_.getInt64Ty(), "", /*IsNonNeg=*/true));
        } else {
          shape->addAttr(range_attribute(0, uint64_t{1} << 62, 64));
          parts.shape.push_back(shape);
        }
      }
      for (unsigned i = 0; i < t.ndim; ++i) {
        llvm::Argument* stride = take(".stride" + std::to_string(i));
        parts.strides.push_back(t.index32 ? b_.CreateSExt(stride, b_.getInt64Ty()) : stride);
      }
      return pack_array(parts);
    }
    if (t.is_tuple()) {
      llvm::Value* agg = llvm::PoisonValue::get(llvm_type(t));
      for (unsigned i = 0; i < t.elements.size(); ++i)
        agg = b_.CreateInsertValue(agg, rebuild(t.elements[i], name + "." + std::to_string(i)), {i});
      return agg;
    }
    if (t.kind == Type::Kind::EnumMember) return rebuild(t.enum_class->value_type, name);
    if (t.is_class() || t.is_opaque()) return llvm::Constant::getNullValue(llvm_type(t));  // no parameter
    if (t.is_record()) {
      // A record argument is the address of a copy the launch path made (runtime/kernel_args.h).
      llvm::Argument* a = take("");
      a->addAttr(llvm::Attribute::getWithAlignment(m_.ctx(), llvm::Align(t.record->align)));
      return a;
    }
    if (t.is_bool()) return b_.CreateICmpNE(take(""), b_.getInt8(0));
    if (t.is_complex()) {
      llvm::Value* agg = llvm::PoisonValue::get(llvm_type(t));
      agg = b_.CreateInsertValue(agg, take(".real"), {0});
      return b_.CreateInsertValue(agg, take(".imag"), {1});
    }
    return take("");
  };
  for (size_t i = 0; i < params.size(); ++i) {
    const Type& t = fn_.signature.params[i];
    unsigned first = next;
    llvm::Value* v = rebuild(t, params[i].name);
    layout->push_back(ParamLayout{t, first, next - first});
    // A dtype parameter names its dtype at compile time (ir/sema.cpp): it is no variable.
    if (t.is_class() && !fn_.locals.count(params[i].name)) continue;
    const Type& local = fn_.locals.count(params[i].name) ? fn_.locals.at(params[i].name) : t;
    b_.CreateStore(cast(v, t, local), local_slot(params[i].name));
  }
  llvm::BasicBlock* body = new_block("body");
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  lower_block(fn_.def->body);
  finish_function();
}

void FunctionLowering::finish_function() {
  if (block_terminated()) return;
  llvm::Type* ret = llvm_fn_->getReturnType();
  if (ret->isVoidTy()) {
    b_.CreateRetVoid();
  } else {
    // Falling off the end of a function that returns a value: analysis typed the implicit `return None`
    // into the return type, which only happens on paths it proved unreachable or for None-like results.
    b_.CreateRet(llvm::Constant::getNullValue(ret));
  }
}

// ---------------------------------------------------------------------------------------------------------
// A device function as the entry (numba's compile_ptx(device=True))

namespace {

/// Lowers `fn` as an ordinary (internal) device function and wraps it in an externally visible function with
/// the ABI `entry` asks for, as numba wraps its device functions for the C ABI: the wrapper only forwards
/// its arguments and returns or stores the result, and the optimizer inlines the body into it.
llvm::Function* lower_device_entry(ModuleLowering& m, const TypedFunction& fn, EntryKind entry,
                                   const std::string& abi_name) {
  llvm::LLVMContext& c = m.ctx();
  bool numba_abi = entry == EntryKind::DeviceNumba;
  const Type& ret_type = fn.signature.ret.is_valid() ? fn.signature.ret : Type::void_();
  std::vector<llvm::Type*> params;
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  if (numba_abi) params.insert(params.end(), {ptr, ptr});  // the result pointer, the exception information
  for (const Type& p : fn.signature.params)  // those of no size left out, as the body's (device_function)
    if (llvm::Type* t = m.llvm_type(p); !t->isEmptyTy()) params.push_back(t);
  llvm::Type* ret = numba_abi ? llvm::Type::getInt32Ty(c) : m.llvm_type(ret_type);
  std::string name = numba_abi ? (fn.mangled_name.empty() ? fn.name : fn.mangled_name)
                               : (abi_name.empty() ? fn.def->name : abi_name);
  // Created before the body's function, so that the symbol is exactly `name` (the body's takes a suffix).
  auto* wrapper = llvm::Function::Create(llvm::FunctionType::get(ret, params, false),
                                         llvm::GlobalValue::ExternalLinkage, name, m.module());
  wrapper->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Function* body = m.device_function(fn);
  m.attach_line_info(*body, fn);
  FunctionLowering(m, fn, body).lower_device_function();

  m.attach_line_info(*wrapper, fn);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", wrapper));
  if (llvm::DISubprogram* sp = wrapper->getSubprogram())
    b.SetCurrentDebugLocation(
        llvm::DILocation::get(c, fn.def->range.begin.line, fn.def->range.begin.col, sp));
  std::vector<llvm::Value*> args;
  unsigned first = numba_abi ? 2 : 0;
  if (numba_abi) {
    wrapper->getArg(0)->setName("retptr");
    wrapper->getArg(1)->setName("excinfo");
  }
  unsigned next = first;
  for (unsigned i = 0; i < fn.signature.params.size(); ++i) {
    if (m.llvm_type(fn.signature.params[i])->isEmptyTy()) continue;
    llvm::Argument* a = wrapper->getArg(next++);
    if (i < fn.def->params.size()) a->setName(fn.def->params[i].name);
    args.push_back(a);
  }
  llvm::Value* result = b.CreateCall(body, args);
  if (numba_abi) {
    if (!result->getType()->isVoidTy()) b.CreateStore(result, wrapper->getArg(0));
    b.CreateRet(b.getInt32(0));  // numba's status for a normal return
  } else if (ret->isVoidTy()) {
    b.CreateRetVoid();
  } else {
    b.CreateRet(result);
  }
  return wrapper;
}

/// A module lowered without user errors must be valid LLVM IR; anything else is a bug here.
void verify(const llvm::Module& module, const Diagnostics& diags) {
  if (diags.has_errors()) return;
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(module, &os)) throw InternalError("codegen produced invalid LLVM IR:\n" + errors);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// The entry point

namespace {

/// jit(inline=...) and jit(forceinline=True) of the device functions (GlobalValue::inline_always,
/// force_inline): an inline function's calls are replaced by its body here, before anyone (inspect_llvm,
/// LLVM's optimizer) sees the module, as numba inlines at its IR level; a forceinline function is marked
/// `alwaysinline` for LLVM's inliner. Other device functions stay calls until LLVM's inliner decides.
void apply_inline_options(ModuleLowering& m, const TypedProgram& program, const GlobalEnv& globals) {
  std::set<const FunctionDef*> inline_always, force_inline;
  for (const auto& [name, g] : globals) {
    if (g.kind != GlobalValue::Kind::DeviceFunction || !g.function) continue;
    if (g.inline_always) inline_always.insert(g.function);
    if (g.force_inline) force_inline.insert(g.function);
  }
  if (inline_always.empty() && force_inline.empty()) return;
  std::vector<llvm::Function*> to_inline;
  for (const auto& fn : program.functions) {
    if (fn.get() == program.kernel() || !fn->def) continue;
    llvm::Function* f = m.device_function(*fn);
    if (force_inline.count(fn->def)) f->addFnAttr(llvm::Attribute::AlwaysInline);
    if (inline_always.count(fn->def)) to_inline.push_back(f);
  }
  for (llvm::Function* f : to_inline) {
    std::vector<llvm::CallBase*> calls;
    for (llvm::User* u : f->users()) {
      auto* call = llvm::dyn_cast<llvm::CallBase>(u);
      // A recursive function's call of itself stays a call.
      if (call && call->getCalledFunction() == f && call->getFunction() != f) calls.push_back(call);
    }
    for (llvm::CallBase* call : calls) {
      llvm::InlineFunctionInfo info;
      // No lifetime markers: the inlined body reads as the function's own code would (SROA removes the
      // callee's slots anyway).
      llvm::InlineResult inlined = llvm::InlineFunction(*call, info, /*MergeAttributes=*/false,
                                                        /*CalleeAAR=*/nullptr, /*InsertLifetime=*/false);
      if (!inlined.isSuccess())
        throw InternalError(std::string("codegen: inlining a device function failed: ") + inlined.getFailureReason());
    }
    if (f->use_empty()) f->eraseFromParent();  // lowering is done: nothing looks it up again
  }
}

}  // namespace

LoweredModule lower_program(const TypedProgram& program, const GlobalEnv& globals, Target& target,
                            llvm::LLVMContext& ctx, bool fastmath, Diagnostics& diags, bool bounds_check,
                            LineInfo line_info, EntryKind entry, const std::string& abi_name) {
  const TypedFunction* kernel = program.kernel();
  if (!kernel || !kernel->def) throw InternalError("codegen: the typed program has no kernel");
  LoweredModule out;
  out.module = std::make_unique<llvm::Module>(kernel->name, ctx);
  target.init_module(*out.module);
  ModuleLowering m(program, globals, target, *out.module, fastmath, diags, bounds_check);
  if (line_info != LineInfo::None) m.enable_line_info(*kernel->def, line_info == LineInfo::Dwarf);

  for (const auto& fn : program.functions) {
    if (fn.get() == kernel) continue;
    llvm::Function* llvm_fn = m.device_function(*fn);
    m.attach_line_info(*llvm_fn, *fn);
    FunctionLowering lowering(m, *fn, llvm_fn);
    lowering.lower_device_function();
  }

  if (entry != EntryKind::Kernel) {
    out.kernel = lower_device_entry(m, *kernel, entry, abi_name);
    m.finish_line_info();
    apply_inline_options(m, program, globals);
    verify(*out.module, diags);
    return out;
  }

  std::vector<llvm::Type*> params;
  for (const Type& t : kernel->signature.params) flatten_param_types(m, t, &params);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false);
  std::string name = kernel->mangled_name.empty() ? kernel->name : kernel->mangled_name;
  out.kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, *out.module);
  out.kernel->addFnAttr(llvm::Attribute::NoUnwind);
  target.mark_kernel(*out.kernel);
  m.attach_line_info(*out.kernel, *kernel);
  FunctionLowering lowering(m, *kernel, out.kernel);
  lowering.lower_kernel(&out.params);
  m.finish_line_info();
  apply_inline_options(m, program, globals);

  verify(*out.module, diags);
  return out;
}

}  // namespace gpujit
