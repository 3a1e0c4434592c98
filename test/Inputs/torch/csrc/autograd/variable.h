// ddplint mock of <torch/csrc/autograd/variable.h> (LibTorch 1.13):
// torch::autograd::Variable and the impl:: accessors of a leaf's gradient
// accumulator (a Node that post-hooks can be added to).
#pragma once
#include <memory>
#include <ATen/core/Tensor.h>
#include <torch/csrc/autograd/function.h>

namespace torch {
namespace autograd {
using Variable = at::Tensor;

namespace impl {
TORCH_API std::shared_ptr<Node> try_get_grad_accumulator(const Variable&);
TORCH_API std::shared_ptr<Node> grad_accumulator(const Variable&);
TORCH_API Edge gradient_edge(const Variable&);
TORCH_API void set_gradient_edge(const Variable&, Edge edge);
} // namespace impl

inline Variable make_variable(at::Tensor data, bool requires_grad = false, bool allow_tensor_metadata_change = true) {
  return data;
}
} // namespace autograd
} // namespace torch
