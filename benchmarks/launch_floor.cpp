// The launch-overhead floor: cuLaunchKernel of empty kernels straight from C++, no Python, for the argument
// shapes of benchmarks/launch_overhead.py. Built by that script with the CUDA toolkit's cuda.h and run on the
// GPU machine; prints a JSON object of microseconds per launch (best of 3 rounds of 20,000 asynchronous
// launches followed by one synchronize).
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* name = "?";
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "%s failed: %s\n", what, name);
    std::exit(1);
  }
}

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

double per_launch_us(CUfunction f, void** params) {
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

}  // namespace

int main() {
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

  struct Shape {
    const char* name;
    int arrays, scalars;
  } shapes[] = {{"0 args", 0, 0}, {"1 array", 1, 0}, {"3 arrays", 3, 0},
                {"16 arrays", 16, 0}, {"16 scalars", 0, 16}, {"256 scalars", 0, 256}};
  std::string ptx = ".version 8.0\n.target sm_75\n.address_size 64\n";
  for (int i = 0; i < 6; ++i) ptx += entry("k" + std::to_string(i), shapes[i].arrays, shapes[i].scalars);
  CUmodule module;
  check(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");

  CUdeviceptr buf;
  check(cuMemAlloc(&buf, 4096), "cuMemAlloc");
  float one = 1.0f;
  std::printf("{");
  for (int i = 0; i < 6; ++i) {
    CUfunction f;
    check(cuModuleGetFunction(&f, module, ("k" + std::to_string(i)).c_str()), "cuModuleGetFunction");
    std::vector<void*> params;
    for (int a = 0; a < shapes[i].arrays; ++a) params.push_back(&buf);
    for (int s = 0; s < shapes[i].scalars; ++s) params.push_back(&one);
    std::printf("%s\"%s\": %.3f", i ? ", " : "", shapes[i].name, per_launch_us(f, params.empty() ? nullptr : params.data()));
  }
  std::printf("}\n");
  return 0;
}
