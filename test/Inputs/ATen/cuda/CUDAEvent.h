// ddplint mock of <ATen/cuda/CUDAEvent.h> (LibTorch 1.13): a CUDA event
// recorded on one stream and waited for by another (block) or the host.
#pragma once
#include <cuda_runtime.h>
#include <c10/cuda/CUDAStream.h>

namespace at {
namespace cuda {
struct CUDAEvent {
  CUDAEvent() {}
  CUDAEvent(unsigned int flags) : flags_{flags} {}
  ~CUDAEvent() {}
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  CUDAEvent(CUDAEvent&& other) {}
  CUDAEvent& operator=(CUDAEvent&& other) { return *this; }
  operator cudaEvent_t() const { return event(); }
  bool isCreated() const;
  DeviceIndex device_index() const;
  cudaEvent_t event() const;
  bool query() const;
  void record();
  void recordOnce(const CUDAStream& stream);
  void record(const CUDAStream& stream);
  void block(const CUDAStream& stream);
  float elapsed_time(const CUDAEvent& other) const;
  void synchronize() const;

 private:
  unsigned int flags_ = 0;
};
} // namespace cuda
} // namespace at
