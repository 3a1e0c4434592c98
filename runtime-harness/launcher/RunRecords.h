//===- RunRecords.h - What a launch was asked to do and how it ended ------===//
//
// The records every layer above the process helpers shares: the launcher
// fills them, the run directory writes them to harness.json, the reports
// and the commands read them. They live here, apart from the code that
// starts ranks, so that the run directory does not depend on the launcher.
//
// The launcher's files form layers; a file includes only from its own
// layer and the layers before it, so no dependency runs in a circle
// (docs/harness.md, "Source layout", has the whole table, which
// test/harness/launcher/layers.test checks):
//
//   1. Process, OutputLines, Options, ExitCodes   POSIX, errors, lines, flags
//   2. RunRecords                                 these records
//   3. RunDirectory, RankProcess                  the evidence; one rank
//   4. Launcher, Analysis, Programs               starting, reading, building
//   5. Verdict, Svg                               what the evidence says
//   6. Report, Run                                tables; a measured run
//   7. Scenarios                                  ddp-scenario's variants
//   8. Commands, *Command, Confirm*, main         the subcommands
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_RUNRECORDS_H
#define DDPHARNESS_LAUNCHER_RUNRECORDS_H

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
  /// Empty when the harness starts the ranks itself. Otherwise the name of
  /// the launcher \c Command starts ("mpirun", "torchrun"): the harness
  /// starts that one process, which starts NumRanks ranks and gives them
  /// their ranks; the process gets no RANK, LOCAL_RANK, WORLD_SIZE or
  /// LOCAL_WORLD_SIZE (inherited ones are removed too), and its output
  /// lines are prefixed with its name instead of a rank.
  std::string ForeignLauncher;

  /// How many processes the harness itself starts.
  int processCount() const { return ForeignLauncher.empty() ? NumRanks : 1; }
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

} // namespace ddpharness

#endif
