//===- ForkedRanks.h - Ranks forked from one scenario process -------------===//
//
// Starting N LibTorch processes costs N loads of LibTorch; on a machine with
// fewer free cores than ranks they queue. For the harness's own scenario
// program the launcher can instead start one process, which forks the
// ranks once LibTorch is loaded (runtime-harness/scenarios/ForkRanks.h):
// DDP_HARNESS_FORKED_RANKS=STATUS:OUT0,ERR0:OUT1,ERR1... names the inherited
// pipes, rank 0's being that process's own stdout and stderr. The ranks
// and that supervisor share one process group, the supervisor's; it writes
// "pid RANK PID" after each fork and "exit RANK WAITSTATUS" as each rank
// ends, and exits when all have ended.
//
// DDP_HARNESS_SPAWN_RANKS=1 makes the launcher start one process per rank
// for the scenario program too.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_FORKEDRANKS_H
#define DDPHARNESS_LAUNCHER_FORKEDRANKS_H

#include "RunRecords.h"

#include "llvm/Support/Error.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace ddpharness {

/// Whether \p Options' ranks are forked from one process: several ranks
/// started by the harness itself, of the ddp-scenario built with it, and
/// DDP_HARNESS_SPAWN_RANKS not set.
bool forkRanksFor(const LaunchOptions &Options);

/// The supervisor, forked and exec'd, and the read ends of every rank's
/// stdout and stderr and of the status pipe.
struct ForkedStart {
  pid_t Pid = -1;
  std::vector<int> OutFds, ErrFds;
  int StatusFd = -1;
  int ExecFailedFd = -1;
};

llvm::Expected<ForkedStart> startForkedRanks(const LaunchOptions &Options,
                                             int Port);

/// One line of the status pipe.
struct ForkEvent {
  bool IsExit;
  int Rank;
  /// The pid for "pid", the wait status for "exit".
  long Value;
};

/// Reads what the status pipe holds now (it is nonblocking); closes it and
/// sets \p Fd to -1 at its end.
std::vector<ForkEvent> readForkEvents(int &Fd, std::string &Pending);

} // namespace ddpharness

#endif
