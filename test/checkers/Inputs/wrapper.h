// An in-house data-parallel wrapper as C++ training code writes one: a module
// that holds the inner module, broadcasts at construction and syncs gradients
// from hooks armed by its own forward. Shared by the wrapper-check tests.
#pragma once

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <memory>
#include <utility>

namespace dp {

template <typename Holder>
class DistributedDataParallel : public torch::nn::Module {
public:
  DistributedDataParallel(Holder module,
                          c10::intrusive_ptr<c10d::ProcessGroup> pg)
      : module_(register_module("module", std::move(module))),
        pg_(std::move(pg)) {}

  torch::Tensor forward(torch::Tensor x) { return module_->forward(x); }
  Holder &module() { return module_; }

private:
  Holder module_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
};

// A wrapper that re-registers its hooks when it is moved: its own `to`.
template <typename Holder> class RehookingDDP : public torch::nn::Module {
public:
  explicit RehookingDDP(Holder module) : module_(std::move(module)) {}
  torch::Tensor forward(torch::Tensor x) { return module_->forward(x); }
  void to(torch::Device device, bool non_blocking = false) override {
    module_->to(device, non_blocking);
    rehook();
  }
  void rehook() {}
  Holder module_;
};

} // namespace dp
