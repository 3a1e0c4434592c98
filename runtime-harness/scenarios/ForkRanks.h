//===- ForkRanks.h - Ranks forked from one loaded process -----------------===//
//
// When ddp-harness runs ddp-scenario on several ranks, it may start one
// process instead of one per rank, with DDP_HARNESS_FORKED_RANKS set (see
// runtime-harness/launcher/ForkedRanks.h for the launcher's side). That
// process has loaded LibTorch once; at the top of main, before any thread
// exists, it forks one child per rank. Each child takes its RANK and
// LOCAL_RANK and its own stdout and stderr pipes and runs the scenario as a
// spawned rank would. The parent stays behind as a supervisor: it reports
// each child's pid and wait status on the status pipe and exits once all of
// them have ended. Where a thread already exists at the fork point, each
// child execs this program afresh instead (a rank as slow as a spawned one,
// but correct).
//
//===----------------------------------------------------------------------===//

#ifndef DDPSCENARIO_FORKRANKS_H
#define DDPSCENARIO_FORKRANKS_H

#include <optional>

namespace ddpscenario {

/// Without DDP_HARNESS_FORKED_RANKS: nothing, std::nullopt. With it: returns
/// std::nullopt in each forked rank, which goes on as the rank named by its
/// RANK; the supervisor exits 0 after the last rank, without returning, or
/// the exit code of a malformed variable is returned.
std::optional<int> forkRanksFromEnvironment(char **Argv);

/// In a rank forked by forkRanksFromEnvironment (not exec'd afresh). Such a
/// rank ends with exitForkedRank: LibTorch's exit handlers deregister every
/// operator, writing to most of the heap the rank shares with the
/// supervisor, and each page written is copied first.
bool isForkedRank();

/// Flushes stdio and ends the process with \p Code, without exit handlers.
[[noreturn]] void exitForkedRank(int Code);

} // namespace ddpscenario

#endif
