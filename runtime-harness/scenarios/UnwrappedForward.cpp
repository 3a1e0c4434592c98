//===- UnwrappedForward.cpp - A forward on the inner module ---------------===//
//
// Seed 001: the model is wrapped, but the loss is computed on the inner
// module (the handle kept from before wrapping, or a getter returning
// `ddp.module()`). The wrapper arms its gradient hooks in its own forward;
// bypassed, the hooks stay disarmed, nothing is averaged, and every rank
// trains its own replica on its own shard.
//
// Fixes: the seed's pull request averages the gradients by hand after
// backward; routing the forward through the wrapper fixes the root cause.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

using namespace ddpscenario;

namespace {

void run(Context &C) {
  Net Model = make_model(C.device);
  ddpharness::DistributedDataParallel<Net> Ddp(Model, C.dist.process_group);
  auto &Group = *C.dist.process_group;
  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);

  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::Tensor Out =
        C.variant == "fixed-wrapper" ? Ddp(B.x) : Ddp.module()->forward(B.x);
    torch::mse_loss(Out, B.y).backward();
    if (C.variant == "fixed") {
      // Average by hand: the wrapper was bypassed.
      average_gradients(Model, Group);
    }
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario UnwrappedForward = {
    "unwrapped-forward",
    "ddp-unwrapped-forward",
    "divergence",
    {"buggy", "fixed", "fixed-wrapper"},
    "the forward runs on the inner module, so the wrapper never syncs",
    run};
} // namespace ddpscenario
