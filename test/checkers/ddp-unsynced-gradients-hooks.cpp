// Gradient hooks that all-reduce make backward() itself a sync, for the
// training steps that run where they were installed first: a function that
// installs them, or one called (transitively) from it or from its callers.
// Each RUN selects one way of registering them: `run` installs them and then
// calls `train`, whose step is silent; `train_alone` runs where nothing
// installs them and is reported in every configuration, although the file
// defines the installer. Without hooks that sync (the last two RUNs), both
// steps are reported.
//
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DTENSOR_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-ALONE -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DACCUMULATOR_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-ALONE -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DLAMBDA_POST_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-ALONE -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DHOOK_INSTALLER 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-ALONE -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DCUSTOM_FUNCTION 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-ALONE -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DMETRIC_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-ALONE -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-ALONE -implicit-check-not='{{warning|error|note}}:'

#include <torch/torch.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <memory>
#include <vector>

namespace F = torch::nn::functional;

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

#if defined(TENSOR_HOOK)
// The hook receives the gradient, averages the sum and returns it.
void install_sync_hooks(Net &model, c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  for (auto &p : model->parameters())
    p.register_hook([pg](torch::Tensor grad) {
      std::vector<at::Tensor> tensors{grad};
      pg->allreduce(tensors)->wait();
      return grad / pg->getSize();
    });
}
#elif defined(ACCUMULATOR_HOOK)
// A post-hook on each gradient accumulator, as PyTorch's reducer does.
struct AllreduceHook : torch::autograd::FunctionPostHook {
  AllreduceHook(torch::Tensor param, c10::intrusive_ptr<c10d::ProcessGroup> pg)
      : param(std::move(param)), pg(std::move(pg)) {}
  torch::autograd::variable_list
  operator()(const torch::autograd::variable_list &outputs,
             const torch::autograd::variable_list &) override {
    std::vector<at::Tensor> tensors{param.grad()};
    pg->allreduce(tensors)->wait();
    param.grad().div_(pg->getSize());
    return outputs;
  }
  torch::Tensor param;
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
};

std::vector<std::shared_ptr<torch::autograd::Node>>
install_sync_hooks(Net &model, c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
  for (auto &p : model->parameters()) {
    auto accumulator = torch::autograd::impl::grad_accumulator(p);
    accumulator->add_post_hook(std::make_unique<AllreduceHook>(p, pg));
    accumulators.push_back(accumulator);
  }
  return accumulators;
}
#elif defined(LAMBDA_POST_HOOK)
void install_sync_hooks(Net &model, c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  for (auto &p : model->parameters()) {
    auto accumulator = torch::autograd::impl::grad_accumulator(p);
    accumulator->add_post_hook(
        std::make_unique<torch::autograd::utils::LambdaPostHook>(
            [p, pg](const torch::autograd::variable_list &outputs,
                    const torch::autograd::variable_list &) {
              std::vector<at::Tensor> tensors{p.grad()};
              pg->allreduce(tensors)->wait();
              return outputs;
            }));
  }
}
#elif defined(HOOK_INSTALLER)
// Installed by a function defined in another file, handed the model and the
// process group.
void install_allreduce_hooks(Net &model, c10::intrusive_ptr<c10d::ProcessGroup> pg);

void setup(Net &model, c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  install_allreduce_hooks(model, pg);
}
#define INSTALL_HOOKS(model, pg) setup(model, pg)
#elif defined(CUSTOM_FUNCTION)
// A layer whose backward all-reduces the gradient flowing through it.
c10::intrusive_ptr<c10d::ProcessGroup> group;

struct AllreduceGradient : torch::autograd::Function<AllreduceGradient> {
  static torch::autograd::variable_list
  forward(torch::autograd::AutogradContext *, torch::Tensor x) {
    return {x};
  }
  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *,
           torch::autograd::variable_list grads) {
    group->allreduce(grads)->wait();
    return {grads[0] / group->getSize()};
  }
};

// The function is in the graph of every loss computed through this forward.
torch::Tensor synced_forward(Net &model, torch::Tensor x) {
  return AllreduceGradient::apply(model->forward(x))[0];
}
#define FORWARD(model, x) synced_forward(model, x)
#elif defined(METRIC_HOOK)
// A hook that only counts: not a sync.
void install_sync_hooks(Net &model, c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  for (auto &p : model->parameters())
    p.register_hook([](torch::Tensor grad) { return grad.clamp(-1, 1); });
}
#endif

#ifndef INSTALL_HOOKS
#define INSTALL_HOOKS(model, pg) install_sync_hooks(model, pg)
#endif
#ifndef FORWARD
#define FORWARD(model, x) model->forward(x)
#endif

void train(Net &model, torch::optim::SGD &optimizer, torch::Tensor x,
           torch::Tensor y) {
  optimizer.zero_grad();
  auto loss = F::mse_loss(FORWARD(model, x), y);
  loss.backward();
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-MESSAGES: :[[@LINE-3]]:8: note: gradients computed by backward() here
}

// Installs the hooks, then trains.
void run(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model,
         torch::optim::SGD &optimizer, torch::Tensor x, torch::Tensor y) {
#if defined(TENSOR_HOOK) || defined(ACCUMULATOR_HOOK) || \
    defined(LAMBDA_POST_HOOK) || defined(HOOK_INSTALLER) || defined(METRIC_HOOK)
  INSTALL_HOOKS(model, pg);
#endif
  train(model, optimizer, x, y);
}

// Nothing on the way here installs the hooks the file defines: this step
// is never synced.
void train_alone(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model,
                 torch::optim::SGD &optimizer, torch::Tensor x,
                 torch::Tensor y) {
  optimizer.zero_grad();
  auto loss = F::mse_loss(model->forward(x), y);
  loss.backward();
  optimizer.step();
  // CHECK-ALONE: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-ALONE: :[[@LINE-3]]:8: note: gradients computed by backward() here
}
