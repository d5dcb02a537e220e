// Record fields: `rec.name` and `rec['name']` on a record value, for reading, storing and `+=`.
//
// A record value is the address of its bytes (function_lowering.h), so a field is that address plus the
// field's offset from the NumPy dtype (ir/record_type.h). A field of a packed dtype may sit at any offset,
// so its loads and stores carry the alignment the offset and the record's alignment prove, never more. A
// nested record field is its address; a sub-array field is a C array over its bytes with its constant shape,
// indexed and sliced as any array.
#include <numeric>

#include "codegen/function_lowering.h"

namespace gpujit {

LValue FunctionLowering::field_lvalue(const Expr& base, const std::string& name) {
  const Type& rec = type_of(base);
  if (!rec.is_record()) internal("field '" + name + "' of a " + rec.str());
  const RecordField* f = rec.record->find(name);
  if (!f) internal("record field '" + name + "' unknown after analysis");
  llvm::Value* ptr = b_.CreateInBoundsGEP(b_.getInt8Ty(), lower_expr(base), i64(int64_t(f->offset)), name);
  // The record's start is aligned to its alignment; the field, to the largest power of two dividing both.
  uint64_t known =
      f->offset ? std::gcd(uint64_t(rec.record->align), f->offset & -f->offset) : rec.record->align;
  LValue lv{ptr, f->value_type(), true, unsigned(known), f};
  if (lv.type.is_scalar() && known >= lv.type.element_align()) lv.align = 0;  // natural alignment holds
  return lv;
}

std::string FunctionLowering::field_name(const SubscriptExpr& e) {
  if (const auto* s = e.index->as<StringLitExpr>()) return s->value;
  const RecordType& rec = *type_of(*e.value).record;
  std::optional<ConstValue> k = const_eval(*e.index);
  if (!k || k->kind != ConstValue::Kind::Int)
    internal("a record index that is neither a name nor a constant");
  const auto n = int64_t(rec.fields.size());
  int64_t i = k->i < 0 ? k->i + n : k->i;
  if (i < 0 || i >= n) internal("a record field position out of range after analysis");
  return rec.fields[size_t(i)].name;
}

void FunctionLowering::store_field(const Expr& base, const std::string& name, llvm::Value* value,
                                   const Type& from) {
  LValue lv = field_lvalue(base, name);
  if (lv.type.is_array()) {
    store_into_view(load_place(lv), lv.type, value, from);
    return;
  }
  store_place(lv, cast(value, from, lv.type));
}

}  // namespace gpujit
