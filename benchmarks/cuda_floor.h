// What the C++ launch benchmarks (launch_floor.cpp, launch_param_forms.cpp) share: the driver's errors end
// the program, and the primary context of device 0, the one gpujit launches in, made current.
#pragma once

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

namespace floor_bench {

inline void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* name = "?";
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "%s failed: %s\n", what, name);
    std::exit(1);
  }
}

inline CUcontext primary_context() {
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return ctx;
}

}  // namespace floor_bench
