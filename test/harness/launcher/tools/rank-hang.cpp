//===- rank-hang.cpp - Ranks that hang in a collective --------------------===//
//
// rank-hang [--steps N] [--skip-at K] [--ignore-term]
//
// --ignore-term makes the ranks ignore SIGTERM, so only SIGKILL ends them.
//
//===----------------------------------------------------------------------===//

#include "Hang.h"

int main(int Argc, char **Argv) {
  RankEnv Env = readRankEnv();
  int Steps = std::atoi(flagValue(Argc, Argv, "--steps", "5").c_str());
  int SkipAt = std::atoi(flagValue(Argc, Argv, "--skip-at", "2").c_str());
  return runCollectiveSteps(Env, Steps, SkipAt,
                            hasFlag(Argc, Argv, "--ignore-term"));
}
