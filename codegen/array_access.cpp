// Arrays: their value representation, element addresses, views, attributes, and the arrays a kernel makes
// itself (shared.array, local.array, const.array_like).
//
// An array value is { ptr data, [n x i64] shape, [n x i64] strides in bytes } (function_lowering.h). A
// C-contiguous array is indexed from its shape alone, (i0 * shape1 + i1) * shape2 + i2 elements, so the
// strides passed at launch are never read for it; any other layout uses the byte strides. Index arithmetic
// is `nsw`: an in-bounds offset never exceeds the array's byte size, and the flag lets LLVM fold sign
// extensions and keep the math narrow. On a GPU, an index32 array (one that spans under 2 GiB: shared,
// local and constant arrays, and the arguments the launch path finds small) is indexed in 32-bit
// arithmetic, as CUDA C code indexed with `int` is; an out-of-bounds index is undefined either way. Negative indices count from the end (a[-1]) for signed index
// types. Without debug there is no bounds check, as in numba-cuda; with it (CompileOptions::debug) every
// integer index is checked after the wrap (checked_index, codegen/bounds_check.cpp).
//
// Slices and partial indices make views with Python's clamping rules (PySlice_AdjustIndices); a zero step
// selects nothing rather than raising (sema rejects a constant zero). A view's value is an array value like
// any other, its strides always set, so it is passed, returned and indexed as arrays are. Storing into a
// view (store_to_view) is a loop per axis.
#include <functional>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/function_lowering.h"
#include "ir/index_signs.h"

namespace gpujit {

ArrayParts FunctionLowering::unpack_array(llvm::Value* array, unsigned ndim) {
  ArrayParts p;
  p.data = b_.CreateExtractValue(array, {0}, "data");
  for (unsigned i = 0; i < ndim; ++i) p.shape.push_back(b_.CreateExtractValue(array, {1, i}, "shape"));
  for (unsigned i = 0; i < ndim; ++i) p.strides.push_back(b_.CreateExtractValue(array, {2, i}, "stride"));
  return p;
}

llvm::Value* FunctionLowering::pack_array(const ArrayParts& p) {
  llvm::Value* agg = llvm::PoisonValue::get(m_.array_struct_type(unsigned(p.shape.size())));
  agg = b_.CreateInsertValue(agg, p.data, {0});
  for (unsigned i = 0; i < p.shape.size(); ++i) agg = b_.CreateInsertValue(agg, p.shape[i], {1, i});
  for (unsigned i = 0; i < p.strides.size(); ++i) agg = b_.CreateInsertValue(agg, p.strides[i], {2, i});
  return agg;
}

llvm::Value* FunctionLowering::wrap_index(llvm::Value* index, const Type& index_type, llvm::Value* extent,
                                          unsigned bits, bool known_non_negative) {
  if (!index_type.is_integer() && !index_type.is_bool())
    internal("array index of type '" + index_type.str() + "'");
  const bool is_signed_index = index_type.is_integer() && is_signed(index_type.scalar);
  llvm::Type* width = b_.getIntNTy(bits);
  // Narrowing keeps the low bits, which is the index itself whenever it is in bounds.
  llvm::Value* i = b_.CreateIntCast(index, width, is_signed_index);
  if (!is_signed_index || known_non_negative) return i;
  llvm::Value* n = b_.CreateTrunc(extent, width);  // extents are i64; a no-op for 64 bits
  return b_.CreateSelect(b_.CreateICmpSLT(i, llvm::ConstantInt::get(width, 0)),
                         b_.CreateAdd(i, n, "", false, bits == 32), i);
}

namespace {

/// Byte strides of a C-contiguous array, from its shape.
std::vector<llvm::Value*> c_strides(llvm::IRBuilder<>& b, const ArrayParts& a, unsigned itemsize) {
  std::vector<llvm::Value*> s(a.shape.size());
  llvm::Value* stride = b.getInt64(itemsize);
  for (size_t k = a.shape.size(); k-- > 0;) {
    s[k] = stride;
    stride = b.CreateMul(stride, a.shape[k], "", false, true);
  }
  return s;
}

}  // namespace

llvm::Value* FunctionLowering::element_pointer(const ArrayParts& a, const Type& t,
                                               const std::vector<llvm::Value*>& idx) {
  if (idx.empty()) return a.data;
  // The indices' width says which arithmetic: i64, or i32 for narrow_access() arrays, where every product
  // and sum is an in-bounds offset below 2**31 (so `nsw` holds) sign-extended once into the address.
  llvm::Type* width = idx[0]->getType();
  auto fit = [&](llvm::Value* v) { return b_.CreateTrunc(v, width); };  // shapes and strides are i64
  llvm::Value* offset = nullptr;
  llvm::Type* unit = b_.getInt8Ty();
  if (t.layout == Layout::C) {
    offset = idx[0];
    for (size_t k = 1; k < idx.size(); ++k)
      offset = b_.CreateAdd(b_.CreateMul(offset, fit(a.shape[k]), "", false, true), idx[k], "", false, true);
    unit = m_.element_memory_type(t.element());
  } else if (t.layout == Layout::F && idx.size() == t.ndim) {
    // Fortran order: the first axis varies fastest, so the offset in elements is C order's over the axes
    // reversed; the strides, which a size-1 axis may have anything in, are not read.
    offset = idx.back();
    for (size_t k = idx.size() - 1; k-- > 0;)
      offset = b_.CreateAdd(b_.CreateMul(offset, fit(a.shape[k]), "", false, true), idx[k], "", false, true);
    unit = m_.element_memory_type(t.element());
  } else {
    for (size_t k = 0; k < idx.size(); ++k) {
      llvm::Value* term = b_.CreateMul(idx[k], fit(a.strides[k]), "", false, true);
      offset = offset ? b_.CreateAdd(offset, term, "", false, true) : term;
    }
  }
  return b_.CreateInBoundsGEP(unit, a.data, b_.CreateSExt(offset, b_.getInt64Ty()));
}

bool FunctionLowering::narrow_access(const Type& t) const {
  // Bounds checks compare the full 64-bit index, so debug builds keep the 64-bit path.
  return t.index32 && m_.target().narrow_index_math() && !m_.bounds_check();
}

FunctionLowering::IndexResult FunctionLowering::index_array(llvm::Value* array, const Type& t,
                                                            const Expr& index, const Type& result_type) {
  struct Component {
    const SliceExpr* slice = nullptr;
    llvm::Value* value = nullptr;
    Type type;
    const Expr* expr = nullptr;  // where the index is written, for bounds-check messages
  };
  std::vector<Component> comps;
  auto add_expr = [&](const Expr& e) {
    if (auto* s = e.as<SliceExpr>()) {
      comps.push_back({s, nullptr, Type(), &e});
    } else {
      comps.push_back({nullptr, lower_expr(e), type_of(e), &e});
    }
  };
  if (auto* tuple = index.as<TupleExpr>()) {
    for (const ExprPtr& e : tuple->elts) add_expr(*e);
  } else if (auto* s = index.as<SliceExpr>()) {
    comps.push_back({s, nullptr, Type(), &index});
  } else if (const Type& it = type_of(index); it.is_tuple()) {
    llvm::Value* v = lower_expr(index);
    for (unsigned i = 0; i < it.elements.size(); ++i)
      comps.push_back({nullptr, b_.CreateExtractValue(v, {i}), it.elements[i], &index});
  } else {
    add_expr(index);
  }
  if (comps.size() > t.ndim) internal("too many indices for '" + t.str() + "'");

  ArrayParts a = unpack_array(array, t.ndim);
  bool all_ints = comps.size() == t.ndim;
  for (const Component& c : comps) all_ints = all_ints && !c.slice;
  if (all_ints && narrow_access(t)) {
    std::vector<llvm::Value*> idx;
    for (unsigned k = 0; k < comps.size(); ++k) {
      bool non_negative = comps[k].expr && never_negative(fn_, *comps[k].expr);
      idx.push_back(wrap_index(comps[k].value, comps[k].type, a.shape[k], 32, non_negative));
    }
    return {element_pointer(a, t, idx), nullptr};
  }
  if (all_ints) {
    std::vector<llvm::Value*> idx;
    for (unsigned k = 0; k < comps.size(); ++k)
      idx.push_back(checked_index(comps[k].value, comps[k].type, a.shape[k], k, *comps[k].expr));
    return {element_pointer(a, t, idx), nullptr};
  }

  // A view: integer indices drop their dimension, slices narrow theirs, missing trailing indices keep theirs.
  if (!result_type.is_array())
    internal("a partial index of '" + t.str() + "' typed '" + result_type.str() + "'");
  const unsigned itemsize = t.itemsize();
  std::vector<llvm::Value*> strides = t.layout == Layout::C ? c_strides(b_, a, itemsize) : a.strides;
  ArrayParts view;
  llvm::Value* offset = i64(0);
  const Type i64_type = Type::scalar_of(ScalarKind::Int64);
  for (unsigned k = 0; k < t.ndim; ++k) {
    if (k >= comps.size()) {
      view.shape.push_back(a.shape[k]);
      view.strides.push_back(strides[k]);
      continue;
    }
    const Component& c = comps[k];
    if (!c.slice) {
      llvm::Value* i = checked_index(c.value, c.type, a.shape[k], k, *c.expr);
      offset = b_.CreateAdd(offset, b_.CreateMul(i, strides[k], "", false, true), "", false, true);
      continue;
    }
    auto part = [&](const ExprPtr& e) -> llvm::Value* {
      if (!e || e->kind == ExprKind::NoneLit || type_of(*e).kind == Type::Kind::None) return nullptr;
      return lower_expr_as(*e, i64_type);
    };
    llvm::Value* n = a.shape[k];
    llvm::Value* step = part(c.slice->step);
    if (!step) step = i64(1);
    llvm::Value* zero = i64(0);
    llvm::Value* negative = b_.CreateICmpSLT(step, zero);
    // Python's PySlice_AdjustIndices: wrap negative bounds once, then clamp into the valid range.
    auto adjust = [&](llvm::Value* v, llvm::Value* dflt) -> llvm::Value* {
      if (!v) return dflt;
      llvm::Value* wrapped = b_.CreateSelect(b_.CreateICmpSLT(v, zero), b_.CreateAdd(v, n), v);
      llvm::Value* low = b_.CreateSelect(negative, i64(-1), zero);
      llvm::Value* high = b_.CreateSelect(negative, b_.CreateSub(n, i64(1)), n);
      return b_.CreateSelect(b_.CreateICmpSLT(wrapped, low), low,
                             b_.CreateSelect(b_.CreateICmpSGT(wrapped, high), high, wrapped));
    };
    llvm::Value* start =
        adjust(part(c.slice->lower), b_.CreateSelect(negative, b_.CreateSub(n, i64(1)), zero));
    llvm::Value* stop = adjust(part(c.slice->upper), b_.CreateSelect(negative, i64(-1), n));
    llvm::Value* safe_step = b_.CreateSelect(b_.CreateICmpEQ(step, zero), i64(1), step);
    llvm::Value* up_len = b_.CreateSelect(
        b_.CreateICmpSLT(start, stop),
        b_.CreateAdd(b_.CreateSDiv(b_.CreateSub(b_.CreateSub(stop, start), i64(1)), safe_step), i64(1)),
        zero);
    llvm::Value* down_len = b_.CreateSelect(
        b_.CreateICmpSLT(stop, start),
        b_.CreateAdd(b_.CreateSDiv(b_.CreateSub(b_.CreateSub(start, stop), i64(1)), b_.CreateNeg(safe_step)),
                     i64(1)),
        zero);
    llvm::Value* len = b_.CreateSelect(negative, down_len, up_len);
    len = b_.CreateSelect(b_.CreateICmpEQ(step, zero), zero, len);
    offset = b_.CreateAdd(offset, b_.CreateMul(start, strides[k]));
    view.shape.push_back(len);
    view.strides.push_back(b_.CreateMul(strides[k], step));
  }
  if (view.shape.size() != result_type.ndim)
    internal("view of '" + t.str() + "' typed '" + result_type.str() + "'");
  view.data = b_.CreateGEP(b_.getInt8Ty(), a.data, offset);
  return {nullptr, pack_array(view)};
}

llvm::Value* FunctionLowering::load_element(llvm::Value* ptr, ScalarKind dtype, unsigned align) {
  llvm::Type* mt = m_.memory_type(dtype);
  // A complex element is aligned like its parts (NumPy's complex64 alignment is 4).
  if (!align) align = Type::array_of(dtype, 1, Layout::C).element_align();
  llvm::Value* v = b_.CreateAlignedLoad(mt, ptr, llvm::Align(align));
  return dtype == ScalarKind::Bool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
}

void FunctionLowering::store_element(llvm::Value* ptr, llvm::Value* v, ScalarKind dtype, unsigned align) {
  if (dtype == ScalarKind::Bool) v = b_.CreateZExt(v, b_.getInt8Ty());
  const unsigned natural = Type::array_of(dtype, 1, Layout::C).element_align();
  if (!align) align = natural;
  if (align < natural && m_.target().machine().getTargetTriple().isNVPTX()) {
    // A float stored below its alignment (a packed record's field) is split into byte stores, the first
    // straight from the register the float arithmetic wrote; ptxas then stores that byte as the value
    // converted to an integer (seen on an H100: 1.5 stored its low byte as 1). Its bits go through an
    // integer move first, which the split stores then take apart; a complex number's parts each do.
    auto as_bits = [&](llvm::Value* f) -> llvm::Value* {
      llvm::Type* ft = f->getType();
      unsigned bits = ft->getPrimitiveSizeInBits();
      const char* move = bits == 64 ? "mov.b64 $0, $1;" : bits == 32 ? "mov.b32 $0, $1;" : "mov.b16 $0, $1;";
      const char* constraints = bits == 64 ? "=l,d" : bits == 32 ? "=r,f" : "=h,h";
      auto* asm_fn = llvm::InlineAsm::get(llvm::FunctionType::get(b_.getIntNTy(bits), {ft}, false), move,
                                          constraints, /*hasSideEffects=*/false);
      return b_.CreateCall(asm_fn, {f});
    };
    if (v->getType()->isFloatingPointTy()) {
      v = as_bits(v);
    } else if (auto* st = llvm::dyn_cast<llvm::StructType>(v->getType());
               st && st->getNumElements() == 2 && st->getElementType(0)->isFloatingPointTy()) {
      const uint64_t part = st->getElementType(0)->getPrimitiveSizeInBits() / 8;
      for (unsigned k = 0; k < 2; ++k) {
        llvm::Value* at = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), ptr, k * part);
        b_.CreateAlignedStore(as_bits(b_.CreateExtractValue(v, {k})), at, llvm::Align(align));
      }
      return;
    }
  }
  b_.CreateAlignedStore(v, ptr, llvm::Align(align));
}

llvm::Value* FunctionLowering::load_place(const LValue& place) {
  if (!place.array_element) return b_.CreateLoad(llvm_type(place.type), place.ptr);
  if (place.type.is_record()) return place.ptr;
  if (place.type.is_charseq()) {  // a string is loaded whole (codegen/text_lowering.cpp)
    const unsigned align = place.align ? place.align : scalar_size(place.type.scalar);
    return b_.CreateAlignedLoad(llvm_type(place.type), place.ptr, llvm::Align(align));
  }
  if (place.type.is_array()) {  // a sub-array field: its shape is part of its record's type
    const std::vector<int64_t> shape = place.field ? place.field->array_shape() : std::vector<int64_t>();
    if (shape.empty()) internal("an array place that is not a sub-array field");
    return pack_array(constant_shape_parts(b_, place.ptr, shape, place.type.itemsize()));
  }
  return load_element(place.ptr, place.type.scalar, place.align);
}

void FunctionLowering::store_place(const LValue& place, llvm::Value* v) {
  if (!place.array_element) {
    b_.CreateStore(v, place.ptr);
  } else if (place.type.is_record()) {
    // Records are copied byte for byte, padding included, as NumPy assigns them.
    const unsigned align = place.align ? place.align : place.type.record->align;
    b_.CreateMemCpy(place.ptr, llvm::MaybeAlign(align), v, llvm::MaybeAlign(1),
                    place.type.record->size);
  } else if (place.type.is_charseq()) {
    const unsigned align = place.align ? place.align : scalar_size(place.type.scalar);
    b_.CreateAlignedStore(v, place.ptr, llvm::Align(align));
  } else {
    store_element(place.ptr, v, place.type.scalar, place.align);
  }
}

llvm::Value* FunctionLowering::array_size(const ArrayParts& a) {
  llvm::Value* size = i64(1);
  for (llvm::Value* s : a.shape) size = b_.CreateMul(size, s, "", false, true);
  return size;
}

llvm::Value* FunctionLowering::array_attribute(llvm::Value* array, const Type& t, const std::string& attr,
                                               const Type& result) {
  const Type i64_type = Type::scalar_of(ScalarKind::Int64);
  auto tuple_of = [&](const std::vector<llvm::Value*>& values) {
    Type tt = Type::tuple_of(std::vector<Type>(values.size(), i64_type));
    llvm::Value* agg = llvm::PoisonValue::get(llvm_type(tt));
    for (unsigned i = 0; i < values.size(); ++i) agg = b_.CreateInsertValue(agg, values[i], {i});
    return cast(agg, tt, result);
  };
  ArrayParts a = unpack_array(array, t.ndim);
  const unsigned itemsize = t.itemsize();
  if (attr == "shape") return tuple_of(a.shape);
  if (attr == "strides") return tuple_of(t.layout == Layout::C ? c_strides(b_, a, itemsize) : a.strides);
  if (attr == "size") return cast(array_size(a), i64_type, result);
  if (attr == "ndim") return cast(i64(t.ndim), i64_type, result);
  if (attr == "itemsize") return cast(i64(itemsize), i64_type, result);
  if (attr == "nbytes") return cast(b_.CreateMul(array_size(a), i64(itemsize)), i64_type, result);
  if (attr == "real" || attr == "imag") {  // the parts of complex elements, as a strided view
    if (!is_complex(t.scalar)) return array;  // a real array's .real (sema refuses .imag)
    ArrayParts r;
    r.data = attr == "imag" ? b_.CreateInBoundsGEP(b_.getInt8Ty(), a.data, i64(itemsize / 2)) : a.data;
    r.shape = a.shape;
    r.strides = t.layout == Layout::C ? c_strides(b_, a, itemsize) : a.strides;
    return cast(pack_array(r), Type::array_of(result.scalar, t.ndim, Layout::Any), result);
  }
  if (attr == "T") {
    // The transpose: the same data with shape and strides reversed (any layout unless 1-D).
    ArrayParts r;
    r.data = a.data;
    std::vector<llvm::Value*> strides = t.layout == Layout::C ? c_strides(b_, a, itemsize) : a.strides;
    r.shape.assign(a.shape.rbegin(), a.shape.rend());
    r.strides.assign(strides.rbegin(), strides.rend());
    return pack_array(r);
  }
  internal("array attribute '" + attr + "'");
}

llvm::Value* FunctionLowering::lower_array_method(const ArrayMethodCall& c, const Type& result) {
  const Type& t = type_of(*c.array);
  if (c.kind == ArrayMethodCall::Kind::Copy) {
    // A captured global array (ir/sema_array_method.cpp): its bytes, C order, into a local array of its shape.
    ArrayParts from = unpack_array(lower_expr(*c.array), t.ndim);
    llvm::Value* copy = make_local_array(c.copy_shape, result.element(), result, 0);
    uint64_t bytes = result.itemsize();
    for (int64_t extent : c.copy_shape) bytes *= uint64_t(extent);
    if (bytes)
      b_.CreateMemCpy(unpack_array(copy, result.ndim).data, llvm::Align(16), from.data, llvm::Align(16),
                      bytes);
    return copy;
  }
  const bool over_pointer = c.kind == ArrayMethodCall::Kind::CArray || c.kind == ArrayMethodCall::Kind::FArray;
  ArrayParts a = over_pointer ? ArrayParts{} : unpack_array(lower_expr(*c.array), t.ndim);
  ArrayParts r;
  r.data = over_pointer ? lower_expr(*c.array) : a.data;
  const Type i64_type = Type::scalar_of(ScalarKind::Int64);
  if (over_pointer || c.kind == ArrayMethodCall::Kind::Reshape) {
    for (const Expr* s : c.shape) {
      const Type& st = type_of(*s);
      llvm::Value* v = lower_expr(*s);
      if (!st.is_tuple()) {
        r.shape.push_back(cast(v, st, i64_type));
        continue;
      }
      for (unsigned k = 0; k < st.elements.size(); ++k)
        r.shape.push_back(cast(b_.CreateExtractValue(v, {k}), st.elements[k], i64_type));
    }
    if (c.kind == ArrayMethodCall::Kind::FArray) {
      // Fortran order: the first axis is contiguous.
      std::vector<llvm::Value*> reversed(r.shape.rbegin(), r.shape.rend());
      ArrayParts f{r.data, reversed, {}};
      std::vector<llvm::Value*> strides = c_strides(b_, f, result.itemsize());
      r.strides.assign(strides.rbegin(), strides.rend());
      return pack_array(r);
    }
    if (over_pointer) {
      r.strides = c_strides(b_, r, result.itemsize());
      return pack_array(r);
    }
    // A negative extent (numba and NumPy allow one -1) is what the others leave of the array's size.
    llvm::Value* known = i64(1);
    for (llvm::Value* extent : r.shape)
      known = b_.CreateMul(known, b_.CreateSelect(b_.CreateICmpSLT(extent, i64(0)), i64(1), extent));
    llvm::Value* zero = b_.CreateICmpEQ(known, i64(0));
    llvm::Value* divisor = b_.CreateSelect(zero, i64(1), known);
    llvm::Value* rest = b_.CreateSelect(zero, i64(0), b_.CreateSDiv(array_size(a), divisor));
    for (llvm::Value*& extent : r.shape) extent = b_.CreateSelect(b_.CreateICmpSLT(extent, i64(0)), rest, extent);
  } else {
    // The last axis' bytes, in elements of the new dtype.
    r.shape = a.shape;
    if (!r.shape.empty()) {
      llvm::Value* bytes = b_.CreateMul(r.shape.back(), i64(t.itemsize()), "", false, true);
      r.shape.back() = b_.CreateUDiv(bytes, i64(result.itemsize()));
    }
  }
  r.strides = c_strides(b_, r, result.itemsize());
  return pack_array(r);
}

llvm::Value* FunctionLowering::record_field_view(llvm::Value* array, const Type& t, const std::string& name) {
  const RecordField* f = t.record ? t.record->find(name) : nullptr;
  if (!f) internal("field view '" + name + "' of '" + t.str() + "'");
  ArrayParts a = unpack_array(array, t.ndim);
  ArrayParts view;
  view.data = b_.CreateInBoundsGEP(b_.getInt8Ty(), a.data, i64(int64_t(f->offset)), name);
  view.shape = a.shape;
  view.strides = t.layout == Layout::C ? c_strides(b_, a, t.itemsize()) : a.strides;
  // A string field's elements are its strings: its shape is less their length (ir/record_type.h).
  const Type element = f->value_type().is_array() ? f->value_type().element() : f->value_type();
  ArrayParts sub =
      constant_shape_parts(b_, view.data, f->array_shape(), Type::array_of(element, 1, Layout::C).itemsize());
  view.shape.insert(view.shape.end(), sub.shape.begin(), sub.shape.end());
  view.strides.insert(view.strides.end(), sub.strides.begin(), sub.strides.end());
  return pack_array(view);
}

llvm::Value* FunctionLowering::pointer_element(llvm::Value* ptr, const Type& pointer_type, const Expr& index) {
  llvm::Value* i = cast(lower_expr(index), type_of(index), Type::scalar_of(ScalarKind::Int64));
  return b_.CreateGEP(m_.memory_type(pointer_type.scalar), ptr, i);
}

LValue FunctionLowering::subscript_lvalue(const SubscriptExpr& e) {
  const Type& base = type_of(*e.value);
  if (base.is_pointer()) {
    llvm::Value* ptr = lower_expr(*e.value);
    return LValue{pointer_element(ptr, base, *e.index), Type::scalar_of(base.scalar), true};
  }
  if (!base.is_array()) {
    unsupported(e, "cannot assign to an element of a " + base.str() + "; only array elements are assignable");
    return LValue{llvm::PoisonValue::get(b_.getPtrTy()), Type::scalar_of(ScalarKind::Int64), true};
  }
  IndexResult r = index_array(lower_expr(*e.value), base, *e.index, type_of(e));
  if (!r.element_ptr) internal("an element store to a view (store_to_view's job; sema rejects '+=' on one)");
  return LValue{r.element_ptr, base.element(), true};
}

void FunctionLowering::store_to_view(const SubscriptExpr& e, llvm::Value* value, const Type& from) {
  const Type& base = type_of(*e.value);
  const Type& view_type = type_of(e);
  IndexResult r = index_array(lower_expr(*e.value), base, *e.index, view_type);
  if (!r.view) internal("a slice store that names one element");
  store_into_view(r.view, view_type, value, from);
}

void FunctionLowering::store_into_view(llvm::Value* view, const Type& view_type, llvm::Value* value,
                                       const Type& from) {
  const unsigned nd = view_type.ndim;
  ArrayParts dst = unpack_array(view, nd);
  ArrayParts src;
  std::vector<llvm::Value*> extents = dst.shape;
  llvm::Value* fill = nullptr;
  if (from.is_array()) {
    if (from.ndim != nd) internal("a slice store from an array of another rank");
    src = unpack_array(value, nd);
    // NumPy raises on a shape mismatch; a kernel cannot, so it copies the part both have and never strays.
    for (unsigned k = 0; k < nd; ++k)
      extents[k] = b_.CreateSelect(b_.CreateICmpSLT(src.shape[k], extents[k]), src.shape[k], extents[k]);
  } else {
    fill = cast(value, from, view_type.element());
  }
  // The last axis innermost, so a C view is written in address order.
  for_each_index(extents, [&](const std::vector<llvm::Value*>& idx) {
    llvm::Value* v = fill;
    if (!v) {
      v = load_place(LValue{element_pointer(src, from, idx), from.element(), true});
      v = cast(v, from.element(), view_type.element());
    }
    store_place(LValue{element_pointer(dst, view_type, idx), view_type.element(), true}, v);
  });
}

void FunctionLowering::for_each_index(const std::vector<llvm::Value*>& extents,
                                      const std::function<void(const std::vector<llvm::Value*>&)>& body) {
  const size_t nd = extents.size();
  std::vector<llvm::Value*> idx(nd);
  std::function<void(size_t)> loop = [&](size_t k) {
    if (k == nd) {
      body(idx);
      return;
    }
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = new_block("loop.head");
    llvm::BasicBlock* inner = new_block("loop.body");
    llvm::BasicBlock* done = new_block("loop.done");
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "loop.i");
    i->addIncoming(i64(0), pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, extents[k]), inner, done);
    b_.SetInsertPoint(inner);
    idx[k] = i;
    loop(k + 1);
    i->addIncoming(b_.CreateAdd(i, i64(1), "", true, true), b_.GetInsertBlock());
    b_.CreateBr(head);
    b_.SetInsertPoint(done);
  };
  loop(0);
}

std::vector<int64_t> FunctionLowering::const_shape(const Expr& shape_expr) {
  auto c = const_eval(shape_expr);
  if (c && c->kind == ConstValue::Kind::Int) return {c->i};
  if (c && c->kind == ConstValue::Kind::Tuple) {
    std::vector<int64_t> shape;
    for (const ConstValue& e : c->elements) {
      if (e.kind != ConstValue::Kind::Int) internal("array shape with a non-integer entry");
      shape.push_back(e.i);
    }
    return shape;
  }
  internal("array shape is not a compile-time constant after analysis");
}

ArrayParts constant_shape_parts(llvm::IRBuilder<>& b, llvm::Value* data, const std::vector<int64_t>& shape,
                                unsigned itemsize) {
  ArrayParts p;
  p.data = data;
  int64_t stride = itemsize;
  p.strides.resize(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    p.strides[k] = b.getInt64(uint64_t(stride));
    stride *= shape[k];
  }
  for (int64_t s : shape) p.shape.push_back(b.getInt64(uint64_t(s)));
  return p;
}

namespace {

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

}  // namespace

llvm::Value* FunctionLowering::make_shared_array(const std::vector<int64_t>& shape, const Type& element,
                                                 const Type& result, unsigned alignment) {
  llvm::Module& mod = m_.module();
  const unsigned as = m_.target().shared_address_space();
  llvm::Type* mt = m_.element_memory_type(element);
  const Type own = Type::array_of(element, unsigned(shape.size()), Layout::C);
  const unsigned itemsize = own.itemsize();
  alignment = std::max(alignment, own.element_align());
  const int64_t count = element_count(shape);
  const llvm::Align align(std::max(16u, alignment));
  llvm::GlobalVariable* g;
  if (count == 0) {
    // shared.array(0, dtype) is the block's dynamic shared memory, sized at launch; every such array of a
    // kernel starts at the same address, as in numba and CUDA's `extern __shared__`.
    const char* name = "gpujit_dynamic_shared";
    g = mod.getGlobalVariable(name, true);
    if (!g) {
      g = new llvm::GlobalVariable(mod, llvm::ArrayType::get(b_.getInt8Ty(), 0), false,
                                   llvm::GlobalValue::ExternalLinkage, nullptr, name, nullptr,
                                   llvm::GlobalValue::NotThreadLocal, as);
    }
    g->setAlignment(std::max(g->getAlign().valueOrOne(), align));  // the largest any of its users asks for
  } else {
    // Shared memory cannot be initialized: the global is undef, one per call site.
    auto* at = llvm::ArrayType::get(mt, uint64_t(count));
    g = new llvm::GlobalVariable(mod, at, false, llvm::GlobalValue::InternalLinkage,
                                 llvm::UndefValue::get(at), "shared", nullptr,
                                 llvm::GlobalValue::NotThreadLocal, as);
    g->setAlignment(align);
  }
  llvm::Value* data = b_.CreateAddrSpaceCast(g, b_.getPtrTy(0));
  ArrayParts parts = constant_shape_parts(b_, data, shape, itemsize);
  if (count == 0) {
    // As numba-cuda: the extent is as many elements as the launch's dynamic shared memory holds.
    llvm::Value* bytes = b_.CreateZExt(m_.target().dynamic_shared_size(b_), b_.getInt64Ty());
    parts.shape[0] = b_.CreateUDiv(bytes, i64(itemsize), "dynamic.extent");
  }
  return cast(pack_array(parts), own, result);
}

llvm::Value* FunctionLowering::make_local_array(const std::vector<int64_t>& shape, const Type& element,
                                                const Type& result, unsigned alignment) {
  llvm::AllocaInst* slot = entry_alloca(
      llvm::ArrayType::get(m_.element_memory_type(element), uint64_t(element_count(shape))), "local.array");
  const Type own = Type::array_of(element, unsigned(shape.size()), Layout::C);
  slot->setAlignment(llvm::Align(std::max({16u, own.itemsize(), own.element_align(), alignment})));
  return cast(pack_array(constant_shape_parts(b_, slot, shape, own.itemsize())), own, result);
}

llvm::Value* FunctionLowering::make_const_array(const std::string& name, const GlobalValue& g,
                                                const Type& result) {
  const Type own = Type::array_of(g.record ? Type::record_of(g.record) : Type::scalar_of(g.dtype),
                                  unsigned(g.shape.size()), Layout::C);
  llvm::Type* mt = m_.element_memory_type(own.element());
  const int64_t count = element_count(g.shape);
  if (g.bytes.size() != size_t(count) * own.itemsize())
    internal("constant array bytes do not match its shape");
  // One global per captured array, shared by every use in every function of the module.
  const std::string symbol = "const_" + name;
  llvm::GlobalVariable* gv = m_.module().getGlobalVariable(symbol, true);
  if (!gv) {
    llvm::StringRef raw(reinterpret_cast<const char*>(g.bytes.data()), g.bytes.size());
    // A record or complex array's initializer is its bytes (padding included): LLVM's raw constant data is
    // of integers and floats only.
    const bool as_bytes = g.record || is_complex(g.dtype);
    llvm::Constant* init = as_bytes ? llvm::ConstantDataArray::getRaw(raw, raw.size(), b_.getInt8Ty())
                                    : llvm::ConstantDataArray::getRaw(raw, uint64_t(count), mt);
    gv = new llvm::GlobalVariable(m_.module(), init->getType(), true, llvm::GlobalValue::InternalLinkage, init,
                                  symbol, nullptr, llvm::GlobalValue::NotThreadLocal,
                                  m_.target().constant_address_space());
    gv->setAlignment(llvm::Align(16));
  }
  llvm::Value* data = b_.CreateAddrSpaceCast(gv, b_.getPtrTy(0));
  return cast(pack_array(constant_shape_parts(b_, data, g.shape, own.itemsize())), own, result);
}

llvm::Value* FunctionLowering::make_device_array_global(const GlobalValue& g, const Type& result) {
  // The address is baked into the code, as numba bakes a captured device array's: the compiled kernel is
  // only valid in this process, for as long as the array lives (the dispatcher keeps it alive), and is
  // never written to the on-disk cache.
  ArrayParts p;
  llvm::Value* global = b_.CreateIntToPtr(b_.getInt64(g.address), b_.getPtrTy(m_.target().global_address_space()));
  p.data = b_.CreateAddrSpaceCast(global, b_.getPtrTy(0), "captured");  // ld.global/st.global after inference
  for (int64_t s : g.shape) p.shape.push_back(b_.getInt64(uint64_t(s)));
  for (int64_t s : g.strides) p.strides.push_back(b_.getInt64(uint64_t(s)));
  (void)result;  // the Name's type is the array's own (sema.cpp, device_array_global)
  return pack_array(p);
}

}  // namespace gpujit
