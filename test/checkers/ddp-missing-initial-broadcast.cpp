// RUN: %clang_tidy %s -checks='-*,ddp-missing-initial-broadcast' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-missing-initial-broadcast' -- %mock_flags -I%S/Inputs 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// test/integration runs this same file against the real LibTorch headers.

#include "wrapper.h"

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <random>
#include <stdexcept>
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

// A loop that broadcasts another model's parameters leaves this one apart.
void broadcast_loop_over_another_model(PG pg, torch::Tensor x) {
  torch::manual_seed(1234 + pg->getRank());
  Net teacher;
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the seed depends on the rank here
  for (auto &p : teacher->parameters()) {
    std::vector<torch::Tensor> one{p.data()};
    pg->broadcast(one)->wait();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

// A loop over the model's parameters that skips some of them: the skipped
// ones (the biases here) keep each rank's own values.
void partial_broadcast_loop(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank: it is built without a common torch::manual_seed and nothing broadcasts all of its parameters before the optimizer steps
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  for (auto &p : model->parameters()) {
    if (p.dim() == 1)
      continue;
    std::vector<torch::Tensor> one{p.data()};
    pg->broadcast(one)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: this broadcast is skipped for some parameters, which keep each rank's own random values
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

// The same by index, picking parameters by their position.
void partial_broadcast_index_loop(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank: it is built without a common torch::manual_seed and nothing broadcasts all of its parameters
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  std::vector<torch::Tensor> params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<torch::Tensor> one{params[i]};
    if (i % 2 == 0)
      pg->broadcast(one)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: note: this broadcast is skipped for some parameters
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

// A `continue` inside a switch on the parameter skips it too.
void partial_broadcast_switch(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank: it is built without a common torch::manual_seed and nothing broadcasts all of its parameters
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  for (auto &p : model->parameters()) {
    switch (p.dim()) {
    case 1:
      continue;
    default:
      break;
    }
    std::vector<torch::Tensor> one{p.data()};
    pg->broadcast(one)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: this broadcast is skipped for some parameters
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
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

// The steps run in a training-loop object built from the model and its
// optimizer; its only broadcast is of the buffers.
class EpochLoop {
public:
  EpochLoop(Net model, torch::optim::Optimizer &optimizer, PG pg)
      : model_(model), optimizer_(optimizer), pg_(pg) {}
  void sync_buffers() {
    for (auto &buffer : model_->buffers()) {
      std::vector<torch::Tensor> one{buffer};
      pg_->broadcast(one)->wait();
    }
  }
  void fit(const torch::Tensor &x, int steps) {
    for (int step = 0; step < steps; ++step)
      train_step(x);
  }

private:
  void train_step(const torch::Tensor &x) {
    optimizer_.zero_grad();
    model_->forward(x).sum().backward();
    sync_gradients(*pg_, model_);
    optimizer_.step();
  }
  Net model_;
  torch::optim::Optimizer &optimizer_;
  PG pg_;
};

void steps_in_a_loop_object(PG pg, torch::Tensor x) {
  torch::manual_seed(99 + pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  EpochLoop loop(model, opt, pg);
  for (int epoch = 0; epoch < 3; ++epoch) {
    loop.fit(x, 10);
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: 'fit' steps the parameters
    loop.sync_buffers();
  }
}

// A seed drawn from the machine's entropy, or from the clock, differs
// between processes whatever their rank.
void entropy_seed(PG pg, torch::Tensor x) {
  torch::manual_seed(std::random_device{}());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed differs from process to process here
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

void clock_seed(PG pg, torch::Tensor x) {
  const auto seed = static_cast<uint64_t>(std::time(nullptr));
  torch::manual_seed(seed);
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed differs from process to process here
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

// A helper that seeds with what it is passed: this call passes the rank.
void seed_everything(uint64_t seed) {
  torch::manual_seed(seed);
  torch::cuda::manual_seed_all(seed);
}

void rank_seed_through_helper(PG pg, torch::Tensor x) {
  seed_everything(42 + pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

// A helper that seeds from the clock whatever it is passed.
void seed_from_clock() { torch::manual_seed(std::time(nullptr)); }

void clock_seed_through_helper(PG pg, torch::Tensor x) {
  seed_from_clock();
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed differs from process to process here
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

// An all-gather of metrics before the first step does not give the
// replicas a common start.
void gather_losses(c10d::ProcessGroup &pg, double loss) {
  std::vector<std::vector<torch::Tensor>> all(1);
  std::vector<torch::Tensor> mine{torch::tensor({loss})};
  pg.allgather(all, mine)->wait();
}

void gathered_metrics_only(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto loss = model->forward(x).sum();
  gather_losses(*pg, loss.item<double>());
  loss.backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

// A helper handed the model steps it.
void train_steps(Net &model, torch::optim::Optimizer &opt, c10d::ProcessGroup &pg,
                 const torch::Tensor &x) {
  model->forward(x).sum().backward();
  sync_gradients(pg, model);
  opt.step();
}

void steps_in_a_helper(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  auto model = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'model' starts from different random parameters on each rank
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the seed depends on the rank here
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  train_steps(model, opt, *pg, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'train_steps' steps the parameters
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// A training-loop object that broadcasts the parameters when it is built.
class BroadcastingLoop {
public:
  BroadcastingLoop(Net model, torch::optim::Optimizer &optimizer, PG pg)
      : model_(model), optimizer_(optimizer), pg_(pg) {
    broadcast_parameters(*pg_, model_);
  }
  void fit(const torch::Tensor &x) {
    model_->forward(x).sum().backward();
    sync_gradients(*pg_, model_);
    optimizer_.step();
  }

private:
  Net model_;
  torch::optim::Optimizer &optimizer_;
  PG pg_;
};

void negative_loop_broadcasts_when_built(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  BroadcastingLoop loop(model, opt, pg);
  loop.fit(x);
}

// A sharded optimizer: each rank owns a slice of the flattened parameters,
// and the constructor all-gathers the slices into every replica's
// parameters, so they start equal without a seed or a broadcast.
class ShardedSGD {
public:
  ShardedSGD(std::vector<torch::Tensor> params, PG pg) : params_(params), pg_(pg) {
    std::vector<torch::Tensor> parts;
    for (auto &p : params_)
      parts.push_back(p.detach().reshape({-1}));
    auto flat = torch::cat(parts);
    const int64_t n = flat.numel() / pg_->getSize();
    slice_ = flat.narrow(0, pg_->getRank() * n, n).clone();
    opt_ = std::make_unique<torch::optim::SGD>(std::vector<torch::Tensor>{slice_},
                                               torch::optim::SGDOptions(0.1));
    assemble();
  }
  void step() {
    opt_->step();
    assemble();
  }

private:
  void assemble() {
    auto whole = torch::zeros({slice_.numel() * pg_->getSize()});
    pg_->_allgather_base(whole, slice_)->wait();
    int64_t offset = 0;
    for (auto &p : params_) {
      p.copy_(whole.narrow(0, offset, p.numel()).view_as(p));
      offset += p.numel();
    }
  }
  std::vector<torch::Tensor> params_;
  PG pg_;
  torch::Tensor slice_;
  std::unique_ptr<torch::optim::SGD> opt_;
};

void negative_sharded_optimizer_assembles(PG pg, torch::Tensor x) {
  Net model;
  ShardedSGD opt(model->parameters(), pg);
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// A helper that broadcasts the parameters before it steps.
void broadcast_then_train(Net &model, torch::optim::Optimizer &opt,
                          c10d::ProcessGroup &pg, const torch::Tensor &x) {
  broadcast_parameters(pg, model);
  train_steps(model, opt, pg, x);
}

void negative_helper_broadcasts_first(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  broadcast_then_train(model, opt, *pg, x);
}

// An averaged copy cloned from the broadcast model starts equal too; the
// helper that steps is handed both.
void train_with_average(Net &model, NetImpl &average, torch::optim::Optimizer &opt,
                        c10d::ProcessGroup &pg, const torch::Tensor &x) {
  train_steps(model, opt, pg, x);
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < average.parameters().size(); ++i)
    average.parameters()[i].mul_(0.99).add_(model->parameters()[i], 0.01);
}

void negative_cloned_average(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  broadcast_parameters(*pg, model);
  auto average = std::dynamic_pointer_cast<NetImpl>(model->clone());
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  train_with_average(model, *average, opt, *pg, x);
}

// The helper that steps trains another model, built and broadcast there.
void train_teacher(PG pg, torch::Tensor x) {
  Net teacher;
  broadcast_parameters(*pg, teacher);
  torch::optim::SGD opt(teacher->parameters(), torch::optim::SGDOptions(0.1));
  train_steps(teacher, opt, *pg, x);
}

void negative_unrelated_steps(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net probe; // evaluated only, never stepped
  train_teacher(pg, x);
  probe->forward(x);
}

// LibTorch's own parameter-free modules (a loss, an activation) built on
// each rank before the step start nothing apart.
void negative_parameter_free_modules(PG pg, torch::Tensor x) {
  torch::manual_seed(1234);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  torch::manual_seed(pg->getRank());
  auto loss_fn = torch::nn::MSELoss(torch::nn::MSELossOptions(torch::kMean));
  torch::nn::ReLU activation;
  loss_fn(activation(model->forward(x)), x).backward();
  sync_gradients(*pg, model);
  opt.step();
}

// The same seed on every rank, without a broadcast: the same start.
void negative_common_seed(PG pg, torch::Tensor x) {
  torch::manual_seed(1234);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// The same seed on every rank, set by a helper.
void negative_common_seed_through_helper(PG pg, torch::Tensor x) {
  seed_everything(1234);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// A helper that seeds with a constant of its own, through another helper.
void seed_for_reproducibility() { seed_everything(7); }

void negative_common_seed_two_helpers_down(PG pg, torch::Tensor x) {
  seed_for_reproducibility();
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

// Each parameter broadcast in a loop over the parameters, by range or by
// index.
void negative_broadcast_each_parameter(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  for (auto &p : model->parameters()) {
    std::vector<torch::Tensor> one{p.data()};
    pg->broadcast(one)->wait();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}
void negative_broadcast_each_parameter_by_index(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  std::vector<torch::Tensor> params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<torch::Tensor> one{params[i]};
    pg->broadcast(one)->wait();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// A condition that is the same for every parameter does not pick some:
// the loop broadcasts all of them or, on one rank, none is needed.
void negative_broadcast_loop_world_condition(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  for (auto &p : model->parameters()) {
    if (pg->getSize() == 1)
      continue;
    std::vector<torch::Tensor> one{p.data()};
    pg->broadcast(one)->wait();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}
void negative_broadcast_named_loop(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  for (auto &item : model->named_parameters()) {
    std::vector<torch::Tensor> one{item.value().data()};
    pg->broadcast(one)->wait();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

// Loops that still broadcast every parameter: a check that stops the
// program, a broadcast in both arms of an `if`, a skipped undefined tensor,
// and a bucket flushed when it is full (a broadcast of the bucket, not of
// this parameter).
void negative_broadcast_loop_checked(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  for (auto &p : model->parameters()) {
    if (!p.is_contiguous())
      throw std::runtime_error("parameters must be contiguous");
    if (!p.defined())
      continue;
    std::vector<torch::Tensor> one{p.data()};
    if (p.is_sparse())
      pg->broadcast(one)->wait();
    else
      pg->broadcast(one, c10d::BroadcastOptions{})->wait();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}
void negative_bucketed_broadcast(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  std::vector<torch::Tensor> params = model->parameters();
  std::vector<torch::Tensor> bucket;
  for (size_t i = 0; i < params.size(); ++i) {
    bucket.push_back(params[i]);
    if (bucket.size() >= 4 || i + 1 == params.size()) {
      pg->broadcast(bucket)->wait();
      bucket.clear();
    }
  }
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

// A loop that skips parameters by a counter of its own, not by its loop
// variable, still counts as broadcasting all of them.
void false_negative_partial_broadcast_by_counter(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  int k = 0;
  for (auto &p : model->parameters()) {
    if (k++ < 1)
      continue;
    std::vector<torch::Tensor> one{p.data()};
    pg->broadcast(one)->wait();
  }
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
}

void train_elsewhere(Net &model, c10d::ProcessGroup &pg, torch::Tensor x);

// The training steps run in a function of another translation unit.
void false_negative_steps_elsewhere(PG pg, torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  Net model;
  train_elsewhere(model, *pg, x);
}

// A handle copied out of a registry (a map's entry, a struct's field) is a
// module built and broadcast elsewhere, not a new one.
struct Registered {
  Net model;
  std::shared_ptr<torch::optim::Optimizer> optimizer;
};

void negative_registry_copy(std::vector<Registered> &registry, PG pg,
                            torch::Tensor x) {
  torch::manual_seed(pg->getRank());
  auto model = registry[0].model;
  auto opt = registry[0].optimizer;
  opt->zero_grad();
  model->forward(x).sum().backward();
  opt->step();
}

// A buffer model of parameter-shaped tensors beside the trained one (a
// momentum or an elastic-averaging scratch copy): the optimizer that steps
// is the trained model's, so only the trained model's start matters.
void buffer_model_beside_the_trained_one(PG pg, torch::Tensor x) {
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank
  Net momentum;
  for (auto &p : momentum->parameters())
    p.data().zero_();
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  sync_gradients(*pg, model);
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: note: optimizer step here
}

//===----------------------------------------------------------------------===//
// Steps written by hand, in a helper that also sends averaged gradients
//===----------------------------------------------------------------------===//

#include <mpi.h>

// Rank 0 gathers the gradient, averages it and broadcasts the average; every
// rank then updates its parameter in place. The broadcast carries gradients,
// not parameters, and the update is a step.
void average_and_update(torch::Tensor &param, int world, double lr) {
  torch::NoGradGuard guard;
  torch::Tensor g = param.grad().reshape({-1}).contiguous();
  std::vector<float> sum(g.numel());
  for (int64_t i = 0; i < g.numel(); ++i)
    sum[i] = g[i].item<float>();
  MPI_Allreduce(MPI_IN_PLACE, sum.data(), int(sum.size()), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
  float avg[64];
  for (int64_t i = 0; i < g.numel() && i < 64; ++i)
    avg[i] = sum[i] / world;
  MPI_Bcast(avg, 64, MPI_FLOAT, 0, MPI_COMM_WORLD);
  param -= g * lr;
}

void hand_written_steps(int world, std::vector<torch::Tensor> &batches) {
  Net model;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'model' starts from different random parameters on each rank{{.*}} [ddp-missing-initial-broadcast]
  for (auto &x : batches) {
    model->forward(x).sum().backward();
    for (auto &p : model->parameters())
      average_and_update(p, world, 0.1);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: note: 'average_and_update' steps the parameters
  }
}

// OK: a common seed before the model; the same steps.
void hand_written_steps_seeded(int world, std::vector<torch::Tensor> &batches) {
  torch::manual_seed(1234);
  Net model;
  for (auto &x : batches) {
    model->forward(x).sum().backward();
    for (auto &p : model->parameters())
      average_and_update(p, world, 0.1);
  }
}

// OK: gradients accumulated into a buffer of the helper's own are no step.
void accumulate(torch::Tensor &param, std::vector<torch::Tensor> &sums,
                size_t i) {
  torch::Tensor total = torch::zeros_like(param);
  total += param.grad();
  MPI_Allreduce(MPI_IN_PLACE, total.data_ptr<float>(), int(total.numel()),
                MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  sums[i] = total;
}
void accumulates_only(std::vector<torch::Tensor> &batches) {
  Net model;
  std::vector<torch::Tensor> sums(4);
  for (auto &x : batches) {
    model->forward(x).sum().backward();
    size_t i = 0;
    for (auto &p : model->parameters())
      accumulate(p, sums, i++);
  }
}
