//===- Run.h - Launch, record, analyse, draw ------------------------------===//
//
// What every command that runs ranks does after choosing what to run: start
// them, write harness.json, read what the probes left, analyse it, and draw
// drift.svg when there is probe data.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_RUN_H
#define DDPHARNESS_LAUNCHER_RUN_H

#include "Analysis.h"
#include "RunDirectory.h"
#include "RunRecords.h"

#include "llvm/Support/Error.h"

#include <string>

namespace ddpharness {

struct AnalysedRun {
  LaunchResult Result;
  RunAnalysis Analysis;
  /// drift.svg in the run directory, or empty when there was no probe data
  /// or it could not be written (then a warning says why).
  std::string SvgPath;
};

/// Runs \p Options (its RunDir prepared) and analyses the evidence; the drift
/// picture is titled \p SvgTitle and its line labelled \p SvgLabel. Failing
/// to write harness.json or drift.svg is a warning in the analysis; failing
/// to start or to read the run directory is an error.
llvm::Expected<AnalysedRun> launchAndAnalyse(const LaunchOptions &Options,
                                             const std::string &SvgTitle,
                                             const std::string &SvgLabel);

/// The analysis half of launchAndAnalyse, for evidence already read from
/// \p Dir: analyses it, puts \p HarnessWarnings first among the warnings and
/// draws \p Dir/drift.svg when there is probe data. `ddp-harness analyze`
/// calls it for a run directory that ranks of another launcher wrote.
AnalysedRun analyseEvidence(const RunEvidence &Evidence,
                            const std::vector<std::string> &HarnessWarnings,
                            const std::string &SvgTitle,
                            const std::string &SvgLabel);

} // namespace ddpharness

#endif
