// ddplint mock of <torch/csrc/distributed/c10d/comm.hpp> (LibTorch 1.13):
// broadcast_coalesced, what DDP uses to broadcast rank 0's parameters.
#pragma once
#include <cstddef>
#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace c10d {
TORCH_API void broadcast_coalesced(DDPLINT_MOCK_C10D_PTR(c10d::ProcessGroup) process_group,
                                   at::TensorList tensors, size_t buffer_size, int rank = 0);
} // namespace c10d
