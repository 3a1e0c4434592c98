//===- Run.cpp - Launch, record, analyse, draw ----------------------------===//

#include "Run.h"

#include "Launcher.h"
#include "RunDirectory.h"
#include "Svg.h"

using namespace ddpharness;

llvm::Expected<AnalysedRun>
ddpharness::launchAndAnalyse(const LaunchOptions &Options,
                             const std::string &SvgTitle,
                             const std::string &SvgLabel) {
  llvm::Expected<LaunchResult> Launched = launchRanks(Options);
  if (!Launched)
    return Launched.takeError();
  AnalysedRun Run;
  Run.Result = std::move(*Launched);

  std::vector<std::string> HarnessWarnings;
  if (llvm::Error E = writeFileAtomically(Options.RunDir + "/harness.json",
                                          harnessRecordJson(Options,
                                                            Run.Result)))
    HarnessWarnings.push_back(llvm::toString(std::move(E)));
  if (Run.Result.LeftoverProcesses)
    HarnessWarnings.push_back(
        "the ranks left " + std::to_string(Run.Result.LeftoverProcesses) +
        " process(es) running after they ended; the harness killed them");

  llvm::Expected<RunEvidence> Evidence =
      readRunDirectory(Options.RunDir, Options.NumRanks);
  if (!Evidence)
    return Evidence.takeError();
  AnalysedRun Analysed =
      analyseEvidence(*Evidence, HarnessWarnings, SvgTitle, SvgLabel);
  Analysed.Result = std::move(Run.Result);
  return std::move(Analysed);
}

AnalysedRun
ddpharness::analyseEvidence(const RunEvidence &Evidence,
                            const std::vector<std::string> &HarnessWarnings,
                            const std::string &SvgTitle,
                            const std::string &SvgLabel) {
  AnalysedRun Run;
  Run.Analysis = analyseRun(Evidence);
  Run.Analysis.Collectives =
      analyseCollectives(Evidence.Dir, int(Evidence.Ranks.size()));
  std::vector<std::string> &W = Run.Analysis.Warnings;
  W.insert(W.begin(), HarnessWarnings.begin(), HarnessWarnings.end());
  W.insert(W.end(), Run.Analysis.Collectives.Warnings.begin(),
           Run.Analysis.Collectives.Warnings.end());

  if (!Run.Analysis.Steps.empty()) {
    Run.SvgPath = Evidence.Dir + "/drift.svg";
    if (llvm::Error E = writeFileAtomically(
            Run.SvgPath,
            driftSvg(SvgTitle, {driftSeries(SvgLabel, Run.Analysis)}))) {
      W.push_back(llvm::toString(std::move(E)));
      Run.SvgPath.clear();
    }
  }
  return Run;
}
