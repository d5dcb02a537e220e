// Classifying and packing one launch's arguments (the hot part of the launch path).
//
// classify() looks at one Python argument and records its ArgCode and value: DeviceArrays by pointer to
// their view, numbers by their bytes, NumPy arrays by a temporary device copy (copied back by finish(), as
// numba does), and other libraries' device arrays by a view read from __cuda_array_interface__ or __dlpack__
// (zero-copy, no synchronization), and tuples of numbers element by element (a header code, then one code and
// value per element: see kernel_args.h). Exact-type checks come first and no Python call is made for
// DeviceArrays, ints, floats, bools and NumPy scalars. pack() writes the parameters (converting scalars when the
// dispatcher's explicit signature asks for another type) into a buffer that is reused across launches.
//
// Arguments objects are reused: ArgumentScope takes the process's one (under the GIL), else the thread's, and
// hands out a fresh one if a launch happens while another is being prepared on the same thread (a
// __cuda_array_interface__ property that launches).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "arrays.h"
#include "runtime/kernel_args.h"

namespace gpujit::py {

/// gpujit.In, gpujit.Out and gpujit.InOut, set by _core._set_arg_hint_types when the package loads.
extern PyObject* g_arg_hint_types[3];

class Arguments {
 public:
  /// Starts a launch of `n` arguments. The common case (no copies of the last launch left, room enough) is
  /// a few compares and the last launch's views dropped, inline.
  void reset(size_t n) {
    count_ = 0;
    wide_scalars_ = 0;
    fast_params_ = kUncounted;
    views_.clear();  // foreign arrays' views, and the owners some hold (DLPack's managed tensors)
    if (codes_.size() < n || views_.capacity() < n || !copies_.empty() || !record_copies_.empty())
      reset_slow(n);
  }
  /// Classifies argument `index` (named `param` of kernel `kernel`, for messages). Throws TypeError for an
  /// argument that cannot be passed.
  void classify(PyObject* obj, size_t index, const std::string& kernel, const std::string& param,
                rt::Device& device, const std::shared_ptr<rt::Stream>& stream) {
    if (!classify_fast(obj, device)) classify_other(obj, index, kernel, param, device, stream);
  }
  /// classify() for the arguments from the first on, as long as classify_fast() takes them (floats, ints,
  /// DeviceArrays on `device`), with the slots' addresses and counts in locals: each argument costs its type
  /// test and its stores, where classify() reloads the members after every byte store (callgrind: about 38
  /// instructions per float argument that way). Returns how many it took; the caller classifies the rest
  /// with classify(). reset(n) (or more) must have been called with no argument classified since.
  size_t classify_fast_run(PyObject* const* args, size_t n, const rt::Device& device) {
    if (count_ != 0 || codes_.size() < n || values_.size() < n) return 0;
    rt::ArgCode* codes = codes_.data();
    Value* values = values_.data();
    size_t i = 0, wide = 0, params = 0;
    for (; i < n; ++i) {
      PyObject* obj = args[i];
      PyTypeObject* type = Py_TYPE(obj);
      uint64_t bits = 0;
      const rt::ArrayView* array = nullptr;
      rt::ArgCode code;
      if (type == &PyFloat_Type) {
        double d = PyFloat_AS_DOUBLE(obj);
        std::memcpy(&bits, &d, 8);
        code = kFloat64Code;
        ++wide;
      } else if (type == &PyLong_Type) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow != 0) break;  // uint64, or an error classify_other() reports
        bits = uint64_t(x);
        code = kInt64Code;
        ++wide;
      } else if (type == g_device_array_type) {
        const PyDeviceArray* a = device_array_of(obj);
        if (a->view.device != &device) break;  // classify_other() says which device it is on
        array = &a->view;
        code = a->code;
        params += 2 * size_t(a->view.ndim);  // and 1 below
      } else {
        break;
      }
      ++params;
      codes[i] = code;
      Value& v = values[i];
      v.array = array;
      std::memcpy(v.bytes, &bits, 8);
      std::memset(v.bytes + 8, 0, 8);
    }
    count_ = i;
    wide_scalars_ = wide;
    if (i == n) fast_params_ = params;  // else classify() records the rest, and pack() counts
    return i;
  }
  /// The launch's key: one code per argument, tuples flattened (so there may be more codes than arguments).
  const rt::ArgCode* codes() const { return codes_.data(); }
  size_t code_count() const { return count_; }
  /// Clears the index32 bit of every array code: a kernel with explicit signatures has only the general
  /// specializations, so its keys hold no such bit.
  void drop_index32() {
    for (size_t i = 0; i < count_; ++i) codes_[i] = rt::without_index32(codes_[i]);
  }
  /// Packs every argument; `targets` (may be null, else aligned with codes()) gives the types scalars are
  /// converted to. Returns cuLaunchKernel's kernelParams, or null when `buffer_only` (the kernel's
  /// LoadedKernel::packed_param_bytes) is the packed size and the launch takes the buffer alone: the common
  /// launches (arrays, Python floats and ints, unconverted) then build no pointers.
  void** pack(const rt::ArgCode* targets, size_t buffer_only = 0);
  /// The buffer pack() filled (Device::launch's `packed`).
  const rt::ParamBuffer* packed() const { return &params_; }
  /// After the launch: copies NumPy arguments back and waits for that; releases temporaries.
  void finish(rt::Device& device, rt::StreamHandle stream);
  /// Whether a NumPy array was copied to the device for this launch.
  bool copied_host_arrays() const { return !copies_.empty() || !record_copies_.empty(); }
  /// What classify() recorded for code `i`: the view of an array code (null for others), and a scalar's bytes
  /// (its own type's, zero-padded to 16). For packers other than pack(): CUDA C kernels (raw_kernel.cpp).
  const rt::ArrayView* array_at(size_t i) const { return values_[i].array; }
  const unsigned char* bytes_at(size_t i) const { return values_[i].bytes; }
  /// The reused parameter buffer such a packer fills.
  rt::ParamBuffer& param_buffer() { return params_; }

 private:
  static constexpr rt::ArgCode kFloat64Code = rt::scalar_code(ScalarKind::Float64);
  static constexpr rt::ArgCode kInt64Code = rt::scalar_code(ScalarKind::Int64);
  static constexpr size_t kUncounted = ~size_t(0);

  struct Value {
    const rt::ArrayView* array = nullptr;     // arrays; scalars use bytes
    alignas(8) unsigned char bytes[16] = {};  // a scalar's bytes, the rest zero (pack() reads 8 at once)
  };
  /// A record argument's device copy; when the record is a view into a writable array (a[0]), the kernel's
  /// writes are copied back into it, as numba-cuda copies a record argument back.
  struct RecordCopy {
    pybind11::object original;  // the record scalar, which keeps its array alive
    void* host = nullptr;       // its bytes
    size_t size = 0;
    std::shared_ptr<rt::DeviceBuffer> device;
    bool write_back = false;
  };
  /// A NumPy argument's device copy, kept until the copy back.
  struct HostCopy {
    PyObject* original = nullptr;        // the argument (borrowed: the caller holds it)
    pybind11::object contiguous;         // a contiguous copy when the original was strided, else empty
    std::unique_ptr<HostBuffer> buffer;  // the host bytes the device copy came from
    std::shared_ptr<rt::DeviceBuffer> device;
    bool write_back = false;
  };

  /// The launch path's commonest arguments, classified inline: a DeviceArray on `device` and a Python float
  /// or int that fits int64 (what classify_other() would record for them). False, with nothing recorded,
  /// for anything else.
  bool classify_fast(PyObject* obj, const rt::Device& device) {
    PyTypeObject* type = Py_TYPE(obj);
    if (type == &PyFloat_Type) {
      double d = PyFloat_AS_DOUBLE(obj);
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      add_fast(kFloat64Code, nullptr, bits);
      ++wide_scalars_;
      return true;
    }
    if (type == &PyLong_Type) {
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
      if (overflow != 0) return false;  // uint64, or an error classify_other() reports
      add_fast(kInt64Code, nullptr, uint64_t(x));
      ++wide_scalars_;
      return true;
    }
    if (type == g_device_array_type) {
      const PyDeviceArray* a = device_array_of(obj);
      if (a->view.device != &device) return false;  // classify_other() says which device it is on
      add_fast(a->code, &a->view, 0);
      return true;
    }
    return false;
  }
  /// add_slot() for classify_fast(): the code and value written at once, from locals, so that no byte store
  /// makes the compiler reload the members it uses (a char store may alias anything).
  void add_fast(rt::ArgCode code, const rt::ArrayView* array, uint64_t bits) {
    if (count_ == codes_.size()) grow_slots();
    const size_t i = count_++;
    codes_[i] = code;
    Value& v = values_[i];
    v.array = array;
    std::memcpy(v.bytes, &bits, 8);
    std::memset(v.bytes + 8, 0, 8);
  }
  /// Every other argument (and the errors), out of line.
  void classify_other(PyObject* obj, size_t index, const std::string& kernel, const std::string& param,
                      rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  /// Adds a code and value slot for the next argument or tuple element.
  Value& add_slot() {
    if (count_ == codes_.size()) grow_slots();
    codes_[count_] = rt::kArgInvalid;
    Value& v = values_[count_++];
    v = Value();
    return v;
  }
  rt::ArgCode& last_code() { return codes_[count_ - 1]; }
  Value& last_value() { return values_[count_ - 1]; }
  void grow_slots();
  void reset_slow(size_t n);
  /// A tuple argument: its header code, then each element as an argument of its own (numbers, arrays,
  /// records, nested tuples), depth first.
  void classify_tuple(PyObject* tuple, size_t index, const std::string& kernel, const std::string& param,
                      rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  void classify_slow(PyObject* obj, size_t index, const std::string& kernel, const std::string& param,
                     rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  /// An instance of a namedtuple class (ir/named_tuple.h): its class's header code, then the tuple as
  /// classify_tuple() records it.
  void classify_named_tuple(PyObject* obj, size_t index, const std::string& kernel, const std::string& param,
                            rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  /// A member of an Enum class (ir/enum_type.h): its class's header code, then its value as an argument of
  /// its own (a number or a tuple) in the slots that follow.
  void classify_enum(PyObject* obj, size_t index, const std::string& kernel, const std::string& param,
                     rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  /// A NumPy array copied to the device for the launch (unless !copy_in: gpujit.Out) and back after it
  /// (unless !copy_back: gpujit.In, or a read-only array).
  void host_array(PyObject* obj, rt::Device& device, const std::shared_ptr<rt::Stream>& stream,
                  bool copy_in = true, bool copy_back = true);
  /// A NumPy record scalar (np.void, np.record): passed as the address of a device copy of its bytes.
  void record_scalar(PyObject* obj, rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  /// A fresh view for this launch, kept until the next reset(). The common case inline (room reserved),
  /// its growth out of line.
  rt::ArrayView& own_view() {
    if (views_.size() == views_.capacity()) [[unlikely]] grow_views();
    return views_.emplace_back();
  }
  [[gnu::noinline]] void grow_views();

  // The first count_ entries are this launch's; the vectors only grow, so a thread's launches stop
  // allocating once they have seen their widest key.
  std::vector<rt::ArgCode> codes_;
  std::vector<Value> values_;  // one per code (a tuple header's is unused)
  size_t count_ = 0;
  /// How many of this launch's codes classify_fast() recorded as a Python float or int (float64, int64):
  /// when that is all of them, pack() writes each one's 8 bytes and looks at nothing else.
  size_t wide_scalars_ = 0;
  /// The launch's parameter count when classify_fast_run() took every argument (kUncounted otherwise):
  /// pack() then writes them with no second look at each argument.
  size_t fast_params_ = kUncounted;
  /// Values point into it. Reserved up front for one view per argument; a tuple argument can hold more
  /// arrays than that, and own_view() then grows it and moves those pointers along.
  std::vector<rt::ArrayView> views_;
  std::vector<HostCopy> copies_;
  std::vector<RecordCopy> record_copies_;
  rt::ParamBuffer params_;
};

/// A reused Arguments (the process's or a thread's) and whether a launch is preparing it. Trivial and
/// constant-initialized, so a launch reads it with no guard; the Arguments itself is made at the first launch
/// that takes it, and a thread's is freed when the thread ends (arguments.cpp).
struct ThreadArguments {
  Arguments* args = nullptr;
  bool in_use = false;
};

class ArgumentScope {
 public:
  explicit ArgumentScope(size_t n);
  ~ArgumentScope();
  ArgumentScope(const ArgumentScope&) = delete;
  ArgumentScope& operator=(const ArgumentScope&) = delete;
  Arguments& get() { return *args_; }

 private:
  Arguments* args_;
  ThreadArguments* thread_ = nullptr;  // the thread's, when this scope holds its Arguments; null when nested
  std::unique_ptr<Arguments> nested_;
};

}  // namespace gpujit::py
