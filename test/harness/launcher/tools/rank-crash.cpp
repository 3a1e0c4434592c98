//===- rank-crash.cpp - A rank that dies while the others wait ------------===//
//
// rank-crash [--exit-code N]
//
// Every rank meets the others once; then rank 1 dies (SIGSEGV, or exit N
// with --exit-code) while the others enter the next collective and wait.
//
//===----------------------------------------------------------------------===//

#include "Star.h"

#include <csignal>

int main(int Argc, char **Argv) {
  RankEnv Env = readRankEnv();
  Star Group(Env);
  Group.barrier();
  std::printf("rank %d: step 0 done\n", Env.Rank);
  std::fflush(stdout);
  if (Env.Rank == 1) {
    std::string Code = flagValue(Argc, Argv, "--exit-code", "");
    std::fprintf(stderr, "rank 1: about to fail\n");
    std::fflush(stderr);
    if (!Code.empty())
      return std::atoi(Code.c_str());
    std::raise(SIGSEGV);
  }
  std::printf("rank %d: entering all-reduce\n", Env.Rank);
  std::fflush(stdout);
  Group.barrier();
  return 0;
}
