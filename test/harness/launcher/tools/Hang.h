//===- Hang.h - A collective only some ranks reach ------------------------===//
//
// Every rank meets the others once per step; at step K the last rank skips
// the meeting (a collective under a rank-dependent condition) and waits for
// the next one, while the others wait for it: the job hangs, as it does with
// Gloo.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_TEST_HANG_H
#define DDPHARNESS_TEST_HANG_H

#include "Star.h"

#include <csignal>

/// Runs \p Steps steps; with \p SkipAt >= 0 the last rank skips the
/// collective of that step.
inline int runCollectiveSteps(const RankEnv &Env, int Steps, int SkipAt,
                              bool IgnoreTerm) {
  if (IgnoreTerm)
    std::signal(SIGTERM, SIG_IGN);
  Star Group(Env);
  Group.ReportPeerLoss = false;
  for (int Step = 0; Step < Steps; ++Step) {
    if (Step == SkipAt && Env.Rank == Env.WorldSize - 1) {
      std::printf("rank %d step %d: skipping the all-reduce\n", Env.Rank, Step);
      std::fflush(stdout);
      Group.waitForRoot();
      continue;
    }
    std::printf("rank %d step %d: entering all-reduce\n", Env.Rank, Step);
    std::fflush(stdout);
    Group.barrier();
  }
  std::printf("rank %d: done\n", Env.Rank);
  return 0;
}

#endif
