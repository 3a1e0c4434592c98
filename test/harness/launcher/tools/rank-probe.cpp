//===- rank-probe.cpp - A rank that trains the toy model and probes it ----===//
//
// rank-probe [--steps N] [--unsynced-from K] [--sum] [--connect]
//            [--wrong-hash] [--print-env]
//
// See Training.h for the formulas behind every expected value.
//
//===----------------------------------------------------------------------===//

#include "Training.h"

int main(int Argc, char **Argv) {
  RankEnv Env = readRankEnv();
  if (hasFlag(Argc, Argv, "--print-env"))
    std::printf("RANK=%d LOCAL_RANK=%d WORLD_SIZE=%d LOCAL_WORLD_SIZE=%d "
                "MASTER_ADDR=%s MASTER_PORT=%d DDP_HARNESS_BACKEND=%s "
                "DDP_HARNESS_RUN_DIR=%s\n",
                Env.Rank, Env.LocalRank, Env.WorldSize, Env.LocalWorldSize,
                Env.Addr.c_str(), Env.Port, Env.Backend.c_str(),
                Env.RunDir.c_str());
  TrainingOptions O;
  O.Steps = std::atoi(flagValue(Argc, Argv, "--steps", "5").c_str());
  O.UnsyncedFrom =
      std::atoi(flagValue(Argc, Argv, "--unsynced-from", "-1").c_str());
  O.SumWithoutAverage = hasFlag(Argc, Argv, "--sum");
  O.Connect = hasFlag(Argc, Argv, "--connect");
  O.WrongHash = hasFlag(Argc, Argv, "--wrong-hash");
  return runTraining(Env, O);
}
