//===- RankProcess.h - One rank's process ---------------------------------===//
//
// How one rank is started: torchrun's environment for it, and a process of
// its own in a process group of its own, stdin from /dev/null, its stdout
// and stderr into pipes. Watching the ranks and ending the run is the
// launcher's (Launcher.h).
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_RANKPROCESS_H
#define DDPHARNESS_LAUNCHER_RANKPROCESS_H

#include "RunRecords.h"

#include "llvm/Support/Error.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace ddpharness {

/// The environment of rank \p Rank: the harness's own, without the
/// variables the launch sets (RANK, LOCAL_RANK, WORLD_SIZE,
/// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, DDP_HARNESS_RUN_DIR,
/// DDP_HARNESS_BACKEND, DDP_HARNESS_FORKED_RANKS) or those
/// \p Options.Environment replaces, then those, then OMP_NUM_THREADS=1 for
/// several ranks unless it was set.
std::vector<std::string> rankEnvironment(const LaunchOptions &Options, int Rank,
                                         int Port);

/// A rank's process, forked; whether exec worked is read from ExecFailedFd.
struct StartedRank {
  pid_t Pid;
  /// The read ends of its stdout and stderr.
  int OutFd, ErrFd;
  /// Closes on a successful exec; carries errno when exec failed.
  int ExecFailedFd;
};

/// Forks rank \p Rank of \p Options.Command. Fails when no pipe or no
/// process could be made; a program that cannot be executed is found with
/// readExecErrno, once the caller has taken charge of the process.
/// \p ExtraEnv is added to its environment and \p InheritFds stay open
/// across its exec (ranks forked from one process, ForkedRanks.h).
llvm::Expected<StartedRank>
startRank(const LaunchOptions &Options, int Rank, int Port,
          const std::vector<std::string> &ExtraEnv = {},
          const std::vector<int> &InheritFds = {});

/// The errno the child wrote to \p ExecFailedFd when exec failed, or 0
/// when the pipe closed on a successful exec. Closes the pipe.
int readExecErrno(int ExecFailedFd);

} // namespace ddpharness

#endif
