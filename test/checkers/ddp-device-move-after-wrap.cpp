// RUN: %clang_tidy %s -checks='-*,ddp-device-move-after-wrap' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-device-move-after-wrap' -- %mock_flags -I%S/Inputs 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// test/integration runs this same file against the real LibTorch headers.

#include "wrapper.h"

#include <memory>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using DDP = dp::DistributedDataParallel<Net>;
using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

//===----------------------------------------------------------------------===//
// Moves after the wrap
//===----------------------------------------------------------------------===//

// Seed 000 in C++: the module goes to the CPU and back while wrapped.
void offload_and_back(PG pg, torch::Device gpu) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  model->to(torch::kCPU);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'model' is moved to another device or dtype while 'ddp' wraps it: Module::to replaces the parameters' data, which drops the gradient hooks the wrapper registered, so gradients silently stop syncing and the replicas diverge; move the module before wrapping it, or rebuild the wrapper after the move [ddp-device-move-after-wrap]
  // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'model' wrapped here
  model->to(gpu);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'model' is moved to another device or dtype while 'ddp' wraps it
  // CHECK-MESSAGES: :[[@LINE-6]]:8: note: 'model' wrapped here
}

// The CPU-only twin of the same mechanism: a dtype round trip.
void dtype_round_trip(PG pg) {
  Net model;
  DDP ddp(model, pg);
  model->to(torch::kDouble);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'model' is moved to another device or dtype while 'ddp' wraps it
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: 'model' wrapped here
}

// Through the wrapper: DistributedDataParallel is a Module and its `to` is
// Module::to, which moves the inner parameters.
void move_the_wrapper(PG pg, torch::Device device) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  ddp->to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: moving wrapper 'ddp' moves 'model', the module it wraps, to another device or dtype
  // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'model' wrapped here
}

// Aliases: a copy of the handle, the inner accessor, a raw pointer.
void aliases(PG pg) {
  Net model;
  Net alias = model;
  DDP ddp(model, pg);
  alias->to(torch::kHalf);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'model' is moved to another device or dtype while 'ddp' wraps it
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: 'model' wrapped here
  ddp.module()->to(torch::kCPU);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'model' is moved to another device or dtype while 'ddp' wraps it
  // CHECK-MESSAGES: :[[@LINE-6]]:7: note: 'model' wrapped here
  NetImpl *raw = model.get();
  raw->to(torch::kBFloat16);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'model' is moved to another device or dtype while 'ddp' wraps it
  // CHECK-MESSAGES: :[[@LINE-10]]:7: note: 'model' wrapped here
}

// A move in a later epoch, under a branch.
void eval_offload_in_loop(PG pg, bool offload, int epochs) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    if (offload)
      model->to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'model' is moved to another device or dtype while 'ddp' wraps it
    // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'model' wrapped here
  }
}

// A wrapper received from the caller: every move of its module is after the
// wrap.
void received(DDP &ddp) {
  ddp.module()->to(torch::kDouble);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the module inside 'ddp' is moved to another device or dtype while 'ddp' wraps it
  // CHECK-MESSAGES: :[[@LINE-3]]:20: note: 'ddp' receives the wrapper built by the caller
}

// A wrapper kept as a member, built in the constructor: every other member
// function runs after the wrap.
class Trainer {
public:
  Trainer(Net model, PG pg) : model_(model), ddp_(std::make_shared<DDP>(model, pg)) {}

  void offload() { model_->to(torch::kCPU); }
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'model' is moved to another device or dtype while 'ddp_' wraps it
  // CHECK-MESSAGES: :[[@LINE-4]]:46: note: 'model' wrapped here

private:
  Net model_;
  std::shared_ptr<DDP> ddp_;
};

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// Move first, then wrap.
void negative_move_before_wrap(PG pg, torch::Device device) {
  Net model;
  model->to(device);
  auto ddp = std::make_shared<DDP>(model, pg);
}

// Seed 000's first fix: drop the wrapper, move, wrap again.
void negative_rewrap_after_move(PG pg, torch::Device device) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  ddp.reset();
  model->to(torch::kCPU);
  model->to(device);
  ddp = std::make_shared<DDP>(model, pg);
}

// The wrapper lived in an inner scope and is gone.
void negative_wrapper_out_of_scope(PG pg) {
  Net model;
  {
    DDP ddp(model, pg);
  }
  model->to(torch::kDouble);
}

// Seed 000's second fix: copy data into the same parameters, in place.
void negative_copy_in_place(PG pg, torch::Tensor saved) {
  Net model;
  DDP ddp(model, pg);
  torch::NoGradGuard no_grad;
  for (auto &p : model->parameters())
    p.copy_(saved);
}

// Moving tensors is not moving the module.
void negative_move_tensors(PG pg, torch::Tensor batch, torch::Device device) {
  Net model;
  DDP ddp(model, pg);
  auto input = batch.to(device);
  auto output = ddp.forward(input).to(torch::kCPU);
}

// A module that was never wrapped (an EMA copy, an exporter's model).
void negative_unwrapped_model(PG pg) {
  Net model, ema;
  DDP ddp(model, pg);
  ema->to(torch::kDouble);
}

// A wrapper with its own `to`, which re-registers its hooks.
void negative_wrapper_with_own_to(torch::Device device) {
  Net model;
  dp::RehookingDDP<Net> ddp(model);
  ddp.to(device);
}
