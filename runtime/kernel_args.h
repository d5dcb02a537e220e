// Kernel arguments on the launch path: a compact code per argument type, and the parameter buffer.
//
// The launch path classifies each argument once and, in the same pass, writes its flattened parameters (the
// ABI of DESIGN.md, as codegen/lowering.cpp flattens them: an array is its data pointer, ndim int64 shapes
// and ndim int64 byte strides, int32 ones for an index32 array; bool is one byte; complex is two parameters, real then imaginary; a tuple is its
// elements in order). Because every argument is passed as exactly the type it is specialized on, the bytes
// written do not depend on which specialization is chosen, so classification, packing and the
// specialization key are one pass; check_param_layout() verifies once per compile that codegen flattened the
// same way.
//
// A record (a NumPy structured scalar) is passed as the address of a copy of its bytes, one 8-byte parameter;
// the launch path copies it back afterwards, as numba-cuda does.
//
// ArgCode packs one argument type into 16 bits (kind, dtype, ndim, layout, index32) so a key of argument types is a
// short array compared with memcmp. A tuple argument is a header code (its element count) followed by its
// elements' codes, depth first, so a key stays flat: one code per scalar or array argument plus one per tuple
// (two for a namedtuple: its class's header first).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codegen/artifact.h"
#include "runtime/device_array.h"
#include "ir/types.h"

namespace gpujit::rt {

using ArgCode = uint16_t;

constexpr ArgCode kArgInvalid = 0;

/// A scalar kind's bits in a scalar or array code: its low four bits at bits 2-5, the rest at bits 12-15 (there
/// are more than 16 kinds: datetime64 and timedelta64 have one per unit, ir/datetime_types.h).
constexpr unsigned kind_bits(ScalarKind k) { return ((unsigned(k) & 0xFu) << 2) | ((unsigned(k) >> 4) << 12); }
/// The scalar kind of a scalar, pointer or array code.
constexpr ScalarKind kind_of_code(ArgCode code) {
  return ScalarKind(((unsigned(code) >> 2) & 0xFu) | (((unsigned(code) >> 12) & 3u) << 4));
}
// Kinds fit six bits, so bits 14 and 15 of a scalar or array code are free: an array code's bit 15 marks
// Fortran order (array_code).
static_assert(unsigned(ScalarKind::Fp8E8M0) < 64, "scalar kinds have six bits in an ArgCode");
constexpr ArgCode scalar_code(ScalarKind k) { return ArgCode(1u | kind_bits(k)); }
/// A pointer (numba's CPointer) to elements of `k`: a scalar code with bit 6 set, passed as its 8 bytes.
constexpr ArgCode pointer_code(ScalarKind k) { return ArgCode(scalar_code(k) | (1u << 6)); }
/// numba's voidptr ("void*"): the uint8 pointer's code with bit 14 set (free: kinds fit six bits).
constexpr ArgCode void_pointer_code() { return ArgCode(pointer_code(ScalarKind::UInt8) | (1u << 14)); }
constexpr bool is_pointer_code(ArgCode code) { return (code & 0xC3u) == 0x41u; }
/// numba's NumberClass (a dtype passed as an argument, `np.int32`: Type::Kind::Class): a scalar code with bits 6
/// and 7 set (no pointer or namedtuple header has both). It has no value: packing writes no parameter for it.
constexpr ArgCode class_code(ScalarKind k) { return ArgCode(scalar_code(k) | (3u << 6)); }
constexpr bool is_class_code(ArgCode code) { return (code & 0x1C3u) == 0xC1u; }
/// A library's opaque type (ir/opaque_type.h, compile-time only as a dtype is): a class code with bit 8 set
/// (bits 8-11 are clear in every scalar code) and the type's id in the kind's bits (2-5 and 12-15). Only
/// explicit signatures' keys hold one: the launch path classifies no Python value as an opaque type.
constexpr ArgCode opaque_code(unsigned id) {
  return ArgCode(0x1C1u | ((id & 0xFu) << 2) | ((id >> 4) << 12));
}
constexpr bool is_opaque_code(ArgCode code) { return (code & 0x1C3u) == 0x1C1u; }
constexpr unsigned opaque_id(ArgCode code) { return ((code >> 2) & 0xFu) | (unsigned(code >> 12) << 4); }
/// An array: dtype, ndim (bits 6-9), C order (bit 10), index32 (bit 11), Fortran order (bit 15).
inline ArgCode array_code(ScalarKind dtype, unsigned ndim, Layout layout, bool index32 = false) {
  return ArgCode(2u | kind_bits(dtype) | (ndim << 6) | (layout == Layout::C ? 1u << 10 : 0u) |
                 (index32 ? 1u << 11 : 0u) | (layout == Layout::F ? 1u << 15 : 0u));
}
/// Records and arrays of records: the low two bits are 0 (a code of 0 is invalid), then layout, index32, ndim
/// (0 for a record scalar) and the record's id (ir/record_type.h) in the high byte.
inline ArgCode record_code(unsigned record_id, unsigned ndim, Layout layout = Layout::C, bool index32 = false) {
  return ArgCode((layout == Layout::C ? 1u << 2 : 0u) | (index32 ? 1u << 3 : 0u) | (ndim << 4) |
                 (record_id << 8));
}
inline bool is_record_code(ArgCode code) { return (code & 3u) == 0 && (code & 0xFFu) != 0; }
/// The header code of an Enum member (ir/enum_type.h): the class's id in the high byte and nothing in the low
/// one (a record code always has its layout or ndim bits set there). The member's value follows it as an
/// argument of its own (a number, or a tuple), as a tuple's elements follow its header.
inline ArgCode enum_code(unsigned enum_id) { return ArgCode(enum_id << 8); }
inline bool is_enum_code(ArgCode code) { return code != kArgInvalid && (code & 0xFFu) == 0; }

/// The code of an array argument, index32 (ir/types.h) when its elements lie within 2 GiB of its data
/// pointer and its extents are below 2**31. Throws std::invalid_argument for an extent of 2**62 or more, which
/// codegen promises LLVM never happens (codegen/lowering.cpp) and which only a broadcast view can have.
ArgCode array_code_of(const ArrayView& view);
/// The same code without the index32 bit: what an explicit signature's key holds.
inline ArgCode without_index32(ArgCode code) {
  if ((code & 3u) == 2u) return ArgCode(code & ~(1u << 11));
  return is_record_code(code) ? ArgCode(code & ~(1u << 3)) : code;
}
/// Whether an array code has the index32 bit: its shapes and strides are 4-byte parameters.
inline bool is_index32_code(ArgCode code) { return code != without_index32(code); }
/// Largest element count a tuple header can hold.
constexpr unsigned kMaxTupleSize = 0x3FFF;
/// The header code of a tuple of `count` elements (at most kMaxTupleSize); its elements' codes follow it.
inline ArgCode tuple_code(unsigned count) { return ArgCode(3u | (count << 2)); }
inline bool is_tuple_code(ArgCode code) { return (code & 3u) == 3u; }
/// The header code of an instance of a namedtuple class (ir/named_tuple.h): a scalar code's low bits with bit
/// 7 set, which no scalar or pointer code has, the class's id in bits 2-5 (its low four bits) and 8-15 (the
/// rest), bit 6 clear. The tuple's own header and its elements follow it.
inline ArgCode named_tuple_code(unsigned id) {
  return ArgCode(1u | (1u << 7) | ((id & 0xFu) << 2) | ((id >> 4) << 8));
}
inline bool is_named_tuple_code(ArgCode code) { return (code & 0xC3u) == 0x81u; }
inline unsigned named_tuple_id(ArgCode code) { return ((code >> 2) & 0xFu) | (unsigned(code >> 8) << 4); }
/// Whether a code is a header whose value follows it in the next codes (a tuple, an Enum member, a
/// namedtuple): packing writes no parameter for it.
inline bool is_header_code(ArgCode code) {
  return is_tuple_code(code) || is_enum_code(code) || is_named_tuple_code(code);
}

/// The type a scalar or array ArgCode stands for (invalid for a tuple header: see types_of_key).
Type type_of_code(ArgCode code);
/// The ArgCode of a scalar or array type; kArgInvalid for others (tuples take several: see append_codes).
ArgCode code_of_type(const Type& t);
/// The argument types a key stands for, tuples decoded from their headers.
std::vector<Type> types_of_key(const ArgCode* key, size_t n);
/// Appends the codes of an argument of type `t`; false when it cannot be passed from the host. A tuple's
/// elements may be numbers, arrays and tuples of them, not records; an Enum member is its class's header
/// and its value's codes, a namedtuple its class's header and its tuple's codes.
bool append_codes(const Type& t, std::vector<ArgCode>* key);

/// Appends the byte size of each flattened parameter of an argument of type `t`.
void append_param_sizes(const Type& t, std::vector<unsigned>* sizes);
/// Checks that the compiler laid out each parameter as the launch path packs it; returns "" or a message.
std::string check_param_layout(const CompileResult& result);

/// Parameter values for one launch, laid out as a kernel declares its parameters (each at an offset aligned
/// to its size, as PTX's parameter space has them: the buffer cuLaunchKernel takes through `extra`), and
/// cuLaunchKernel's array of pointers to them (kernelParams). Reused across launches: begin() keeps the
/// storage. Sizes are 1, 2, 4 or 8 bytes (a complex value is two parameters).
class ParamBuffer {
 public:
  /// Starts a launch with room for at least `max_params` parameters.
  void begin(size_t max_params) {
    if (pointers_.size() < max_params) grow(max_params);
    count_ = 0;
    end_ = 0;
  }
  /// Appends an 8-byte parameter; room must have been made (begin(), reserve_more()).
  void push_u64(uint64_t v) {
    size_t at = (end_ + 7) & ~size_t(7);
    std::memcpy(base() + at, &v, 8);
    pointers_[count_++] = base() + at;
    end_ = at + 8;
  }
  /// A 4-byte parameter (an index32 array's extent or stride, as two's complement).
  void push_u32(uint32_t v) {
    size_t at = (end_ + 3) & ~size_t(3);
    std::memcpy(base() + at, &v, 4);
    pointers_[count_++] = base() + at;
    end_ = at + 4;
  }
  /// A parameter of `size` bytes (1, 2, 4 or 8).
  void push_bytes(const void* bytes, unsigned size) {
    size_t at = (end_ + size - 1) & ~size_t(size - 1);
    std::memcpy(base() + at, bytes, size);
    pointers_[count_++] = base() + at;
    end_ = at + size;
  }
  /// Room left for parameters without reallocation.
  size_t capacity_left() const { return pointers_.size() - count_; }
  void reserve_more(size_t n) {
    if (capacity_left() < n) grow(count_ + n);
  }

  /// Writes a launch's parameters faster than the push calls, its cursor kept out of memory the values are
  /// written to: `ParamBuffer::Writer w = buffer.start(max_params); w.u64(...)...; buffer.finish(w);`.
  class Writer {
   public:
    void u64(uint64_t v) { put(&v, 8); }
    void u32(uint32_t v) { put(&v, 4); }
    /// A value of `size` bytes (1, 2, 4 or 8).
    void bytes(const void* value, unsigned size) { put(value, size); }
    /// A 1-D array whose extent and stride fit 32 bits (an index32 code): its three parameters, the data
    /// address and the two 4-byte values after it, which fill the next 8 bytes, written as two 8-byte stores.
    /// The same bytes and pointers as u64(data), u32(extent), u32(stride), in about a third the instructions.
    void vector_index32(uint64_t data, uint32_t extent, uint32_t stride) {
      static_assert(std::endian::native == std::endian::little, "the extent is the low half of the second word");
      size_t at = (end_ + 7) & ~size_t(7);
      uint64_t extent_and_stride = uint64_t(extent) | (uint64_t(stride) << 32);
      std::memcpy(base_ + at, &data, 8);
      std::memcpy(base_ + at + 8, &extent_and_stride, 8);
      pointers_[count_] = base_ + at;
      pointers_[count_ + 1] = base_ + at + 8;
      pointers_[count_ + 2] = base_ + at + 12;
      count_ += 3;
      end_ = at + 16;
    }

   private:
    friend class ParamBuffer;
    Writer(unsigned char* base, void** pointers) : base_(base), pointers_(pointers) {}
    void put(const void* value, unsigned size) {
      size_t at = (end_ + size - 1) & ~size_t(size - 1);
      std::memcpy(base_ + at, value, size);
      pointers_[count_++] = base_ + at;
      end_ = at + size;
    }
    unsigned char* base_;
    void** pointers_;
    size_t count_ = 0, end_ = 0;
  };
  /// Starts a launch of at most `max_params` parameters, written through the Writer (then finish()).
  Writer start(size_t max_params) {
    begin(max_params);
    return Writer(base(), pointers_.data());
  }
  void finish(const Writer& w) {
    count_ = w.count_;
    end_ = w.end_;
  }

  /// Writer's values without the pointers: for a launch that hands the driver the buffer alone
  /// (LoadedKernel::packed_param_bytes), whose pointers() are then not built (count() is 0).
  class BytesWriter {
   public:
    void u64(uint64_t v) { put(&v, 8); }
    void u32(uint32_t v) { put(&v, 4); }
    /// Writer::vector_index32's bytes: the data address, then the extent and stride in the next 8 bytes.
    void vector_index32(uint64_t data, uint32_t extent, uint32_t stride) {
      size_t at = (end_ + 7) & ~size_t(7);
      uint64_t extent_and_stride = uint64_t(extent) | (uint64_t(stride) << 32);
      std::memcpy(base_ + at, &data, 8);
      std::memcpy(base_ + at + 8, &extent_and_stride, 8);
      end_ = at + 16;
    }

   private:
    friend class ParamBuffer;
    explicit BytesWriter(unsigned char* base) : base_(base) {}
    void put(const void* value, unsigned size) {
      size_t at = (end_ + size - 1) & ~size_t(size - 1);
      std::memcpy(base_ + at, value, size);
      end_ = at + size;
    }
    unsigned char* base_;
    size_t end_ = 0;
  };
  BytesWriter start_bytes(size_t max_params) {
    begin(max_params);
    return BytesWriter(base());
  }
  void finish(const BytesWriter& w) {
    count_ = 0;
    end_ = w.end_;
  }

  size_t count() const { return count_; }
  void** pointers() { return pointers_.data(); }
  /// The parameters as one buffer, and its size in bytes (the end of the last parameter).
  const void* data() const { return words_.data(); }
  size_t size_bytes() const { return end_; }

 private:
  unsigned char* base() { return reinterpret_cast<unsigned char*>(words_.data()); }
  /// Room for `n` parameters of up to 8 bytes each, wherever their alignment puts them; the pointers made
  /// so far follow the values if they move.
  void grow(size_t n) {
    unsigned char* old = base();
    words_.resize(n);
    pointers_.resize(n);
    for (size_t i = 0; i < count_; ++i) {
      pointers_[i] = base() + (static_cast<unsigned char*>(pointers_[i]) - old);
    }
  }

  std::vector<uint64_t> words_;  // the values, 8-byte aligned
  std::vector<void*> pointers_;
  size_t count_ = 0;
  size_t end_ = 0;  // bytes used
};

}  // namespace gpujit::rt
