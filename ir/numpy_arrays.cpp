// Evaluation of module-level NumPy array constructors for the CLI (ir/numpy_arrays.h).
//
// An array is evaluated as a dtype, a shape and its elements in C order as scalar ConstValues, then encoded
// into the bytes a captured NumPy array would have (native byte order, as ndarray.tobytes()). The results
// are NumPy's, checked against it in tests/unit/ir/numpy_arrays_test.cpp:
// - np.array infers the dtype as NumPy does (promote_types over the elements: Python ints int64, floats
//   float64, bools bool); a Python int that does not fit an explicit integer dtype is an error, as in
//   NumPy 2, while other conversions are NumPy's unsafe casts (a float truncates to an integer).
// - np.arange computes its length as ceil((stop - start) / step) in doubles, stores start and start + step,
//   then fills element i with start + i * delta in the dtype's own arithmetic, exactly as NumPy's fill
//   functions do, so float32 ranges match NumPy bit for bit.
// - float16 elements are rounded from the double value to nearest-even, as NumPy's npy_double_to_half.
// Nothing larger than GPU constant memory (64 KiB) is materialized: such a value is refused by its size
// before any element is computed, so `np.zeros(10**9)` costs nothing.
#include "ir/numpy_arrays.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/const_eval.h"
#include "ir/type_rules.h"

namespace gpujit {

namespace {

constexpr size_t kMaxArrayBytes = 64 * 1024;  // GPU constant memory
constexpr size_t kMaxDims = 32;

constexpr const char* kFunctions[] = {"array", "asarray", "arange", "zeros", "ones", "full"};

struct ArrayValue {
  ScalarKind dtype = ScalarKind::Float64;
  std::vector<int64_t> shape;
  std::vector<ConstValue> items;  // C order; scalar constants, converted to dtype when encoded
};

std::string dotted(const Expr& e) {
  if (const auto* n = e.as<NameExpr>()) return n->id;
  if (const auto* a = e.as<AttributeExpr>()) {
    std::string base = dotted(*a->value);
    return base.empty() ? "" : base + "." + a->attr;
  }
  return "";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// --- float16 ---------------------------------------------------------------------------------------------

// Rounds a double to the nearest float16 (ties to even), as NumPy's npy_double_to_half.
uint16_t half_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  const auto sign = static_cast<uint16_t>((b >> 48) & 0x8000);
  const int exponent = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t mantissa = b & ((uint64_t(1) << 52) - 1);
  if (exponent == 0x7ff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);  // inf, nan
  if (exponent == 0) return sign;  // a double subnormal is far below float16's smallest value
  const int e = exponent - 1023;
  if (e > 15) return sign | 0x7c00;
  const uint64_t full = mantissa | (uint64_t(1) << 52);
  // Normal float16 results keep 11 significant bits; subnormal ones count units of 2^-24.
  const int shift = e >= -14 ? 42 : 28 - e;
  if (shift > 63) return sign;
  uint64_t kept = full >> shift;
  const uint64_t rest = full & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  if (e < -14) return sign | static_cast<uint16_t>(kept);  // 0x400 after rounding is the smallest normal
  int biased = e + 15;
  if (kept >> 11) {
    kept >>= 1;
    ++biased;
  }
  if (biased >= 31) return sign | 0x7c00;
  return sign | static_cast<uint16_t>(biased << 10) | static_cast<uint16_t>(kept & 0x3ff);
}

double half_value(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0x1f) return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

// --- elements --------------------------------------------------------------------------------------------

double to_double(const ConstValue& v) {
  return v.kind == ConstValue::Kind::Float ? v.f
         : is_unsigned(v.scalar)           ? static_cast<double>(static_cast<uint64_t>(v.i))
                                           : static_cast<double>(v.i);
}

bool is_number(const ConstValue& v) {
  return v.kind == ConstValue::Kind::Int || v.kind == ConstValue::Kind::Float ||
         v.kind == ConstValue::Kind::Bool;
}

// A Python int (not a NumPy scalar) that does not fit integer dtype k: NumPy 2 raises OverflowError.
bool python_int_out_of_range(const ConstValue& v, ScalarKind k) {
  if (v.kind != ConstValue::Kind::Int || !is_integer(k)) return false;
  if (v.scalar != ScalarKind::Int64 && v.scalar != ScalarKind::UInt64) return false;
  const unsigned bits = scalar_size(k) * 8;
  if (v.scalar == ScalarKind::UInt64 && v.i < 0) return is_signed(k) || bits < 64;  // above INT64_MAX
  if (is_unsigned(k)) return v.i < 0 || (bits < 64 && v.i >= (int64_t(1) << bits));
  return bits < 64 && (v.i < -(int64_t(1) << (bits - 1)) || v.i >= (int64_t(1) << (bits - 1)));
}

// Appends element `v` converted to `k` to `bytes`; false with *why set when NumPy would not convert it.
bool encode_item(const ConstValue& v, ScalarKind k, std::vector<uint8_t>* bytes, std::string* why) {
  uint8_t raw[8];
  unsigned size = scalar_size(k);
  if (k == ScalarKind::Float16) {
    uint16_t h = half_bits(to_double(v));
    std::memcpy(raw, &h, 2);
  } else {
    std::optional<ConstValue> c = fold_cast(v, k);
    if (!c) {
      *why = fmt::format("{} cannot be converted to {}", v.str(), scalar_name(k));
      return false;
    }
    if (k == ScalarKind::Float32) {
      float f = static_cast<float>(c->f);
      std::memcpy(raw, &f, 4);
    } else if (k == ScalarKind::Float64) {
      std::memcpy(raw, &c->f, 8);
    } else {
      uint64_t bits = static_cast<uint64_t>(c->i);  // little-endian: the low `size` bytes are the value
      std::memcpy(raw, &bits, size);
    }
  }
  bytes->insert(bytes->end(), raw, raw + size);
  return true;
}

ConstValue decode_item(const uint8_t* p, ScalarKind k) {
  switch (k) {
    case ScalarKind::Bool:
      return ConstValue::of_bool(*p != 0);
    case ScalarKind::Float16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return ConstValue::of_float(half_value(h), ScalarKind::Float16);
    }
    case ScalarKind::Float32: {
      float f;
      std::memcpy(&f, p, 4);
      return ConstValue::of_float(f, k);
    }
    case ScalarKind::Float64: {
      double d;
      std::memcpy(&d, p, 8);
      return ConstValue::of_float(d, k);
    }
    default: {
      uint64_t bits = 0;
      std::memcpy(&bits, p, scalar_size(k));
      unsigned width = scalar_size(k) * 8;
      if (is_signed(k) && width < 64 && (bits >> (width - 1)) & 1) bits |= ~uint64_t(0) << width;
      return ConstValue::of_int(static_cast<int64_t>(bits), k);
    }
  }
}

ArrayValue decode(const GlobalValue& g) {
  ArrayValue a;
  a.dtype = g.dtype;
  a.shape = g.shape;
  const unsigned size = scalar_size(g.dtype);
  for (size_t off = 0; off + size <= g.bytes.size(); off += size)
    a.items.push_back(decode_item(&g.bytes[off], g.dtype));
  return a;
}

// The element count of `shape`, or nullopt when the array would not fit in constant memory.
std::optional<size_t> fitting_count(const std::vector<int64_t>& shape, ScalarKind dtype) {
  size_t count = 1;
  for (int64_t d : shape) {
    if (d == 0) return 0;
  }
  for (int64_t d : shape) {
    if (static_cast<uint64_t>(d) > kMaxArrayBytes ||
        count * static_cast<size_t>(d) * scalar_size(dtype) > kMaxArrayBytes)
      return std::nullopt;
    count *= static_cast<size_t>(d);
  }
  return count;
}

std::string too_big(const std::string& what, const std::vector<int64_t>& shape, ScalarKind dtype) {
  return fmt::format(
      "{} is a {} array of shape {}, more than the {} bytes of GPU constant memory; pass it to "
      "the kernel as an argument instead",
      what, scalar_name(dtype), shape_text(shape), kMaxArrayBytes);
}

// --- arguments -------------------------------------------------------------------------------------------

// The call's arguments bound to `params` as Python binds them (positional, then by keyword); null where
// absent. False with *why set on an unknown keyword, a duplicate, too many or too few.
bool bind_args(const CallExpr& call, const std::string& what, const std::vector<const char*>& params,
               size_t required, std::vector<const Expr*>* out, std::string* why) {
  out->assign(params.size(), nullptr);
  if (call.args.size() > params.size()) {
    *why = fmt::format("{}() takes at most {} arguments here, got {}", what, params.size(), call.args.size());
    return false;
  }
  for (size_t i = 0; i < call.args.size(); ++i) (*out)[i] = call.args[i].get();
  for (const Keyword& k : call.keywords) {
    size_t i = 0;
    while (i < params.size() && k.name != params[i]) ++i;
    if (i == params.size()) {
      *why = fmt::format(
          "{}() with the argument '{}' is not evaluated by the gpujit CLI; compile the kernel "
          "from Python to capture this array",
          what, k.name);
      return false;
    }
    if ((*out)[i]) {
      *why = fmt::format("{}() got multiple values for argument '{}'", what, k.name);
      return false;
    }
    (*out)[i] = k.value.get();
  }
  for (size_t i = 0; i < required; ++i) {
    if (!(*out)[i]) {
      *why = fmt::format("{}() is missing its argument '{}'", what, params[i]);
      return false;
    }
  }
  return true;
}

struct DTypeArg {
  bool given = false;
  ScalarKind kind = ScalarKind::Float64;
};

// A dtype argument: np.float32, gpu.int8, 'float32', float, int, bool, or None (not given).
bool dtype_arg(const Expr* e, const std::string& what, const GlobalFolder& fold, DTypeArg* out,
               std::string* why) {
  *out = DTypeArg{};
  if (!e || e->as<NoneLitExpr>()) return true;
  static const std::pair<const char*, ScalarKind> kPython[] = {
      {"float", ScalarKind::Float64},      {"int", ScalarKind::Int64},      {"bool", ScalarKind::Bool},
      {"complex", ScalarKind::Complex128}, {"float_", ScalarKind::Float64}, {"int_", ScalarKind::Int64}};
  std::string ignored;
  std::optional<GlobalValue> g = fold(*e, &ignored);
  std::optional<ScalarKind> k;
  std::string name;
  if (g && g->kind == GlobalValue::Kind::DType) {
    k = g->dtype;
  } else if (g && g->kind == GlobalValue::Kind::Constant && g->constant.kind == ConstValue::Kind::String) {
    name = g->constant.s;
  } else if (const auto* n = e->as<NameExpr>(); n && !g) {
    name = n->id;  // Python's float, int, bool, complex
  }
  if (!k && !name.empty()) {
    for (const auto& [py, kind] : kPython) {
      if (name == py) k = kind;
    }
    if (!k && g) k = parse_scalar_name(name);  // a dtype string: 'float32', 'f4', 'uint8'
  }
  if (!k) {
    *why = fmt::format("the dtype of {}() must be a NumPy dtype such as np.float32", what);
    return false;
  }
  if (is_complex(*k)) {
    *why =
        fmt::format("{}() of dtype {}: complex constant arrays are not supported yet", what, scalar_name(*k));
    return false;
  }
  out->given = true;
  out->kind = *k;
  return true;
}

bool number_arg(const Expr& e, const std::string& what, const GlobalFolder& fold, ConstValue* out,
                std::string* why) {
  std::optional<GlobalValue> g = fold(e, why);
  if (!g) return false;
  if (g->kind != GlobalValue::Kind::Constant || !is_number(g->constant)) {
    *why = fmt::format("the arguments of {}() must be constant numbers", what);
    return false;
  }
  *out = g->constant;
  return true;
}

bool shape_arg(const Expr& e, const std::string& what, const GlobalFolder& fold, std::vector<int64_t>* shape,
               std::string* why) {
  std::optional<GlobalValue> g = fold(e, why);
  if (!g) return false;
  const ConstValue& c = g->constant;
  std::vector<ConstValue> dims = c.kind == ConstValue::Kind::Tuple ? c.elements : std::vector<ConstValue>{c};
  shape->clear();
  for (const ConstValue& d : dims) {
    if (g->kind != GlobalValue::Kind::Constant || d.kind != ConstValue::Kind::Int) {
      *why = fmt::format("the shape of {}() must be a constant integer or tuple of integers", what);
      return false;
    }
    if (d.i < 0) {
      *why = fmt::format("{}() got a negative dimension, {}", what, d.i);
      return false;
    }
    shape->push_back(d.i);
  }
  if (shape->size() > kMaxDims) {
    *why = fmt::format("{}() makes an array of more than {} dimensions", what, kMaxDims);
    return false;
  }
  return true;
}

std::optional<GlobalValue> encode(const ArrayValue& a, bool check_python_ints, std::string* why) {
  GlobalValue g;
  g.kind = GlobalValue::Kind::ConstArray;
  g.dtype = a.dtype;
  g.shape = a.shape;
  g.bytes.reserve(a.items.size() * scalar_size(a.dtype));
  for (const ConstValue& v : a.items) {
    if (check_python_ints && python_int_out_of_range(v, a.dtype)) {
      *why = fmt::format("{} is out of bounds for {}", v.str(), scalar_name(a.dtype));
      return std::nullopt;
    }
    if (!encode_item(v, a.dtype, &g.bytes, why)) return std::nullopt;
  }
  return g;
}

// --- the constructors ------------------------------------------------------------------------------------

// Flattens the (nested) data of np.array: lists and tuples of numbers, named constants, other arrays.
bool collect_const(const ConstValue& c, const std::string& what, std::vector<int64_t>* shape,
                   std::vector<ConstValue>* items, std::string* why);

bool merge_child_shape(const std::vector<int64_t>& child, bool first, const std::string& what,
                       std::vector<int64_t>* common, std::string* why) {
  if (first) {
    *common = child;
  } else if (child != *common) {
    *why =
        fmt::format("{}() of nested sequences of different lengths (a ragged array) is not supported", what);
    return false;
  }
  return true;
}

bool collect_const(const ConstValue& c, const std::string& what, std::vector<int64_t>* shape,
                   std::vector<ConstValue>* items, std::string* why) {
  if (is_number(c)) {
    shape->clear();
    items->push_back(c);
    return true;
  }
  if (c.kind != ConstValue::Kind::Tuple) {
    *why = fmt::format("{}() takes numbers, got {}", what, c.str());
    return false;
  }
  std::vector<int64_t> common;
  for (size_t i = 0; i < c.elements.size(); ++i) {
    std::vector<int64_t> child;
    if (!collect_const(c.elements[i], what, &child, items, why)) return false;
    if (!merge_child_shape(child, i == 0, what, &common, why)) return false;
  }
  shape->assign(1, static_cast<int64_t>(c.elements.size()));
  shape->insert(shape->end(), common.begin(), common.end());
  return true;
}

bool collect(const Expr& e, const std::string& what, const GlobalFolder& fold, std::vector<int64_t>* shape,
             std::vector<ConstValue>* items, std::string* why, size_t depth = 0) {
  if (depth > kMaxDims) {
    *why = fmt::format("{}() makes an array of more than {} dimensions", what, kMaxDims);
    return false;
  }
  if (const auto* t = e.as<TupleExpr>()) {
    std::vector<int64_t> common;
    for (size_t i = 0; i < t->elts.size(); ++i) {
      std::vector<int64_t> child;
      if (!collect(*t->elts[i], what, fold, &child, items, why, depth + 1)) return false;
      if (!merge_child_shape(child, i == 0, what, &common, why)) return false;
    }
    shape->assign(1, static_cast<int64_t>(t->elts.size()));
    shape->insert(shape->end(), common.begin(), common.end());
    return true;
  }
  std::optional<GlobalValue> g = fold(e, why);
  if (!g) return false;
  if (g->kind == GlobalValue::Kind::ConstArray) {
    ArrayValue a = decode(*g);
    *shape = a.shape;
    items->insert(items->end(), a.items.begin(), a.items.end());
    return true;
  }
  if (g->kind != GlobalValue::Kind::Constant) {
    *why = fmt::format("{}() takes lists and tuples of constant numbers", what);
    return false;
  }
  return collect_const(g->constant, what, shape, items, why);
}

std::optional<GlobalValue> numpy_array(const CallExpr& call, const std::string& what,
                                       const GlobalFolder& fold, std::string* why) {
  std::vector<const Expr*> args;
  if (!bind_args(call, what, {"object", "dtype"}, 1, &args, why)) return std::nullopt;
  DTypeArg dtype;
  if (!dtype_arg(args[1], what, fold, &dtype, why)) return std::nullopt;
  ArrayValue a;
  if (!collect(*args[0], what, fold, &a.shape, &a.items, why)) return std::nullopt;
  if (dtype.given) {
    a.dtype = dtype.kind;
  } else if (!a.items.empty()) {
    a.dtype = a.items.front().scalar;
    for (const ConstValue& v : a.items) a.dtype = promote_scalars(a.dtype, v.scalar);
  }
  if (!fitting_count(a.shape, a.dtype)) {
    *why = too_big(what + "(...)", a.shape, a.dtype);
    return std::nullopt;
  }
  return encode(a, true, why);
}

// np.zeros / np.ones / np.full: one value everywhere.
std::optional<GlobalValue> numpy_filled(const CallExpr& call, const std::string& function,
                                        const std::string& what, const GlobalFolder& fold, std::string* why) {
  const bool full = function == "full";
  std::vector<const Expr*> args;
  std::vector<const char*> params = full ? std::vector<const char*>{"shape", "fill_value", "dtype"}
                                         : std::vector<const char*>{"shape", "dtype"};
  if (!bind_args(call, what, params, full ? 2 : 1, &args, why)) return std::nullopt;
  ArrayValue a;
  if (!shape_arg(*args[0], what, fold, &a.shape, why)) return std::nullopt;
  ConstValue fill = ConstValue::of_int(function == "ones" ? 1 : 0);
  if (full && !number_arg(*args[1], what, fold, &fill, why)) return std::nullopt;
  DTypeArg dtype;
  if (!dtype_arg(args.back(), what, fold, &dtype, why)) return std::nullopt;
  a.dtype = dtype.given ? dtype.kind : full ? fill.scalar : ScalarKind::Float64;
  std::optional<size_t> count = fitting_count(a.shape, a.dtype);
  if (!count) {
    *why = too_big(what + "(...)", a.shape, a.dtype);
    return std::nullopt;
  }
  a.items.assign(*count, fill);
  return encode(a, full, why);
}

// Element i of arange in dtype k from the first two elements, as NumPy's <type>_fill: in the dtype's own
// arithmetic (float for float32 and float16, wrapping integers).
ConstValue arange_item(const ConstValue& first, const ConstValue& second, int64_t i, ScalarKind k) {
  if (is_integer(k)) {
    uint64_t start = static_cast<uint64_t>(first.i), delta = static_cast<uint64_t>(second.i) - start;
    return *fold_cast(ConstValue::of_int(static_cast<int64_t>(start + static_cast<uint64_t>(i) * delta)), k);
  }
  if (k == ScalarKind::Float64) {
    double start = first.f, delta = second.f - start;
    return ConstValue::of_float(start + static_cast<double>(i) * delta, k);
  }
  float start = static_cast<float>(first.f), delta = static_cast<float>(second.f) - start;
  return ConstValue::of_float(start + static_cast<float>(i) * delta, k);
}

std::optional<GlobalValue> numpy_arange(const CallExpr& call, const std::string& what,
                                        const GlobalFolder& fold, std::string* why) {
  std::vector<const Expr*> args;
  if (!bind_args(call, what, {"start", "stop", "step", "dtype"}, 1, &args, why)) return std::nullopt;
  ConstValue start = ConstValue::of_int(0), stop, step = ConstValue::of_int(1);
  if (args[1]) {
    if (!number_arg(*args[0], what, fold, &start, why) || !number_arg(*args[1], what, fold, &stop, why))
      return std::nullopt;
  } else if (!number_arg(*args[0], what, fold, &stop, why)) {
    return std::nullopt;
  }
  if (args[2] && !number_arg(*args[2], what, fold, &step, why)) return std::nullopt;
  DTypeArg dtype;
  if (!dtype_arg(args[3], what, fold, &dtype, why)) return std::nullopt;
  if (to_double(step) == 0) {
    *why = fmt::format("{}() step must not be zero", what);
    return std::nullopt;
  }
  ArrayValue a;
  a.dtype =
      dtype.given ? dtype.kind : promote_scalars(promote_scalars(start.scalar, stop.scalar), step.scalar);
  if (a.dtype == ScalarKind::Bool) {
    *why = fmt::format("{}() cannot make a bool array", what);
    return std::nullopt;
  }
  const double length = std::ceil((to_double(stop) - to_double(start)) / to_double(step));
  if (!std::isfinite(length)) {
    *why = fmt::format("{}() needs finite arguments", what);
    return std::nullopt;
  }
  const int64_t n = length > 0 ? static_cast<int64_t>(std::min(length, 9.0e18)) : 0;
  a.shape = {n};
  if (!fitting_count(a.shape, a.dtype)) {
    *why = too_big(what + "(...)", a.shape, a.dtype);
    return std::nullopt;
  }
  // The first two elements, computed as Python computes start and start + step, then stored in the dtype.
  auto stored = [&](const ConstValue& v) -> std::optional<ConstValue> {
    if (is_integer(a.dtype)) return fold_cast(v, a.dtype);
    double d = to_double(v);
    if (a.dtype == ScalarKind::Float16)
      return ConstValue::of_float(half_value(half_bits(d)), ScalarKind::Float16);
    return fold_cast(ConstValue::of_float(d), a.dtype);
  };
  bool ints = start.kind != ConstValue::Kind::Float && step.kind != ConstValue::Kind::Float;
  ConstValue next = ints ? ConstValue::of_int(static_cast<int64_t>(static_cast<uint64_t>(start.i) +
                                                                   static_cast<uint64_t>(step.i)))
                         : ConstValue::of_float(to_double(start) + to_double(step));
  std::optional<ConstValue> first = stored(start), second = stored(next);
  if (!first || !second) {
    *why = fmt::format("the range of {}() does not fit in {}", what, scalar_name(a.dtype));
    return std::nullopt;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (i < 2) {
      a.items.push_back(i == 0 ? *first : *second);
    } else if (a.dtype == ScalarKind::Float16) {
      ConstValue f = arange_item(*first, *second, i, ScalarKind::Float32);  // HALF_fill computes in float
      a.items.push_back(ConstValue::of_float(f.f, ScalarKind::Float16));
    } else {
      a.items.push_back(arange_item(*first, *second, i, a.dtype));
    }
  }
  return encode(a, false, why);
}

}  // namespace

bool is_numpy_array_function(const std::string& name) {
  for (const char* f : kFunctions) {
    if (name == f) return true;
  }
  return false;
}

std::optional<GlobalValue> evaluate_numpy_call(const CallExpr& call, const std::string& function,
                                               const GlobalFolder& fold, std::string* why) {
  std::string what = dotted(*call.func);
  if (what.empty()) what = "np." + function;
  if (function == "array" || function == "asarray") return numpy_array(call, what, fold, why);
  if (function == "arange") return numpy_arange(call, what, fold, why);
  if (function == "zeros" || function == "ones" || function == "full")
    return numpy_filled(call, function, what, fold, why);
  throw InternalError("evaluate_numpy_call: numpy." + function + " is not an array constructor");
}

std::optional<GlobalValue> evaluate_array_method(const CallExpr& call, const GlobalValue& array,
                                                 const std::string& method, const GlobalFolder& fold,
                                                 std::string* why) {
  const std::string what = "." + method;
  ArrayValue a = decode(array);
  if (method == "astype") {
    std::vector<const Expr*> args;
    if (!bind_args(call, what, {"dtype"}, 1, &args, why)) return std::nullopt;
    DTypeArg dtype;
    if (!dtype_arg(args[0], what, fold, &dtype, why)) return std::nullopt;
    if (!dtype.given) {
      *why = ".astype() needs a dtype";
      return std::nullopt;
    }
    a.dtype = dtype.kind;
    if (!fitting_count(a.shape, a.dtype)) {
      *why = too_big(".astype(...)", a.shape, a.dtype);
      return std::nullopt;
    }
    return encode(a, false, why);
  }
  if (method == "reshape") {
    // reshape(2, 3), reshape((2, 3)), reshape(-1): one extent may be -1, inferred from the size.
    std::vector<int64_t> shape;
    if (!call.keywords.empty()) {
      *why =
          ".reshape() with keyword arguments is not evaluated by the gpujit CLI; compile the kernel from "
          "Python to capture this array";
      return std::nullopt;
    }
    for (const ExprPtr& arg : call.args) {
      std::optional<GlobalValue> g = fold(*arg, why);
      if (!g) return std::nullopt;
      const ConstValue& c = g->constant;
      std::vector<ConstValue> dims =
          c.kind == ConstValue::Kind::Tuple ? c.elements : std::vector<ConstValue>{c};
      for (const ConstValue& d : dims) {
        if (g->kind != GlobalValue::Kind::Constant || d.kind != ConstValue::Kind::Int || d.i < -1) {
          *why = ".reshape() takes constant non-negative integers (and one -1)";
          return std::nullopt;
        }
        shape.push_back(d.i);
      }
    }
    int64_t known = 1, unknown = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] != -1) {
        known *= shape[i];
      } else if (unknown >= 0) {
        *why = ".reshape() can only infer one dimension (one -1)";
        return std::nullopt;
      } else {
        unknown = static_cast<int64_t>(i);
      }
    }
    const auto size = static_cast<int64_t>(a.items.size());
    if (unknown >= 0 && known != 0 && size % known == 0) shape[size_t(unknown)] = size / known;
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    if (count != size || shape.size() > kMaxDims) {
      *why = fmt::format("cannot reshape an array of size {} into shape {}", size, shape_text(shape));
      return std::nullopt;
    }
    a.shape = shape;
    return encode(a, false, why);
  }
  *why = fmt::format(
      "its value calls the array method '{}', which the gpujit CLI does not evaluate (it reads "
      ".astype() and .reshape()); compile the kernel from Python to capture this array",
      method);
  return std::nullopt;
}

}  // namespace gpujit
