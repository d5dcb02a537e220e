// Devices named by text: how GPUJIT_DEVICE and `gpujit.select_device("cpu")` spell a backend and a device.
//
// Accepted forms, case-insensitive, surrounding blanks ignored: "cpu" (the CPU backend), "cuda" or "gpu"
// (the CUDA backend), each optionally followed by ":N" for device N of that backend ("cuda:1"; the CPU
// backend has only device 0). The environment variable GPUJIT_DEVICE names the device a process starts on;
// GPUJIT_BACKEND, its older name, is read when GPUJIT_DEVICE is not set. Parsing only checks the spelling:
// whether the backend can run here and has that device is found out when it is selected (runtime.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpujit::rt {

/// A backend name as the Runtime registers it ("cpu", "cuda") and a device ordinal of it.
struct DeviceSpec {
  std::string backend;
  int ordinal = 0;
};

/// Parses `text`; throws std::invalid_argument naming `origin` ("GPUJIT_DEVICE", "select_device()"), the text
/// and the accepted forms when it is none of them.
DeviceSpec parse_device_spec(std::string_view text, std::string_view origin);

/// The device GPUJIT_DEVICE (else GPUJIT_BACKEND) asks for; nullopt when neither is set or both are empty.
/// Throws std::invalid_argument for a value that names no device.
std::optional<DeviceSpec> device_from_environment();

}  // namespace gpujit::rt
