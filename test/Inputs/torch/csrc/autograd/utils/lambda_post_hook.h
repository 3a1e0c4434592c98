// ddplint mock of <torch/csrc/autograd/utils/lambda_post_hook.h> (LibTorch
// 1.13): the post-hook class c10d's reducer adds to gradient accumulators.
#pragma once
#include <functional>
#include <utility>
#include <vector>
#include <torch/csrc/autograd/function_hook.h>

namespace torch {
namespace autograd {
namespace utils {
class LambdaPostHook : public torch::autograd::FunctionPostHook {
  using variable_list = std::vector<torch::autograd::Variable>;

 public:
  /* implicit */ LambdaPostHook(std::function<variable_list(const variable_list&, const variable_list&)> fn)
      : fn_(std::move(fn)) {}
  variable_list operator()(const variable_list& outputs, const variable_list& inputs) override {
    return fn_(outputs, inputs);
  }

 protected:
  std::function<variable_list(const variable_list&, const variable_list&)> fn_;
};
} // namespace utils
} // namespace autograd
} // namespace torch
