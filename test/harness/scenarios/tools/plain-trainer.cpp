//===- plain-trainer.cpp - A LibTorch trainer that never calls the probe --===//
//
// Sets up its process group from the launcher's environment (the harness
// library's setup, which reads torchrun's, Open MPI's, PMI's or Slurm's
// variables) and trains a small model with SGD, averaging its gradients by
// hand. Nothing here records a probe step: what the harness shows of it
// comes from the auto-probe that `ddp-harness run` preloads.
//
//   plain-trainer [--steps K] [--seed-per-rank] [--crash-after K]
//
// --seed-per-rank initialises each rank's model from its own seed and never
// broadcasts it, so the replicas differ from the first step. --crash-after
// K makes the last rank abort right after its K-th optimizer step.
//
//===----------------------------------------------------------------------===//

#include "ddpharness/ProcessGroup.h"

#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int Argc, char **Argv) {
  int Steps = 4;
  bool SeedPerRank = false;
  int CrashAfter = -1;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--crash-after") && I + 1 < Argc)
      CrashAfter = std::stoi(Argv[++I]);
    if (!std::strcmp(Argv[I], "--steps") && I + 1 < Argc)
      Steps = std::stoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--seed-per-rank"))
      SeedPerRank = true;
  }
  ddpharness::Distributed D = ddpharness::init_process_group_from_env();
  torch::manual_seed(SeedPerRank ? 100 + D.rank : 100);
  torch::nn::Linear Model(4, 2);
  torch::optim::SGD Optimizer(Model->parameters(), /*lr=*/0.1);
  torch::manual_seed(7 + D.rank);
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    torch::Tensor Loss = Model->forward(torch::randn({8, 4})).pow(2).mean();
    Loss.backward();
    for (torch::Tensor &P : Model->parameters()) {
      std::vector<torch::Tensor> Grad = {P.grad()};
      D.process_group->allreduce(Grad)->wait();
      P.grad().div_(D.world_size);
    }
    Optimizer.step();
    if (Step + 1 == CrashAfter && D.rank == D.world_size - 1)
      std::abort();
  }
  std::printf("rank %d of %d: %d steps\n", D.rank, D.world_size, Steps);
  return 0;
}
