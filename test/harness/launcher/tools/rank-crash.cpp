//===- rank-crash.cpp - A rank that dies while the others wait ------------===//
//
// rank-crash [--exit-code N] [--backtrace]
//
// Every rank meets the others once; then rank 1 dies (SIGSEGV, or exit N
// with --exit-code) while the others enter the next collective and wait.
// --backtrace: its message is followed by a backtrace as LibTorch 2.x
// writes one into every c10::Error ("Exception raised from ...", frames).
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
    if (hasFlag(Argc, Argv, "--backtrace"))
      std::fprintf(stderr,
                   "Exception raised from run at socket.cpp:558 (most recent "
                   "call first):\n"
                   "frame #0: c10::Error::Error() + 0x92 (0x7f48 in libc10.so)\n"
                   "frame #1: <unknown function> + 0x6c0e (0x7f48 in "
                   "libtorch_cpu.so)\n\n");
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
