// cuda.ldca/ldcg/ldcs/ldlu/ldcv(ary, idx) and cuda.stcg/stcs/stwb/stwt(ary, idx, val): an array element
// loaded or stored with the PTX cache operator the name ends in.
//
// The element's address is found as for ary[idx] (negative indices wrap, bounds are checked under debug);
// the target then emits the access: inline `ld.global.cs.b32` and friends on NVPTX, a plain volatile access
// on the host (codegen/target.h). Values move as their bits, so float16/32/64 go through b16/b32/b64.
#include "codegen/function_lowering.h"
#include "ir/builtins.h"

namespace gpujit {

llvm::Value* FunctionLowering::lower_cache_hint(const BuiltinInfo& bi, const CallExpr& e) {
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.size() != e.args.size())
    internal("no operand types for " + bi.qualified_name());
  const Type& array_type = it->second[0];
  if (!array_type.is_array() && !array_type.is_pointer())
    internal(bi.qualified_name() + " on '" + array_type.str() + "'");
  const ScalarKind dtype = array_type.scalar;
  const Type elem = Type::scalar_of(dtype);
  const std::string_view name = bi.name;
  const std::string_view op = name.substr(2);  // "ldcs" -> "cs"
  // Arguments are evaluated left to right, as Python does: array (or pointer), index, then the value.
  IndexResult place;
  if (array_type.is_pointer()) {
    llvm::Value* ptr = lower_expr(*e.args[0]);
    place.element_ptr = pointer_element(ptr, array_type, *e.args[1]);
  } else {
    place = index_array(lower_expr(*e.args[0]), array_type, *e.args[1], elem);
  }
  if (!place.element_ptr) internal(bi.qualified_name() + " on an array slice");
  if (name.substr(0, 2) == "ld") {
    llvm::Value* v = m_.target().load_cached(b_, op, m_.memory_type(dtype), place.element_ptr);
    return cast(v, elem, type_of(e));
  }
  llvm::Value* v = lower_expr_as(*e.args[2], elem);
  m_.target().store_cached(b_, op, v, place.element_ptr);
  return llvm::Constant::getNullValue(llvm_type(Type::none()));
}

}  // namespace gpujit
