// Record types: the layouts of NumPy structured dtypes, as kernels see them.
//
// A RecordType is the full description of a structured dtype: its fields in order, each with its name, its
// element type (a scalar or a nested record), its sub-array shape if it is a fixed-size array field, and its
// byte offset; the itemsize; the alignment; and whether NumPy aligned it (align=True). The layout is taken
// from NumPy as it is, never recomputed, so a kernel on either target reads the bytes the host wrote.
//
// Records are interned: intern_record() returns one pointer per distinct description, kept for the life of
// the process, so Type equality is pointer equality and two dtypes that differ in any field, type, offset,
// itemsize or alignment are different types. Each record gets a small id (at most kMaxRecordTypes per
// process) that the launch path packs into its 16-bit argument codes (runtime/kernel_args.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/types.h"

namespace gpujit {

struct RecordField {
  std::string name;
  Type type;                   // a scalar or a record: the element type of a sub-array field
  std::vector<int64_t> shape;  // non-empty for a sub-array field: its C-order shape
  uint64_t offset = 0;         // bytes from the start of the record
  /// A fixed-width string (NumPy's 'S<n>' and 'U<n>', numba's [char x n] and [unichr x n]): `type` is its
  /// code unit (uint8 or uint32) and the last entry of `shape` its length. A kernel reads and writes it as
  /// CharSeqs (ir/charseq.h).
  bool text = false;

  /// What `rec.name` evaluates to: `type`, or a C-contiguous array of it for a sub-array field; for a string
  /// field a CharSeq (ir/types.h) of its length, or an array of them.
  Type value_type() const;
  /// The shape of the array `rec.name` evaluates to: `shape`, less a string field's last extent (its length).
  std::vector<int64_t> array_shape() const;
  /// The field's size in bytes.
  uint64_t size() const;
};

struct RecordType {
  uint16_t id = 0;  // 1..kMaxRecordTypes
  std::vector<RecordField> fields;
  uint64_t size = 0;   // NumPy's itemsize, padding included
  unsigned align = 1;  // NumPy's alignment
  bool aligned = false;
  /// numba's spelling: "Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True)"; a string dtype's
  /// "[char x 12]".
  std::string spelling;
  /// A fixed-width string dtype, not a structured one ('S<n>': 1, 'U<n>': 4, the size of a code unit; 0 for a
  /// record): it has no fields and `size` is its length times this. Array elements of it are CharSeqs
  /// (ir/types.h); it is interned here so that the launch path, which knows an array's element as a scalar
  /// kind or a record id, carries it as it carries records.
  uint8_t char_size = 0;
  /// The path of the first fixed-width string field, here or in a nested record ("y.name"); empty if none.
  std::string text_field;

  /// The field named `name`, or null.
  const RecordField* find(std::string_view name) const;
  /// The field names, quoted and comma separated, for messages: "'a', 'b', 'c'".
  std::string field_names() const;
};

/// The most distinct record types one process may use (the id must fit the launch path's codes).
constexpr unsigned kMaxRecordTypes = 255;

/// The interned record with this layout, made on first request. Returns null with *error set for a layout
/// that does not hold together (a field past the itemsize, a duplicate name, an alignment that is not a
/// power of two) or when the process has used up kMaxRecordTypes. Thread-safe.
const RecordType* intern_record(std::vector<RecordField> fields, uint64_t size, unsigned align, bool aligned,
                                std::string* error);
/// The interned string dtype of `length` code units `unit` (uint8: 'S<length>', uint32: 'U<length>'), which
/// shares the records' ids. Null with *error set when the process has used up kMaxRecordTypes. Thread-safe.
const RecordType* intern_string_dtype(ScalarKind unit, uint64_t length, std::string* error);
/// The record with this id, or null.
const RecordType* record_by_id(unsigned id);

}  // namespace gpujit
