//===- fake-scenario.cpp - A stand-in for ddp-scenario --------------------===//
//
// Speaks ddp-scenario's interface (docs/harness.md) with the toy programs of
// this directory, so `ddp-harness scenarios` is tested without LibTorch:
//
//   fake-scenario --list
//   fake-scenario NAME VARIANT [--steps K] [--device cpu|cuda]
//
// FAKE_SCENARIO_LIST=broken adds list entries that break the interface;
// FAKE_SCENARIO_LIST=progress adds a scenario of the progress kind.
//
//===----------------------------------------------------------------------===//

#include "DataOrder.h"
#include "Hang.h"
#include "Training.h"

#include <cstring>

static const char *List = R"([
  {"name": "unwrapped-forward", "check": "ddp-unwrapped-forward",
   "kind": "divergence", "variants": ["buggy", "fixed"],
   "description": "each rank steps with its own gradients"},
  {"name": "divergent-collective", "check": "ddp-divergent-collective",
   "kind": "hang", "variants": ["buggy", "fixed"],
   "description": "the last rank skips an all-reduce"},
  {"name": "sampler-epoch", "check": "ddp-sampler-epoch",
   "kind": "data-order", "variants": ["buggy", "fixed"],
   "description": "the same order every epoch"},
  {"name": "unaveraged-allreduce", "check": "ddp-unaveraged-allreduce",
   "kind": "gradient-scale", "variants": ["buggy", "fixed"],
   "description": "summed gradients, never divided"},
  {"name": "unused-parameters", "check": "ddp-unused-parameters",
   "kind": "hang", "variants": ["buggy", "fixed"],
   "description": "every rank fails on the wrapper's own error"})";

static const char *BrokenEntries = R"(,
  {"name": "../escape", "check": "ddp-x", "kind": "divergence",
   "variants": ["buggy"]},
  {"name": "no-variants", "check": "ddp-y", "kind": "divergence"},
  42)";

static const char *ProgressEntries = R"(,
  {"name": "optimizer-stale-parameters",
   "check": "ddp-optimizer-stale-parameters", "kind": "progress",
   "variants": ["buggy", "fixed"],
   "description": "the optimizer steps tensors the module no longer has"})";

int main(int Argc, char **Argv) {
  if (Argc >= 2 && std::strcmp(Argv[1], "--list") == 0) {
    const char *Mode = std::getenv("FAKE_SCENARIO_LIST");
    const char *Extra = "";
    if (Mode && std::strcmp(Mode, "broken") == 0)
      Extra = BrokenEntries;
    else if (Mode && std::strcmp(Mode, "progress") == 0)
      Extra = ProgressEntries;
    std::printf("%s%s\n]\n", List, Extra);
    return 0;
  }
  if (Argc < 3) {
    std::fprintf(stderr, "usage: fake-scenario --list | NAME VARIANT "
                         "[--steps K]\n");
    return 2;
  }
  std::string Name = Argv[1], Variant = Argv[2];
  bool Buggy = Variant == "buggy";
  if (!Buggy && Variant != "fixed") {
    std::fprintf(stderr, "fake-scenario: unknown variant '%s'\n",
                 Variant.c_str());
    return 2;
  }
  RankEnv Env = readRankEnv();
  int Steps = std::atoi(flagValue(Argc, Argv, "--steps", "5").c_str());
  std::printf("rank %d: %s %s on %s\n", Env.Rank, Name.c_str(),
              Variant.c_str(),
              flagValue(Argc, Argv, "--device", "cpu").c_str());
  if (Name == "unwrapped-forward") {
    TrainingOptions O;
    O.Steps = Steps;
    O.UnsyncedFrom = Buggy ? 0 : -1;
    return runTraining(Env, O);
  }
  if (Name == "unaveraged-allreduce") {
    TrainingOptions O;
    O.Steps = Steps;
    O.SumWithoutAverage = Buggy;
    return runTraining(Env, O);
  }
  if (Name == "optimizer-stale-parameters") {
    TrainingOptions O;
    O.Steps = Steps;
    O.Frozen = Buggy;
    return runTraining(Env, O);
  }
  if (Name == "sampler-epoch") {
    DataOrderOptions O;
    O.SameOrder = Buggy;
    return runDataOrder(Env, O);
  }
  if (Name == "unused-parameters") {
    if (!Buggy)
      return 0;
    std::fprintf(stderr, "rank %d: 2 parameters got no gradient\n", Env.Rank);
    return 1;
  }
  if (Name == "divergent-collective")
    return runCollectiveSteps(Env, Steps, Buggy ? 2 : -1, false);
  std::fprintf(stderr, "fake-scenario: unknown scenario '%s'\n", Name.c_str());
  return 2;
}
