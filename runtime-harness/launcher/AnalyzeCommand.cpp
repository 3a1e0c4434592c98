//===- AnalyzeCommand.cpp - ddp-harness analyze RUN_DIR -------------------===//
//
// Reads a run directory that ranks started by another launcher wrote (mpirun,
// torchrun, srun, each rank given DDP_HARNESS_RUN_DIR) and prints what `run`
// prints for its own runs: the tables, the verdicts and drift.svg.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "ExitCodes.h"
#include "ForeignRuns.h"
#include "Options.h"
#include "Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdio>

using namespace ddpharness;

/// The ranks below the world size that wrote no probe file, as "1, 3".
static std::string missingRanks(const RunEvidence &Evidence, int World) {
  std::string Missing;
  for (int R = 0; R < World; ++R) {
    bool Has = R < static_cast<int>(Evidence.Ranks.size()) &&
               Evidence.Ranks[R].HasProbe;
    if (!Has)
      Missing += (Missing.empty() ? "" : ", ") + std::to_string(R);
  }
  return Missing;
}

/// The world size the probes recorded (their world_size), or the number of
/// ranks with files when no step says.
static int recordedWorldSize(const RunEvidence &Evidence) {
  int World = static_cast<int>(Evidence.Ranks.size());
  for (const RankEvidence &R : Evidence.Ranks)
    for (const ProbeStep &S : R.Steps)
      World = std::max(World, S.WorldSize);
  return World;
}

llvm::Expected<AnalysedRun>
ddpharness::analyseRunDirectoryOf(const std::string &Dir, int ExpectedRanks,
                                  bool MissingIsError,
                                  std::vector<std::string> HarnessWarnings,
                                  std::optional<HarnessRecord> *Recorded) {
  if (!llvm::sys::fs::is_directory(Dir))
    return makeError("run directory '" + Dir + "' does not exist");
  llvm::Expected<RunEvidence> Evidence = readRunDirectory(Dir, ExpectedRanks);
  if (!Evidence)
    return Evidence.takeError();
  bool NoProbe =
      std::none_of(Evidence->Ranks.begin(), Evidence->Ranks.end(),
                   [](const RankEvidence &R) { return R.HasProbe; });
  // Ranks that recorded no probe but their collectives (a raw MPI or NCCL
  // program) are analysed for the trace alone.
  bool Traced = llvm::sys::fs::exists(Dir + "/collectives-rank0.tsv");
  if (NoProbe && (!MissingIsError || Traced)) {
    if (Recorded)
      *Recorded = Evidence->Harness;
    return analyseEvidence(*Evidence, HarnessWarnings, "", "");
  }
  if (NoProbe)
    return makeError(
        "no probe files (probe-rank<R>.jsonl) in '" + Dir +
        "': each rank needs DDP_HARNESS_RUN_DIR set to this directory, and a "
        "probe (the harness library's, or the auto-probe preloaded)");
  if (Recorded)
    *Recorded = Evidence->Harness;
  int World = ExpectedRanks > 0 ? ExpectedRanks : recordedWorldSize(*Evidence);
  std::string Missing = missingRanks(*Evidence, World);
  if (!Missing.empty()) {
    std::string Message = "rank" +
                          std::string(Missing.find(',') == std::string::npos
                                          ? " "
                                          : "s ") +
                          Missing + " of " + std::to_string(World) +
                          " wrote no probe file in '" + Dir + "'";
    if (MissingIsError)
      return makeError(Message + " (on several machines, the run directory "
                                 "must be on a file system they share)");
    HarnessWarnings.push_back(Message);
  }
  return analyseEvidence(*Evidence, HarnessWarnings, "Cross-rank drift",
                         llvm::sys::path::filename(Dir).str());
}

int ddpharness::analyzeCommand(const std::vector<std::string> &Args) {
  std::string Dir, Format = "text";
  int NumRanks = 0;
  OptionParser Parser("analyze",
                      "analyze [--nproc N] [--format text|json] RUN_DIR");
  Parser.addInt("nproc", &NumRanks, 1, "N",
                "the world size (default: what the probes recorded)");
  Parser.addChoice("format", &Format, {"text", "json"},
                   "report as tables (default) or one JSON object on stdout");
  Parser.addPositional("RUN_DIR", &Dir, /*Required=*/true);
  if (llvm::Error E = Parser.parse(Args))
    return reportHarnessError("analyze", llvm::toString(std::move(E)) + "\n" +
                                             Parser.usage());
  if (Parser.helpRequested()) {
    std::fputs(Parser.usage().c_str(), stdout);
    return ExitOk;
  }
  llvm::SmallString<256> Abs(Dir);
  llvm::sys::fs::make_absolute(Abs);
  std::optional<HarnessRecord> Recorded;
  llvm::Expected<AnalysedRun> Run = analyseRunDirectoryOf(
      Abs.str().str(), NumRanks, /*MissingIsError=*/true, {}, &Recorded);
  if (!Run)
    return reportHarnessError("analyze", llvm::toString(Run.takeError()));
  LaunchOptions Options;
  Options.RunDir = Abs.str().str();
  Options.NumRanks = Run->Analysis.NumRanks;
  Options.Backend = "";
  // A directory `run` wrote has its record of the processes; for ranks
  // another launcher started, that launcher's exit status is the record.
  HarnessRecord Process;
  Process.Verdict = "not recorded";
  if (Recorded && !Recorded->Verdict.empty())
    Process = *Recorded;
  printRunReport(Options, *Run, Process, ExitOk, Format == "json");
  return ExitOk;
}
