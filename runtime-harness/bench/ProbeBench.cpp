//===- ProbeBench.cpp - What the probe costs a training step --------------===//
//
//   ddp-probe-bench [--steps N] [--interval K]
//
// One process trains a small MLP (64-256-256-10, about 85k parameters) with
// SGD for N steps, calling the probe after every optimizer step as a
// program under the harness does, and prints one JSON object with the
// seconds per step: in all, in training, and in the probe's calls. Whether the probe records depends on
// DDP_HARNESS_RUN_DIR, as for any program: bench/harness_probe.py runs this
// with and without it and compares.
//
//===----------------------------------------------------------------------===//

#include "ddpharness/Probe.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int Argc, char **Argv) {
  int64_t Steps = 1000;
  ddpharness::ProbeOptions Options;
  for (int I = 1; I + 1 < Argc; I += 2) {
    if (std::strcmp(Argv[I], "--steps") == 0)
      Steps = std::atoll(Argv[I + 1]);
    else if (std::strcmp(Argv[I], "--interval") == 0)
      Options.interval = std::atoll(Argv[I + 1]);
    else {
      std::fprintf(stderr, "usage: ddp-probe-bench [--steps N] "
                           "[--interval K]\n");
      return 2;
    }
  }
  if (Steps < 1) {
    std::fprintf(stderr, "ddp-probe-bench: --steps must be at least 1\n");
    return 2;
  }
  torch::manual_seed(0);
  torch::nn::Sequential Model(
      torch::nn::Linear(64, 256), torch::nn::ReLU(),
      torch::nn::Linear(256, 256), torch::nn::ReLU(),
      torch::nn::Linear(256, 10));
  torch::optim::SGD Optimizer(Model->parameters(), 0.01);
  ddpharness::Probe Probe(Options);
  auto X = torch::randn({32, 64});
  auto Y = torch::randint(0, 10, {32});

  // The probe's own time is taken apart from the training's in the same
  // run: on a loaded machine, two separate runs differ by more than the
  // probe costs.
  using Clock = std::chrono::steady_clock;
  Clock::duration Training{}, Probing{};
  for (int64_t Step = 0; Step < Steps; ++Step) {
    auto T0 = Clock::now();
    Optimizer.zero_grad();
    torch::nn::functional::cross_entropy(Model->forward(X), Y).backward();
    Optimizer.step();
    auto T1 = Clock::now();
    Probe.step(*Model, Step);
    Probing += Clock::now() - T1;
    Training += T1 - T0;
  }
  auto seconds = [&](Clock::duration D) {
    return std::chrono::duration<double>(D).count() / Steps;
  };
  std::printf("{\"steps\": %lld, \"interval\": %lld, \"probe_enabled\": %s, "
              "\"seconds_per_step\": %.9g, \"training_seconds_per_step\": "
              "%.9g, \"probe_seconds_per_step\": %.9g}\n",
              static_cast<long long>(Steps),
              static_cast<long long>(Options.interval),
              Probe.enabled() ? "true" : "false",
              seconds(Training + Probing), seconds(Training),
              seconds(Probing));
  return 0;
}
