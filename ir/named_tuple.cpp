// Interning of namedtuple classes (see named_tuple.h).
#include "ir/named_tuple.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <mutex>

namespace gpujit {

namespace {

struct Registry {
  std::mutex mutex;
  std::deque<NamedTupleType> classes;  // a deque never moves its elements: the pointers handed out stay valid
  std::map<const void*, const NamedTupleType*> by_identity;
  /// How many class objects of each module and qualified name were seen: the next one's ordinal.
  std::map<std::string, unsigned> seen;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: the classes outlive every compile, even at exit
  return *r;
}

}  // namespace

std::optional<size_t> NamedTupleType::find(std::string_view field) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] == field) return i;
  }
  return std::nullopt;
}

std::string NamedTupleType::field_list() const {
  if (fields.empty()) return "none";
  std::string s;
  for (const std::string& f : fields) s += (s.empty() ? "'" : ", '") + f + "'";
  return s;
}

const NamedTupleType* intern_named_tuple(NamedTupleDescription d, std::string* error) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (auto it = r.by_identity.find(d.identity); it != r.by_identity.end()) return it->second;
  if (r.classes.size() >= kMaxNamedTupleTypes) {
    if (error) {
      *error = fmt::format("namedtuple class '{}' is one more than the {} distinct namedtuple classes a process "
                           "can pass to kernels; define the class once, outside the function that makes it",
                           d.name, kMaxNamedTupleTypes);
    }
    return nullptr;
  }
  NamedTupleType& c = r.classes.emplace_back();
  c.id = uint16_t(r.classes.size());
  c.name = std::move(d.name);
  c.module = std::move(d.module);
  c.fields = std::move(d.fields);
  std::string base = c.module + "." + d.qualname;
  unsigned ordinal = r.seen[base]++;
  c.key = ordinal == 0 ? base : fmt::format("{}#{}", base, ordinal);
  r.by_identity.emplace(d.identity, &c);
  return &c;
}

const NamedTupleType* named_tuple_by_id(unsigned id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return id >= 1 && id <= r.classes.size() ? &r.classes[id - 1] : nullptr;
}

Type named_tuple_of(const NamedTupleType* cls, std::vector<Type> elements) {
  Type t = Type::tuple_of(std::move(elements));
  t.named = cls;
  return t;
}

}  // namespace gpujit
