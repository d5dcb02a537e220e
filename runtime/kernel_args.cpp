// Argument codes and the parameter-layout check (see kernel_args.h).
#include "runtime/kernel_args.h"

#include <fmt/format.h>

#include <stdexcept>

#include "ir/enum_type.h"
#include "ir/named_tuple.h"
#include "ir/opaque_type.h"
#include "ir/record_type.h"

namespace gpujit::rt {

Type type_of_code(ArgCode code) {
  if (is_named_tuple_code(code)) return Type::invalid();  // a header: see types_of_key
  ScalarKind kind = kind_of_code(code);
  switch (code & 3u) {
    case 1:
      if (is_opaque_code(code)) {
        const OpaqueType* o = opaque_by_id(opaque_id(code));
        return o ? Type::opaque_of(o) : Type::invalid();
      }
      if (is_class_code(code)) return Type::class_of(kind);
      if ((code >> 6) & 1u) return (code >> 14) & 1u ? Type::void_pointer() : Type::pointer_to(kind);
      return Type::scalar_of(kind);
    case 2:
      return Type::array_of(kind, (code >> 6) & 0xF,
                            (code >> 10) & 1 ? Layout::C : (code >> 15) & 1 ? Layout::F : Layout::Any, (code >> 11) & 1);
    case 0: {
      const RecordType* r = is_record_code(code) ? record_by_id(code >> 8) : nullptr;
      if (!r) return Type::invalid();
      unsigned ndim = (code >> 4) & 0xF;
      if (ndim == 0) return Type::record_of(r);
      return Type::array_of(Type::record_of(r), ndim, (code >> 2) & 1 ? Layout::C : Layout::Any, (code >> 3) & 1);
    }
    default: return Type::invalid();
  }
}

ArgCode code_of_type(const Type& t) {
  if (t.is_enum()) return kArgInvalid;  // a header and its value's codes (append_codes)
  if (t.is_scalar()) return scalar_code(t.scalar);
  if (t.is_pointer()) return t.void_pointee ? void_pointer_code() : pointer_code(t.scalar);
  if (t.is_class()) return class_code(t.scalar);
  if (t.is_opaque()) return opaque_code(t.opaque->id);
  if (t.is_record()) return record_code(t.record->id, 0);
  if (t.is_array() && t.record) return record_code(t.record->id, t.ndim, t.layout, t.index32);
  if (t.is_array()) return array_code(t.scalar, t.ndim, t.layout, t.index32);
  return kArgInvalid;
}

ArgCode array_code_of(const ArrayView& view) {
  constexpr int64_t kLimit32 = int64_t{1} << 31, kLimit = int64_t{1} << 62;
  bool index32 = true;
  for (int d = 0; d < view.ndim; ++d) {
    if (view.shape[d] >= kLimit) {
      throw std::invalid_argument(fmt::format("an array extent of {} elements is too large; gpujit arrays have "
                                          "extents below 2**62", view.shape[d]));
    }
    index32 = index32 && view.shape[d] < kLimit32;
  }
  if (index32 && view.size() > 0) {
    // The byte offsets of the elements relative to data, as ArrayView::extent() but without overflow.
    __int128 lo = 0, hi = view.itemsize();
    for (int d = 0; d < view.ndim; ++d) {
      __int128 span = __int128(view.shape[d] - 1) * view.strides[d];
      (span < 0 ? lo : hi) += span;
    }
    index32 = lo > -kLimit32 && hi < kLimit32;
  }
  if (view.record) return record_code(view.record->id, unsigned(view.ndim), view.layout(), index32);
  return array_code(view.dtype, unsigned(view.ndim), view.layout(), index32);
}

namespace {

Type decode(const ArgCode* key, size_t n, size_t* pos) {
  if (*pos >= n) return Type::invalid();
  ArgCode code = key[(*pos)++];
  if (is_enum_code(code)) {
    const EnumType* e = enum_by_id(code >> 8);
    Type value = decode(key, n, pos);  // the member's value: its class's value type
    return e && value == e->value_type ? e->member_type() : Type::invalid();
  }
  if (is_named_tuple_code(code)) {
    const NamedTupleType* cls = named_tuple_by_id(named_tuple_id(code));
    Type tuple = decode(key, n, pos);  // the instance: a tuple of as many elements as the class has fields
    if (!cls || !tuple.is_tuple() || tuple.named || tuple.elements.size() != cls->fields.size())
      return Type::invalid();
    tuple.named = cls;
    return tuple;
  }
  if (!is_tuple_code(code)) return type_of_code(code);
  std::vector<Type> elements;
  for (unsigned i = 0, count = code >> 2; i < count; ++i) elements.push_back(decode(key, n, pos));
  return Type::tuple_of(std::move(elements));
}

bool append_codes_in(const Type& t, bool in_tuple, std::vector<ArgCode>* key) {
  if (t.is_enum()) {
    key->push_back(enum_code(t.enum_class->id));
    return append_codes_in(t.enum_class->value_type, in_tuple, key);
  }
  if (t.is_tuple()) {
    if (t.elements.size() > kMaxTupleSize) return false;
    if (t.named) key->push_back(named_tuple_code(t.named->id));
    key->push_back(tuple_code(unsigned(t.elements.size())));
    for (const Type& e : t.elements) {
      if (!append_codes_in(e, true, key)) return false;
    }
    return true;
  }
  // The launch path passes records, dtypes (Class) and opaque types on their own only.
  if (in_tuple && (t.is_record() || t.is_class() || t.is_opaque())) return false;
  ArgCode code = code_of_type(t);
  if (code == kArgInvalid) return false;
  key->push_back(code);
  return true;
}

}  // namespace

std::vector<Type> types_of_key(const ArgCode* key, size_t n) {
  std::vector<Type> types;
  for (size_t pos = 0; pos < n;) types.push_back(decode(key, n, &pos));
  return types;
}

bool append_codes(const Type& t, std::vector<ArgCode>* key) { return append_codes_in(t, false, key); }

void append_param_sizes(const Type& t, std::vector<unsigned>* sizes) {
  if (t.kind == Type::Kind::EnumMember) {
    append_param_sizes(t.enum_class->value_type, sizes);  // passed as its value
  } else if (t.is_array()) {
    sizes->push_back(8);
    sizes->insert(sizes->end(), 2 * size_t(t.ndim), t.index32 ? 4u : 8u);
  } else if (t.is_record() || t.is_pointer()) {
    sizes->push_back(8);  // the address of its copy; the pointer
  } else if (t.is_tuple()) {
    for (const Type& e : t.elements) append_param_sizes(e, sizes);
  } else if (t.is_complex()) {
    unsigned half = scalar_size(t.scalar) / 2;
    sizes->push_back(half);
    sizes->push_back(half);
  } else if (t.is_scalar()) {
    sizes->push_back(scalar_size(t.scalar));
  }
}

std::string check_param_layout(const CompileResult& result) {
  unsigned next = 0;
  for (const ParamLayout& p : result.params) {
    std::vector<unsigned> sizes;
    append_param_sizes(p.type, &sizes);
    if (p.first != next || p.count != sizes.size()) {
      return fmt::format("the compiler passes an argument of type '{}' as {} parameters from {}, the launch path "
                         "as {} from {}",
                         p.type.str(), p.count, p.first, sizes.size(), next);
    }
    next += p.count;
  }
  return {};
}

}  // namespace gpujit::rt
