// The CUDA backend against the fake driver (tests/unit/runtime/fake_driver): device properties, memory,
// module loading, launches, two devices and how driver errors read.
#include "runtime/cuda_device.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "runtime/cuda_driver.h"
#include "runtime/device_array.h"
#include "runtime/graph.h"
#include "runtime/kernel_args.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

extern "C" {
using FakeCalls = long (*)(const char*);
using FakeFail = void (*)(const char*, int, int);
using FakeLastLaunch = int (*)(char*, int, unsigned*, unsigned*, unsigned*, void**);
using FakeLastParam = int (*)(int, void*, int);
using FakeLastBuffered = int (*)();
using FakeCount = long (*)();
using FakeLive = long (*)(const char*);
}

#include <dlfcn.h>

namespace gpujit::rt {
namespace {

// The driver is a process-wide singleton: point it at the fake, with two devices, before any test touches it.
const bool kFakeDriverSet = [] {
  setenv("GPUJIT_CUDA_DRIVER", GPUJIT_FAKE_CUDA, 1);
  setenv("FAKECUDA_DEVICES", "2", 1);
  return true;
}();

template <typename F>
F fake(const char* name) {
  void* h = dlopen(GPUJIT_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
  if (!h) h = dlopen(GPUJIT_FAKE_CUDA, RTLD_NOW);
  return reinterpret_cast<F>(dlsym(h, name));
}

long calls(const char* fn) { return fake<FakeCalls>("fakecuda_calls")(fn); }

// A driver that cannot be loaded is reported, and the half-made driver object is freed: it leaked before,
// which LeakSanitizer reported at exit once a Python test ran without a driver (scripts/sanitize). The
// driver is a process-wide singleton, so the check runs in a fresh process of its own ("threadsafe" death
// tests re-run this binary); under LeakSanitizer a leak makes that process exit with 1 instead of 0.
TEST(CudaDriverLoad, AMissingDriverIsReportedAndFreed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("GPUJIT_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
        bool loaded = cuda::CudaDriver::available();
        bool reported = cuda::CudaDriver::load_error().find("could not load /nonexistent/libcuda.so.1") !=
                        std::string::npos;
        std::exit(!loaded && reported ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

constexpr const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 a_shape0, .param .u64 a_stride0, .param .f64 x, .param .u8 flag)
{
  ret;
}
)";

CompileResult compiled(const char* ptx, const char* entry) {
  CompileResult r;
  r.ok = true;
  r.ptx = ptx;
  r.entry_name = entry;
  return r;
}

TEST(CudaDevice, ReadsPropertiesFromTheDriver) {
  ASSERT_TRUE(kFakeDriverSet);
  Device& d = Runtime::get().select_device(0);
  EXPECT_EQ(d.backend(), BackendKind::Cuda);
  EXPECT_EQ(d.properties().name, "Fake CUDA Device 0");
  EXPECT_EQ(d.properties().cc_major, 9);
  EXPECT_EQ(d.properties().multiprocessors, 132);
  EXPECT_EQ(d.properties().max_block_dim[2], 64);
  EXPECT_EQ(&Runtime::get().current_device(), &d);
  CompileOptions options;
  d.configure_compile(options);
  EXPECT_EQ(options.arch, "sm_90");
}

TEST(CudaDevice, ArchitectureIsCappedAtWhatLlvmKnows) {
  EXPECT_EQ(cuda::arch_for_compute_capability(7, 5), "sm_75");
  EXPECT_EQ(cuda::arch_for_compute_capability(8, 6), "sm_86");
  EXPECT_EQ(cuda::arch_for_compute_capability(9, 0), "sm_90");
  EXPECT_EQ(cuda::arch_for_compute_capability(10, 0), "sm_100");
  EXPECT_EQ(cuda::arch_for_compute_capability(12, 0), "sm_120");
  EXPECT_EQ(cuda::arch_for_compute_capability(13, 5), "sm_121");
  EXPECT_EQ(cuda::arch_for_compute_capability(8, 4), "sm_80");
}

TEST(CudaDevice, NoSuchDeviceNamesTheCount) {
  try {
    Runtime::get().select_device(3);
    FAIL() << "expected an error";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "no device 3: the cuda backend has 2 devices");
  }
}

TEST(CudaDevice, CopiesRoundTrip) {
  Device& d = Runtime::get().current_device();
  DeviceBuffer buf(d, 64, nullptr);
  int32_t in[16], out[16] = {};
  for (int i = 0; i < 16; ++i) in[i] = i * i;
  d.copy_to_device(buf.ptr(), in, sizeof(in), nullptr);
  d.copy_to_host(out, buf.ptr(), sizeof(out), nullptr);
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
  d.fill_bytes(buf.ptr(), 0, sizeof(in), nullptr);
  d.copy_to_host(out, buf.ptr(), sizeof(out), nullptr);
  EXPECT_EQ(out[5], 0);
}

TEST(CudaDevice, DriverErrorsNameTheFunctionAndTheCudaError) {
  Device& d = Runtime::get().current_device();
  fake<FakeFail>("fakecuda_fail")("cuMemFree_v2", 1, 0);
  DevicePtr p = d.allocate(256);
  try {
    d.deallocate(p);
    FAIL() << "expected an error";
  } catch (const DriverError& e) {
    EXPECT_STREQ(e.what(), "cuMemFree failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
    EXPECT_EQ(e.code(), 1);
    EXPECT_EQ(e.error_name(), "CUDA_ERROR_INVALID_VALUE");
  }
  d.deallocate(p);
}

TEST(CudaDevice, ArraysAllocatedInALoopReachTheDriverOnce) {
  Device& d = Runtime::get().current_device();
  long before = calls("cuMemAlloc_v2");
  for (int i = 0; i < 50; ++i) DeviceBuffer buf(d, 12345, nullptr);
  EXPECT_EQ(calls("cuMemAlloc_v2") - before, 1);
}

TEST(CudaDevice, StreamsAreDestroyedWithTheirObject) {
  Device& d = Runtime::get().current_device();
  long created = calls("cuStreamCreate"), destroyed = calls("cuStreamDestroy_v2");
  {
    auto s = Stream::create(d);
    DeviceBuffer buf(d, 1000, s);
    s->synchronize();
    EXPECT_TRUE(s->query());
  }
  EXPECT_EQ(calls("cuStreamCreate") - created, 1);
  EXPECT_EQ(calls("cuStreamDestroy_v2") - destroyed, 1);
  auto borrowed = Stream::borrow(d, nullptr);
  borrowed.reset();
  EXPECT_EQ(calls("cuStreamDestroy_v2") - destroyed, 1);
}

TEST(CudaDevice, EventsMeasureElapsedTime) {
  Device& d = Runtime::get().current_device();
  Event a(d, true), b(d, true);
  a.record(nullptr);
  b.record(nullptr);
  b.synchronize();
  EXPECT_TRUE(b.query());
  EXPECT_GE(Event::elapsed_ms(a, b), 0.0f);
}

TEST(CudaDevice, LoadsPtxAndLaunchesWithPackedParameters) {
  Device& d = Runtime::get().current_device();
  auto kernel = d.load_kernel(compiled(kPtx, "k"), "k");
  EXPECT_EQ(kernel->name, "k");
  EXPECT_EQ(kernel->max_threads_per_block, 1024);

  ParamBuffer params;
  params.begin(5);
  params.push_u64(0x1000);
  params.push_u64(10);
  params.push_u64(4);
  double x = 2.5;
  params.push_bytes(&x, 8);
  bool flag = true;
  params.push_bytes(&flag, 1);
  LaunchConfig config;
  config.grid = {3, 2, 1};
  config.block = {128, 1, 1};
  validate_launch(config, d.properties(), *kernel);
  d.launch(*kernel, config, params.pointers(), &params);

  char name[32];
  unsigned grid[3], block[3], shared;
  void* stream;
  ASSERT_EQ(fake<FakeLastLaunch>("fakecuda_last_launch")(name, 32, grid, block, &shared, &stream), 5);
  EXPECT_STREQ(name, "k");
  EXPECT_EQ(grid[0], 3u);
  EXPECT_EQ(grid[1], 2u);
  EXPECT_EQ(block[0], 128u);
  uint64_t u = 0;
  auto param = fake<FakeLastParam>("fakecuda_last_param");
  EXPECT_EQ(param(1, &u, 8), 8);
  EXPECT_EQ(u, 10u);
  double got = 0;
  EXPECT_EQ(param(3, &got, 8), 8);
  EXPECT_EQ(got, 2.5);
  unsigned char b = 0;
  EXPECT_EQ(param(4, &b, 1), 1);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(fake<FakeLastBuffered>("fakecuda_last_launch_buffered")(), 0);
}

TEST(CudaDevice, EightByteParametersGoToTheDriverAsOneBuffer) {
  // A 1-d float64 array, a float64 and an int64: five 8-byte parameters, which the ParamBuffer lays out as
  // the kernel does; the driver copies them at once (cuLaunchKernel's `extra`).
  Device& d = Runtime::get().current_device();
  CompileResult r = compiled(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k8(.param .u64 a, .param .u64 a_shape0, .param .u64 a_stride0, .param .f64 x, .param .u64 n)
{
  ret;
}
)", "k8");
  r.params = {{Type::array_of(ScalarKind::Float64, 1, Layout::C), 0, 3},
              {Type::scalar_of(ScalarKind::Float64), 3, 1},
              {Type::scalar_of(ScalarKind::Int64), 4, 1}};
  auto kernel = d.load_kernel(r, "k8");
  ParamBuffer params;
  params.begin(5);
  params.push_u64(0x2000);
  params.push_u64(7);
  params.push_u64(8);
  double x = -1.5;
  params.push_bytes(&x, 8);
  params.push_u64(uint64_t(-3));
  LaunchConfig config;
  validate_launch(config, d.properties(), *kernel);
  auto buffered = fake<FakeLastBuffered>("fakecuda_last_launch_buffered");
  auto param = fake<FakeLastParam>("fakecuda_last_param");
  d.launch(*kernel, config, params.pointers(), &params);
  EXPECT_EQ(buffered(), 1);
  uint64_t u = 0;
  EXPECT_EQ(param(0, &u, 8), 8);
  EXPECT_EQ(u, 0x2000u);
  EXPECT_EQ(param(2, &u, 8), 8);
  EXPECT_EQ(u, 8u);
  double got = 0;
  EXPECT_EQ(param(3, &got, 8), 8);
  EXPECT_EQ(got, -1.5);
  EXPECT_EQ(param(4, &u, 8), 8);
  EXPECT_EQ(int64_t(u), -3);
  // Without the buffer (a caller's own array of pointers), kernelParams as before.
  d.launch(*kernel, config, params.pointers(), nullptr);
  EXPECT_EQ(buffered(), 0);
  EXPECT_EQ(param(3, &got, 8), 8);
  EXPECT_EQ(got, -1.5);
}

TEST(CudaDevice, NarrowParametersAreAlignedInTheBuffer) {
  // An index32 1-d array (8, 4, 4 bytes), a bool (1) and a float64, which starts at 24, not 17.
  Device& d = Runtime::get().current_device();
  CompileResult r = compiled(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry kn(.param .u64 a, .param .u32 a_shape0, .param .u32 a_stride0, .param .u8 flag, .param .f64 x)
{
  ret;
}
)", "kn");
  r.params = {{Type::array_of(ScalarKind::Float32, 1, Layout::C, /*index32=*/true), 0, 3},
              {Type::scalar_of(ScalarKind::Bool), 3, 1},
              {Type::scalar_of(ScalarKind::Float64), 4, 1}};
  auto kernel = d.load_kernel(r, "kn");
  ParamBuffer params;
  params.begin(5);
  params.push_u64(0x3000);
  params.push_u32(12);
  params.push_u32(uint32_t(-4));
  bool flag = true;
  params.push_bytes(&flag, 1);
  double x = 6.25;
  params.push_bytes(&x, 8);
  EXPECT_EQ(params.size_bytes(), 32u);
  EXPECT_EQ(static_cast<unsigned char*>(params.pointers()[4]) - static_cast<const unsigned char*>(params.data()), 24);
  LaunchConfig config;
  validate_launch(config, d.properties(), *kernel);
  d.launch(*kernel, config, params.pointers(), &params);
  EXPECT_EQ(fake<FakeLastBuffered>("fakecuda_last_launch_buffered")(), 1);
  auto param = fake<FakeLastParam>("fakecuda_last_param");
  int32_t i = 0;
  EXPECT_EQ(param(1, &i, 4), 4);
  EXPECT_EQ(i, 12);
  EXPECT_EQ(param(2, &i, 4), 4);
  EXPECT_EQ(i, -4);
  unsigned char b = 0;
  EXPECT_EQ(param(3, &b, 1), 1);
  EXPECT_EQ(b, 1);
  double got = 0;
  EXPECT_EQ(param(4, &got, 8), 8);
  EXPECT_EQ(got, 6.25);
}

// A graph: the launches of the capture reach the driver's capture, not its queue; each replay launches them
// with the parameters as they were at capture; the capture's own stream and the graph are freed.
TEST(CudaDevice, GraphReplaysTheLaunchesOfItsCaptureWithTheirParameters) {
  Device& d = Runtime::get().current_device();
  auto kernel = d.load_kernel(compiled(kPtx, "k"), "k");
  auto launches = fake<FakeCount>("fakecuda_launch_count");
  auto live = fake<FakeLive>("fakecuda_live");
  long streams = live("streams"), before = launches();
  ParamBuffer params;
  params.begin(5);
  for (uint64_t v : {uint64_t(0x1000), uint64_t(10), uint64_t(4)}) params.push_u64(v);
  double x = 2.5;
  params.push_bytes(&x, 8);
  params.push_u64(1);
  LaunchConfig config;
  config.grid = {2, 1, 1};
  config.block = {64, 1, 1};

  std::unique_ptr<Capture> capture = d.begin_capture(nullptr);
  EXPECT_EQ(active_capture(), capture.get());
  EXPECT_EQ(live("streams"), streams + 1);
  d.launch(*kernel, config, params.pointers(), &params);
  d.launch(*kernel, config, params.pointers(), &params);
  EXPECT_THROW(d.synchronize(), CaptureError);
  EXPECT_THROW(d.begin_capture(nullptr), CaptureError);
  std::unique_ptr<Graph> graph = d.end_capture(*capture);
  EXPECT_EQ(active_capture(), nullptr);
  EXPECT_EQ(launches(), before);
  EXPECT_EQ(graph->kernel_count(), 2u);
  EXPECT_EQ(graph->node_count(), 2u);
  EXPECT_EQ(live("streams"), streams);
  EXPECT_EQ(live("graphs"), 0);
  EXPECT_EQ(live("graph_execs"), 1);

  x = 7.0;  // the capture read the parameters already
  params.begin(5);
  graph->launch(nullptr);
  graph->launch(nullptr);
  EXPECT_EQ(launches(), before + 4);
  double got = 0;
  EXPECT_EQ(fake<FakeLastParam>("fakecuda_last_param")(3, &got, 8), 8);
  EXPECT_EQ(got, 2.5);
  graph.reset();
  EXPECT_EQ(live("graph_execs"), 0);
  d.synchronize();
}

TEST(CudaDevice, AnAbortedCaptureLeavesNothing) {
  Device& d = Runtime::get().current_device();
  auto live = fake<FakeLive>("fakecuda_live");
  long streams = live("streams");
  std::unique_ptr<Capture> capture = d.begin_capture(nullptr);
  d.fill_bytes(0x1000, 0, 16, nullptr);  // captured, not done: the address is never written
  d.abort_capture(*capture);
  EXPECT_EQ(active_capture(), nullptr);
  EXPECT_EQ(live("streams"), streams);
  EXPECT_EQ(live("captures"), 0);
  EXPECT_EQ(live("graphs"), 0);
}

TEST(CudaDevice, ARejectedModuleShowsTheJitLog) {
  Device& d = Runtime::get().current_device();
  try {
    d.load_kernel(compiled("// FAKECUDA_REJECT", "k"), "bad_kernel");
    FAIL() << "expected an error";
  } catch (const DriverError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX"), std::string::npos) << what;
    EXPECT_NE(what.find("loading kernel 'bad_kernel'"), std::string::npos) << what;
    EXPECT_NE(what.find("fake driver rejected the PTX"), std::string::npos) << what;
  }
}

TEST(CudaDevice, BadLaunchConfigurationsAreRefusedBeforeTheDriver) {
  Device& d = Runtime::get().current_device();
  auto kernel = d.load_kernel(compiled(kPtx, "k"), "k");
  long launches = calls("cuLaunchKernel");
  LaunchConfig config;
  config.block = {1024, 2, 1};
  try {
    validate_launch(config, d.properties(), *kernel);
    FAIL() << "expected an error";
  } catch (const LaunchError& e) {
    EXPECT_STREQ(e.what(), "kernel 'k': a block of 2048 threads is more than Fake CUDA Device 0's limit of 1024");
  }
  config.block = {1, 1, 65};
  EXPECT_THROW(validate_launch(config, d.properties(), *kernel), LaunchError);
  config.block = {32, 1, 1};
  config.grid = {1, 70000, 1};
  try {
    validate_launch(config, d.properties(), *kernel);
    FAIL() << "expected an error";
  } catch (const LaunchError& e) {
    EXPECT_STREQ(e.what(), "kernel 'k': grid dimension y is 70000, more than Fake CUDA Device 0's limit of 65535");
  }
  config.grid = {1, 1, 1};
  config.shared_bytes = 300 * 1024;
  EXPECT_THROW(validate_launch(config, d.properties(), *kernel), LaunchError);
  kernel->max_threads_per_block = 256;
  config.shared_bytes = 0;
  config.block = {512, 1, 1};
  try {
    validate_launch(config, d.properties(), *kernel);
    FAIL() << "expected an error";
  } catch (const DriverError& e) {  // the driver's own error for a block over the kernel's limit
    EXPECT_EQ(e.error_name(), "CUDA_ERROR_INVALID_VALUE");
    EXPECT_STREQ(e.what(), "kernel launch failed: CUDA_ERROR_INVALID_VALUE (kernel 'k': a block of 512 threads is "
                           "more than this kernel's limit of 256 (set by its launch_bounds or its register use))");
  }
  EXPECT_EQ(calls("cuLaunchKernel"), launches);
}

TEST(CudaDevice, LargeDynamicSharedMemoryIsOptedInOnce) {
  Device& d = Runtime::get().current_device();
  auto kernel = d.load_kernel(compiled(kPtx, "k"), "k");
  long sets = calls("cuFuncSetAttribute");
  LaunchConfig config;
  config.shared_bytes = 100 * 1024;
  ParamBuffer params;
  params.begin(5);
  for (int i = 0; i < 5; ++i) params.push_u64(0);
  validate_launch(config, d.properties(), *kernel);
  d.launch(*kernel, config, params.pointers(), &params);
  d.launch(*kernel, config, params.pointers(), &params);
  EXPECT_EQ(calls("cuFuncSetAttribute") - sets, 1);
}

TEST(LaunchDims, ZeroAndOversizedDimensionsAreNamed) {
  try {
    validate_dims({0, 1, 1}, "grid");
    FAIL() << "expected an error";
  } catch (const LaunchError& e) {
    EXPECT_STREQ(e.what(), "grid dimension x is 0; every dimension must be at least 1");
  }
  try {
    validate_dims({64, 32, 1}, "block");
    FAIL() << "expected an error";
  } catch (const LaunchError& e) {
    EXPECT_STREQ(e.what(), "a block of 64x32x1 = 2048 threads is more than the limit of 1024");
  }
  EXPECT_NO_THROW(validate_dims({2147483647u, 65535, 65535}, "grid"));
  EXPECT_THROW(validate_dims({1, 65536, 1}, "grid"), LaunchError);
}

}  // namespace
}  // namespace gpujit::rt

namespace gpujit::rt {
namespace {

TEST(Runtime, SwitchingBackendsKeepsEachBackendsDevices) {
  Runtime& rt = Runtime::get();
  rt.set_backend("cuda");
  Device& gpu = rt.current_device();
  EXPECT_EQ(gpu.backend(), BackendKind::Cuda);
  DeviceBuffer on_gpu(gpu, 256, nullptr);
  rt.set_backend("cpu");
  Device& cpu = rt.current_device();
  EXPECT_EQ(cpu.backend(), BackendKind::Host);
  EXPECT_EQ(rt.backend_name(), "cpu");
  rt.set_backend("cuda");
  EXPECT_EQ(&rt.current_device(), &gpu);  // the same device object: arrays made on it stay valid
  EXPECT_THROW(rt.set_backend("tpu"), std::invalid_argument);
  EXPECT_EQ(rt.backend_name(), "cuda");
}

TEST(CudaDevice, EachDeviceLaunchesInItsOwnContextAndCopiesGoPeerToPeer) {
  Device& d0 = Runtime::get().select_device(0);
  Device& d1 = Runtime::get().backend().device(1);
  ASSERT_NE(&d0, &d1);
  EXPECT_EQ(d1.properties().name, "Fake CUDA Device 1");
  EXPECT_TRUE(d0.can_access_peer(d1));
  std::shared_ptr<LoadedKernel> k0 = d0.load_kernel(compiled(kPtx, "k"), "k");
  DeviceBuffer on_1(d1, 64, nullptr), on_0(d0, 64, nullptr);
  int32_t in[16], out[16] = {};
  for (int i = 0; i < 16; ++i) in[i] = 3 * i + 1;
  d1.copy_to_device(on_1.ptr(), in, sizeof(in), nullptr);  // device 1's context is now the thread's
  long peer = calls("cuMemcpyPeer");
  d0.copy_from_device(on_0.ptr(), d1, on_1.ptr(), sizeof(in), nullptr);
  EXPECT_EQ(calls("cuMemcpyPeer") - peer, 1);
  d0.copy_to_host(out, on_0.ptr(), sizeof(out), nullptr);
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);

  uint64_t a = on_0.ptr(), shape = 16, stride = 4;
  double x = 1.0;
  uint8_t flag = 0;
  void* params[] = {&a, &shape, &stride, &x, &flag};
  LaunchConfig config;
  d1.fill_bytes(on_1.ptr(), 0, sizeof(in), nullptr);  // device 1's context again
  EXPECT_NO_THROW(d0.launch(*k0, config, params, nullptr));    // the launch binds device 0's
  // A kernel loaded on device 0 is not device 1's: the driver refuses it there.
  EXPECT_THROW(d1.launch(*k0, config, params, nullptr), DriverError);
  // make_current switches the calling thread's device, whatever it was.
  EXPECT_EQ(&Runtime::get().make_current(d1), &d1);
  EXPECT_EQ(&Runtime::get().current_device(), &d1);
  Runtime::get().make_current(d0);
}

}  // namespace
}  // namespace gpujit::rt
