// ddplint mock of <torch/nn/options/*.h> (LibTorch 1.13), subset: options of
// the mocked modules and functionals. Setters chain (TORCH_ARG).
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <c10/util/variant.h>
#include <torch/arg.h>
#include <torch/enum.h>
#include <torch/types.h>

namespace torch {

// <torch/expanding_array.h>: a D-sized array settable from one value or a list.
template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /*implicit*/ ExpandingArray(std::initializer_list<T> list);
  /*implicit*/ ExpandingArray(std::vector<T> vec);
  /*implicit*/ ExpandingArray(at::ArrayRef<T> values);
  /*implicit*/ ExpandingArray(T single_size);
  T* data() noexcept;
  size_t size() const noexcept { return D; }
  operator at::ArrayRef<T>() const;

 private:
  T values_[D];
};

namespace nn {

struct TORCH_API LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features);
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

struct TORCH_API DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5);
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, inplace) = false;
};

struct TORCH_API ReLUOptions {
  /* implicit */ ReLUOptions(bool inplace = false);
  TORCH_ARG(bool, inplace);
};

struct TORCH_API BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features);
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(c10::optional<double>, momentum) = 0.1;
  TORCH_ARG(bool, affine) = true;
  TORCH_ARG(bool, track_running_stats) = true;
};

struct TORCH_API CrossEntropyLossOptions {
  typedef c10::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum> reduction_t;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};

struct TORCH_API NLLLossOptions {
  typedef c10::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum> reduction_t;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct TORCH_API MSELossOptions {
  typedef c10::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum> reduction_t;
  MSELossOptions(reduction_t reduction = torch::kMean) : reduction_(std::move(reduction)) {}
  TORCH_ARG(reduction_t, reduction);
};

namespace functional {
using ReLUFuncOptions = ReLUOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using MSELossFuncOptions = MSELossOptions;

struct TORCH_API LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim);
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(c10::optional<torch::Dtype>, dtype) = c10::nullopt;
};
struct TORCH_API SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim);
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(c10::optional<torch::Dtype>, dtype) = c10::nullopt;
};
struct TORCH_API DropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = true;
  TORCH_ARG(bool, inplace) = false;
};
} // namespace functional

} // namespace nn
} // namespace torch
