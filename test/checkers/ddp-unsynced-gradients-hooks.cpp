// Gradient hooks that all-reduce make backward() itself a sync, for every
// training step of the file. Each RUN selects one way of registering them;
// without any (the last RUN), the step is reported.
//
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DTENSOR_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -allow-empty -check-prefix=SILENT -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DACCUMULATOR_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -allow-empty -check-prefix=SILENT -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DLAMBDA_POST_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -allow-empty -check-prefix=SILENT -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DHOOK_INSTALLER 2>/dev/null \
// RUN:   | FileCheck %s -allow-empty -check-prefix=SILENT -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DCUSTOM_FUNCTION 2>/dev/null \
// RUN:   | FileCheck %s -allow-empty -check-prefix=SILENT -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -DMETRIC_HOOK 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// SILENT-NOT: warning

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
#elif defined(METRIC_HOOK)
// A hook that only counts: not a sync.
void install_sync_hooks(Net &model, c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  for (auto &p : model->parameters())
    p.register_hook([](torch::Tensor grad) { return grad.clamp(-1, 1); });
}
#endif

void train(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model,
           torch::optim::SGD &optimizer, torch::Tensor x, torch::Tensor y) {
  optimizer.zero_grad();
  auto loss = F::mse_loss(model->forward(x), y);
  loss.backward();
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-MESSAGES: :[[@LINE-3]]:8: note: gradients computed by backward() here
}
