// The launch-overhead floor: cuLaunchKernel of empty kernels straight from C++, no Python, for the argument
// shapes of benchmarks/launch_overhead.py. Built by that script with the CUDA toolkit's cuda.h and run on the
// GPU machine; prints a JSON object of microseconds per launch (best of 3 rounds of 20,000 asynchronous
// launches followed by one synchronize).
//
// Built with -DGPUJIT_FLOOR_LIBRARY -shared instead, it is a library the benchmark loads into its own
// process (ctypes): gpujit_floor_init() loads the same kernels into the device's primary context, the one
// gpujit launches in, and gpujit_floor_round_us(shape, launches) times one round of the same loop. Rounds of
// the floor and of gpujit then alternate in one process, where the driver's drift between processes (up to
// a microsecond per launch on the GPU machines) cannot tell them apart. Compiled with Python's headers, the
// library is also the extension module launch_floor (see PyInit_launch_floor below), whose launch(shape) is
// the floor called from a Python loop.
#ifdef GPUJIT_FLOOR_LIBRARY
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#endif
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_floor.h"

namespace {

using floor_bench::check;

// An empty kernel named `name` taking `arrays` pointers and `scalars` floats.
std::string entry(const std::string& name, int arrays, int scalars) {
  std::string s = ".visible .entry " + name + "(";
  for (int i = 0; i < arrays + scalars; ++i) {
    if (i) s += ", ";
    s += i < arrays ? ".param .u64 p" : ".param .f32 p";
    s += std::to_string(i);
  }
  return s + ") { ret; }\n";
}

[[maybe_unused]] double per_launch_us(CUfunction f, void** params) {
  constexpr int kLaunches = 20000;
  check(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kLaunches; ++i) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (us / kLaunches < best) best = us / kLaunches;
  }
  return best;
}

struct Shape {
  const char* name;
  int arrays, scalars;
};
constexpr int kShapes = 6;
constexpr Shape kShapeList[kShapes] = {{"0 args", 0, 0},     {"1 array", 1, 0},    {"3 arrays", 3, 0},
                                       {"16 arrays", 16, 0}, {"16 scalars", 0, 16}, {"256 scalars", 0, 256}};

// The kernels of every shape in the primary context of device 0 (made current), with their parameters.
struct Floor {
  CUfunction functions[kShapes];
  std::vector<void*> params[kShapes];
  CUdeviceptr buf = 0;
  float one = 1.0f;

  Floor() {
    floor_bench::primary_context();
    std::string ptx = ".version 8.0\n.target sm_75\n.address_size 64\n";
    for (int i = 0; i < kShapes; ++i) ptx += entry("k" + std::to_string(i), kShapeList[i].arrays, kShapeList[i].scalars);
    CUmodule module;
    check(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
    check(cuMemAlloc(&buf, 4096), "cuMemAlloc");
    for (int i = 0; i < kShapes; ++i) {
      check(cuModuleGetFunction(&functions[i], module, ("k" + std::to_string(i)).c_str()), "cuModuleGetFunction");
      for (int a = 0; a < kShapeList[i].arrays; ++a) params[i].push_back(&buf);
      for (int s = 0; s < kShapeList[i].scalars; ++s) params[i].push_back(&one);
    }
  }
  void** args(int i) { return params[i].empty() ? nullptr : params[i].data(); }
};

}  // namespace

#ifdef GPUJIT_FLOOR_LIBRARY
namespace {
Floor* g_floor = nullptr;
}

extern "C" int gpujit_floor_init() {
  if (!g_floor) g_floor = new Floor();  // kept to the end of the process, as the context is
  return kShapes;
}

// One round: `launches` asynchronous launches of shape `shape`'s kernel and one synchronize, in microseconds
// per launch.
extern "C" double gpujit_floor_round_us(int shape, int launches) {
  if (!g_floor || shape < 0 || shape >= kShapes || launches <= 0) return -1.0;
  CUfunction f = g_floor->functions[shape];
  void** params = g_floor->args(shape);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / launches;
}

// The same library is also a Python extension module, launch_floor, whose launch(shape) is one bare
// cuLaunchKernel of that shape's kernel called from Python: a Python loop of it costs what launching from a
// Python loop costs at all (the interpreter's loop and call, and the driver's call among them), with none of
// gpujit's work (configuration, arguments, lookup, packing).
namespace {
PyObject* py_launch(PyObject*, PyObject* arg) {
  long shape = PyLong_AsLong(arg);
  if (!g_floor || shape < 0 || shape >= kShapes) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "gpujit_floor_init() first, and a shape index");
    return nullptr;
  }
  if (cuLaunchKernel(g_floor->functions[shape], 1, 1, 1, 32, 1, 1, 0, nullptr, g_floor->args(int(shape)), nullptr) !=
      CUDA_SUCCESS) {
    PyErr_SetString(PyExc_RuntimeError, "cuLaunchKernel failed");
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyMethodDef py_methods[] = {{"launch", py_launch, METH_O, "One bare cuLaunchKernel of shape `shape`."},
                            {nullptr, nullptr, 0, nullptr}};
PyModuleDef py_module = {PyModuleDef_HEAD_INIT, "launch_floor", nullptr, -1, py_methods};
}  // namespace

extern "C" PyObject* PyInit_launch_floor() { return PyModule_Create(&py_module); }
#else
int main() {
  Floor floor;
  std::printf("{");
  for (int i = 0; i < kShapes; ++i) {
    std::printf("%s\"%s\": %.3f", i ? ", " : "", kShapeList[i].name, per_launch_us(floor.functions[i], floor.args(i)));
  }
  std::printf("}\n");
  return 0;
}
#endif
