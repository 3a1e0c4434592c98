// RUN: %clang_tidy %s -checks='-*,ddp-unwrapped-forward' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unwrapped-forward' -- %mock_flags -I%S/Inputs 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// The fix-it swaps an inner `forward` for the wrapper's; the fix runs on a copy
// with the CHECK comments blanked, so that only fixed code can match:
// RUN: sed -E 's#//[[:space:]]*CHECK-[A-Z0-9-]*:.*#//#' %s > %t.cpp
// RUN: %clang_tidy %t.cpp -fix -checks='-*,ddp-unwrapped-forward' -- %mock_flags -I%S/Inputs > /dev/null 2> %t.fix.err
// RUN: FileCheck %s -check-prefix=CHECK-FIXES --match-full-lines < %t.cpp
//
// test/integration runs this same file against the real LibTorch headers.

#include "wrapper.h"

#include <memory>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::Tensor compute_loss(torch::Tensor x, torch::Tensor y) {
    return torch::mse_loss(forward(x), y);
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using DDP = dp::DistributedDataParallel<Net>;
using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

//===----------------------------------------------------------------------===//
// Forward passes that bypass the wrapper
//===----------------------------------------------------------------------===//

// The original handle kept and used after wrapping.
void original_handle(PG pg, torch::Tensor x, torch::Tensor y, torch::optim::SGD &opt) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  auto out = model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass runs on 'model' instead of its wrapper 'ddp': the wrapper's gradient sync is never armed, so the backward pass reduces nothing and each rank trains its own replica on its own shard; run it through 'ddp', or all-reduce every gradient after the backward pass [ddp-unwrapped-forward]
  // CHECK-FIXES: auto out = ddp->forward(x);
  auto loss = torch::mse_loss(out, y);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: note: the gradients of this backward pass stay local
  // CHECK-MESSAGES: :[[@LINE-7]]:8: note: 'model' wrapped here
  opt.step();
}

// The inner accessor, and the holder's call operator.
void inner_accessor(PG pg, torch::Tensor x, torch::Tensor y, torch::optim::SGD &opt) {
  Net model;
  DDP ddp(model, pg);
  auto a = ddp.module()->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: forward pass runs on 'model' instead of its wrapper 'ddp'
  // CHECK-MESSAGES: :[[@LINE+6]]:29: note: the gradients of this backward pass stay local
  // CHECK-MESSAGES: :[[@LINE-4]]:7: note: 'model' wrapped here
  // CHECK-FIXES: auto a = ddp.forward(x);
  auto b = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: forward pass runs on 'model' instead of its wrapper 'ddp'
  // CHECK-MESSAGES: :[[@LINE+1]]:29: note: the gradients of this backward pass stay local
  (a + b - y).pow(2).mean().backward();
  // CHECK-MESSAGES: :[[@LINE-10]]:7: note: 'model' wrapped here
  opt.step();
}

// Seed 001 in C++: a trainer whose getter returns the inner module, and a
// loss method that is not called forward.
class Trainer {
public:
  Trainer(Net model, PG pg) : ddp_(std::make_shared<DDP>(model, pg)) {}

  Net &get_model() { return ddp_->module(); }

  void train_step(torch::Tensor x, torch::Tensor y, torch::optim::Optimizer &opt) {
    opt.zero_grad();
    torch::Tensor loss = get_model()->compute_loss(x, y);
    // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'compute_loss' runs on 'model' instead of its wrapper 'ddp_'
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the gradients of this backward pass stay local
    // CHECK-MESSAGES: :[[@LINE-10]]:31: note: 'model' wrapped here
    opt.step();
  }

private:
  std::shared_ptr<DDP> ddp_;
};

// A wrapper received from the caller, in a training loop.
void train_epoch(DDP &ddp, std::vector<torch::Tensor> &batches, torch::optim::SGD &opt) {
  for (auto &batch : batches) {
    opt.zero_grad();
    torch::Tensor loss = ddp.module()->forward(batch).sum();
    // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: forward pass runs on the module inside 'ddp' instead of its wrapper 'ddp'
    // CHECK-FIXES: torch::Tensor loss = ddp.forward(batch).sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the gradients of this backward pass stay local
    // CHECK-MESSAGES: :[[@LINE-8]]:23: note: 'ddp' receives the wrapper built by the caller
    opt.step();
  }
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// Through the wrapper.
void negative_through_wrapper(PG pg, torch::Tensor x, torch::optim::SGD &opt) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  ddp->forward(x).sum().backward();
  opt.step();
}

// Evaluation on the inner module: no backward, nothing to sync.
double negative_evaluation(PG pg, torch::Tensor x, torch::Tensor y) {
  Net model;
  DDP ddp(model, pg);
  torch::NoGradGuard no_grad;
  return torch::mse_loss(ddp.module()->forward(x), y).item<double>();
}

// Seed 001's merged fix: the function all-reduces every gradient itself after
// the backward pass.
void negative_reduced_by_hand(PG pg, torch::Tensor x, torch::Tensor y, torch::optim::SGD &opt) {
  Net model;
  DDP ddp(model, pg);
  auto loss = ddp.module()->compute_loss(x, y);
  loss.backward();
  for (auto &p : model->parameters()) {
    std::vector<torch::Tensor> grads{p.grad()};
    pg->allreduce(grads)->wait();
    p.grad().div_(pg->getSize());
  }
  opt.step();
}

// A model that was never wrapped: an EMA copy trained on its own.
void negative_unwrapped_model(PG pg, torch::Tensor x, torch::optim::SGD &opt) {
  Net model, ema;
  DDP ddp(model, pg);
  ema->forward(x).sum().backward();
  opt.step();
}

// Warm-up before wrapping; the wrapper is built afterwards.
void negative_before_wrap(PG pg, torch::Tensor x, torch::optim::SGD &opt) {
  Net model;
  model->forward(x).sum().backward();
  opt.step();
  DDP ddp(model, pg);
}

// After the wrapper is reset the module is on its own again.
void negative_after_reset(PG pg, torch::Tensor x, torch::optim::SGD &opt) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  ddp.reset();
  model->forward(x).sum().backward();
  opt.step();
}

//===----------------------------------------------------------------------===//
// Known false negatives (docs/checks/ddp-unwrapped-forward.md)
//===----------------------------------------------------------------------===//

// The backward pass happens in another function.
torch::Tensor false_negative_loss_returned(DDP &ddp, torch::Tensor x) {
  return ddp.module()->forward(x).sum();
}
