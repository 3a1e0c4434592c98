//===- MissingBroadcast.cpp - Replicas that never started equal -----------===//
//
// Manual sync averages every gradient correctly, but each rank seeds its
// generator with its rank (for its own data augmentation) before building
// the model, and nothing copies rank 0's parameters to the others. Averaged
// gradients keep the replicas exactly as far apart as they started: they
// differ from step 0 on. The fix broadcasts rank 0's parameters once,
// before the first step.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

using namespace ddpscenario;

namespace {

void run(Context &C) {
  auto &Group = *C.dist.process_group;
  torch::manual_seed(1234 + C.dist.rank);
  Net Model;
  Model->to(C.device);

  if (C.variant == "fixed") {
    for (auto &P : Model->parameters()) {
      std::vector<torch::Tensor> Value{P.detach()};
      Group.broadcast(Value)->wait(); // root rank 0 by default
    }
  }

  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);
  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss(Model->forward(B.x), B.y).backward();
    average_gradients(Model, Group);
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario MissingBroadcast = {
    "missing-broadcast",
    "ddp-missing-initial-broadcast",
    "divergence",
    {"buggy", "fixed"},
    "per-rank seeds and no initial broadcast: replicas differ from the start",
    run};
} // namespace ddpscenario
