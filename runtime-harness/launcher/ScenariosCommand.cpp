//===- ScenariosCommand.cpp - ddp-harness scenarios -----------------------===//
//
// ddp-harness scenarios [--nproc N] [--only NAME] [--format text|json] ...
//
// Asks the scenario program (ddp-scenario) what it demonstrates, runs every
// variant of every scenario under the launcher, and measures each variant's
// verdict the way its kind is measured (Verdict.h).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "ExitCodes.h"
#include "Options.h"
#include "Report.h"
#include "RunDirectory.h"
#include "RunRecords.h"
#include "Scenarios.h"
#include "Svg.h"
#include "Verdict.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

const char *Cmd = "scenarios";

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

struct ScenariosOptions {
  int NumRanks = 2, Steps = 0;
  std::string Backend = "gloo", Format = "text", Only, RunDir, Device;
  double HangTimeout = 10, RunTimeout = 300, Grace = 2;
  bool Verbose = false;
};

void addScenariosOptions(OptionParser &Parser, ScenariosOptions &O) {
  Parser.addInt("nproc", &O.NumRanks, 1, "N", "ranks per run (default 2)");
  Parser.addChoice("backend", &O.Backend, {"gloo", "nccl"},
                   "DDP_HARNESS_BACKEND for the ranks (default gloo)");
  Parser.addChoice("format", &O.Format, {"text", "json"},
                   "a table (default) or one JSON array on stdout");
  Parser.addString("only", &O.Only, "NAME", "run this scenario only");
  Parser.addSeconds("timeout", &O.HangTimeout,
                    "timeout for scenarios of kind hang (default 10)");
  Parser.addSeconds("run-timeout", &O.RunTimeout,
                    "timeout for the other kinds (default 300)");
  Parser.addSeconds("grace", &O.Grace,
                    "grace after a crash and before SIGKILL (default 2)");
  Parser.addInt("steps", &O.Steps, 1, "K", "pass --steps K to every scenario");
  Parser.addChoice("device", &O.Device, {"cpu", "cuda"},
                   "pass --device to every scenario");
  Parser.addString("run-dir", &O.RunDir, "DIR",
                   "root of the run directories (default: a new directory "
                   "under $TMPDIR/ddp-harness)");
  Parser.addFlag("verbose", &O.Verbose, "stream the ranks' output");
}

VariantOptions variantOptions(const ScenariosOptions &O) {
  VariantOptions VOpts;
  VOpts.NumRanks = O.NumRanks;
  VOpts.Backend = O.Backend;
  VOpts.HangTimeout = O.HangTimeout;
  VOpts.RunTimeout = O.RunTimeout;
  VOpts.Grace = O.Grace;
  VOpts.Steps = O.Steps;
  VOpts.Device = O.Device;
  VOpts.Output = !O.Verbose          ? RankOutput::LogOnly
                 : O.Format == "json" ? RankOutput::StreamToStderr
                                      : RankOutput::Stream;
  return VOpts;
}

/// The scenarios to run: all of them, or the one --only names. Those that
/// race CUDA streams run only with --device cuda: a note names each left out.
llvm::Expected<std::vector<ScenarioInfo>>
selectScenarios(std::vector<ScenarioInfo> Scenarios, const std::string &Only,
                const std::string &Device) {
  auto error = [](const std::string &Message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
  };
  if (!Only.empty()) {
    std::vector<ScenarioInfo> Kept;
    std::vector<std::string> Names;
    for (ScenarioInfo &S : Scenarios) {
      Names.push_back(S.Name);
      if (S.Name == Only)
        Kept.push_back(std::move(S));
    }
    if (Kept.empty())
      return error("no scenario named '" + Only +
                   "'; the program lists: " + llvm::join(Names, ", "));
    Scenarios = std::move(Kept);
  }
  if (Scenarios.empty())
    return error("the program lists no scenario");
  if (Device != "cuda") {
    llvm::erase_if(Scenarios, [&](const ScenarioInfo &S) {
      if (S.NeedsCuda)
        std::fprintf(stderr,
                     "ddp-harness scenarios: note: %s races CUDA streams; "
                     "it runs with --device cuda\n",
                     S.Name.c_str());
      return S.NeedsCuda;
    });
    if (Scenarios.empty())
      return error("'" + Only + "' runs only with --device cuda");
  }
  return Scenarios;
}

/// What the variants measured, as the exit code sees it.
struct Tally {
  bool HarnessError = false, AnyCrash = false, AnyUnexpectedHang = false;

  int exitCode() const {
    if (HarnessError)
      return ExitHarnessError;
    if (AnyCrash)
      return ExitCrash;
    if (AnyUnexpectedHang)
      return ExitHang;
    return ExitOk;
  }
};

/// Runs every variant of \p S into Root/<scenario>/<variant>/, adds a row
/// per variant and draws Root/<scenario>/drift.svg. Returns the exit code
/// when the user interrupted the run.
std::optional<int> runScenario(const std::string &Program,
                               const ScenarioInfo &S, const std::string &Root,
                               const VariantOptions &VOpts,
                               std::vector<Row> &Rows, Tally &T) {
  std::vector<DriftSeries> Series;
  for (const std::string &Variant : S.Variants) {
    VariantOutcome Out = runScenarioVariant(
        Program, S, Variant, Root + "/" + S.Name + "/" + Variant, VOpts);
    Rows.push_back(Row{S.Name, S.Check, S.KindName, Variant, Out.Verdict,
                       Out.RunDir, Out.FirstDivergentStep, Out.MaxDrift,
                       std::move(Out.Metrics), Out.WallSeconds});
    T.HarnessError |= Out.HarnessError;
    if (Out.HarnessError)
      continue;
    // A hang scenario measures whether the ranks finish together: its buggy
    // variant hanging, or failing on a wrapper's own error, is the verdict
    // it expects.
    T.AnyCrash |=
        Out.Process == ProcessVerdict::Crash && S.Kind != ScenarioKind::Hang;
    T.AnyUnexpectedHang |=
        Out.Process == ProcessVerdict::Hang && S.Kind != ScenarioKind::Hang;
    if (Out.Process == ProcessVerdict::Interrupted) {
      std::fprintf(stderr, "ddp-harness scenarios: interrupted\n");
      return 128 + Out.InterruptSignal;
    }
    Series.push_back(Out.Series ? *Out.Series : DriftSeries{Variant, {}});
  }
  if (llvm::Error E = writeFileAtomically(
          Root + "/" + S.Name + "/drift.svg",
          driftSvg("Cross-rank drift: " + S.Name + " (" + S.Check + ")",
                   Series)))
    std::fprintf(stderr, "ddp-harness scenarios: warning: %s\n",
                 llvm::toString(std::move(E)).c_str());
  return std::nullopt;
}

void printJson(llvm::raw_ostream &OS, std::vector<Row> &Rows) {
  json::Array Out;
  for (Row &R : Rows) {
    json::Value First = nullptr;
    if (R.FirstDivergentStep)
      First = *R.FirstDivergentStep;
    Out.push_back(json::Object{{"scenario", R.Scenario},
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
  OS << llvm::formatv("{0:2}", json::Value(std::move(Out))) << "\n";
}

void printText(llvm::raw_ostream &OS, const std::vector<Row> &Rows,
               const std::string &Root) {
  printTable(OS, Rows);
  OS << "\nrun directories: " << Root << "/<scenario>/<variant>"
     << "\ndrift plots: " << Root << "/<scenario>/drift.svg"
     << "\nside by side: ddp-harness compare " << Root << "/<scenario>/buggy "
     << Root << "/<scenario>/fixed\n";
}

} // namespace

int ddpharness::scenariosCommand(const std::vector<std::string> &Args) {
  ScenariosOptions Options;
  OptionParser Parser(Cmd, "scenarios [--nproc N] [--backend gloo|nccl] "
                           "[--format text|json] [--only NAME] [--timeout S]");
  addScenariosOptions(Parser, Options);
  if (llvm::Error E = Parser.parse(Args))
    return reportHarnessError(Cmd, llvm::toString(std::move(E)) + "\n" +
                                       Parser.usage());
  if (Parser.helpRequested()) {
    std::fputs(Parser.usage().c_str(), stdout);
    return ExitOk;
  }

  llvm::Expected<ScenarioProgram> Program = loadScenarioProgram(Cmd);
  if (!Program)
    return reportHarnessError(Cmd, llvm::toString(Program.takeError()));
  // Skipped entries are the program's error; the rest still runs.
  Tally T;
  T.HarnessError = Program->Skipped > 0;
  llvm::Expected<std::vector<ScenarioInfo>> Scenarios =
      selectScenarios(std::move(Program->Scenarios), Options.Only,
                      Options.Device);
  if (!Scenarios)
    return reportHarnessError(Cmd, llvm::toString(Scenarios.takeError()));
  llvm::Expected<std::string> Root = makeFreshDirectory(Options.RunDir, Cmd);
  if (!Root)
    return reportHarnessError(Cmd, llvm::toString(Root.takeError()));

  VariantOptions VOpts = variantOptions(Options);
  std::vector<Row> Rows;
  for (const ScenarioInfo &S : *Scenarios)
    if (std::optional<int> Code =
            runScenario(Program->Path, S, *Root, VOpts, Rows, T))
      return *Code;
  if (Options.Format == "json")
    printJson(llvm::outs(), Rows);
  else
    printText(llvm::outs(), Rows, *Root);
  llvm::outs().flush();
  return T.exitCode();
}
