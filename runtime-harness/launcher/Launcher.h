//===- Launcher.h - Starting and watching the ranks -----------------------===//
//
// launchRanks() starts N processes of one program with torchrun's
// environment, streams their output line by line, and ends the run the way a
// data-parallel job needs: a rank that crashes takes the others down after a
// short grace (they would wait in a collective forever), a run that outlives
// its timeout is killed, and nothing the ranks started survives the run.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_LAUNCHER_H
#define DDPHARNESS_LAUNCHER_LAUNCHER_H

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ddpharness {

/// How the processes ended, as a whole.
enum class ProcessVerdict { Ok, Hang, Crash, Interrupted };
const char *processVerdictName(ProcessVerdict V);

/// Where the ranks' output lines go while they run. Raw output is always
/// kept in the run directory as well.
enum class RankOutput {
  /// A rank's stdout to our stdout, its stderr to our stderr.
  Stream,
  /// Both to our stderr (our stdout carries a JSON report).
  StreamToStderr,
  /// Only into the run directory's logs.
  LogOnly,
};

struct LaunchOptions {
  int NumRanks = 2;
  std::string Backend = "gloo";
  double TimeoutSeconds = 300;
  /// How long the other ranks may go on after one crashed, and how long a
  /// SIGTERM has to work before SIGKILL follows.
  double GraceSeconds = 2;
  /// Absolute path of an existing, writable directory.
  std::string RunDir;
  /// The program (already resolved to a path) and its arguments.
  std::vector<std::string> Command;
  /// "NAME=VALUE" entries each rank gets on top of the harness's own
  /// environment (they replace inherited ones of the same name).
  std::vector<std::string> Environment;
  RankOutput Output = RankOutput::Stream;
  /// Called with the chosen MASTER_PORT just before the ranks start.
  std::function<void(int Port)> OnStart;
};

struct RankStatus {
  int Rank = 0;
  pid_t Pid = -1;
  bool Reaped = false;
  /// Exit code when it exited, -1 when a signal ended it.
  int ExitCode = -1;
  int Signal = 0;
  /// The harness had signalled it before it ended (timeout, another rank's
  /// crash, or an interrupt), so its end is not its own failure.
  bool StoppedByHarness = false;
  /// The last line it printed on either stream, sanitized.
  std::string LastLine;

  bool failedOnItsOwn() const {
    return Reaped && !StoppedByHarness && (Signal != 0 || ExitCode != 0);
  }
  /// "exited with code 0", "killed by SIGSEGV", "stopped by the harness
  /// (SIGTERM)".
  std::string describe() const;
};

struct LaunchResult {
  ProcessVerdict Verdict = ProcessVerdict::Ok;
  int Port = 0;
  std::vector<RankStatus> Ranks;
  /// The rank whose failure made the verdict `crash`, or -1.
  int CrashedRank = -1;
  /// Set for `interrupted`: the signal the harness itself received.
  int InterruptSignal = 0;
  double WallSeconds = 0;
  /// Processes the ranks left behind (still in a rank's process group, or
  /// orphaned below the harness) that the harness had to kill.
  unsigned LeftoverProcesses = 0;
};

/// Runs the ranks to their end. Fails only when the harness cannot do its
/// job (no port, no pipes, a program that cannot be executed); whatever the
/// ranks do is reported in the result.
llvm::Expected<LaunchResult> launchRanks(const LaunchOptions &Options);

} // namespace ddpharness

#endif
