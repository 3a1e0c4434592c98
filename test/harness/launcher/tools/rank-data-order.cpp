//===- rank-data-order.cpp - A rank that records the indices it consumed --===//
//
// rank-data-order [--epochs E] [--dataset N] [--batch B] [--same-order]
//                 [--overlap]
//
//===----------------------------------------------------------------------===//

#include "DataOrder.h"

int main(int Argc, char **Argv) {
  RankEnv Env = readRankEnv();
  DataOrderOptions O;
  O.Epochs = std::atoi(flagValue(Argc, Argv, "--epochs", "3").c_str());
  O.DatasetSize = std::atoi(flagValue(Argc, Argv, "--dataset", "16").c_str());
  O.BatchSize = std::atoi(flagValue(Argc, Argv, "--batch", "2").c_str());
  O.SameOrder = hasFlag(Argc, Argv, "--same-order");
  O.Overlap = hasFlag(Argc, Argv, "--overlap");
  return runDataOrder(Env, O);
}
