// ddplint mock of <torch/nn/functional.h> (LibTorch 1.13), subset. Public
// functions take an options struct (implicitly constructible where the
// real one is), as in the real headers.
#pragma once
#include <torch/nn/options.h>
#include <torch/types.h>

namespace torch {
namespace nn {
namespace functional {

inline Tensor relu(Tensor input, const ReLUFuncOptions& options = {}) { return Tensor(); }
inline Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) { return Tensor(); }
inline Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) { return Tensor(); }
inline Tensor dropout(Tensor input, const DropoutFuncOptions& options = {}) { return Tensor(); }
inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) { return Tensor(); }
inline Tensor cross_entropy(const Tensor& input, const Tensor& target,
                            const CrossEntropyFuncOptions& options = {}) {
  return Tensor();
}
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {}) {
  return Tensor();
}
inline Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {}) {
  return Tensor();
}

} // namespace functional
} // namespace nn
} // namespace torch
