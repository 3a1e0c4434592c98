//===- OptimizerStaleParameters.cpp - An optimizer on the old module ------===//
//
// Seed 004 in C++: the optimizer is built from the module's parameters, then
// training resumes from a checkpoint loaded into a new module
// (`Model = Net(); torch::load(Model, Path)`). The optimizer still holds the
// old module's tensors, which get no gradient; the new module's gradients
// are averaged but never stepped. The trained module never changes and the
// loss stays where it started.
//
// Fixes: load into the same module (torch::load copies into its tensors),
// or rebuild the optimizer after the replacement.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

using namespace ddpscenario;

namespace {

/// A checkpoint file of this rank's own, removed at the end of the run.
std::string checkpointPath(int Rank) {
  return (std::filesystem::temp_directory_path() /
          ("ddp-scenario-stale-" + std::to_string(::getpid()) + "-" +
           std::to_string(Rank) + ".pt"))
      .string();
}

void run(Context &C) {
  auto &Group = *C.dist.process_group;
  Net Model = make_model(C.device);
  auto Optimizer = std::make_unique<torch::optim::SGD>(Model->parameters(),
                                                       kLearningRate);

  // Resume: the checkpoint holds the same values the model starts with.
  const std::string Path = checkpointPath(C.dist.rank);
  torch::save(Model, Path);
  if (C.variant == "fixed") {
    torch::load(Model, Path);
  } else {
    Model = make_model(C.device);
    torch::load(Model, Path);
    if (C.variant == "fixed-rebuild")
      Optimizer = std::make_unique<torch::optim::SGD>(Model->parameters(),
                                                      kLearningRate);
  }
  std::remove(Path.c_str());

  double FirstLoss = 0, LastLoss = 0;
  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(0, C.dist.rank, C.device); // one batch: a fit
    Optimizer->zero_grad();
    torch::Tensor Loss = torch::mse_loss(Model->forward(B.x), B.y);
    Loss.backward();
    average_gradients(Model, Group);
    Optimizer->step();
    C.probe.step(*Model, Step);
    (Step == 0 ? FirstLoss : LastLoss) = Loss.item<double>();
  }
  C.probe.result({{"first_loss", FirstLoss}, {"last_loss", LastLoss}});
}

} // namespace

namespace ddpscenario {
extern const Scenario OptimizerStaleParameters = {
    "optimizer-stale-parameters",
    "ddp-optimizer-stale-parameters",
    "progress",
    {"buggy", "fixed", "fixed-rebuild"},
    "the optimizer holds the parameters of a module replaced before training",
    run};
} // namespace ddpscenario
