// ddplint mock of <c10/core/Stream.h> (LibTorch 1.13): a device-neutral
// stream, what stream guards take.
#pragma once
#include <c10/core/Device.h>

namespace c10 {
class C10_API Stream final {
 public:
  DeviceType device_type() const noexcept;
  DeviceIndex device_index() const noexcept;
  Device device() const noexcept;
};
} // namespace c10
