// Device names as GPUJIT_DEVICE and select_device() spell them (runtime/device_spec.h), and the environment
// variables' order: GPUJIT_DEVICE first, then its older name GPUJIT_BACKEND.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "runtime/device_spec.h"

namespace gpujit::rt {
namespace {

void expect_spec(const char* text, const char* backend, int ordinal) {
  DeviceSpec spec = parse_device_spec(text, "GPUJIT_DEVICE");
  EXPECT_EQ(spec.backend, backend) << text;
  EXPECT_EQ(spec.ordinal, ordinal) << text;
}

TEST(DeviceSpec, AcceptsBackendNamesAndOrdinals) {
  expect_spec("cpu", "cpu", 0);
  expect_spec("cuda", "cuda", 0);
  expect_spec("gpu", "cuda", 0);
  expect_spec("cuda:3", "cuda", 3);
  expect_spec("GPU:1", "cuda", 1);
  expect_spec("  cpu:0 \n", "cpu", 0);
}

TEST(DeviceSpec, RejectsAnythingElseNamingTheOriginAndTheForms) {
  for (const char* bad : {"", "tpu", "cuda:", "cuda:-1", "cuda:x", "cuda:1:2", "c pu", "cuda:1234567"}) {
    try {
      parse_device_spec(bad, "select_device()");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "select_device() '" + std::string(bad) +
                                           "' names no device; use 'cpu', 'cuda' (or 'gpu'), or 'cuda:N' for "
                                           "GPU number N");
    }
  }
}

/// Restores an environment variable's value (or absence) when it goes out of scope.
class SavedVariable {
 public:
  explicit SavedVariable(const char* name) : name_(name) {
    const char* value = std::getenv(name);
    had_ = value != nullptr;
    if (had_) value_ = value;
  }
  ~SavedVariable() {
    if (had_) {
      setenv(name_, value_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string value_;
};

TEST(DeviceSpec, GpujitDeviceWinsOverGpujitBackend) {
  SavedVariable device("GPUJIT_DEVICE"), backend("GPUJIT_BACKEND");
  unsetenv("GPUJIT_DEVICE");
  unsetenv("GPUJIT_BACKEND");
  EXPECT_FALSE(device_from_environment().has_value());
  setenv("GPUJIT_BACKEND", "cpu", 1);
  EXPECT_EQ(device_from_environment()->backend, "cpu");
  setenv("GPUJIT_DEVICE", "cuda:2", 1);
  EXPECT_EQ(device_from_environment()->backend, "cuda");
  EXPECT_EQ(device_from_environment()->ordinal, 2);
  setenv("GPUJIT_DEVICE", "", 1);  // empty counts as unset
  EXPECT_EQ(device_from_environment()->backend, "cpu");
  setenv("GPUJIT_DEVICE", "quantum", 1);
  EXPECT_THROW(device_from_environment(), std::invalid_argument);
}

}  // namespace
}  // namespace gpujit::rt
