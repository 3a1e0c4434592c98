//===- ForeignRuns.h - Runs whose ranks another launcher started ----------===//
//
// The ranks of a job that mpirun, torchrun or srun started find their rank in
// that launcher's variables (the harness library's LauncherEnv.h) and, given
// DDP_HARNESS_RUN_DIR, write their probe files into that directory, keyed by
// that rank. `ddp-harness analyze RUN_DIR` reads such a directory; `run
// --launcher mpirun|torchrun` starts the launcher itself on this machine and
// then analyses the directory the same way. Both reuse run's analysis
// (analyseEvidence) and report (printRunReport).
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_FOREIGNRUNS_H
#define DDPHARNESS_LAUNCHER_FOREIGNRUNS_H

#include "Run.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ddpharness {

/// Reads \p Dir and analyses it. The world size is \p ExpectedRanks when
/// positive, else the largest world_size a probe recorded. An error when
/// \p Dir is missing. With \p MissingIsError (analyze), also an error when
/// it holds no probe file or a rank below the world size wrote none (the
/// message names them); otherwise (a run whose processes' end explains it)
/// no probe data is reported as such and missing ranks are a warning. \p Recorded, when given, receives what
/// harness.json in \p Dir says of the processes, if there is one.
llvm::Expected<AnalysedRun>
analyseRunDirectoryOf(const std::string &Dir, int ExpectedRanks,
                      bool MissingIsError,
                      std::vector<std::string> HarnessWarnings = {},
                      std::optional<HarnessRecord> *Recorded = nullptr);

/// The command line that starts \p Options.NumRanks ranks of
/// \p Options.Command under \p Launcher ("mpirun" at \p LauncherPath, or
/// "torchrun"), passing the variables in \p RankEnv to every rank.
std::vector<std::string>
foreignLauncherCommand(const std::string &Launcher,
                       const std::string &LauncherPath,
                       const std::vector<std::string> &Program, int NumRanks,
                       const std::vector<std::string> &RankEnv);

/// `run --launcher L`: starts the launcher around \p Options.Command (one
/// process, watched as a rank is), then analyses the run directory as
/// `analyze` does. Returns the exit code.
int runUnderLauncher(const std::string &Launcher, LaunchOptions Options,
                     bool Json);

} // namespace ddpharness

#endif
