// The libdevice rows and signatures (see libdevice_functions.h), built once from ir/libdevice_table.inc.
#include "ir/libdevice_functions.h"

#include <deque>
#include <string>
#include <unordered_map>

#include "frontend/diagnostics.h"

namespace gpujit {

namespace {

struct Row {
  const char* name;
  const char* result;
  const char* params;
};

const Row kRows[] = {
#include "ir/libdevice_table.inc"
};

Type type_of_letter(char c) {
  switch (c) {
    case 'v': return Type::void_();
    case 'i': return Type::scalar_of(ScalarKind::Int32);
    case 'I': return Type::scalar_of(ScalarKind::Int64);
    case 'u': return Type::scalar_of(ScalarKind::UInt32);
    case 'U': return Type::scalar_of(ScalarKind::UInt64);
    case 'h': return Type::scalar_of(ScalarKind::UInt16);
    case 'f': return Type::scalar_of(ScalarKind::Float32);
    case 'd': return Type::scalar_of(ScalarKind::Float64);
    default: throw InternalError(std::string("libdevice table: unknown type letter '") + c + "'");
  }
}

struct Table {
  std::deque<std::string> symbols;  // "__nv_sin": the rows point into these
  std::deque<BuiltinInfo> rows;
  std::unordered_map<const BuiltinInfo*, LibdeviceSignature> signatures;
  std::unordered_map<std::string_view, const BuiltinInfo*> by_name;

  Table() {
    for (const Row& r : kRows) {
      LibdeviceSignature sig;
      sig.result = type_of_letter(r.result[0]);
      for (const char* p = r.params; *p; ++p) {
        bool out = *p == '&';
        if (out) ++p;
        (out ? sig.outputs : sig.inputs).push_back(type_of_letter(*p));
        sig.is_output.push_back(out);
      }
      const std::string& symbol = symbols.emplace_back(std::string("__nv_") + r.name);
      auto nargs = static_cast<int8_t>(sig.inputs.size());
      rows.push_back({BuiltinId::LibdeviceCall, BuiltinScope::Libdevice, r.name, nullptr, true, nargs, nargs,
                      BuiltinTyping::LibdeviceFn, BuiltinLowering::LibdeviceFn, nullptr, symbol.c_str(), false,
                      BuiltinReg::None, 0, 0, true, "a libdevice function"});
      signatures.emplace(&rows.back(), std::move(sig));
      by_name.emplace(r.name, &rows.back());
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const BuiltinInfo* find_libdevice_builtin(std::string_view name) {
  const auto& by_name = table().by_name;
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

const LibdeviceSignature& libdevice_signature(const BuiltinInfo& row) {
  const auto& sigs = table().signatures;
  auto it = sigs.find(&row);
  if (it == sigs.end()) throw InternalError(std::string("'") + row.name + "' is not a libdevice row");
  return it->second;
}

std::vector<std::string_view> libdevice_names() {
  std::vector<std::string_view> names;
  for (const Row& r : kRows) names.emplace_back(r.name);
  return names;
}

Type libdevice_call_type(const LibdeviceSignature& sig) {
  if (sig.outputs.empty()) return sig.result;
  std::vector<Type> elts;
  if (!sig.result.is_void()) elts.push_back(sig.result);
  elts.insert(elts.end(), sig.outputs.begin(), sig.outputs.end());
  return Type::tuple_of(std::move(elts));
}

}  // namespace gpujit
