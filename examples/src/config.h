#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

// Run configuration comes from the environment so that the same binary can be
// started by torchrun-style launchers, SLURM scripts and plain shells alike.
namespace config {

inline std::string env_string(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? std::string(value) : fallback;
}

inline int64_t env_int(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? std::stoll(value) : fallback;
}

inline double env_double(const char* name, double fallback) {
  const char* value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? std::stod(value) : fallback;
}

inline bool env_flag(const char* name, bool fallback) {
  const std::string value = env_string(name, fallback ? "1" : "0");
  return value == "1" || value == "true" || value == "yes" || value == "on";
}

} // namespace config
