// Device arrays, streams and events as Python objects, and reading arrays other libraries hand us.
//
// DeviceArray is gpujit's array in device memory (numba's DeviceNDArray): an rt::ArrayView plus the stream
// it was made for. The launch path reads it without any Python call (device_array_view()). Arrays from other
// libraries come in through __cuda_array_interface__ (CuPy, PyTorch, numba) or __dlpack__, zero-copy; host
// arrays (NumPy and anything with the buffer protocol) through HostBuffer.
#pragma once

#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include "runtime/device_array.h"
#include "runtime/kernel_args.h"
#include "runtime/stream.h"

namespace gpujit::py {

namespace pyb = pybind11;

struct PyDeviceArray {
  PyDeviceArray() = default;
  PyDeviceArray(rt::ArrayView v, std::shared_ptr<rt::Stream> s)
      : view(std::move(v)), stream(std::move(s)), code(rt::array_code_of(view)) {}

  rt::ArrayView view;
  // The stream it was made for (numba's `stream`); null: none (stream=0). A default stream named by its
  // Stream object is kept (its handle is 0): numba counts it as a stream, so setitem does not synchronize.
  std::shared_ptr<rt::Stream> stream;
  rt::ArgCode code = rt::kArgInvalid;  // the launch path's type key, fixed at creation (views never change)
};

/// A stream as Python sees it. `stream` is never null; the default stream borrows handle 0.
struct PyStream {
  std::shared_ptr<rt::Stream> stream;
};

struct PyEvent {
  std::shared_ptr<rt::Event> event;
};

/// A device as numba's `cuda.get_current_device()` (and `current_context()`) shows it; registered in module.cpp.
struct PyDevice {
  rt::Device* device;
};

/// The registered DeviceArray type (set by register_arrays).
extern PyTypeObject* g_device_array_type;

/// The DeviceArray inside a Python object of the DeviceArray type (or a subclass), without any Python call.
inline PyDeviceArray* device_array_of(PyObject* obj) {
  auto* inst = reinterpret_cast<pyb::detail::instance*>(obj);
  // A class with one C++ base keeps its value pointer in the instance itself (pybind11's simple layout).
  if (inst->simple_layout) return static_cast<PyDeviceArray*>(inst->simple_value_holder[0]);
  return static_cast<PyDeviceArray*>(inst->get_value_and_holder().value_ptr());
}
inline rt::ArrayView* device_array_view(PyObject* obj) { return &device_array_of(obj)->view; }

/// A host array read through the buffer protocol (NumPy arrays and scalars, array.array, memoryview).
class HostBuffer {
 public:
  /// Acquires `obj`'s buffer; throws TypeError if it has none or its element type is unsupported.
  explicit HostBuffer(PyObject* obj, bool writable = false);
  /// Tries to acquire; ok() says whether it worked (no Python error is left set).
  HostBuffer(PyObject* obj, std::nothrow_t);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  bool ok() const { return ok_; }
  const Py_buffer& buffer() const { return buf_; }
  ScalarKind kind() const { return kind_; }
  /// The record type of a structured array's elements, else null.
  const RecordType* record() const { return record_; }
  /// The buffer's shape and strides as a view (data is the host address; no device, no owner).
  rt::ArrayView view() const;

 private:
  Py_buffer buf_{};
  bool ok_ = false;
  ScalarKind kind_ = ScalarKind::UInt8;
  const RecordType* record_ = nullptr;
  /// Reads the buffer's element type; false if gpujit cannot use it. Structured elements ("T{...}") are
  /// read from the object's NumPy dtype (record_from_numpy).
  bool read_element_type(PyObject* obj);
};

/// Reads `obj.__cuda_array_interface__` into a view (no keep-alive). Returns false with *error set if the
/// object has no such attribute or it is malformed; Python errors raised by the attribute propagate.
/// `stream`, if given, receives the interface's `stream` entry (0 when it is None or absent: nothing to wait for).
bool view_from_cuda_array_interface(PyObject* obj, rt::ArrayView* out, std::string* error,
                                    uint64_t* stream = nullptr);

/// numba's CUDA_ARRAY_INTERFACE_SYNC: waits for the stream a foreign array's interface named (1 and 2 are
/// CUDA's legacy and per-thread default streams), through the Python method Stream.synchronize, when
/// gpujit.config.CUDA_ARRAY_INTERFACE_SYNC is on. Nothing for 0.
void sync_interface_stream(uint64_t stream);

/// The stream a Python `stream=` argument names: 0 or None is the default stream (null result), a gpujit
/// Stream, or another library's stream (anything with __cuda_stream__, .cuda_stream or .ptr). A gpujit
/// Stream of another device than `device` is a ValueError (check_stream_device).
std::shared_ptr<rt::Stream> stream_from_python(pyb::handle obj, rt::Device& device);

/// Throws ValueError, naming both devices, when `stream` was made on another device than `device` (a
/// stream belongs to its device's context). The default streams (handles 0, 1 and 2) belong to every device.
void check_stream_device(const rt::Stream& stream, const rt::Device& device, const char* use);

/// "Fake CUDA Device 1 (device 1)": a device as messages name it.
std::string device_label(const rt::Device& device);

/// A new DeviceArray object holding `array` (made for `stream`).
pyb::object wrap_device_array(rt::ArrayView view, std::shared_ptr<rt::Stream> stream);

/// Copies a host buffer into a new device array on the current device.
pyb::object host_to_device(PyObject* host, std::shared_ptr<rt::Stream> stream);

/// Runs `f`, a blocking copy or wait of about `bytes` on `device`, with the GIL released where that pays:
/// always on a CUDA device (the driver waits there for the device's earlier work), on the cpu backend only
/// for a large memcpy (releasing and taking back the GIL costs more than a small copy). f must not touch a
/// Python object.
template <class F>
void blocking_call(const rt::Device& device, size_t bytes, F&& f) {
  if (device.backend() != rt::BackendKind::Cuda && bytes < (size_t(1) << 20)) {
    f();
    return;
  }
  pyb::gil_scoped_release release;
  f();
}
/// Copies the device array into a new NumPy array, or into `into` if given; waits for the copy when the
/// stream is the default one.
pyb::object device_to_host(const PyDeviceArray& array, pyb::handle into, const std::shared_ptr<rt::Stream>& stream);

void register_arrays(pyb::module_& m);

}  // namespace gpujit::py
