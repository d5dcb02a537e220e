// Semantic analysis of namedtuple instances (ir/named_tuple.h): `p.x` reads the element at the field's
// position, as numba's NamedTuple attribute does. Indexing, unpacking, iteration and len() need nothing of
// their own: the instance is a tuple type, and those are typed as any tuple's. Fields are read-only, as a
// tuple's elements are; sema.cpp refuses a store to one.
#include <fmt/format.h>

#include "ir/named_tuple.h"
#include "ir/sema_internal.h"

namespace gpujit {

ExprResult FunctionAnalyzer::named_tuple_field(const AttributeExpr& e, const Type& tuple) {
  std::optional<size_t> i = tuple.named->find(e.attr);
  if (!i || *i >= tuple.elements.size()) {
    std::vector<std::string_view> names(tuple.named->fields.begin(), tuple.named->fields.end());
    error(e.attr_range, fmt::format("'{}' has no attribute '{}'{}; its fields are {}{}", tuple.str(), e.attr,
                                    suggest(e.attr, names), tuple.named->field_list(), origin_of(*e.value)));
    return ExprResult::error();
  }
  return record(e, ExprResult::of_value(tuple.elements[*i]));
}

}  // namespace gpujit
