// ddplint mock of <torch/csrc/utils/tensor_flatten.h> (LibTorch 1.13): the
// bucketing helpers used by hand-written gradient all-reduce code.
#pragma once
#include <vector>
#include <ATen/ATen.h>

namespace torch {
namespace utils {
inline at::Tensor flatten_dense_tensors(at::TensorList tensors) { return at::Tensor(); }
inline std::vector<at::Tensor> unflatten_dense_tensors(const at::Tensor& flat, at::TensorList tensors) {
  return {};
}
} // namespace utils
} // namespace torch
