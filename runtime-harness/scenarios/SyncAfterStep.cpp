//===- SyncAfterStep.cpp - A gradient all-reduce in the wrong place -------===//
//
// Manual sync, written once per iteration but after optimizer.step(): the
// all-reduce averages gradients the optimizer has already applied, and the
// next zero_grad() throws the averages away. Every rank steps with its own
// shard's gradients and the replicas drift from step 0, while the loop
// looks as if it synced. The fix moves the sync between backward() and
// step().
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

using namespace ddpscenario;

namespace {

void run(Context &C) {
  Net Model = make_model(C.device);
  auto &Group = *C.dist.process_group;
  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);
  bool Buggy = C.variant == "buggy";

  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss(Model->forward(B.x), B.y).backward();
    if (!Buggy)
      average_gradients(Model, Group);
    Optimizer.step();
    // The probe records the gradient the optimizer used: before the late
    // sync below overwrites it.
    C.probe.step(*Model, Step);
    if (Buggy)
      average_gradients(Model, Group);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario SyncAfterStep = {
    "sync-after-step",
    "ddp-unsynced-gradients",
    "divergence",
    {"buggy", "fixed"},
    "gradients all-reduced after optimizer.step(): each rank steps alone",
    run};
} // namespace ddpscenario
