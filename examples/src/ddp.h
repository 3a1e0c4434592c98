#pragma once

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace ddp {

// Data-parallel wrapper for LibTorch modules, modelled on
// torch.nn.parallel.DistributedDataParallel.
//
// * On construction rank 0's parameters and buffers are broadcast so that all
//   replicas start from the same state.
// * A post-hook on every parameter's gradient accumulator counts the
//   gradients produced by backward(). Once every parameter has its gradient,
//   all gradients are flattened into one bucket and an asynchronous
//   all-reduce is launched, overlapping communication with the rest of the
//   backward pass.
// * synchronize_gradients() waits for that all-reduce and writes the averaged
//   gradients back. Call it between backward() and optimizer.step().
//
// As in PyTorch, only a forward() through the wrapper arms the reducer for the
// next backward pass; evaluation can therefore run on module() without
// triggering communication.
template <typename ModuleHolder>
class DistributedDataParallel : public torch::nn::Module {
 public:
  DistributedDataParallel(
      ModuleHolder module,
      c10::intrusive_ptr<c10d::ProcessGroup> process_group)
      : module_(std::move(module)), process_group_(std::move(process_group)) {
    register_module("module", module_);
    broadcast_state();
    install_hooks();
  }

  ~DistributedDataParallel() override {
    for (size_t i = 0; i < accumulators_.size(); ++i) {
      accumulators_[i]->del_post_hook(hook_keys_[i]);
    }
  }

  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  torch::Tensor forward(torch::Tensor input) {
    prepare_for_backward();
    return module_->forward(std::move(input));
  }

  ModuleHolder& module() {
    return module_;
  }

  c10d::ProcessGroup& process_group() {
    return *process_group_;
  }

  void synchronize_gradients() {
    std::lock_guard<std::mutex> lock(mutex_);
    expect_gradients_ = false;
    ready_ = 0;
    if (!pending_) {
      return;
    }
    pending_->wait();
    pending_.reset();

    torch::NoGradGuard no_grad;
    bucket_.div_(process_group_->getSize());
    int64_t offset = 0;
    for (auto& parameter : parameters_) {
      auto grad = parameter.mutable_grad();
      const int64_t numel = grad.numel();
      grad.copy_(bucket_.slice(0, offset, offset + numel).view_as(grad));
      offset += numel;
    }
  }

 private:
  struct GradientReadyHook : torch::autograd::FunctionPostHook {
    explicit GradientReadyHook(DistributedDataParallel* owner) : owner(owner) {}

    torch::autograd::variable_list operator()(
        const torch::autograd::variable_list& outputs,
        const torch::autograd::variable_list& /*inputs*/) override {
      owner->mark_gradient_ready();
      return outputs;
    }

    DistributedDataParallel* owner;
  };

  void broadcast_state() {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> state = module_->parameters();
    for (auto& buffer : module_->buffers()) {
      state.push_back(buffer);
    }
    if (state.empty()) {
      return;
    }
    std::vector<torch::Tensor> flat_views;
    flat_views.reserve(state.size());
    for (const auto& tensor : state) {
      flat_views.push_back(tensor.reshape({-1}));
    }
    std::vector<at::Tensor> payload{torch::cat(flat_views)};
    c10d::BroadcastOptions options;
    options.rootRank = 0;
    process_group_->broadcast(payload, options)->wait();

    int64_t offset = 0;
    for (auto& tensor : state) {
      const int64_t numel = tensor.numel();
      tensor.copy_(payload.front().slice(0, offset, offset + numel).view_as(tensor));
      offset += numel;
    }
  }

  void install_hooks() {
    for (auto& parameter : module_->parameters()) {
      if (!parameter.requires_grad()) {
        continue;
      }
      // The accumulator is only weakly referenced by the parameter; keep it
      // alive so the hook survives between iterations.
      auto accumulator = torch::autograd::impl::grad_accumulator(parameter);
      hook_keys_.push_back(
          accumulator->add_post_hook(std::make_unique<GradientReadyHook>(this)));
      accumulators_.push_back(std::move(accumulator));
      parameters_.push_back(parameter);
    }
  }

  void prepare_for_backward() {
    std::lock_guard<std::mutex> lock(mutex_);
    expect_gradients_ = true;
    ready_ = 0;
  }

  void mark_gradient_ready() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!expect_gradients_) {
      return;
    }
    if (++ready_ < parameters_.size()) {
      return;
    }
    std::vector<torch::Tensor> flat_grads;
    flat_grads.reserve(parameters_.size());
    for (const auto& parameter : parameters_) {
      flat_grads.push_back(parameter.grad().reshape({-1}));
    }
    bucket_ = torch::cat(flat_grads);
    std::vector<at::Tensor> tensors{bucket_};
    pending_ = process_group_->allreduce(tensors);
    expect_gradients_ = false;
  }

  ModuleHolder module_;
  c10::intrusive_ptr<c10d::ProcessGroup> process_group_;

  std::vector<torch::Tensor> parameters_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> hook_keys_;

  std::mutex mutex_;
  bool expect_gradients_ = false;
  size_t ready_ = 0;
  torch::Tensor bucket_;
  c10::intrusive_ptr<c10d::Work> pending_;
};

} // namespace ddp
