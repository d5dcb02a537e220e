// gpujit.graph(): capturing launches into a graph and replaying it, as a Python context manager.
//
// `with gpu.graph(stream=0) as g:` begins a capture on the current device (rt::Device::begin_capture) on
// entry and ends and instantiates it on a normal exit; an exception inside the block aborts the capture (the
// error propagates, nothing is instantiated, the stream is usable). g.launch(stream=0) replays the graph,
// asynchronously on a CUDA device; g.close() (or the object's collection) frees the driver's objects.
//
// A graph replays its launches with the arguments as they were at capture (device pointers, shapes, scalars),
// as CUDA graphs do. So that the memory behind those pointers stays valid, the graph keeps a reference to
// every argument of every launch it captured (keep_captured_arguments(), called by the launch path) until it
// is closed.
#pragma once

#include <cstddef>

#include <pybind11/pybind11.h>

#include "runtime/graph.h"

namespace gpujit::py {

namespace pyb = pybind11;

/// Called by the launch path for a launch that `capture` takes: keeps its arguments alive with the graph.
/// Out of line and cold: the launch path's own code stays as it was without graphs (LTO had inlined it there).
[[gnu::cold, gnu::noinline]] void keep_captured_arguments(rt::Capture& capture, PyObject* const* args, size_t nargs);

void register_graphs(pyb::module_& m);

}  // namespace gpujit::py
