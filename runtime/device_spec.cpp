// Parsing device names (see device_spec.h).
#include "runtime/device_spec.h"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

namespace gpujit::rt {

DeviceSpec parse_device_spec(std::string_view text, std::string_view origin) {
  auto fail = [&]() -> DeviceSpec {
    throw std::invalid_argument(fmt::format(
        "{} '{}' names no device; use 'cpu', 'cuda' (or 'gpu'), or 'cuda:N' for GPU number N", origin, text));
  };
  std::string_view trimmed = text;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front())))
    trimmed.remove_prefix(1);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back())))
    trimmed.remove_suffix(1);
  std::string s;
  for (char c : trimmed) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string name = s;
  int ordinal = 0;
  if (size_t colon = s.find(':'); colon != std::string::npos) {
    name = s.substr(0, colon);
    std::string digits = s.substr(colon + 1);
    if (digits.empty() || digits.size() > 6) return fail();
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return fail();
    }
    ordinal = std::stoi(digits);
  }
  if (name == "gpu") name = "cuda";
  if (name != "cpu" && name != "cuda") return fail();
  return DeviceSpec{name, ordinal};
}

std::optional<DeviceSpec> device_from_environment() {
  for (const char* variable : {"GPUJIT_DEVICE", "GPUJIT_BACKEND"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') return parse_device_spec(value, variable);
  }
  return std::nullopt;
}

}  // namespace gpujit::rt
