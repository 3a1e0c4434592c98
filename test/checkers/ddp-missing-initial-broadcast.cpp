// RUN: %clang_tidy %s -checks='-*,ddp-missing-initial-broadcast' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
// RUN: not %ddplint %s --checks='-*,ddp-missing-initial-broadcast' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
//
// test/integration runs this same file against the real LibTorch headers.

#include "wrapper.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

void sync_gradients(c10d::ProcessGroup &pg, Net &model) {
  for (auto &p : model->parameters()) {
    std::vector<torch::Tensor> g{p.grad()};
    pg.allreduce(g)->wait();
    p.grad().div_(pg.getSize());
  }
}

void broadcast_parameters(c10d::ProcessGroup &pg, Net &model) {
  std::vector<torch::Tensor> params = model->parameters();
  pg.broadcast(params)->wait();
}

//===----------------------------------------------------------------------===//
// Replicas that start apart
//===----------------------------------------------------------------------===//

// A seed that depends on the rank, and no broadcast.
void rank_seed(PG pg, torch::Tensor x) {
  torch::manual_seed(1234 + pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank: it is built without a common torch::manual_seed and nothing broadcasts its parameters before the optimizer steps, so the replicas start apart and stay apart although their gradients are averaged; seed every rank with the same value before building it, or broadcast rank 0's parameters before training [ddp-missing-initial-broadcast]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  for (int step = 0; step < 10; ++step) {
    opt.zero_grad();
    model->forward(x).sum().backward();
    sync_gradients(*pg, model);
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:9: note: optimizer step here
  }
}

struct Context {
  int rank = 0;
  int world = 1;
};

// No seed at all; the rank only shows in a context struct.
void no_seed(const Context &ctx, c10d::ProcessGroup &pg, torch::Tensor x) {
  auto model = std::make_shared<NetImpl>();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'model' starts from different random parameters on each rank
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  model->forward(x).sum().backward();
  for (auto &p : model->parameters()) {
    std::vector<torch::Tensor> g{p.grad()};
    pg.allreduce(g)->wait();
  }
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
  (void)ctx.rank;
}

// A warm start loaded on some runs only: the other runs start apart.
void optional_checkpoint(PG pg, const std::string &path, torch::Tensor x) {
  torch::manual_seed(7 + pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  if (!path.empty())
    torch::load(model, path);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// The same seed on every rank, without a broadcast: the same start.
void negative_common_seed(PG pg, torch::Tensor x) {
  torch::manual_seed(1234);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// A broadcast of rank 0's parameters before training, seed or not.
void negative_broadcast(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  broadcast_parameters(*pg, model);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// Every rank loads the same checkpoint.
void negative_every_rank_loads(PG pg, torch::Tensor x) {
  Net model;
  torch::load(model, "init.pt");
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// A wrapper broadcasts its module's parameters when it is built.
void negative_wrapped(PG pg, torch::Tensor x) {
  Net model;
  dp::DistributedDataParallel<Net> ddp(model, pg);
  torch::optim::SGD opt(ddp.parameters(), torch::optim::SGDOptions(0.1));
  ddp.forward(x).sum().backward();
  opt.step();
}

// Single-process training: nothing to keep in step.
void negative_single_process(torch::Tensor x) {
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  opt.step();
}

//===----------------------------------------------------------------------===//
// Known false negatives (docs/checks/ddp-missing-initial-broadcast.md)
//===----------------------------------------------------------------------===//

void train_elsewhere(Net &model, c10d::ProcessGroup &pg, torch::Tensor x);

// The training steps run in another function.
void false_negative_steps_elsewhere(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  train_elsewhere(model, *pg, x);
}
