// ddplint mock of <torch/nn/parallel/data_parallel.h> (LibTorch 1.13):
// single-process, multi-GPU data parallelism. There is no
// DistributedDataParallel in the C++ frontend.
#pragma once
#include <memory>
#include <vector>
#include <torch/cuda.h>
#include <torch/nn/module.h>
#include <torch/types.h>

namespace torch {
namespace nn {
namespace parallel {

template <typename ModuleType>
std::vector<std::shared_ptr<ModuleType>> replicate(const std::shared_ptr<ModuleType>& module,
                                                   const std::vector<Device>& devices) {
  return {};
}
template <typename ModuleType>
std::vector<std::shared_ptr<ModuleType>> replicate(const ModuleHolder<ModuleType>& module,
                                                   const std::vector<Device>& devices) {
  return {};
}

template <typename ModuleType>
Tensor data_parallel(ModuleType module, Tensor input, optional<std::vector<Device>> devices = nullopt,
                     optional<Device> output_device = nullopt, int64_t dim = 0) {
  return Tensor();
}

} // namespace parallel
} // namespace nn
} // namespace torch
