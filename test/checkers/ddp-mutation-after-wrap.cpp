// RUN: %clang_tidy %s -checks='-*,ddp-mutation-after-wrap' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-mutation-after-wrap' -- %mock_flags -I%S/Inputs 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// test/integration runs this same file against the real LibTorch headers.

#include "wrapper.h"

#include <memory>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using DDP = dp::DistributedDataParallel<Net>;
using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

//===----------------------------------------------------------------------===//
// Structural changes after the wrap: always reported
//===----------------------------------------------------------------------===//

void late_head(PG pg) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  model->register_module("head", torch::nn::Linear(2, 2));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'register_module' adds to 'model' after 'ddp' wrapped it: the wrapper only syncs the parameters and buffers it saw when it was built, so the new ones silently diverge across ranks; register everything before wrapping, or rebuild the wrapper afterwards [ddp-mutation-after-wrap]
  // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'model' wrapped here
  ddp->module()->register_parameter("scale", torch::ones({1}));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'register_parameter' adds to 'model' after 'ddp' wrapped it
  // CHECK-MESSAGES: :[[@LINE-6]]:8: note: 'model' wrapped here
  model->register_buffer("running", torch::zeros({2}));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'register_buffer' adds to 'model' after 'ddp' wrapped it
  // CHECK-MESSAGES: :[[@LINE-9]]:8: note: 'model' wrapped here
}

// Seed 002, example 2: a layer added through a reference to the inner
// module. Broadcasting it afterwards does not help: its gradients are never
// averaged.
void late_layer_through_inner_reference(PG pg) {
  Net model;
  auto ddp = std::make_unique<DDP>(model, pg);
  Net &inner = ddp->module();
  inner->register_module("new_linear", torch::nn::Linear(2, 2));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'register_module' adds to 'model' after 'ddp' wrapped it
  // CHECK-MESSAGES: :[[@LINE-4]]:8: note: 'model' wrapped here
  std::vector<torch::Tensor> params = model->parameters();
  pg->broadcast(params)->wait();
}

//===----------------------------------------------------------------------===//
// Values changed on some ranks, or drawn at random, with no collective after
//===----------------------------------------------------------------------===//

// Seed 002, example 1 without its broadcast.
void rank0_bias_change(PG pg) {
  Net model;
  DDP ddp(model, pg);
  if (pg->getRank() == 0)
    ddp.module()->fc->bias.add_(0.1);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'add_' changes parameters of 'model' on some ranks only, after 'ddp' wrapped it, and no broadcast or all-reduce follows: the wrapper syncs gradients, not parameters, so the replicas diverge from here on; broadcast the changed parameters from that rank, or make the change on every rank [ddp-mutation-after-wrap]
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this holds change it
  // CHECK-MESSAGES: :[[@LINE-5]]:7: note: 'model' wrapped here
}

struct Context {
  int rank = 0;
  bool is_main() const { return rank == 0; }
};

// A rank-0 warm start through a context struct filled elsewhere.
void rank0_warm_start(PG pg, const Context &ctx, const std::string &path) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  if (ctx.is_main())
    torch::load(model, path);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'load' changes parameters of 'model' on some ranks only, after 'ddp' wrapped it
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this holds change it
  // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'model' wrapped here
}

// Seed 002, example 3 without its all-reduce: a random, rank-local change.
void random_adjustment(PG pg) {
  Net model;
  DDP ddp(model, pg);
  auto noise = torch::randn({2});
  model->fc->bias.data() += noise;
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: an assignment through .data() gives parameters of 'model' random values after 'ddp' wrapped it, and no broadcast or all-reduce follows
  // CHECK-MESSAGES: :[[@LINE-4]]:7: note: 'model' wrapped here
  for (auto &p : model->parameters())
    torch::nn::init::normal_(p);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'normal_' gives parameters of 'model' random values after 'ddp' wrapped it
  // CHECK-MESSAGES: :[[@LINE-8]]:7: note: 'model' wrapped here
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// Seed 002, example 1: rank 0 changes the bias, then broadcasts it.
void negative_rank0_change_then_broadcast(PG pg) {
  Net model;
  DDP ddp(model, pg);
  if (pg->getRank() == 0)
    ddp.module()->fc->bias.add_(0.1);
  std::vector<torch::Tensor> bias{model->fc->bias};
  pg->broadcast(bias)->wait();
}

// The same, broadcasting each parameter in a loop over them.
void negative_rank0_change_then_broadcast_each(PG pg) {
  Net model;
  DDP ddp(model, pg);
  if (pg->getRank() == 0)
    ddp.module()->fc->bias.add_(0.1);
  for (auto &p : model->parameters()) {
    std::vector<torch::Tensor> one{p};
    pg->broadcast(one)->wait();
  }
}

// Seed 002, example 3: a random change, averaged across ranks.
void negative_random_then_averaged(PG pg) {
  Net model;
  DDP ddp(model, pg);
  model->fc->bias.data() += torch::randn({2});
  std::vector<torch::Tensor> bias{model->fc->bias};
  pg->allreduce(bias)->wait();
  model->fc->bias.data() /= pg->getSize();
}

void broadcast_parameters(PG pg, Net &model) {
  std::vector<torch::Tensor> params = model->parameters();
  pg->broadcast(params)->wait();
}

// A helper of the same file does the broadcast.
void negative_rank0_load_then_helper_broadcast(PG pg, const Context &ctx) {
  Net model;
  DDP ddp(model, pg);
  if (ctx.is_main())
    torch::load(model, "warm.pt");
  broadcast_parameters(pg, model);
}

// Every rank loads the same checkpoint: the same deterministic change.
void negative_every_rank_loads(PG pg) {
  Net model;
  DDP ddp(model, pg);
  torch::load(model, "checkpoint.pt");
  model->fc->bias.fill_(0.0);
}

// Registering before the wrap; changing before the wrap.
void negative_before_wrap(PG pg) {
  Net model;
  model->register_module("head", torch::nn::Linear(2, 2));
  torch::nn::init::normal_(model->fc->weight);
  DDP ddp(model, pg);
}

// The layer added through the inner module, then the wrapper rebuilt: the
// new wrapper copies and hooks every parameter.
void negative_layer_then_rewrap(PG pg) {
  Net model;
  auto ddp = std::make_unique<DDP>(model, pg);
  Net &inner = ddp->module();
  ddp.reset();
  inner->register_module("new_linear", torch::nn::Linear(2, 2));
  ddp = std::make_unique<DDP>(model, pg);
}

// The wrapper's own constructor registers the module it wraps.
void negative_wrapper_internals(PG pg) {
  Net model;
  DDP ddp(model, pg);
}

// A module that was never wrapped.
void negative_unwrapped_copy(PG pg) {
  Net model, ema;
  DDP ddp(model, pg);
  if (pg->getRank() == 0)
    ema->fc->bias.add_(1.0);
  ema->register_module("head", torch::nn::Linear(2, 2));
}

//===----------------------------------------------------------------------===//
// Known false negatives (docs/checks/ddp-mutation-after-wrap.md)
//===----------------------------------------------------------------------===//

// The change happens in a helper the wrapped module is passed to.
void set_head(Net &model) { model->register_module("head", torch::nn::Linear(2, 2)); }
void false_negative_change_in_helper(PG pg) {
  Net model;
  DDP ddp(model, pg);
  set_head(model);
}
