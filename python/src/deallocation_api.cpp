// The deallocation queue's and host buffers' bindings (see deallocation_api.h).
//
// _HostMemory does not own its memory: the Python object that derives from it (a memory pointer) keeps the
// owner alive, and the buffer is valid as long as that object is. Python subclasses must call
// _HostMemory.__init__(self, address, size) (pybind11 checks it).
#include "deallocation_api.h"

#include <cstdint>

#include "arrays.h"
#include "runtime/caching_allocator.h"
#include "runtime/cuda_device.h"
#include "runtime/device.h"

namespace gpujit::py {
namespace {

namespace pyb = pybind11;

/// `size` bytes of host memory at `address`, exposed through the buffer protocol as unsigned bytes.
struct HostMemory {
  uint64_t address = 0;
  size_t size = 0;
};

}  // namespace

void register_deallocation_api(pyb::module_& m) {
  m.def("_pending_frees", [](PyDevice& d) {
    rt::CachingAllocator& a = d.device->allocator();
    return pyb::make_tuple(a.pending_count(), a.pending_bytes());
  }, pyb::arg("device"), "(blocks, requested bytes) freed on `device` and not yet reusable (numba's pending frees).");
  m.def("_flush_pending", [](PyDevice& d) { d.device->allocator().flush_pending(); }, pyb::arg("device"),
        "Makes `device`'s pending freed blocks reusable; nothing while defer_cleanup() is active.");
  m.def("_set_pending_limits", [](int64_t count, double ratio) {
    if (count < 0) throw pyb::value_error("CUDA_DEALLOCS_COUNT must be 0 or more, not " + std::to_string(count));
    if (!(ratio >= 0)) throw pyb::value_error("CUDA_DEALLOCS_RATIO must be 0 or more");
    rt::CachingAllocator::set_pending_limits(size_t(count), ratio);
  }, pyb::arg("count"), pyb::arg("ratio"),
     "More than `count` pending frees, or more than `ratio` of a device's memory, flush its queue.");
  m.def("_pending_limits", [] {
    auto [count, ratio] = rt::CachingAllocator::pending_limits();
    return pyb::make_tuple(count, ratio);
  });

  m.def("_context_handle", [](PyDevice& d) -> pyb::object {
    if (d.device->backend() != rt::BackendKind::Cuda) return pyb::none();
    return pyb::int_(reinterpret_cast<uintptr_t>(static_cast<cuda::CudaDevice*>(d.device)->context()));
  }, pyb::arg("device"), "The device's CUDA context (its primary context); None on the CPU backend.");

  pyb::class_<HostMemory>(m, "_HostMemory", pyb::buffer_protocol(), pyb::dynamic_attr())
      .def(pyb::init([](uint64_t address, size_t size) { return HostMemory{address, size}; }),
           pyb::arg("address"), pyb::arg("size"))
      .def_buffer([](HostMemory& h) {
        return pyb::buffer_info(reinterpret_cast<void*>(uintptr_t(h.address)), 1,
                                pyb::format_descriptor<uint8_t>::format(), 1, {pyb::ssize_t(h.size)}, {1});
      });
}

}  // namespace gpujit::py
