//===- Scenarios.h - The scenario program and one measured variant --------===//
//
// ddp-scenario lists what it demonstrates (`--list`) and runs one variant of
// one scenario per invocation. `scenarios` runs all of them; `confirm` runs
// the one matching a finding's check. Both go through here.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_SCENARIOS_H
#define DDPHARNESS_LAUNCHER_SCENARIOS_H

#include "RunRecords.h"
#include "Svg.h"
#include "Verdict.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ddpharness {

struct ScenarioInfo {
  std::string Name;
  std::string Check;
  ScenarioKind Kind = ScenarioKind::Unknown;
  std::string KindName;
  std::vector<std::string> Variants;
  /// The program lists it with "device": "cuda": it races CUDA streams and
  /// runs only with --device cuda.
  bool NeedsCuda = false;
};

/// `$DDP_HARNESS_SCENARIO_BIN`, or `../libexec/ddp-scenario` next to
/// ddp-harness.
std::string scenarioProgram();

/// Runs `PROGRAM --list` and parses it. Entries that break the interface
/// are skipped with a warning and counted in \p Skipped; a program that
/// cannot run or does not print a JSON array is an error.
llvm::Expected<std::vector<ScenarioInfo>>
listScenarios(const std::string &Program, std::vector<std::string> &Warnings,
              unsigned &Skipped);

/// The scenario program, resolved, and what it lists.
struct ScenarioProgram {
  std::string Path;
  std::vector<ScenarioInfo> Scenarios;
  /// Entries that broke the interface (a warning was printed for each).
  unsigned Skipped = 0;
};

/// Resolves scenarioProgram() and lists its scenarios, printing the
/// listing's warnings as "ddp-harness <Command>: warning: ...". An error
/// when the program is missing or does not list.
llvm::Expected<ScenarioProgram> loadScenarioProgram(const std::string &Command);

struct VariantOptions {
  /// "scenarios" or "confirm": names the command in messages.
  std::string Command = "scenarios";
  int NumRanks = 2;
  std::string Backend = "gloo";
  double HangTimeout = 10;
  double RunTimeout = 300;
  double Grace = 2;
  int Steps = 0;
  std::string Device;
  RankOutput Output = RankOutput::LogOnly;
};

struct VariantOutcome {
  /// The measured verdict, or "harness error".
  std::string Verdict;
  std::string RunDir;
  std::optional<int64_t> FirstDivergentStep;
  std::optional<double> MaxDrift;
  llvm::json::Object Metrics;
  double WallSeconds = 0;
  bool HarnessError = false;
  ProcessVerdict Process = ProcessVerdict::Ok;
  int InterruptSignal = 0;
  /// Drift over steps; empty when the probe recorded nothing.
  std::optional<DriftSeries> Series;
  /// The verdict as each kind measures it (one run of a user's program
  /// serves checks of several kinds).
  std::map<ScenarioKind, std::string> KindVerdicts;
  /// Where the ranks' collectives parted: each rank's call sites there,
  /// and the sentence that says so (empty when they never parted).
  std::vector<std::pair<std::string, int>> PartedAt;
  std::string Parted;
  llvm::json::Array PartedTable;
};

/// A program run measured the way a scenario of kind \p Kind is.
struct MeasuredCommand {
  /// The program, resolved, and its arguments.
  std::vector<std::string> Command;
  /// Extra "NAME=VALUE" for every rank.
  std::vector<std::string> Environment;
  ScenarioKind Kind = ScenarioKind::Unknown;
  /// What the progress line and warnings call the run ("move-after-wrap
  /// buggy"), and the drift picture's title and series label.
  std::string Title, SvgTitle, SvgLabel;
  double Timeout = 300;
};

/// Runs \p C under the launcher in the fresh directory \p Dir, writes
/// harness.json (and drift.svg when there is probe data) there, and measures
/// the verdict the way \p C.Kind is measured.
VariantOutcome runMeasured(const MeasuredCommand &C, const std::string &Dir,
                           const VariantOptions &Options);

/// Runs \p Variant of \p S under the launcher in the fresh directory \p Dir,
/// writes harness.json (and drift.svg when there is probe data) there, and
/// measures the verdict the way the scenario's kind is measured. Errors and
/// warnings go to stderr.
VariantOutcome runScenarioVariant(const std::string &Program,
                                  const ScenarioInfo &S,
                                  const std::string &Variant,
                                  const std::string &Dir,
                                  const VariantOptions &Options);

} // namespace ddpharness

#endif
