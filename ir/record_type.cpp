// Interning and spelling of record types (see record_type.h).
#include "ir/record_type.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <mutex>

namespace gpujit {

namespace {

struct Registry {
  std::mutex mutex;
  std::deque<RecordType> records;  // a deque never moves its elements: the pointers handed out stay valid
  std::map<std::string, const RecordType*> by_spelling;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: records outlive every compile, even at exit
  return *r;
}

std::string spell_field_type(const RecordField& f) {
  size_t dims = f.shape.size();
  std::string element = f.type.str();
  if (f.text && dims > 0) {  // numba's CharSeq and UnicodeCharSeq; the string's length is the last extent
    const char* unit = f.type.scalar == ScalarKind::UInt8 ? "char" : "unichr";
    element = fmt::format("[{} x {}]", unit, f.shape.back());
    --dims;
  }
  if (dims == 0) return element;
  std::string shape;
  for (size_t i = 0; i < dims; ++i) shape += fmt::format("{}{}", i ? ", " : "", f.shape[i]);
  if (dims == 1) shape += ",";  // Python's one-tuple: "(5,)"
  return fmt::format("nestedarray({}, ({}))", element, shape);
}

uint64_t element_size(const Type& t) { return t.is_record() ? t.record->size : scalar_size(t.scalar); }

}  // namespace

Type RecordField::value_type() const {
  std::vector<int64_t> dims = array_shape();
  Type element = text ? Type::charseq_of(type.scalar, uint32_t(shape.back())) : type;
  if (dims.empty()) return element;
  return Type::array_of(element, unsigned(dims.size()), Layout::C, /*index32=*/true);
}

std::vector<int64_t> RecordField::array_shape() const {
  if (!text || shape.empty()) return shape;
  return std::vector<int64_t>(shape.begin(), shape.end() - 1);
}

uint64_t RecordField::size() const {
  uint64_t n = element_size(type);
  for (int64_t d : shape) n *= uint64_t(d);
  return n;
}

const RecordField* RecordType::find(std::string_view name) const {
  for (const RecordField& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string RecordType::field_names() const {
  std::string s;
  for (const RecordField& f : fields) s += fmt::format("{}'{}'", s.empty() ? "" : ", ", f.name);
  return s;
}

const RecordType* intern_record(std::vector<RecordField> fields, uint64_t size, unsigned align, bool aligned,
                                std::string* error) {
  auto fail = [&](std::string message) -> const RecordType* {
    if (error) *error = std::move(message);
    return nullptr;
  };
  if (align == 0 || (align & (align - 1)) != 0)
    return fail(fmt::format("record alignment {} is not a power of two", align));
  std::string spelling = "Record(";
  std::string text_field;
  for (size_t i = 0; i < fields.size(); ++i) {
    const RecordField& f = fields[i];
    if (!f.type.is_record() && !f.type.is_scalar())
      return fail(fmt::format("record field '{}' has type {}; fields are scalars, records or arrays of them",
                              f.name, f.type.str()));
    for (int64_t d : f.shape) {
      if (d <= 0) return fail(fmt::format("record field '{}' has an empty sub-array shape", f.name));
    }
    // Overflow-checked: the extents come from signature strings too (found by fuzz_sema).
    uint64_t end = element_size(f.type);
    for (int64_t d : f.shape) {
      if (__builtin_mul_overflow(end, uint64_t(d), &end)) end = UINT64_MAX;
    }
    if (__builtin_add_overflow(end, f.offset, &end)) end = UINT64_MAX;
    if (end > size) {
      return fail(end == UINT64_MAX ? fmt::format("record field '{}' is too large", f.name)
                                    : fmt::format("record field '{}' ends at byte {}, past the itemsize {}",
                                                  f.name, end, size));
    }
    for (size_t j = 0; j < i; ++j) {
      if (fields[j].name == f.name) return fail(fmt::format("record field '{}' appears twice", f.name));
    }
    bool text_unit =
        f.type.is_scalar() && (f.type.scalar == ScalarKind::UInt8 || f.type.scalar == ScalarKind::UInt32);
    if (f.text && (f.shape.empty() || !text_unit))
      return fail(fmt::format("string field '{}' must have uint8 or uint32 characters and a length", f.name));
    if (text_field.empty() && f.text) {
      text_field = f.name;
    } else if (text_field.empty() && f.type.is_record() && !f.type.record->text_field.empty()) {
      text_field = f.name + "." + f.type.record->text_field;
    }
    spelling += fmt::format("{}{}[type={};offset={}]", i ? "," : "", f.name, spell_field_type(f), f.offset);
  }
  spelling += fmt::format(";{};{})", size, aligned ? "True" : "False");
  // The alignment is part of the identity even where numba's spelling leaves it out.
  std::string key = fmt::format("{}@{}", spelling, align);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_spelling.find(key);
  if (it != r.by_spelling.end()) return it->second;
  if (r.records.size() >= kMaxRecordTypes)
    return fail(fmt::format("too many distinct record dtypes in one process (at most {})", kMaxRecordTypes));
  RecordType& rec = r.records.emplace_back();
  rec.id = uint16_t(r.records.size());
  rec.fields = std::move(fields);
  rec.size = size;
  rec.align = align;
  rec.aligned = aligned;
  rec.spelling = std::move(spelling);
  rec.text_field = std::move(text_field);
  r.by_spelling.emplace(std::move(key), &rec);
  return &rec;
}

const RecordType* intern_string_dtype(ScalarKind unit, uint64_t length, std::string* error) {
  const bool bytes = unit == ScalarKind::UInt8;
  std::string spelling = fmt::format("[{} x {}]", bytes ? "char" : "unichr", length);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_spelling.find(spelling);
  if (it != r.by_spelling.end()) return it->second;
  if (r.records.size() >= kMaxRecordTypes) {
    if (error) *error = fmt::format("too many distinct record and string dtypes in one process (at most {})",
                                    kMaxRecordTypes);
    return nullptr;
  }
  RecordType& rec = r.records.emplace_back();
  rec.id = uint16_t(r.records.size());
  rec.char_size = bytes ? 1 : 4;
  rec.size = length * rec.char_size;
  rec.align = rec.char_size;
  rec.spelling = spelling;
  r.by_spelling.emplace(std::move(spelling), &rec);
  return &rec;
}

const RecordType* record_by_id(unsigned id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return id >= 1 && id <= r.records.size() ? &r.records[id - 1] : nullptr;
}

}  // namespace gpujit
