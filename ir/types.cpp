// Scalar names, type printing in numba's spelling, and the parser for type and signature strings.
//
// The printer and the parser are inverses for every type the parser accepts: parse_type(t.str()) == t for
// scalars, arrays of ndim >= 1 and tuples. Tuples print as numba's constructors, "UniTuple(int64, 2)" when
// every element has the same type and "Tuple(int64, float32)" otherwise, which is also how signatures
// write them; the parser reads those, numba's repr "UniTuple(int64 x 2)" and the plain "(int64, float32)".
// Parse errors are lowercase, name the offending text and its column, and suggest the nearest dtype name.
#include "ir/types.h"

#include "ir/datetime_types.h"
#include "ir/enum_type.h"
#include "ir/named_tuple.h"
#include "ir/opaque_type.h"
#include "ir/record_type.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace gpujit {

namespace {

struct ScalarInfo {
  ScalarKind kind;
  const char* name;
  unsigned size;
};

constexpr std::array<ScalarInfo, 15> kScalars = {{
    {ScalarKind::Bool, "bool", 1},
    {ScalarKind::Int8, "int8", 1},
    {ScalarKind::Int16, "int16", 2},
    {ScalarKind::Int32, "int32", 4},
    {ScalarKind::Int64, "int64", 8},
    {ScalarKind::UInt8, "uint8", 1},
    {ScalarKind::UInt16, "uint16", 2},
    {ScalarKind::UInt32, "uint32", 4},
    {ScalarKind::UInt64, "uint64", 8},
    {ScalarKind::Float16, "float16", 2},
    {ScalarKind::Float32, "float32", 4},
    {ScalarKind::Float64, "float64", 8},
    {ScalarKind::Complex64, "complex64", 8},
    {ScalarKind::Complex128, "complex128", 16},
    {ScalarKind::BFloat16, "bfloat16", 2},
}};

// Spellings other than the canonical name. numba's own aliases win where NumPy disagrees: numba's
// `float_` is float32 (NumPy's np.float_ is float64; the numpy namespace handles that one itself).
struct Alias {
  const char* name;
  ScalarKind kind;
};
// clang-format off
constexpr Alias kAliases[] = {
    {"bool_", ScalarKind::Bool},     {"boolean", ScalarKind::Bool},    {"b1", ScalarKind::Bool},
    {"i1", ScalarKind::Int8},        {"byte", ScalarKind::Int8},       {"int8_t", ScalarKind::Int8},
    {"i2", ScalarKind::Int16},       {"short", ScalarKind::Int16},     {"int16_t", ScalarKind::Int16},
    {"i4", ScalarKind::Int32},       {"intc", ScalarKind::Int32},      {"int32_t", ScalarKind::Int32},
    {"i8", ScalarKind::Int64},       {"int_", ScalarKind::Int64},      {"intp", ScalarKind::Int64},
    {"long", ScalarKind::Int64},     {"longlong", ScalarKind::Int64},  {"int64_t", ScalarKind::Int64},
    {"u1", ScalarKind::UInt8},       {"ubyte", ScalarKind::UInt8},     {"uint8_t", ScalarKind::UInt8},
    {"u2", ScalarKind::UInt16},      {"ushort", ScalarKind::UInt16},   {"uint16_t", ScalarKind::UInt16},
    {"u4", ScalarKind::UInt32},      {"uintc", ScalarKind::UInt32},    {"uint32_t", ScalarKind::UInt32},
    {"u8", ScalarKind::UInt64},      {"uintp", ScalarKind::UInt64},    {"ulonglong", ScalarKind::UInt64},
    {"uint", ScalarKind::UInt64},    {"uint64_t", ScalarKind::UInt64}, {"f2", ScalarKind::Float16},
    {"half", ScalarKind::Float16},   {"f4", ScalarKind::Float32},      {"single", ScalarKind::Float32},
    {"float_", ScalarKind::Float32}, {"float32_t", ScalarKind::Float32}, {"f8", ScalarKind::Float64},
    {"double", ScalarKind::Float64}, {"float64_t", ScalarKind::Float64}, {"c8", ScalarKind::Complex64},
    {"csingle", ScalarKind::Complex64}, {"c16", ScalarKind::Complex128}, {"cdouble", ScalarKind::Complex128},
    {"complex_", ScalarKind::Complex128},
};
// clang-format on

const ScalarInfo& info(ScalarKind k) { return kScalars[static_cast<size_t>(k)]; }

unsigned edit_distance(std::string_view a, std::string_view b) {
  std::vector<unsigned> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<unsigned>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    unsigned diag = row[0];
    row[0] = static_cast<unsigned>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      unsigned up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggest_scalar(std::string_view name) {
  std::string best;
  unsigned best_distance = 3;  // farther than two edits is a different word, not a typo
  for (const ScalarInfo& s : kScalars) {
    unsigned d = edit_distance(name, s.name);
    if (d < best_distance) best_distance = d, best = s.name;
  }
  return best.empty() ? std::string() : fmt::format("; did you mean '{}'?", best);
}

// A recursive-descent reader over a type string. `pos_` is a byte offset; columns in messages are 1-based.
class TypeReader {
 public:
  static constexpr int kMaxTypeNesting = 32;
  /// Record offsets, sizes and sub-array extents: NumPy's itemsize is a C int.
  static constexpr uint64_t kMaxRecordBytes = 0x7FFFFFFF;
  static constexpr std::string_view kRecordTooLarge = "record offsets, sizes and extents are at most 2147483647";

  explicit TypeReader(std::string_view text) : text_(text) {}

  Type read_type() {
    // Tuples and records nest by recursion here: a bound keeps a pathological string from overflowing the
    // stack (found by fuzz_sema).
    if (depth_ >= kMaxTypeNesting) {
      return fail(pos_, fmt::format("types nested more than {} deep are not supported", kMaxTypeNesting));
    }
    ++depth_;
    Type t = read_type_at_depth();
    --depth_;
    return t;
  }

  Type read_type_at_depth() {
    skip_space();
    if (peek() == '(') return read_paren_tuple();
    size_t start = pos_;
    std::string_view word = read_word();
    if (word.empty()) return fail(start, fmt::format("expected a type, found {}", describe_here()));
    if (word == "UniTuple") return read_unituple();
    if (word == "Tuple") return read_tuple_call();
    if (word == "array") return read_array_call(start);
    if (word == "Record") {
      Type r = read_record();
      if (failed()) return r;
      skip_space();
      return peek() == '[' ? read_array_dims(r) : r;
    }
    if (word == "void" || word == "none") {
      skip_space();
      if (peek() != '*') return Type::void_();
      ++pos_;  // numba's voidptr prints as "void*", its CPointer(void) as "none*"
      return Type::void_pointer();
    }
    if (word == "class") return read_class();
    if (word == "opaque") return read_opaque();
    word = with_date_unit(start, word);
    if (failed()) return Type::invalid();
    std::optional<ScalarKind> k = parse_scalar_name(word);
    if (!k) return fail(start, fmt::format("unknown type '{}'{}", word, suggest_scalar(word)));
    skip_space();
    if (peek() == '*') {  // numba's CPointer(float32) prints as "float32*"
      ++pos_;
      return Type::pointer_to(*k);
    }
    if (peek() != '[') return Type::scalar_of(*k);
    return read_array_dims(*k);
  }

  /// numba's NumberClass, "class(int32)": the type of a dtype object passed as an argument.
  Type read_class() {
    if (!expect('(')) return Type::invalid();
    skip_space();
    size_t at = pos_;
    Type t = read_type();
    if (failed()) return t;
    if (!t.is_scalar() || t.is_enum()) {
      return fail(at, fmt::format("class(...) takes a number type (a dtype such as int32), not '{}'", t.str()));
    }
    if (!expect(')')) return Type::invalid();
    return Type::class_of(t.scalar);
  }

  /// A library's opaque type, "opaque(name)" (ir/opaque_type.h): the name is any text up to the ')'.
  Type read_opaque() {
    if (!expect('(')) return Type::invalid();
    size_t at = pos_;
    size_t close = text_.find(')', pos_);
    if (close == std::string_view::npos) return fail(at, "opaque(...) is missing its ')'");
    std::string error;
    const OpaqueType* o = intern_opaque(text_.substr(pos_, close - pos_), &error);
    if (!o) return fail(at, error);
    pos_ = close + 1;
    return Type::opaque_of(o);
  }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  size_t pos() const { return pos_; }
  void advance() { ++pos_; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  /// The decimal digits at [start, pos_) as a number, or nullopt after reporting `too_large` when it is
  /// above `max` (or above 2**64, where std::stoull would throw).
  std::optional<uint64_t> digits_value(size_t start, uint64_t max, std::string_view too_large) {
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (ec != std::errc() || end != text_.data() + pos_ || value > max) {
      fail(start, std::string(too_large));
      return std::nullopt;
    }
    return value;
  }

  Type fail(size_t at, std::string message) {
    if (error_.empty()) error_ = fmt::format("{} (column {})", message, at + 1);
    return Type::invalid();
  }
  std::string describe_here() const {
    if (pos_ >= text_.size()) return "end of text";
    return fmt::format("'{}'", text_[pos_]);
  }
  bool expect(char c) {
    skip_space();
    if (peek() == c) {
      ++pos_;
      return true;
    }
    fail(pos_, fmt::format("expected '{}', found {}", c, describe_here()));
    return false;
  }

 private:
  std::string_view read_word() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // numba's spelling of a record (Type::str()): "Record(a[type=float64;offset=0],b[type=nestedarray(int32,
  // (3,));offset=8];24;True)". The alignment is not spelled: an aligned record has its widest field's, a
  // packed one 1, as NumPy lays them out.
  Type read_record() {
    if (!expect('(')) return Type::invalid();
    std::vector<RecordField> fields;
    unsigned align = 1;
    for (;;) {
      skip_space();
      if (peek() == ';') break;
      RecordField f;
      f.name = std::string(read_word());
      if (f.name.empty()) return fail(pos_, fmt::format("expected a record field name, found {}", describe_here()));
      if (!expect('[') || !expect_word("type") || !expect('=')) return Type::invalid();
      skip_space();
      size_t tstart = pos_;
      if (text_.substr(pos_, 11) == "nestedarray") {
        pos_ += 11;
        if (!expect('(')) return Type::invalid();
        f.type = read_type();
        if (failed()) return f.type;
        if (!expect(',') || !expect('(')) return Type::invalid();
        for (;;) {
          skip_space();
          if (peek() == ')') break;
          size_t nstart = pos_;
          while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
          if (nstart == pos_) return fail(nstart, "expected a sub-array extent");
          std::optional<uint64_t> extent = digits_value(nstart, kMaxRecordBytes, kRecordTooLarge);
          if (!extent) return Type::invalid();
          f.shape.push_back(static_cast<int64_t>(*extent));
          skip_space();
          if (peek() == ',') ++pos_;
        }
        ++pos_;
        if (!expect(')')) return Type::invalid();
      } else {
        f.type = read_type();
        if (failed()) return f.type;
      }
      if (!f.type.is_scalar() && !f.type.is_record())
        return fail(tstart, "a record field is a scalar, a record or a nestedarray of them");
      if (!expect(';') || !expect_word("offset") || !expect('=')) return Type::invalid();
      f.offset = read_number();
      if (failed() || !expect(']')) return Type::invalid();
      align = std::max(align, Type::array_of(f.type, 1, Layout::C).element_align());
      fields.push_back(std::move(f));
      skip_space();
      if (peek() == ',') ++pos_;
    }
    ++pos_;  // ';'
    uint64_t size = read_number();
    if (failed() || !expect(';')) return Type::invalid();
    skip_space();
    size_t bstart = pos_;
    std::string_view aligned = read_word();
    if (aligned != "True" && aligned != "False") return fail(bstart, "expected True or False (aligned)");
    if (!expect(')')) return Type::invalid();
    std::string error;
    const RecordType* r = intern_record(std::move(fields), size, aligned == "True" ? align : 1, aligned == "True",
                                        &error);
    if (!r) return fail(bstart, error);
    return Type::record_of(r);
  }

  // "datetime64[D]": after a datetime word, a bracket that holds no ':' is its unit, not array axes ("[]" is
  // numba's generic unit). Returns the word with its unit, or the word alone.
  std::string_view with_date_unit(size_t start, std::string_view word) {
    if (!is_npdatetime_word(word) || peek() != '[') return word;
    size_t close = text_.find(']', pos_);
    if (close == std::string_view::npos || text_.substr(pos_, close - pos_).find(':') != std::string_view::npos)
      return word;
    std::string_view full = text_.substr(start, close + 1 - start);
    if (!parse_npdatetime_name(full)) {
      fail(pos_ + 1, fmt::format("unknown unit '{}' of {}; the units are Y, M, W, D, h, m, s, ms, us, ns, ps, fs "
                                 "and as",
                                 text_.substr(pos_ + 1, close - pos_ - 1), word));
      return word;
    }
    pos_ = close + 1;
    return full;
  }

  bool expect_word(std::string_view word) {
    skip_space();
    size_t start = pos_;
    if (read_word() == word) return true;
    fail(start, fmt::format("expected '{}'", word));
    return false;
  }

  uint64_t read_number() {
    skip_space();
    size_t start = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    if (start == pos_) {
      fail(start, fmt::format("expected a number, found {}", describe_here()));
      return 0;
    }
    return digits_value(start, kMaxRecordBytes, kRecordTooLarge).value_or(0);
  }

  Type read_array_dims(const Type& element) {
    size_t start = pos_;
    Type t = read_array_dims(element.scalar);
    if (t.is_array() && t.layout == Layout::F) {
      return fail(start, "Fortran-order arrays of records are not supported; use C order ('[:, ::1]') or any "
                         "layout ('[:, :]')");
    }
    if (t.is_array()) t.record = element.record;
    return t;
  }

  // "[:]", "[::1]", "[:, :]", "[:, ::1]", "[::1, :]": one ':' per axis; '::1' marks the contiguous axis, the
  // last for C order or the first for Fortran order (numba's 'F'), on one axis only.
  Type read_array_dims(ScalarKind dtype) {
    ++pos_;  // '['
    unsigned ndim = 0;
    size_t contiguous_at = std::string_view::npos;  // where '::1' was written
    unsigned contiguous_axis = 0;
    for (;;) {
      skip_space();
      size_t axis_start = pos_;
      if (peek() != ':')
        return fail(pos_, fmt::format("expected ':' for an array axis, found {}", describe_here()));
      ++pos_;
      ++ndim;
      if (peek() == ':') {
        ++pos_;
        if (peek() != '1')
          return fail(pos_, fmt::format("expected '1' after '::', found {}", describe_here()));
        ++pos_;
        if (contiguous_at != std::string_view::npos) {
          return fail(axis_start, "'::1' may appear on one axis only: the last for C order ('[:, ::1]') or the "
                                  "first for Fortran order ('[::1, :]')");
        }
        contiguous_at = axis_start;
        contiguous_axis = ndim - 1;
      }
      skip_space();
      if (peek() == ']') {
        ++pos_;
        break;
      }
      if (peek() != ',')
        return fail(pos_, fmt::format("expected ',' or ']' in array type, found {}", describe_here()));
      ++pos_;
    }
    if (ndim > 32) return fail(0, "arrays have at most 32 dimensions");
    Layout layout = Layout::Any;
    if (contiguous_at != std::string_view::npos) {
      if (contiguous_axis + 1 == ndim) {
        layout = Layout::C;
      } else if (contiguous_axis == 0) {
        layout = Layout::F;
      } else {
        return fail(contiguous_at, "'::1' must be on the last axis (C order, '[:, :, ::1]') or the first "
                                   "(Fortran order, '[::1, :, :]')");
      }
    }
    return Type::array_of(dtype, ndim, layout);
  }

  // "UniTuple(int64, 2)"; numba's repr "UniTuple(int64 x 2)" is accepted too.
  Type read_unituple() {
    if (!expect('(')) return Type::invalid();
    Type elt = read_type();
    if (failed()) return elt;
    skip_space();
    if (peek() == ',' || peek() == 'x')
      ++pos_;
    else
      return fail(pos_, fmt::format("expected ',' and a count in UniTuple, found {}", describe_here()));
    skip_space();
    size_t start = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    if (start == pos_) return fail(pos_, fmt::format("expected a tuple length, found {}", describe_here()));
    std::optional<uint64_t> count = digits_value(start, 64, "tuples have at most 64 elements");
    if (!count) return Type::invalid();
    if (!expect(')')) return Type::invalid();
    return Type::tuple_of(std::vector<Type>(static_cast<size_t>(*count), elt));
  }

  Type read_tuple_call() {
    if (!expect('(')) return Type::invalid();
    return read_elements_until_paren();
  }

  // "(int64, float32)", "(int64,)", "()".
  Type read_paren_tuple() {
    ++pos_;
    return read_elements_until_paren();
  }

  Type read_elements_until_paren() {
    std::vector<Type> elts;
    skip_space();
    if (peek() == ')') {
      ++pos_;
      return Type::tuple_of({});
    }
    for (;;) {
      Type t = read_type();
      if (failed()) return t;
      if (t.is_void()) return fail(pos_, "a tuple cannot hold void");
      elts.push_back(std::move(t));
      skip_space();
      if (peek() == ')') {
        ++pos_;
        break;
      }
      if (peek() != ',')
        return fail(pos_, fmt::format("expected ',' or ')' in tuple type, found {}", describe_here()));
      ++pos_;
      skip_space();
      if (peek() == ')') {
        ++pos_;
        break;
      }
    }
    return Type::tuple_of(std::move(elts));
  }

  // numba's repr of arrays: "array(float32, 2d, C)" / "array(float32, 1d, A)".
  Type read_array_call(size_t start) {
    if (!expect('(')) return Type::invalid();
    skip_space();
    size_t dstart = pos_;
    std::string_view dname = with_date_unit(dstart, read_word());
    if (failed()) return Type::invalid();
    std::optional<ScalarKind> dtype = parse_scalar_name(dname);
    if (!dtype) return fail(dstart, fmt::format("unknown type '{}'{}", dname, suggest_scalar(dname)));
    if (!expect(',')) return Type::invalid();
    skip_space();
    size_t nstart = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    if (nstart == pos_ || peek() != 'd') return fail(nstart, "expected the number of dimensions like '2d'");
    std::optional<uint64_t> ndim64 = digits_value(nstart, 32, "arrays have between 1 and 32 dimensions");
    if (!ndim64) return Type::invalid();
    unsigned ndim = static_cast<unsigned>(*ndim64);
    ++pos_;
    if (!expect(',')) return Type::invalid();
    skip_space();
    size_t lstart = pos_;
    std::string_view layout = read_word();
    if (layout != "C" && layout != "A" && layout != "F") return fail(lstart, "expected array layout 'C', 'F' or 'A'");
    if (!expect(')')) return Type::invalid();
    if (ndim == 0 || ndim > 32) return fail(start, "arrays have between 1 and 32 dimensions");
    return Type::array_of(*dtype, ndim, layout == "C" ? Layout::C : layout == "F" ? Layout::F : Layout::Any);
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;  // read_type() calls in progress
  std::string error_;
};

}  // namespace

// The fp8 kinds follow the datetime ones in ScalarKind, so they have a table of their own.
constexpr std::array<const char*, 3> kFp8Names = {"fp8_e4m3", "fp8_e5m2", "fp8_e8m0"};

const char* scalar_name(ScalarKind k) {
  if (is_fp8(k)) return kFp8Names[size_t(k) - size_t(ScalarKind::Fp8E4M3)];
  return is_npdatetime(k) ? npdatetime_name(k) : info(k).name;
}

std::optional<ScalarKind> parse_scalar_name(std::string_view name) {
  if (std::optional<ScalarKind> k = parse_npdatetime_name(name)) return k;
  for (size_t i = 0; i < kFp8Names.size(); ++i) {
    if (name == kFp8Names[i]) return ScalarKind(size_t(ScalarKind::Fp8E4M3) + i);
  }
  for (const ScalarInfo& s : kScalars) {
    if (name == s.name) return s.kind;
  }
  for (const Alias& a : kAliases) {
    if (name == a.name) return a.kind;
  }
  return std::nullopt;
}

unsigned scalar_size(ScalarKind k) {
  if (is_fp8(k)) return 1;
  return is_npdatetime(k) ? 8 : info(k).size;
}

bool is_integer(ScalarKind k) { return k >= ScalarKind::Int8 && k <= ScalarKind::UInt64; }
bool is_signed(ScalarKind k) { return k >= ScalarKind::Int8 && k <= ScalarKind::Int64; }
bool is_unsigned(ScalarKind k) { return k >= ScalarKind::UInt8 && k <= ScalarKind::UInt64; }
bool is_float(ScalarKind k) { return k >= ScalarKind::Float16 && k <= ScalarKind::Float64; }
bool is_complex(ScalarKind k) { return k == ScalarKind::Complex64 || k == ScalarKind::Complex128; }

Type Type::array_of(const Type& element, unsigned ndim, Layout layout, bool index32) {
  Type t = array_of(element.scalar, ndim, layout, index32);
  t.record = element.record;
  if (element.is_charseq()) {  // its string dtype; `scalar` stays unused, as for records (type_of_code)
    t.record = intern_string_dtype(element.scalar, element.length, nullptr);
    t.scalar = Type().scalar;
    if (!t.record) return Type::invalid();  // the process has used up its record ids
  }
  return t;
}

Type Type::element() const {
  if (!record) return scalar_of(scalar);
  if (record->char_size)
    return charseq_of(record->char_size == 1 ? ScalarKind::UInt8 : ScalarKind::UInt32,
                      uint32_t(record->size / record->char_size));
  return record_of(record);
}

unsigned Type::itemsize() const { return record ? unsigned(record->size) : scalar_size(scalar); }

unsigned Type::element_align() const {
  if (record) return record->align;
  return gpujit::is_complex(scalar) ? scalar_size(scalar) / 2 : scalar_size(scalar);  // NumPy aligns complex as its parts
}

std::string Type::str() const {
  switch (kind) {
    case Kind::Invalid:
      return "<invalid>";
    case Kind::Void:
      return "void";
    case Kind::None:
      return "none";
    case Kind::GridGroup:
      return "grid_group";
    case Kind::Scalar:
      return enum_class ? enum_class->spelling : scalar_name(scalar);
    case Kind::EnumMember:
      return enum_class->spelling;
    case Kind::CharSeq:
      return fmt::format("[{} x {}]", scalar == ScalarKind::UInt8 ? "char" : "unichr", length);
    case Kind::Vector:
      return dim3 ? "Dim3" : fmt::format("{}x{}", scalar_name(scalar), lanes);
    case Kind::Pointer:
      return void_pointee ? "void*" : fmt::format("{}*", scalar_name(scalar));
    case Kind::Class:
      return fmt::format("class({})", scalar_name(scalar));
    case Kind::Opaque:
      return fmt::format("opaque({})", opaque->spelling);
    case Kind::Record:
      return record->spelling;
    case Kind::Array: {
      const std::string dtype = record ? record->spelling : scalar_name(scalar);
      if (ndim == 0) return fmt::format("array({}, 0d, {})", dtype, layout_letter(layout));
      std::string s = fmt::format("{}[", dtype);
      for (unsigned i = 0; i < ndim; ++i) {
        if (i) s += ", ";
        const bool contiguous = layout == Layout::C ? i + 1 == ndim : layout == Layout::F && i == 0;
        s += contiguous ? "::1" : ":";
      }
      return s + "]";
    }
    case Kind::Tuple: {
      // numba's constructors: every element alike is a UniTuple, anything else (the empty tuple too) a Tuple.
      // A namedtuple is numba's NamedUniTuple "Point(int64 x 2)" or NamedTuple "Point(int64, float64)".
      bool uniform = !elements.empty();
      const std::string first = uniform ? elements.front().str() : std::string();
      for (const Type& e : elements) uniform = uniform && e.str() == first;
      if (uniform && named) return fmt::format("{}({} x {})", named->name, first, elements.size());
      if (uniform) return fmt::format("UniTuple({}, {})", first, elements.size());
      std::string s = named ? named->name + "(" : std::string("Tuple(");
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) s += ", ";
        s += elements[i].str();
      }
      return s + ")";
    }
  }
  return "<invalid>";
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Type::Kind::Scalar:
      return a.scalar == b.scalar && a.enum_class == b.enum_class;
    case Type::Kind::Pointer:
      return a.scalar == b.scalar && a.void_pointee == b.void_pointee;
    case Type::Kind::Class:
      return a.scalar == b.scalar;
    case Type::Kind::EnumMember:
      return a.enum_class == b.enum_class;
    case Type::Kind::Opaque:
      return a.opaque == b.opaque;
    case Type::Kind::CharSeq:
      return a.scalar == b.scalar && a.length == b.length;
    case Type::Kind::Record:
      return a.record == b.record;
    case Type::Kind::Vector:
      return a.scalar == b.scalar && a.lanes == b.lanes && a.dim3 == b.dim3;
    case Type::Kind::Array:
      return a.scalar == b.scalar && a.record == b.record && a.ndim == b.ndim && a.layout == b.layout && a.index32 == b.index32;
    case Type::Kind::Tuple:
      return a.named == b.named && a.elements == b.elements;
    default:
      return true;
  }
}

namespace {

/// Appends one mark per array in `t`, depth first: '1' for index32, '0' otherwise; true if any is index32.
bool index32_marks(const Type& t, std::string* marks) {
  if (t.is_array()) {
    *marks += t.index32 ? '1' : '0';
    return t.index32;
  }
  bool any = false;
  for (const Type& e : t.elements) any = index32_marks(e, marks) || any;
  return any;
}

/// Appends the alignment of each record in `t`, depth first: numba's spelling leaves it out, and two
/// records may differ in it alone.
void record_marks(const Type& t, std::string* marks) {
  if (t.record) *marks += fmt::format("{}{}", marks->empty() ? "" : ",", t.record->align);
  for (const Type& e : t.elements) record_marks(e, marks);
}

/// Appends the key of each enum and namedtuple class in `t`, depth first: numba's spelling names the class
/// alone, and two classes may share a name (ir/enum_type.h, ir/named_tuple.h).
void enum_marks(const Type& t, std::string* marks) {
  if (t.enum_class) *marks += fmt::format("{}{}", marks->empty() ? "" : ",", t.enum_class->key);
  if (t.named) *marks += fmt::format("{}{}", marks->empty() ? "" : ",", t.named->key);  // namedtuple classes too
  for (const Type& e : t.elements) enum_marks(e, marks);
}

std::string with_record_marks(std::string key, const std::vector<Type>& types) {
  std::string marks, enums;
  for (const Type& t : types) {
    record_marks(t, &marks);
    enum_marks(t, &enums);
  }
  if (!marks.empty()) key += "<align:" + marks + ">";
  return enums.empty() ? key : key + "<enum:" + enums + ">";
}

}  // namespace

std::string Type::key() const {
  std::string marks;
  std::string key = index32_marks(*this, &marks) ? str() + "<i32:" + marks + ">" : str();
  return with_record_marks(std::move(key), {*this});
}

std::string Signature::key() const {
  std::string marks;
  bool any = false;
  for (const Type& p : params) any = index32_marks(p, &marks) || any;
  std::vector<Type> all = params;
  all.push_back(ret);
  return with_record_marks(any ? str() + "<i32:" + marks + ">" : str(), all);
}

std::string Signature::str() const {
  std::string s = ret.str() + "(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) s += ", ";
    s += params[i].str();
  }
  return s + ")";
}

Type parse_type(std::string_view text, std::string* error) {
  TypeReader reader(text);
  Type t = reader.read_type();
  if (!reader.failed() && !reader.at_end()) {
    reader.fail(reader.pos(), fmt::format("unexpected {} after the type", reader.describe_here()));
  }
  if (reader.failed()) {
    if (error) *error = fmt::format("invalid type '{}': {}", text, reader.error());
    return Type::invalid();
  }
  return t;
}

std::optional<Signature> parse_signature(std::string_view text, std::string* error) {
  TypeReader reader(text);
  Signature sig;
  auto fail = [&]() -> std::optional<Signature> {
    if (error) *error = fmt::format("invalid signature '{}': {}", text, reader.error());
    return std::nullopt;
  };
  if (reader.at_end()) return sig;  // "" is a function of no arguments
  Type first = reader.read_type();
  if (reader.failed()) return fail();
  reader.skip_space();
  bool has_ret = reader.peek() == '(';
  if (has_ret) {
    sig.ret = first;
    reader.advance();
    reader.skip_space();
    if (reader.peek() == ')') {
      reader.advance();
    } else {
      for (;;) {
        Type t = reader.read_type();
        if (reader.failed()) return fail();
        sig.params.push_back(std::move(t));
        reader.skip_space();
        if (reader.peek() == ')') {
          reader.advance();
          break;
        }
        if (reader.peek() != ',') {
          reader.fail(reader.pos(), fmt::format("expected ',' or ')' in the argument list, found {}",
                                                reader.describe_here()));
          return fail();
        }
        reader.advance();
        reader.skip_space();
        if (reader.peek() == ')') {  // one trailing comma, as in a Python call: "void(int64,)"
          reader.advance();
          break;
        }
      }
    }
  } else {
    sig.params.push_back(std::move(first));
    while (reader.peek() == ',') {
      reader.advance();
      reader.skip_space();
      if (reader.at_end()) break;  // "int64," is the one-argument tuple Python reads it as
      Type t = reader.read_type();
      if (reader.failed()) return fail();
      sig.params.push_back(std::move(t));
      reader.skip_space();
    }
  }
  if (!reader.at_end()) {
    reader.fail(reader.pos(), fmt::format("unexpected {} after the signature", reader.describe_here()));
    return fail();
  }
  for (const Type& p : sig.params) {
    if (p.is_void()) {
      reader.fail(0, "an argument cannot be void");
      return fail();
    }
  }
  return sig;
}

}  // namespace gpujit
