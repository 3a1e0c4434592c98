//===- MutationAfterWrap.cpp - Changing one rank's replica after wrapping -===//
//
// Seed 002: after wrapping, parameters are adjusted by hand. The wrapper
// copied rank 0's values once, at construction; a later change on rank 0
// alone (example 1 without its broadcast) or a different change on every
// rank (example 3 without its all-reduce) is never propagated, and averaged
// gradients cannot bring the replicas back together.
//
// Fixes, as in the seed: broadcast the changed tensor from rank 0
// (example 1), or average the per-rank changes with an all-reduce and a
// division by the world size (example 3).
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

#include <algorithm>

using namespace ddpscenario;

namespace {

/// The step before which the bias is changed: 2, or the last step of a
/// shorter run, so the change always lands.
int64_t adjust_at(int64_t Steps) { return std::min<int64_t>(2, Steps - 1); }

void adjust(Context &C, Net &Model) {
  auto &Group = *C.dist.process_group;
  torch::NoGradGuard NoGrad;
  torch::Tensor Bias = Model->fc1->bias;
  if (C.variant == "fixed-allreduce") {
    // Example 3: a local adjustment on every rank, then averaged.
    Bias.add_(0.01 * (C.dist.rank + 1));
    std::vector<torch::Tensor> Value{Bias};
    Group.allreduce(Value)->wait();
    Bias.div_(C.dist.world_size);
    return;
  }
  // Example 1: rank 0 changes the bias.
  if (C.dist.rank == 0)
    Bias.add_(0.1);
  if (C.variant == "fixed-broadcast") {
    std::vector<torch::Tensor> Value{Bias};
    Group.broadcast(Value)->wait();
  }
}

void run(Context &C) {
  Net Model = make_model(C.device);
  ddpharness::DistributedDataParallel<Net> Ddp(Model, C.dist.process_group);
  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);

  for (int64_t Step = 0; Step < C.steps; ++Step) {
    if (Step == adjust_at(C.steps))
      adjust(C, Model);
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss(Ddp(B.x), B.y).backward();
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario MutationAfterWrap = {
    "mutation-after-wrap",
    "ddp-mutation-after-wrap",
    "divergence",
    {"buggy", "fixed-broadcast", "fixed-allreduce"},
    "rank 0 changes a parameter after wrapping and never broadcasts it",
    run};
} // namespace ddpscenario
