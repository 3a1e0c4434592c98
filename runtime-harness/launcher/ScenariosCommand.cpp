//===- ScenariosCommand.cpp - ddp-harness scenarios -----------------------===//
//
// ddp-harness scenarios [--nproc N] [--only NAME] [--format text|json] ...
//
// Asks the scenario program (ddp-scenario) what it demonstrates, runs every
// variant of every scenario under the launcher, and measures each variant's
// verdict the way its kind is measured (Verdict.h).
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Commands.h"
#include "ExitCodes.h"
#include "RunRecords.h"
#include "Options.h"
#include "Process.h"
#include "Report.h"
#include "RunDirectory.h"
#include "Scenarios.h"
#include "Svg.h"
#include "Verdict.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

struct Row {
  std::string Scenario, Check, Kind, Variant, Verdict, RunDir;
  std::optional<int64_t> FirstDivergentStep;
  std::optional<double> MaxDrift;
  json::Object Metrics;
  double WallSeconds = 0;
};

std::string formatStep(std::optional<int64_t> S) {
  return S ? std::to_string(*S) : "-";
}

void printTable(llvm::raw_ostream &OS, const std::vector<Row> &Rows) {
  const char *Header[] = {"scenario", "check", "variant", "verdict",
                          "first divergent step", "max drift"};
  std::vector<std::vector<std::string>> Cells;
  Cells.push_back(std::vector<std::string>(std::begin(Header),
                                           std::end(Header)));
  for (const Row &R : Rows)
    Cells.push_back({R.Scenario, R.Check, R.Variant, R.Verdict,
                     formatStep(R.FirstDivergentStep),
                     formatDrift(R.MaxDrift)});
  std::vector<size_t> Width(6, 0);
  for (const auto &Line : Cells)
    for (size_t C = 0; C < 6; ++C)
      Width[C] = std::max(Width[C], Line[C].size());
  for (const auto &Line : Cells) {
    std::string Text;
    for (size_t C = 0; C < 6; ++C) {
      if (C)
        Text += " | ";
      Text += Line[C] + std::string(Width[C] - Line[C].size(), ' ');
    }
    while (!Text.empty() && Text.back() == ' ')
      Text.pop_back();
    OS << Text << "\n";
  }
}

} // namespace

int ddpharness::scenariosCommand(const std::vector<std::string> &Args) {
  int NumRanks = 2, Steps = 0;
  std::string Backend = "gloo", Format = "text", Only, RunDir, Device;
  double HangTimeout = 10, RunTimeout = 300, Grace = 2;
  bool Verbose = false;
  OptionParser Parser("scenarios",
                      "scenarios [--nproc N] [--backend gloo|nccl] [--format "
                      "text|json] [--only NAME] [--timeout S]");
  Parser.addInt("nproc", &NumRanks, 1, "N", "ranks per run (default 2)");
  Parser.addChoice("backend", &Backend, {"gloo", "nccl"},
                   "DDP_HARNESS_BACKEND for the ranks (default gloo)");
  Parser.addChoice("format", &Format, {"text", "json"},
                   "a table (default) or one JSON array on stdout");
  Parser.addString("only", &Only, "NAME", "run this scenario only");
  Parser.addSeconds("timeout", &HangTimeout,
                    "timeout for scenarios of kind hang (default 10)");
  Parser.addSeconds("run-timeout", &RunTimeout,
                    "timeout for the other kinds (default 300)");
  Parser.addSeconds("grace", &Grace,
                    "grace after a crash and before SIGKILL (default 2)");
  Parser.addInt("steps", &Steps, 1, "K", "pass --steps K to every scenario");
  Parser.addChoice("device", &Device, {"cpu", "cuda"},
                   "pass --device to every scenario");
  Parser.addString("run-dir", &RunDir, "DIR",
                   "root of the run directories (default: a new directory "
                   "under $TMPDIR/ddp-harness)");
  Parser.addFlag("verbose", &Verbose, "stream the ranks' output");
  if (llvm::Error E = Parser.parse(Args))
    return reportHarnessError("scenarios", llvm::toString(std::move(E)) +
                                               "\n" + Parser.usage());
  if (Parser.helpRequested()) {
    std::fputs(Parser.usage().c_str(), stdout);
    return ExitOk;
  }
  bool Json = Format == "json";

  llvm::Expected<ScenarioProgram> Program = loadScenarioProgram("scenarios");
  if (!Program)
    return reportHarnessError("scenarios", llvm::toString(Program.takeError()));
  std::vector<ScenarioInfo> Scenarios = std::move(Program->Scenarios);
  // Skipped entries are the program's error; the rest still runs.
  bool HarnessError = Program->Skipped > 0;

  if (!Only.empty()) {
    std::vector<ScenarioInfo> Kept;
    std::vector<std::string> Names;
    for (ScenarioInfo &S : Scenarios) {
      Names.push_back(S.Name);
      if (S.Name == Only)
        Kept.push_back(std::move(S));
    }
    if (Kept.empty())
      return reportHarnessError("scenarios",
                                "no scenario named '" + Only +
                                    "'; the program lists: " +
                                    llvm::join(Names, ", "));
    Scenarios = std::move(Kept);
  }
  if (Scenarios.empty())
    return reportHarnessError("scenarios", "the program lists no scenario");

  llvm::Expected<std::string> Root = makeFreshDirectory(RunDir, "scenarios");
  if (!Root)
    return reportHarnessError("scenarios", llvm::toString(Root.takeError()));

  VariantOptions VOpts;
  VOpts.NumRanks = NumRanks;
  VOpts.Backend = Backend;
  VOpts.HangTimeout = HangTimeout;
  VOpts.RunTimeout = RunTimeout;
  VOpts.Grace = Grace;
  VOpts.Steps = Steps;
  VOpts.Device = Device;
  VOpts.Output = !Verbose ? RankOutput::LogOnly
                 : Json   ? RankOutput::StreamToStderr
                          : RankOutput::Stream;

  std::vector<Row> Rows;
  bool AnyCrash = false, AnyUnexpectedHang = false;
  for (const ScenarioInfo &S : Scenarios) {
    std::vector<DriftSeries> Series;
    for (const std::string &Variant : S.Variants) {
      Row R{S.Name, S.Check, S.KindName, Variant, "", ""};
      VariantOutcome Out = runScenarioVariant(
          Program->Path, S, Variant, *Root + "/" + S.Name + "/" + Variant, VOpts);
      R.Verdict = Out.Verdict;
      R.RunDir = Out.RunDir;
      R.FirstDivergentStep = Out.FirstDivergentStep;
      R.MaxDrift = Out.MaxDrift;
      R.Metrics = std::move(Out.Metrics);
      R.WallSeconds = Out.WallSeconds;
      HarnessError |= Out.HarnessError;
      if (!Out.HarnessError) {
        // A hang scenario measures whether the ranks finish together: its
        // buggy variant hanging, or failing on a wrapper's own error, is
        // the verdict it expects.
        AnyCrash |= Out.Process == ProcessVerdict::Crash &&
                    S.Kind != ScenarioKind::Hang;
        AnyUnexpectedHang |= Out.Process == ProcessVerdict::Hang &&
                             S.Kind != ScenarioKind::Hang;
        if (Out.Process == ProcessVerdict::Interrupted) {
          std::fprintf(stderr, "ddp-harness scenarios: interrupted\n");
          return 128 + Out.InterruptSignal;
        }
        Series.push_back(Out.Series ? *Out.Series : DriftSeries{Variant, {}});
      }
      Rows.push_back(std::move(R));
    }
    if (llvm::Error E = writeFileAtomically(
            *Root + "/" + S.Name + "/drift.svg",
            driftSvg("Cross-rank drift: " + S.Name + " (" + S.Check + ")",
                     Series)))
      std::fprintf(stderr, "ddp-harness scenarios: warning: %s\n",
                   llvm::toString(std::move(E)).c_str());
  }

  if (Json) {
    json::Array Out;
    for (Row &R : Rows) {
      json::Value First = nullptr;
      if (R.FirstDivergentStep)
        First = *R.FirstDivergentStep;
      Out.push_back(json::Object{
          {"scenario", R.Scenario},
          {"check", R.Check},
          {"kind", R.Kind},
          {"variant", R.Variant},
          {"verdict", R.Verdict},
          {"first_divergent_step", std::move(First)},
          {"max_drift", numberOrNull(R.MaxDrift)},
          {"metrics", std::move(R.Metrics)},
          {"wall_seconds", R.WallSeconds},
          {"run_dir", R.RunDir}});
    }
    llvm::outs() << llvm::formatv("{0:2}", json::Value(std::move(Out)))
                 << "\n";
  } else {
    printTable(llvm::outs(), Rows);
    llvm::outs() << "\nrun directories: " << *Root << "/<scenario>/<variant>"
                 << "\ndrift plots: " << *Root << "/<scenario>/drift.svg"
                 << "\nside by side: ddp-harness compare " << *Root
                 << "/<scenario>/buggy " << *Root << "/<scenario>/fixed\n";
  }
  llvm::outs().flush();
  if (HarnessError)
    return ExitHarnessError;
  if (AnyCrash)
    return ExitCrash;
  if (AnyUnexpectedHang)
    return ExitHang;
  return ExitOk;
}
