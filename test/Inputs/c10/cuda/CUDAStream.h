// ddplint mock of <c10/cuda/CUDAStream.h> (LibTorch 1.13): what NCCL calls
// from LibTorch code pass as their stream.
#pragma once
#include <cuda_runtime.h>
#include <c10/core/Device.h>
#include <c10/core/Stream.h>

namespace c10 {
namespace cuda {
class C10_API CUDAStream {
 public:
  operator cudaStream_t() const { return stream(); }
  operator Stream() const { return unwrap(); }
  Stream unwrap() const;
  cudaStream_t stream() const;
  DeviceIndex device_index() const;
  Device device() const;
  void synchronize() const;
  bool query() const;
};
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
CUDAStream getStreamFromPool(const bool isHighPriority = false, DeviceIndex device = -1);
void setCurrentCUDAStream(CUDAStream stream);
} // namespace cuda
} // namespace c10

namespace at {
namespace cuda {
using namespace c10::cuda;
} // namespace cuda
} // namespace at
