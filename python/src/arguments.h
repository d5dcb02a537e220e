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
// Arguments objects are thread-local and reused; ArgumentScope hands out a fresh one if a launch happens
// while another is being prepared on the same thread (a __cuda_array_interface__ property that launches).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "arrays.h"
#include "runtime/kernel_args.h"

namespace gpujit::py {

class Arguments {
 public:
  void reset(size_t n);
  /// Classifies argument `index` (named `param` of kernel `kernel`, for messages). Throws TypeError for an
  /// argument that cannot be passed.
  void classify(PyObject* obj, size_t index, const std::string& kernel, const std::string& param,
                rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  /// The launch's key: one code per argument, tuples flattened (so there may be more codes than arguments).
  const rt::ArgCode* codes() const { return codes_.data(); }
  size_t code_count() const { return codes_.size(); }
  /// Clears the index32 bit of every array code: a kernel with explicit signatures has only the general
  /// specializations, so its keys hold no such bit.
  void drop_index32() {
    for (rt::ArgCode& c : codes_) c = rt::without_index32(c);
  }
  /// Packs every argument; `targets` (may be null, else aligned with codes()) gives the types scalars are
  /// converted to.
  void** pack(const rt::ArgCode* targets);
  /// After the launch: copies NumPy arguments back and waits for that; releases temporaries.
  void finish(rt::Device& device, rt::StreamHandle stream);

 private:
  struct Value {
    const rt::ArrayView* array = nullptr;  // arrays; scalars use bytes
    alignas(8) unsigned char bytes[16] = {};
  };
  /// A NumPy argument's device copy, kept until the copy back.
  struct HostCopy {
    PyObject* original = nullptr;        // the argument (borrowed: the caller holds it)
    pybind11::object contiguous;         // a contiguous copy when the original was strided, else empty
    std::unique_ptr<HostBuffer> buffer;  // the host bytes the device copy came from
    std::shared_ptr<rt::DeviceBuffer> device;
    bool write_back = false;
  };

  /// Adds a code and value slot for the next argument or tuple element.
  Value& add_slot() {
    codes_.push_back(rt::kArgInvalid);
    return values_.emplace_back();
  }
  void classify_tuple(PyObject* tuple, size_t index, const std::string& kernel, const std::string& param);
  void classify_slow(PyObject* obj, size_t index, const std::string& kernel, const std::string& param,
                     rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  void host_array(PyObject* obj, rt::Device& device, const std::shared_ptr<rt::Stream>& stream);
  rt::ArrayView& own_view();

  std::vector<rt::ArgCode> codes_;
  std::vector<Value> values_;  // one per code (a tuple header's is unused)
  std::vector<rt::ArrayView> views_;  // reserved up front: Values point into it
  std::vector<HostCopy> copies_;
  rt::ParamBuffer params_;
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
  std::unique_ptr<Arguments> nested_;
};

}  // namespace gpujit::py
