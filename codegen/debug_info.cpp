// DebugInfo: the compile unit, subprograms, variables and DWARF types of a module (debug_info.h).
//
// Types follow gpujit's value representation (codegen/lowering.cpp, ModuleLowering::llvm_type), so that
// a debugger reading a variable's slot finds what the code stored there: a scalar is a DIBasicType named as
// numba names it ("int32", "float64", "bool" with DW_ATE_boolean); a complex number the struct {real, imag};
// an array the struct {data, shape, strides} gpujit passes around (data a pointer to the element type,
// shape and strides arrays of int64 of the array's ndim); a tuple the struct of its elements (f0, f1, ...);
// a record variable a pointer to the record's fields at NumPy's offsets. Offsets and sizes come from the
// module's DataLayout, not from a second copy of the layout rules.
#include "codegen/debug_info.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "ir/enum_type.h"
#include "ir/record_type.h"
#include "ir/typed_function.h"

namespace gpujit {

namespace {

// The LLVM type gpujit gives a value of `t`, for its layout (ModuleLowering::llvm_type, for the kinds debug
// info describes by layout).
llvm::Type* layout_of(llvm::LLVMContext& c, const Type& t) {
  switch (t.kind) {
    case Type::Kind::Array: {
      llvm::Type* dims = llvm::ArrayType::get(llvm::Type::getInt64Ty(c), t.ndim);
      return llvm::StructType::get(c, {llvm::PointerType::get(c, 0), dims, dims});
    }
    case Type::Kind::Tuple: {
      std::vector<llvm::Type*> elts;
      for (const Type& e : t.elements) {
        llvm::Type* et = layout_of(c, e);
        if (!et) return nullptr;
        elts.push_back(et);
      }
      return llvm::StructType::get(c, elts);
    }
    case Type::Kind::Record:
    case Type::Kind::Pointer:
      return llvm::PointerType::get(c, 0);
    case Type::Kind::EnumMember:
      return layout_of(c, t.enum_class->value_type);
    case Type::Kind::CharSeq:
      return llvm::ArrayType::get(llvm::Type::getIntNTy(c, 8 * scalar_size(t.scalar)), t.length);
    case Type::Kind::Vector:
      return llvm::FixedVectorType::get(layout_of(c, Type::scalar_of(t.scalar)), t.lanes);
    case Type::Kind::Scalar:
      switch (t.scalar) {
        case ScalarKind::Bool: return llvm::Type::getInt8Ty(c);  // an i1 slot occupies a byte
        case ScalarKind::Float16: return llvm::Type::getHalfTy(c);
        case ScalarKind::BFloat16: return llvm::Type::getBFloatTy(c);
        case ScalarKind::Float32: return llvm::Type::getFloatTy(c);
        case ScalarKind::Float64: return llvm::Type::getDoubleTy(c);
        case ScalarKind::Complex64: {
          llvm::Type* f = llvm::Type::getFloatTy(c);
          return llvm::StructType::get(c, {f, f});
        }
        case ScalarKind::Complex128: {
          llvm::Type* d = llvm::Type::getDoubleTy(c);
          return llvm::StructType::get(c, {d, d});
        }
        default: return llvm::Type::getIntNTy(c, 8 * scalar_size(t.scalar));
      }
    default:
      return nullptr;
  }
}

// A Python variable name, as opposed to a name sema or the lowering made up ("$it0", "for.index").
bool is_user_name(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return true;
}

}  // namespace

DebugInfo::DebugInfo(llvm::Module& module, const FunctionDef& kernel, bool full)
    : module_(module), builder_(module), full_(full) {
  // The flags clang sets on every module with debug info; DWARF 2 is what CUDA's compilers use on the device.
  module.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  module.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 2);
  // Full DWARF names C++ as the language, as numba-cuda does: cuda-gdb evaluates expressions (`print a[1]`,
  // `print x.shape`) with its C++ rules, and has none for Python. The line table alone keeps DW_LANG_Python.
  auto language = full ? llvm::dwarf::DW_LANG_C_plus_plus : llvm::dwarf::DW_LANG_Python;
  // No .debug_pubnames/.debug_pubtypes: NVPTX writes their lengths as label differences, which ptxas takes
  // only from PTX ISA 7.5, newer than the 7.0 LLVM picks for sm_80; cuda-gdb does not need them.
  // The producer starts with "clang ", as numba-cuda's does: gdb (and cuda-gdb) then treats the code as
  // LLVM's (gdb/producer.c, producer_is_llvm) and skips the prologue by the line table, not by analysing it.
  unit_ = builder_.createCompileUnit(llvm::DISourceLanguageName(language), file(kernel), "clang (gpujit)",
                                    /*isOptimized=*/!full, "", 0, llvm::StringRef(),
                                    full ? llvm::DICompileUnit::FullDebug
                                         : llvm::DICompileUnit::DebugDirectivesOnly,
                                    /*DWOId=*/0, /*SplitDebugInlining=*/true, /*DebugInfoForProfiling=*/false,
                                    llvm::DICompileUnit::DebugNameTableKind::None);
}

llvm::DIFile* DebugInfo::file(const FunctionDef& def) {
  llvm::DIFile*& f = files_[def.file.get()];
  if (f) return f;
  // The path Python reports for the function (or the CLI was given), absolute so that a profiler or debugger
  // finds the file from any folder; a pseudo-name such as "<string>" stays as it is.
  llvm::SmallString<256> path(def.file ? def.file->name() : std::string("<unknown>"));
  if (!path.starts_with("<")) llvm::sys::fs::make_absolute(path);
  f = builder_.createFile(llvm::sys::path::filename(path), llvm::sys::path::parent_path(path));
  return f;
}

llvm::DISubprogram* DebugInfo::attach(llvm::Function& fn, const TypedFunction& typed) {
  const FunctionDef& def = *typed.def;
  llvm::SmallVector<llvm::Metadata*, 8> signature;
  if (full_) {
    const Type& ret = typed.signature.ret;
    signature.push_back(ret.is_valid() && !ret.is_void() ? type(ret) : nullptr);
    for (const Type& p : typed.signature.params) signature.push_back(type(p));
  }
  llvm::DISubroutineType* subroutine = builder_.createSubroutineType(builder_.getOrCreateTypeArray(signature));
  unsigned line = def.range.begin.line;
  auto flags = llvm::DISubprogram::SPFlagDefinition;
  if (!full_) flags |= llvm::DISubprogram::SPFlagOptimized;
  llvm::DISubprogram* sp = builder_.createFunction(file(def), def.name, fn.getName(), file(def), line, subroutine,
                                                   line, llvm::DINode::FlagPrototyped, flags);
  fn.setSubprogram(sp);
  return sp;
}

void DebugInfo::declare(llvm::Function& fn, llvm::AllocaInst* slot, llvm::Instruction* after,
                        const std::string& name, const Type& t, unsigned arg_no, unsigned line,
                        unsigned column) {
  llvm::DISubprogram* sp = fn.getSubprogram();
  if (!full_ || !sp || !is_user_name(name)) return;
  llvm::DIType* ty = type(t);
  if (!ty) return;
  llvm::DIFile* f = sp->getFile();
  llvm::DILocalVariable* var =
      arg_no > 0 ? builder_.createParameterVariable(sp, name, arg_no, f, line, ty, /*AlwaysPreserve=*/true)
                 : builder_.createAutoVariable(sp, name, f, line, ty, /*AlwaysPreserve=*/true);
  // The prologue's location (the `def` line and column, FunctionLowering's constructor): one node for both.
  auto* loc = llvm::DILocation::get(module_.getContext(), line, column, sp);
  builder_.insertDeclare(slot, var, builder_.createExpression(), loc, std::next(after->getIterator()));
}

llvm::DIType* DebugInfo::scalar_type(ScalarKind k) {
  std::string name = scalar_name(k);
  if (auto it = types_.find(name); it != types_.end()) return it->second;
  llvm::DIType* out = nullptr;
  uint64_t bits = 8 * uint64_t(scalar_size(k));
  if (k == ScalarKind::Bool) {
    out = builder_.createBasicType(name, 8, llvm::dwarf::DW_ATE_boolean);
  } else if (is_complex(k)) {
    ScalarKind part = k == ScalarKind::Complex64 ? ScalarKind::Float32 : ScalarKind::Float64;
    llvm::DIType* p = scalar_type(part);
    out = struct_of(name, layout_of(module_.getContext(), Type::scalar_of(k)), {{"real", p}, {"imag", p}});
  } else if (is_float(k) || k == ScalarKind::BFloat16) {
    out = builder_.createBasicType(name, bits, llvm::dwarf::DW_ATE_float);
  } else if (is_unsigned(k)) {
    out = builder_.createBasicType(name, bits, llvm::dwarf::DW_ATE_unsigned);
  } else {  // signed integers, and datetime64/timedelta64: an int64 count of units
    out = builder_.createBasicType(name, bits, llvm::dwarf::DW_ATE_signed);
  }
  types_[name] = out;
  return out;
}

llvm::DIType* DebugInfo::struct_of(const std::string& name, llvm::Type* layout_type,
                                   const std::vector<std::pair<std::string, llvm::DIType*>>& members) {
  const llvm::DataLayout& dl = module_.getDataLayout();
  auto* st = llvm::cast<llvm::StructType>(layout_type);
  const llvm::StructLayout* sl = dl.getStructLayout(st);
  llvm::SmallVector<llvm::Metadata*, 8> elements;
  for (unsigned i = 0; i < members.size(); ++i) {
    if (!members[i].second) continue;
    uint64_t size = dl.getTypeAllocSizeInBits(st->getElementType(i));
    elements.push_back(builder_.createMemberType(unit_, members[i].first, nullptr, 0, size, 0,
                                                 sl->getElementOffsetInBits(i), llvm::DINode::FlagZero,
                                                 members[i].second));
  }
  return builder_.createStructType(unit_, name, nullptr, 0, sl->getSizeInBits(),
                                   uint32_t(sl->getAlignment().value() * 8), llvm::DINode::FlagZero, nullptr,
                                   builder_.getOrCreateArray(elements));
}

llvm::DIType* DebugInfo::record_type(const RecordType& r) {
  std::string key = "record:" + r.spelling;
  if (auto it = types_.find(key); it != types_.end()) return it->second;
  llvm::SmallVector<llvm::Metadata*, 8> elements;
  for (const RecordField& field : r.fields) {
    llvm::DIType* ft = field.type.is_record() ? record_type(*field.type.record) : type(field.type);
    if (!ft) continue;
    uint64_t count = 1;
    llvm::SmallVector<llvm::Metadata*, 2> subscripts;
    for (int64_t extent : field.shape) {
      subscripts.push_back(builder_.getOrCreateSubrange(0, extent));
      count *= uint64_t(extent);
    }
    uint64_t unit_bits = field.type.is_record() ? field.type.record->size * 8 : ft->getSizeInBits();
    if (!subscripts.empty())
      ft = builder_.createArrayType(unit_bits * count, 0, ft, builder_.getOrCreateArray(subscripts));
    elements.push_back(builder_.createMemberType(unit_, field.name, nullptr, 0, unit_bits * count, 0,
                                                 field.offset * 8, llvm::DINode::FlagZero, ft));
  }
  llvm::DIType* out = builder_.createStructType(unit_, r.spelling, nullptr, 0, r.size * 8, r.align * 8,
                                                llvm::DINode::FlagZero, nullptr,
                                                builder_.getOrCreateArray(elements));
  types_[key] = out;
  return out;
}

llvm::DIType* DebugInfo::type(const Type& t) {
  if (t.kind == Type::Kind::Scalar) return scalar_type(t.scalar);
  if (t.kind == Type::Kind::EnumMember) return type(t.enum_class->value_type);
  std::string key = t.key();
  if (auto it = types_.find(key); it != types_.end()) return it->second;
  llvm::LLVMContext& c = module_.getContext();
  llvm::DIType* i64 = scalar_type(ScalarKind::Int64);
  llvm::DIType* out = nullptr;
  switch (t.kind) {
    case Type::Kind::Array: {
      // The element as it lies in memory: a record's fields, a string's code units, a scalar.
      llvm::DIType* element = nullptr;
      if (t.record && t.record->char_size == 0) {
        element = record_type(*t.record);
      } else if (t.record) {
        element = type(Type::charseq_of(t.record->char_size == 1 ? ScalarKind::UInt8 : ScalarKind::UInt32,
                                        uint32_t(t.record->size / t.record->char_size)));
      } else {
        element = t.scalar == ScalarKind::Bool ? scalar_type(ScalarKind::UInt8) : scalar_type(t.scalar);
      }
      llvm::DIType* data = builder_.createPointerType(element, 64);
      llvm::DIType* dims = builder_.createArrayType(64 * uint64_t(t.ndim), 64, i64,
                                                    builder_.getOrCreateArray({builder_.getOrCreateSubrange(0, t.ndim)}));
      out = struct_of(t.str(), layout_of(c, t), {{"data", data}, {"shape", dims}, {"strides", dims}});
      break;
    }
    case Type::Kind::Tuple: {
      llvm::Type* layout = layout_of(c, t);
      if (!layout) return nullptr;
      std::vector<std::pair<std::string, llvm::DIType*>> members;
      for (size_t i = 0; i < t.elements.size(); ++i) members.emplace_back("f" + std::to_string(i), type(t.elements[i]));
      out = struct_of(t.str(), layout, members);
      break;
    }
    case Type::Kind::Record:  // the variable holds the record's address
      out = builder_.createPointerType(record_type(*t.record), 64, 0, std::nullopt, t.str());
      break;
    case Type::Kind::Pointer:  // void*: DWARF's pointer to no type
      out = builder_.createPointerType(t.void_pointee ? nullptr : scalar_type(t.scalar), 64, 0, std::nullopt,
                                       t.str());
      break;
    case Type::Kind::CharSeq: {
      llvm::DIType* unit = scalar_type(t.scalar);
      out = builder_.createArrayType(uint64_t(t.length) * unit->getSizeInBits(), 0, unit,
                                     builder_.getOrCreateArray({builder_.getOrCreateSubrange(0, t.length)}));
      break;
    }
    case Type::Kind::Vector: {
      static const char* kLanes[] = {"x", "y", "z", "w"};
      std::vector<std::pair<std::string, llvm::DIType*>> members;
      llvm::DIType* lane = scalar_type(t.scalar);
      const llvm::DataLayout& dl = module_.getDataLayout();
      llvm::SmallVector<llvm::Metadata*, 4> elements;
      uint64_t lane_bits = lane->getSizeInBits();
      for (unsigned i = 0; i < t.lanes; ++i)
        elements.push_back(builder_.createMemberType(unit_, kLanes[i], nullptr, 0, lane_bits, 0, lane_bits * i,
                                                     llvm::DINode::FlagZero, lane));
      llvm::Type* layout = layout_of(c, t);
      out = builder_.createStructType(unit_, t.str(), nullptr, 0, dl.getTypeAllocSizeInBits(layout),
                                      uint32_t(dl.getABITypeAlign(layout).value() * 8), llvm::DINode::FlagZero,
                                      nullptr, builder_.getOrCreateArray(elements));
      break;
    }
    case Type::Kind::GridGroup:
      // The value of cuda.cg.this_grid() holds no data in gpujit (an empty struct; grid.sync() needs none),
      // so its type is an empty structure named as numba names the grid group's type: the debugger lists
      // the variable with its type, and shows no contents.
      out = builder_.createStructType(unit_, "GridGroup", nullptr, 0, uint64_t(0), uint32_t(8),
                                      llvm::DINode::FlagZero, nullptr, builder_.getOrCreateArray({}));
      break;
    default:  // None, void: no data to show
      return nullptr;
  }
  types_[key] = out;
  return out;
}

}  // namespace gpujit
