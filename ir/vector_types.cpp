// The vector type rows (see vector_types.h).
#include "ir/vector_types.h"

#include <fmt/format.h>

#include <array>
#include <deque>
#include <string>

namespace gpujit {

namespace {

// numba-cuda's base types, in its order (numba.cuda.stubs), and the lane counts.
constexpr std::array<ScalarKind, 10> kBases = {
    ScalarKind::Int8,   ScalarKind::Int16,  ScalarKind::Int32,  ScalarKind::Int64,   ScalarKind::UInt8,
    ScalarKind::UInt16, ScalarKind::UInt32, ScalarKind::UInt64, ScalarKind::Float32, ScalarKind::Float64,
};
constexpr unsigned kMaxLanes = 4;

// CUDA's C names for the base types, as numba-cuda maps them (NumPy's C types on 64-bit Linux), in its order.
struct Alias {
  const char* c_name;
  ScalarKind base;
};
constexpr Alias kAliases[] = {
    {"char", ScalarKind::Int8},        {"short", ScalarKind::Int16},    {"int", ScalarKind::Int32},
    {"long", ScalarKind::Int64},       {"longlong", ScalarKind::Int64}, {"uchar", ScalarKind::UInt8},
    {"ushort", ScalarKind::UInt16},    {"uint", ScalarKind::UInt32},    {"ulong", ScalarKind::UInt64},
    {"ulonglong", ScalarKind::UInt64}, {"float", ScalarKind::Float32},  {"double", ScalarKind::Float64},
};

struct Table {
  std::vector<Type> types;              // by row axis
  std::deque<std::string> strings;      // names and docs the rows point into
  std::deque<BuiltinInfo> rows;         // numba's names first, then the aliases
  std::vector<std::string_view> names;  // in row order

  const char* keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }

  void add_row(const std::string& name, size_t index, const char* doc) {
    const char* kept = keep(name);
    const Type& t = types[index];
    rows.push_back({BuiltinId::VectorCtor, BuiltinScope::Kernel, kept, nullptr, true, 1, int8_t(t.lanes),
                    BuiltinTyping::VectorCtor, BuiltinLowering::Vector, nullptr, nullptr, false,
                    BuiltinReg::None, uint8_t(index), 0, true, doc});
    names.emplace_back(kept);
  }

  Table() {
    for (ScalarKind base : kBases) {
      for (unsigned lanes = 1; lanes <= kMaxLanes; ++lanes) types.push_back(Type::vector_of(base, lanes));
    }
    for (size_t i = 0; i < types.size(); ++i) {
      const Type& t = types[i];
      std::string lanes;
      for (unsigned k = 0; k < t.lanes; ++k) lanes += fmt::format("{}{}", k ? ", " : "", vector_lane_name(k));
      add_row(t.str(), i,
              keep(fmt::format("{}({}): a vector of {} {}", t.str(), lanes, t.lanes, scalar_name(t.scalar))));
    }
    for (const Alias& a : kAliases) {
      for (size_t i = 0; i < types.size(); ++i) {
        if (types[i].scalar != a.base) continue;
        add_row(fmt::format("{}{}", a.c_name, types[i].lanes), i, rows[i].doc);
      }
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const BuiltinInfo* find_vector_builtin(std::string_view name) {
  // Every name ends in its lane count; most kernel names do not, and skip the search.
  if (name.empty() || name.back() < '1' || name.back() > '4') return nullptr;
  for (const BuiltinInfo& r : table().rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

Type vector_type_of(const BuiltinInfo& row) { return table().types.at(row.axis); }

std::vector<std::string_view> vector_type_names() { return table().names; }

const char* vector_lane_name(unsigned lane) {
  static constexpr const char* kNames[] = {"x", "y", "z", "w"};
  return lane < kMaxLanes ? kNames[lane] : "?";
}

int vector_lane_of(std::string_view attr) {
  for (unsigned k = 0; k < kMaxLanes; ++k) {
    if (attr == vector_lane_name(k)) return int(k);
  }
  return -1;
}

std::string vector_types_markdown() {
  std::string md =
      "\n## Vector types (`cuda.float32x4`, `cuda.int2` ...)\n\n"
      "numba-cuda's CUDA vector types: `<base>x<lanes>` for the bases int8, int16, int32, int64, uint8, "
      "uint16, "
      "uint32, uint64, float32 and float64 and 1 to 4 lanes, and CUDA's names for the same types. A name "
      "called in a kernel makes a vector: `cuda.float32x4(1.0, 2.0, 3.0, 4.0)`. Its arguments are numbers, "
      "converted to the base type, and vectors of the same base type, whose lanes are taken in order (a "
      "1-lane vector counts as a number): `float32x4(float32x2(a, b), c, d)`, `float32x4(v3, w)`; the lanes "
      "add "
      "up to the vector's. A vector has the read-only attributes `.x`, `.y`, `.z` and `.w` (as many as its "
      "lanes) and can be a variable, a tuple element, a device function's argument and its result. It has no "
      "operators and cannot be an array's element (numba-cuda has neither); to change a lane, make a new "
      "vector. `cuda.threadIdx`, `blockIdx`, `blockDim` and `gridDim` read whole are numba's `Dim3`, a value "
      "with the int32 attributes `.x`, `.y`, `.z` that `print()` shows as `(x, y, z)`.\n\n"
      "| base | types | CUDA names |\n| --- | --- | --- |\n";
  for (ScalarKind base : kBases) {
    std::string c_names;
    for (const Alias& a : kAliases) {
      if (a.base == base)
        c_names += fmt::format("{}`{}1` ... `{}4`", c_names.empty() ? "" : ", ", a.c_name, a.c_name);
    }
    md += fmt::format("| {} | `{}x1` ... `{}x4` | {} |\n", scalar_name(base), scalar_name(base),
                      scalar_name(base), c_names);
  }
  return md;
}

}  // namespace gpujit
