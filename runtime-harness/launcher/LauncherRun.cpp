//===- LauncherRun.cpp - ddp-harness run --launcher mpirun|torchrun -------===//
//
// On one machine, the harness starts `mpirun -np N` or `torchrun
// --nproc-per-node N` around the program instead of starting the ranks
// itself, watches that one process as it watches a rank (timeout, crash,
// interrupt, leftovers), and then analyses the run directory as `analyze`
// does. The ranks find their rank in the launcher's own variables.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "ExitCodes.h"
#include "ForeignRuns.h"
#include "Launcher.h"
#include "Process.h"

#include "llvm/ADT/StringRef.h"

#include <cstdio>
#include <unistd.h>

using namespace ddpharness;

/// Open MPI refuses to start as root without --allow-run-as-root; the
/// harness chose N, so more ranks than cores is intended (--oversubscribe).
/// Local ranks inherit mpirun's environment; -x also passes each variable
/// to ranks on other hosts, and NAME=VALUE gives the ranks a variable (the
/// auto-probe's LD_PRELOAD) that mpirun itself must not load.
static std::vector<std::string>
mpirunCommand(const std::string &Path, const std::vector<std::string> &Program,
              int NumRanks, const std::vector<std::string> &RankEnv) {
  std::vector<std::string> Cmd = {Path, "-np", std::to_string(NumRanks)};
  if (geteuid() == 0)
    Cmd.push_back("--allow-run-as-root");
  Cmd.push_back("--oversubscribe");
  for (const char *Name : {"MASTER_ADDR", "MASTER_PORT", "DDP_HARNESS_RUN_DIR",
                           "DDP_HARNESS_BACKEND", "OMP_NUM_THREADS"}) {
    Cmd.push_back("-x");
    Cmd.push_back(Name);
  }
  for (const std::string &Entry : RankEnv) {
    Cmd.push_back("-x");
    Cmd.push_back(Entry);
  }
  Cmd.insert(Cmd.end(), Program.begin(), Program.end());
  return Cmd;
}

std::vector<std::string> ddpharness::foreignLauncherCommand(
    const std::string &Launcher, const std::string &LauncherPath,
    const std::vector<std::string> &Program, int NumRanks,
    const std::vector<std::string> &RankEnv) {
  if (Launcher == "mpirun")
    return mpirunCommand(LauncherPath, Program, NumRanks, RankEnv);
  // torchrun sets MASTER_ADDR/MASTER_PORT itself (--standalone: a free
  // port on this host); --no-python runs a program that is not a script.
  std::vector<std::string> Cmd = {LauncherPath, "--standalone", "--no-python",
                                  "--nproc-per-node",
                                  std::to_string(NumRanks)};
  Cmd.insert(Cmd.end(), Program.begin(), Program.end());
  return Cmd;
}

int ddpharness::runUnderLauncher(const std::string &Launcher,
                                 LaunchOptions Options, bool Json) {
  llvm::Expected<std::string> Path = resolveExecutable(Launcher);
  if (!Path) {
    llvm::consumeError(Path.takeError());
    return reportHarnessError(
        "run", "--launcher " + Launcher + ": '" + Launcher +
                   "' is not installed (not found in PATH)" +
                   (Launcher == "torchrun"
                        ? "; it comes with PyTorch (pip install torch)"
                        : "; on Debian it is in openmpi-bin"));
  }
  // The ranks' extra variables (the auto-probe's LD_PRELOAD) go to the ranks
  // through mpirun's -x, not into mpirun itself.
  std::vector<std::string> RankEnv;
  if (Launcher == "mpirun")
    RankEnv.swap(Options.Environment);
  Options.Command = foreignLauncherCommand(Launcher, *Path, Options.Command,
                                           Options.NumRanks, RankEnv);
  Options.ForeignLauncher = Launcher;
  llvm::Expected<LaunchResult> Launched = launchRanks(Options);
  if (!Launched)
    return reportHarnessError("run", llvm::toString(Launched.takeError()));
  std::vector<std::string> Warnings;
  if (llvm::Error E = writeFileAtomically(Options.RunDir + "/harness.json",
                                          harnessRecordJson(Options,
                                                            *Launched)))
    Warnings.push_back(llvm::toString(std::move(E)));
  int ExitCode = exitCodeFor(*Launched);
  llvm::Expected<AnalysedRun> Run = analyseRunDirectoryOf(
      Options.RunDir, Options.NumRanks, /*MissingIsError=*/false, Warnings);
  if (!Run) {
    reportHarnessError("run", llvm::toString(Run.takeError()));
    return ExitCode == ExitOk ? ExitHarnessError : ExitCode;
  }
  Run->Result = *Launched;
  HarnessRecord Process = recordOf(*Launched);
  Process.Launcher = Launcher;
  printRunReport(Options, *Run, Process, ExitCode, Json);
  return ExitCode;
}
