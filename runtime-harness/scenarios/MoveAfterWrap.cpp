//===- MoveAfterWrap.cpp - A dtype or device round trip after wrapping ----===//
//
// Seed 000: the model is wrapped, then moved away and back (to the CPU and
// back to the GPU, to free GPU memory for evaluation). Module::to replaces
// every parameter's data; with another device or dtype autograd gives the
// parameters new gradient accumulators, and the wrapper's hooks stay on the
// old ones. Nothing is averaged any more and each rank trains alone.
//
// Without a GPU the same happens with a dtype round trip (float64 for an
// accurate evaluation, then back to float32): checked on LibTorch 1.13, the
// accumulator hooks fire twice per backward before it and never after.
//
// Fixes, as in the seed: wrap again after the move; or keep the parameters'
// storage and only offload and restore their values in place.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

using namespace ddpscenario;
using DDP = ddpharness::DistributedDataParallel<Net>;

namespace {

/// Away and back, the way users free GPU memory or evaluate in float64.
void round_trip(Net &Model, torch::Device Device) {
  if (Device.is_cuda()) {
    Model->to(torch::kCPU);
    Model->to(Device);
  } else {
    Model->to(torch::kFloat64);
    Model->to(torch::kFloat32);
  }
}

/// Fix 2 of the seed: the values go away and come back, the parameters'
/// tensors (and so their accumulators and hooks) stay.
void offload_and_restore(Net &Model) {
  torch::NoGradGuard NoGrad;
  std::vector<torch::Tensor> Saved;
  for (auto &P : Model->parameters())
    Saved.push_back(P.detach().to(torch::kCPU, torch::kFloat64));
  size_t I = 0;
  for (auto &P : Model->parameters())
    P.copy_(Saved[I++]);
}

void run(Context &C) {
  Net Model = make_model(C.device);
  auto Ddp = std::make_unique<DDP>(Model, C.dist.process_group);

  if (C.variant == "buggy") {
    round_trip(Model, C.device);
  } else if (C.variant == "fixed-rewrap") {
    Ddp.reset();
    round_trip(Model, C.device);
    Ddp = std::make_unique<DDP>(Model, C.dist.process_group);
  } else {
    offload_and_restore(Model);
  }

  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);
  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    auto Loss = torch::mse_loss((*Ddp)(B.x), B.y);
    Loss.backward();
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario MoveAfterWrap = {
    "move-after-wrap",
    "ddp-device-move-after-wrap",
    "divergence",
    {"buggy", "fixed-rewrap", "fixed-in-place"},
    "a dtype/device round trip after wrapping drops the gradient hooks",
    run};
} // namespace ddpscenario
