//===- ProbeBench.cpp - What the probe costs a training step --------------===//
//
//   ddp-probe-bench [--steps N] [--interval K] [--device cpu|cuda]
//                   [--tensor-ops]
//
// One process trains a small MLP (64-256-256-10, about 85k parameters) with
// SGD for N steps on the device, calling the probe after every optimizer
// step as a program under the harness does, and prints one JSON object with
// the seconds per step: in all, in training, and in the probe's calls.
// Whether the probe records depends on DDP_HARNESS_RUN_DIR, as for any
// program: bench/harness_probe.py runs this with and without it and
// compares. `--tensor-ops` makes the probe fingerprint CPU tensors the way
// it fingerprints CUDA tensors (ProbeOptions::hash_with_tensor_ops). On
// CUDA the device is synchronized before each clock reading, so the
// probe's time includes the kernels it waits for.
//
//===----------------------------------------------------------------------===//

#include "ddpharness/Probe.h"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct BenchOptions {
  int64_t Steps = 1000;
  ddpharness::ProbeOptions Probe;
  std::string DeviceName = "cpu";
};

/// The flags; false after a usage error.
bool parseFlags(int Argc, char **Argv, BenchOptions &Out) {
  for (int I = 1; I < Argc; ++I) {
    bool HasValue = I + 1 < Argc;
    if (std::strcmp(Argv[I], "--tensor-ops") == 0)
      Out.Probe.hash_with_tensor_ops = true;
    else if (HasValue && std::strcmp(Argv[I], "--steps") == 0)
      Out.Steps = std::atoll(Argv[++I]);
    else if (HasValue && std::strcmp(Argv[I], "--interval") == 0)
      Out.Probe.interval = std::atoll(Argv[++I]);
    else if (HasValue && std::strcmp(Argv[I], "--device") == 0)
      Out.DeviceName = Argv[++I];
    else {
      std::fprintf(stderr, "usage: ddp-probe-bench [--steps N] [--interval K] "
                           "[--device cpu|cuda] [--tensor-ops]\n");
      return false;
    }
  }
  if (Out.Steps < 1) {
    std::fprintf(stderr, "ddp-probe-bench: --steps must be at least 1\n");
    return false;
  }
  return true;
}

using Clock = std::chrono::steady_clock;

struct Timings {
  Clock::duration Training{}, Probing{};
};

/// Trains the MLP for the steps, probing after each, and times both.
Timings train(const BenchOptions &Options, torch::Device Device,
              ddpharness::Probe &Probe) {
  torch::manual_seed(0);
  torch::nn::Sequential Model(
      torch::nn::Linear(64, 256), torch::nn::ReLU(),
      torch::nn::Linear(256, 256), torch::nn::ReLU(),
      torch::nn::Linear(256, 10));
  Model->to(Device);
  torch::optim::SGD Optimizer(Model->parameters(), 0.01);
  auto X = torch::randn({32, 64}).to(Device);
  auto Y = torch::randint(0, 10, {32}).to(Device);
  // CUDA kernels run behind the host: a clock reading waits for them.
  auto now = [&] {
    if (Device.is_cuda())
      torch::cuda::synchronize();
    return Clock::now();
  };

  // The probe's own time is taken apart from the training's in the same
  // run: on a loaded machine, two separate runs differ by more than the
  // probe costs.
  Timings T;
  for (int64_t Step = 0; Step < Options.Steps; ++Step) {
    auto T0 = now();
    Optimizer.zero_grad();
    torch::nn::functional::cross_entropy(Model->forward(X), Y).backward();
    Optimizer.step();
    auto T1 = now();
    Probe.step(*Model, Step);
    T.Probing += now() - T1;
    T.Training += T1 - T0;
  }
  return T;
}

} // namespace

int main(int Argc, char **Argv) {
  BenchOptions Options;
  if (!parseFlags(Argc, Argv, Options))
    return 2;
  bool Cuda = Options.DeviceName == "cuda";
  if (Cuda && !torch::cuda::is_available()) {
    std::fprintf(stderr, "ddp-probe-bench: no usable CUDA device\n");
    return 77;
  }
  torch::Device Device =
      Cuda ? torch::Device(torch::kCUDA) : torch::Device(Options.DeviceName);
  ddpharness::Probe Probe(Options.Probe);
  Timings T = train(Options, Device, Probe);
  auto seconds = [&](Clock::duration D) {
    return std::chrono::duration<double>(D).count() / Options.Steps;
  };
  std::printf("{\"steps\": %lld, \"interval\": %lld, \"device\": \"%s\", "
              "\"probe_enabled\": %s, "
              "\"seconds_per_step\": %.9g, \"training_seconds_per_step\": "
              "%.9g, \"probe_seconds_per_step\": %.9g}\n",
              static_cast<long long>(Options.Steps),
              static_cast<long long>(Options.Probe.interval),
              Options.DeviceName.c_str(), Probe.enabled() ? "true" : "false",
              seconds(T.Training + T.Probing), seconds(T.Training),
              seconds(T.Probing));
  return 0;
}
