// ddplint mock of <torch/csrc/autograd/autograd.h> (LibTorch 1.13).
#pragma once
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>

namespace torch {
namespace autograd {
TORCH_API void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
                        c10::optional<bool> retain_graph = c10::nullopt, bool create_graph = false,
                        const variable_list& inputs = {});
TORCH_API variable_list grad(const variable_list& outputs, const variable_list& inputs,
                             const variable_list& grad_outputs = {},
                             c10::optional<bool> retain_graph = c10::nullopt, bool create_graph = false,
                             bool allow_unused = false);
} // namespace autograd
} // namespace torch
