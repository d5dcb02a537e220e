// Typing rules of fixed-width strings (see charseq.h).
#include "ir/charseq.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpujit {

namespace {

OpTyping fail(std::string message) {
  OpTyping t;
  t.error = std::move(message);
  return t;
}

bool same_kind(const Type& a, const Type& b) {
  return a.is_charseq() && b.is_charseq() && a.scalar == b.scalar;
}

}  // namespace

const char* charseq_python_name(const Type& t) { return t.scalar == ScalarKind::UInt8 ? "bytes" : "str"; }

OpTyping type_charseq_compare(CmpOpKind op, const Type& lhs, const Type& rhs) {
  const char* sym = to_string(op);
  if (op == CmpOpKind::Is || op == CmpOpKind::IsNot)
    return fail(fmt::format("'{}' is not supported for strings; compare them with '==' or '!='", sym));
  if (!lhs.is_charseq() || !rhs.is_charseq())
    return fail(fmt::format("cannot compare '{}' and '{}' with '{}'", lhs.str(), rhs.str(), sym));
  if (!same_kind(lhs, rhs)) {
    return fail(
        fmt::format("cannot compare a {} ({}) with a {} ({}); compare str with str and bytes with bytes",
                    charseq_python_name(lhs), lhs.str(), charseq_python_name(rhs), rhs.str()));
  }
  if (op != CmpOpKind::Eq && op != CmpOpKind::NotEq)
    return fail(fmt::format("strings are compared with '==' and '!=' in kernels, not '{}'", sym));
  OpTyping t;
  t.operand = unify_charseq(lhs, rhs);
  t.result = Type::scalar_of(ScalarKind::Bool);
  return t;
}

Type unify_charseq(const Type& a, const Type& b) {
  if (!same_kind(a, b)) return Type::invalid();
  return Type::charseq_of(a.scalar, std::max(a.length, b.length));
}

std::string charseq_store_error(const Type& from, const Type& to) {
  if (same_kind(from, to)) return "";
  if (to.is_charseq() && from.is_charseq()) {
    return fmt::format("cannot store a {} ({}) into a {} element ({}); write {}", charseq_python_name(from),
                       from.str(), charseq_python_name(to), to.str(),
                       to.scalar == ScalarKind::UInt8 ? "a bytes literal (b'...')" : "a str literal ('...')");
  }
  if (to.is_charseq()) {
    return fmt::format("cannot store a value of type {} into a string element ({}); store a {}", from.str(),
                       to.str(), charseq_python_name(to));
  }
  return fmt::format("cannot store a string ({}) into an element of type {}", from.str(), to.str());
}

std::vector<uint32_t> code_units(const ConstValue& c) {
  std::vector<uint32_t> units;
  const std::string& s = c.s;
  if (c.is_bytes()) {
    for (char ch : s) units.push_back(static_cast<unsigned char>(ch));
    return units;
  }
  for (size_t i = 0; i < s.size();) {
    auto byte = [&](size_t k) { return k < s.size() ? uint32_t(static_cast<unsigned char>(s[k])) : 0u; };
    uint32_t lead = byte(i);
    size_t n = lead < 0x80           ? 1
               : (lead >> 5) == 0x6  ? 2
               : (lead >> 4) == 0xE  ? 3
               : (lead >> 3) == 0x1E ? 4
                                     : 1;
    uint32_t cp = n == 1 ? lead : n == 2 ? lead & 0x1F : n == 3 ? lead & 0x0F : lead & 0x07;
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
    units.push_back(cp);
    i += n;
  }
  return units;
}

int64_t constant_length(const ConstValue& c) { return int64_t(code_units(c).size()); }

}  // namespace gpujit
