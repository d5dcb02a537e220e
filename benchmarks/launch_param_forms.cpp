// What the driver's cuLaunchKernel costs by the form of its parameters: the same empty kernels launched with
// kernelParams (an array of pointers, one per parameter, which the driver copies one by one) and with `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER: one buffer laid out as the kernel's parameters, copied whole), for the
// shapes gpujit's launches have. A 1-d array is three 8-byte parameters in gpujit (data, shape, stride), so
// 16 arrays are 48 of them where CUDA C passes 16 pointers; a Python float is an 8-byte double where the
// floor of benchmarks/launch_floor.cpp passes 4-byte floats. The last row asks cuCtxGetCurrent before each
// launch of the first kernel, as gpujit's launch does to find whether its context is the thread's.
//
//   g++ -O2 -std=c++17 benchmarks/launch_param_forms.cpp -I$CUDA_HOME/include -L$CUDA_HOME/lib64/stubs -lcuda
//   ./a.out        (on a GPU machine; prints microseconds per launch, best of 5 interleaved rounds)
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_floor.h"

namespace {

using floor_bench::check;

struct Form {
  const char* name;
  int count;         // parameters
  const char* type;  // their PTX type
  int size;          // and size in bytes
  bool buffer;       // passed through `extra` instead of kernelParams
};

constexpr Form kForms[] = {
    {"0 params", 0, ".u64", 8, false},
    {"16 u64, kernelParams (CUDA C, 16 pointers)", 16, ".u64", 8, false},
    {"16 u64, extra buffer", 16, ".u64", 8, true},
    {"48 u64, kernelParams (gpujit, 16 1-d arrays)", 48, ".u64", 8, false},
    {"48 u64, extra buffer", 48, ".u64", 8, true},
    {"256 f32, kernelParams (the floor's 256 scalars)", 256, ".f32", 4, false},
    {"256 f64, kernelParams (gpujit, 256 Python floats)", 256, ".f64", 8, false},
    {"256 f64, extra buffer", 256, ".f64", 8, true},
};
constexpr int kFormCount = sizeof(kForms) / sizeof(kForms[0]);

}  // namespace

int main() {
  CUcontext ctx = floor_bench::primary_context();
  std::string ptx = ".version 8.0\n.target sm_75\n.address_size 64\n";
  for (int i = 0; i < kFormCount; ++i) {
    ptx += ".visible .entry k" + std::to_string(i) + "(";
    for (int p = 0; p < kForms[i].count; ++p) ptx += std::string(p ? ", " : "") + ".param " + kForms[i].type + " p" + std::to_string(p);
    ptx += ") { ret; }\n";
  }
  CUmodule module;
  check(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
  std::vector<CUfunction> functions(kFormCount);
  std::vector<std::vector<unsigned char>> buffers(kFormCount);
  std::vector<std::vector<void*>> pointers(kFormCount);
  std::vector<size_t> sizes(kFormCount);
  std::vector<std::vector<void*>> extras(kFormCount);
  for (int i = 0; i < kFormCount; ++i) {
    check(cuModuleGetFunction(&functions[i], module, ("k" + std::to_string(i)).c_str()), "cuModuleGetFunction");
    sizes[i] = size_t(kForms[i].count) * size_t(kForms[i].size);
    buffers[i].assign(std::max<size_t>(sizes[i], 8), 0);
    for (int p = 0; p < kForms[i].count; ++p) pointers[i].push_back(buffers[i].data() + p * kForms[i].size);
    extras[i] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffers[i].data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &sizes[i],
                 CU_LAUNCH_PARAM_END};
  }
  auto round_us = [&](int i, int launches) {
    void** params = kForms[i].buffer || pointers[i].empty() ? nullptr : pointers[i].data();
    void** extra = kForms[i].buffer ? extras[i].data() : nullptr;
    auto start = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; ++l) {
      check(cuLaunchKernel(functions[i], 1, 1, 1, 32, 1, 1, 0, nullptr, params, extra), "cuLaunchKernel");
    }
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / launches;
  };
  auto with_context_query_us = [&](int launches) {
    auto start = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; ++l) {
      CUcontext current = nullptr;
      check(cuCtxGetCurrent(&current), "cuCtxGetCurrent");
      if (current != ctx) check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
      check(cuLaunchKernel(functions[0], 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), "cuLaunchKernel");
    }
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / launches;
  };
  std::vector<double> best(kFormCount, 1e30);
  double best_query = 1e30;
  for (int i = 0; i < kFormCount; ++i) round_us(i, 1000);  // warm up
  for (int r = 0; r < 5; ++r) {
    for (int i = 0; i < kFormCount; ++i) best[i] = std::min(best[i], round_us(i, 20000));
    best_query = std::min(best_query, with_context_query_us(20000));
  }
  for (int i = 0; i < kFormCount; ++i) std::printf("%-52s %7.3f us\n", kForms[i].name, best[i]);
  std::printf("%-52s %7.3f us\n", "0 params, cuCtxGetCurrent before each launch", best_query);
  return 0;
}
