// ddplint mock of <ATen/cuda/CUDAContext.h> (LibTorch 1.13), subset.
#pragma once
#include <cstdint>
#include <c10/cuda/CUDAStream.h>

namespace at {
namespace cuda {
int64_t getNumGPUs();
bool is_available();
int64_t current_device();
} // namespace cuda
} // namespace at
