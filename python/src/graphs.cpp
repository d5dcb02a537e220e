// The Python Graph object (see graphs.h).
#include "graphs.h"

#include <memory>
#include <vector>

#include "arrays.h"
#include "errors.h"
#include "runtime/host_executor.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

namespace gpujit::py {
namespace {

struct PyGraph {
  rt::Device* device = nullptr;
  std::shared_ptr<rt::Stream> stream;    // the stream asked for; null: the default stream
  std::unique_ptr<rt::Capture> capture;  // while the `with` block runs
  std::unique_ptr<rt::Graph> graph;      // once it ended well
  std::vector<pyb::object> kept;         // the arguments of the launches captured
  bool used = false;                     // a capture was begun: a Graph captures once

  ~PyGraph() {
    // Collected during its own capture (the `with` was left by other means than __exit__): end it.
    if (capture) device->abort_capture(*capture);
  }

  rt::Graph& ready(const char* use) {
    if (graph) return *graph;
    if (capture)
      throw rt::CaptureError(std::string("a graph cannot be ") + use + " while it is being captured");
    throw rt::CaptureError(
        std::string("this graph cannot be ") + use + ": " +
        (used ? "it was closed, or its capture failed" : "it was never captured (use it in a `with` block)"));
  }
};

void enter(PyGraph& g) {
  if (g.used) {
    throw rt::CaptureError(
        "a gpu.graph() object captures once; make a new one with gpu.graph() for another capture");
  }
  if (&rt::Runtime::get().current_device() != g.device) {
    throw rt::CaptureError("the graph was made for " + device_label(*g.device) +
                           ", which is not the current device now");
  }
  g.capture = g.device->begin_capture(g.stream ? g.stream->handle() : nullptr);
  g.capture->owner = &g;
  g.used = true;
}

void leave(PyGraph& g, bool failed) {
  if (!g.capture) return;
  std::unique_ptr<rt::Capture> capture = std::move(g.capture);
  if (failed) {
    g.device->abort_capture(*capture);
    g.kept.clear();
    return;
  }
  try {
    g.graph = g.device->end_capture(*capture);
  } catch (...) {
    g.kept.clear();
    throw;
  }
}

void launch(PyGraph& g, pyb::handle stream_arg) {
  rt::Graph& graph = g.ready("launched");
  std::shared_ptr<rt::Stream> stream = stream_from_python(stream_arg, *g.device);
  rt::StreamHandle handle = stream ? stream->handle() : nullptr;
  if (g.device->backend() != rt::BackendKind::Host) {
    graph.launch(handle);
    return;
  }
  // The cpu backend runs every kernel before returning: other Python threads run meanwhile, and Ctrl-C
  // cancels the kernel running, as for a launch (dispatcher.cpp).
  bool interrupted = false;
  {
    pyb::gil_scoped_release release;
    try {
      graph.launch(handle);
    } catch (const HostInterrupted&) {
      interrupted = true;
    }
  }
  if (interrupted) {
    if (!PyErr_Occurred() && PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw pyb::error_already_set();
  }
}

}  // namespace

void keep_captured_arguments(rt::Capture& capture, PyObject* const* args, size_t nargs) {
  auto* g = static_cast<PyGraph*>(capture.owner);
  if (!g) return;
  for (size_t i = 0; i < nargs; ++i) g->kept.push_back(pyb::reinterpret_borrow<pyb::object>(args[i]));
}

void register_graphs(pyb::module_& m) {
  pyb::class_<PyGraph>(m, "Graph")
      .def("__enter__",
           [](pyb::object self) {
             enter(self.cast<PyGraph&>());
             return self;
           })
      .def("__exit__",
           [](PyGraph& g, pyb::handle type, pyb::handle, pyb::handle) {
             leave(g, !type.is_none());
             return false;
           })
      .def("launch", &launch, pyb::arg("stream") = 0,
           "Replays every captured launch, copy and fill, in order, on `stream` (default: the default "
           "stream), "
           "asynchronously on a CUDA device as a launch is.")
      .def(
          "close",
          [](PyGraph& g) {
            if (g.capture) throw rt::CaptureError("a graph cannot be closed while it is being captured");
            g.graph.reset();
            g.kept.clear();
          },
          "Frees the graph's driver objects and the references to its arguments; the graph cannot be "
          "launched after.")
      .def_property_readonly(
          "kernel_count",
          [](const PyGraph& g) -> size_t {
            if (g.capture) return g.capture->kernels;
            return g.graph ? g.graph->kernel_count() : 0;
          },
          "Kernel launches captured (so far, during the capture).")
      .def_property_readonly(
          "node_count", [](const PyGraph& g) -> size_t { return g.graph ? g.graph->node_count() : 0; },
          "Operations in the instantiated graph: kernels, copies and fills.")
      .def_property_readonly(
          "instantiated", [](const PyGraph& g) { return bool(g.graph); },
          "Whether the graph was captured and instantiated, and not closed: launch() works.")
      .def_property_readonly("capturing", [](const PyGraph& g) { return bool(g.capture); })
      .def_property_readonly(
          "stream",
          [](const PyGraph& g) -> pyb::object {
            // During the capture: the stream being captured (a copy on it is captured, with no synchronize).
            if (g.capture && g.capture->own_stream) return pyb::cast(PyStream{g.capture->own_stream});
            return pyb::cast(PyStream{g.stream ? g.stream : rt::Stream::borrow(*g.device, nullptr)});
          },
          "The stream captured: during the capture, the one that work passing stream=g.stream goes to.")
      .def("__repr__", [](const PyGraph& g) {
        std::string state = g.capture ? "capturing"
                            : g.graph ? "instantiated"
                            : g.used  ? "closed"
                                      : "not captured";
        size_t kernels = g.capture ? g.capture->kernels : g.graph ? g.graph->kernel_count() : 0;
        return "<gpujit graph: " + state + ", " + std::to_string(kernels) + " kernels on " +
               device_label(*g.device) + ">";
      });

  m.def(
      "graph",
      [](pyb::handle stream) {
        rt::Device& device = rt::Runtime::get().current_device();
        auto g = std::make_unique<PyGraph>();
        g->device = &device;
        g->stream = stream_from_python(stream, device);
        if (g->stream && !g->stream->handle()) g->stream.reset();  // the default stream, named
        return g;
      },
      pyb::arg("stream") = 0,
      "A graph to capture launches into: `with gpu.graph() as g: ...` captures the calling thread's launches "
      "(and copies, fills) on `stream` and on the default stream, then g.launch() replays them.");
}

}  // namespace gpujit::py
