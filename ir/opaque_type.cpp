// The process-wide table of opaque types (see opaque_type.h).
#include "ir/opaque_type.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <mutex>

namespace gpujit {
namespace {

struct OpaqueRegistry {
  std::mutex mutex;
  std::deque<OpaqueType> types;  // a deque: the pointers handed out stay valid as it grows
  std::map<std::string, const OpaqueType*, std::less<>> by_spelling;
};

OpaqueRegistry& opaque_registry() {
  static auto* r = new OpaqueRegistry();  // never destroyed: types outlive every compile
  return *r;
}

}  // namespace

const OpaqueType* intern_opaque(std::string_view spelling, std::string* error) {
  if (spelling.empty()) {
    if (error) *error = "opaque(...) needs the type's name";
    return nullptr;
  }
  OpaqueRegistry& r = opaque_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (auto it = r.by_spelling.find(spelling); it != r.by_spelling.end()) return it->second;
  if (r.types.size() >= kMaxOpaqueTypes) {
    if (error) {
      *error = fmt::format("opaque type '{}' is one more than the {} distinct opaque types a process can use",
                           spelling, kMaxOpaqueTypes);
    }
    return nullptr;
  }
  OpaqueType& t = r.types.emplace_back();
  t.id = uint16_t(r.types.size());
  t.spelling = std::string(spelling);
  r.by_spelling.emplace(t.spelling, &t);
  return &t;
}

const OpaqueType* opaque_by_id(unsigned id) {
  OpaqueRegistry& r = opaque_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return id >= 1 && id <= r.types.size() ? &r.types[id - 1] : nullptr;
}

}  // namespace gpujit
