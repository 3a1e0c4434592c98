// ddplint mock of <c10/core/DeviceType.h> + <c10/core/Device.h> (LibTorch
// 1.13). torch::DeviceType is a using-declaration, as in the real header.
#pragma once
#include <cstdint>
#include <string>
#include <c10/macros/Macros.h>

namespace c10 {

// Subset of the 1.13 enumerators, with their real values.
enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
  MKLDNN = 2,
  HIP = 6,
  XLA = 9,
  Vulkan = 10,
  Metal = 11,
  XPU = 12,
  MPS = 13,
  Meta = 14,
  HPU = 15,
  VE = 16,
  Lazy = 17,
  IPU = 18,
  PrivateUse1 = 19,
  COMPILE_TIME_MAX_DEVICE_TYPES = 20,
};

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kHIP = DeviceType::HIP;
constexpr DeviceType kXLA = DeviceType::XLA;
constexpr DeviceType kMPS = DeviceType::MPS;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kXPU = DeviceType::XPU;

std::string DeviceTypeName(DeviceType d, bool lower_case = false);

using DeviceIndex = int8_t;

struct C10_API Device final {
  /* implicit */ Device(DeviceType type, DeviceIndex index = -1)
      : type_(type), index_(index) {}
  /* implicit */ Device(const std::string& device_string);

  bool operator==(const Device& other) const noexcept {
    return type_ == other.type_ && index_ == other.index_;
  }
  bool operator!=(const Device& other) const noexcept { return !(*this == other); }
  void set_index(DeviceIndex index) { index_ = index; }
  DeviceType type() const noexcept { return type_; }
  DeviceIndex index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ != -1; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_mps() const noexcept { return type_ == DeviceType::MPS; }
  bool is_meta() const noexcept { return type_ == DeviceType::Meta; }
  std::string str() const;

 private:
  DeviceType type_;
  DeviceIndex index_ = -1;
};

} // namespace c10

namespace torch {
using c10::DeviceType;
}
