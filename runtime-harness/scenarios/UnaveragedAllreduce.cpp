//===- UnaveragedAllreduce.cpp - Summed gradients, never divided ----------===//
//
// Manual sync: after backward every gradient is all-reduced. The
// all-reduce sums; without a division by the world size the replicas stay
// consistent but step with N times the averaged gradient, so the effective
// learning rate grows with the number of ranks. The fix divides.
//
// The scale is measured, not assumed: each step also all-reduces a copy of
// the local gradients taken before the sync and divides it, which is the
// true average, and records the ratio of the norm the optimizer stepped
// with to the norm of that average (grad_ratio in result-rank<R>.json).
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

#include <cmath>

using namespace ddpscenario;

namespace {

/// The average of the ranks' local gradients, computed apart from the code
/// under test.
std::vector<torch::Tensor> true_average(const std::vector<torch::Tensor> &Local,
                                        c10d::ProcessGroup &Group) {
  std::vector<torch::Tensor> Flat{torch::cat(Local)};
  Group.allreduce(Flat)->wait();
  return {Flat[0] / Group.getSize()};
}

void run(Context &C) {
  Net Model = make_model(C.device);
  auto &Group = *C.dist.process_group;
  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);
  double RatioSum = 0;

  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss(Model->forward(B.x), B.y).backward();

    std::vector<torch::Tensor> Local;
    for (auto &P : Model->parameters())
      Local.push_back(P.grad().detach().reshape(-1).clone());

    for (auto &P : Model->parameters()) {
      std::vector<torch::Tensor> Grad{P.grad()};
      Group.allreduce(Grad)->wait();
      if (C.variant == "fixed")
        P.grad().div_(C.dist.world_size);
    }

    std::vector<torch::Tensor> Stepped;
    for (auto &P : Model->parameters())
      Stepped.push_back(P.grad().detach().reshape(-1));
    double Average = true_average(Local, Group)[0].norm().item<double>();
    RatioSum += torch::cat(Stepped).norm().item<double>() / Average;

    Optimizer.step();
    C.probe.step(*Model, Step);
  }
  C.probe.result({{"grad_ratio", RatioSum / static_cast<double>(C.steps)},
                  {"steps", static_cast<double>(C.steps)}});
}

} // namespace

namespace ddpscenario {
extern const Scenario UnaveragedAllreduce = {
    "unaveraged-allreduce",
    "ddp-unaveraged-allreduce",
    "gradient-scale",
    {"buggy", "fixed"},
    "gradients all-reduced (summed) and never divided by the world size",
    run};
} // namespace ddpscenario
