// ddplint mock of <c10/cuda/CUDAGuard.h> (LibTorch 1.13): scopes in which
// a device or a stream is current.
#pragma once
#include <c10/core/Device.h>
#include <c10/core/Stream.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>

namespace c10 {
namespace cuda {
struct CUDAGuard {
  explicit CUDAGuard() = delete;
  explicit CUDAGuard(DeviceIndex device_index);
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  void set_device(Device device);
  Device original_device() const;
  Device current_device() const;
};

struct CUDAStreamGuard {
  explicit CUDAStreamGuard() = delete;
  explicit CUDAStreamGuard(Stream stream);
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  void reset_stream(Stream stream);
  CUDAStream original_stream() const;
  CUDAStream current_stream() const;
};

struct OptionalCUDAStreamGuard {
  explicit OptionalCUDAStreamGuard();
  explicit OptionalCUDAStreamGuard(Stream stream);
  explicit OptionalCUDAStreamGuard(optional<Stream> stream_opt);
  void reset_stream(Stream stream);
  void reset();
};

struct CUDAMultiStreamGuard {
  explicit CUDAMultiStreamGuard(ArrayRef<CUDAStream> streams);
  CUDAMultiStreamGuard(const CUDAMultiStreamGuard&) = delete;
  CUDAMultiStreamGuard& operator=(const CUDAMultiStreamGuard&) = delete;
};
} // namespace cuda
} // namespace c10

namespace at {
namespace cuda {
using namespace c10::cuda;
} // namespace cuda
} // namespace at
