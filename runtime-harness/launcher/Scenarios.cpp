//===- Scenarios.cpp - The scenario program and one measured variant ------===//

#include "Scenarios.h"

#include "Analysis.h"
#include "Process.h"
#include "Programs.h"
#include "Report.h"
#include "Run.h"
#include "RunDirectory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdio>
#include <cstdlib>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

/// Names become directory names: keep them to a safe alphabet.
bool isSafeName(llvm::StringRef S) {
  return !S.empty() && S != "." && S != ".." &&
         llvm::all_of(S, [](char C) {
           return llvm::isAlnum(C) || C == '-' || C == '_' || C == '.';
         });
}

llvm::Expected<std::vector<ScenarioInfo>>
parseList(const std::string &Text, std::vector<std::string> &Warnings,
          unsigned &Skipped) {
  llvm::Expected<json::Value> V = json::parse(Text);
  if (!V)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'ddp-scenario --list' did not print JSON (" +
            llvm::toString(V.takeError()) + ")");
  const json::Array *List = V->getAsArray();
  if (!List)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'ddp-scenario --list' did not print a "
                                   "JSON array");
  std::vector<ScenarioInfo> Out;
  for (size_t I = 0; I < List->size(); ++I) {
    const json::Object *O = (*List)[I].getAsObject();
    std::string Where = "scenario list entry " + std::to_string(I);
    if (!O) {
      Warnings.push_back(Where + " is not an object; skipped");
      ++Skipped;
      continue;
    }
    ScenarioInfo S;
    S.Name = O->getString("name").value_or("").str();
    S.Check = O->getString("check").value_or("").str();
    S.KindName = O->getString("kind").value_or("").str();
    S.Kind = parseScenarioKind(S.KindName);
    S.NeedsCuda = O->getString("device").value_or("") == "cuda";
    if (!isSafeName(S.Name)) {
      Warnings.push_back(Where + " has no usable \"name\" ('" + S.Name +
                         "'); skipped");
      ++Skipped;
      continue;
    }
    if (S.Kind == ScenarioKind::Unknown)
      Warnings.push_back("scenario '" + S.Name + "' has an unknown kind '" +
                         S.KindName + "'; its verdict is the replicas'");
    bool VariantsOk = true;
    if (const json::Array *Variants = O->getArray("variants"))
      for (const json::Value &VV : *Variants) {
        std::optional<llvm::StringRef> Name = VV.getAsString();
        if (!Name || !isSafeName(*Name)) {
          VariantsOk = false;
          break;
        }
        S.Variants.push_back(Name->str());
      }
    if (!VariantsOk || S.Variants.empty()) {
      Warnings.push_back("scenario '" + S.Name +
                         "' has no usable \"variants\" list; skipped");
      ++Skipped;
      continue;
    }
    if (!llvm::is_contained(S.Variants, "buggy"))
      Warnings.push_back("scenario '" + S.Name +
                         "' has no \"buggy\" variant");
    Out.push_back(std::move(S));
  }
  return Out;
}

} // namespace

std::string ddpharness::scenarioProgram() {
  if (const char *Env = std::getenv("DDP_HARNESS_SCENARIO_BIN"); Env && *Env)
    return Env;
  return executableDirectory() + "/../libexec/ddp-scenario";
}

llvm::Expected<std::vector<ScenarioInfo>>
ddpharness::listScenarios(const std::string &Program,
                          std::vector<std::string> &Warnings,
                          unsigned &Skipped) {
  std::string ListErrors;
  llvm::Expected<std::string> ListText =
      captureOutput({Program, "--list"}, 60, ListErrors);
  if (!ListText)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot list the scenarios: " + llvm::toString(ListText.takeError()) +
            (ListErrors.empty() ? "" : "\n" + ListErrors));
  return parseList(*ListText, Warnings, Skipped);
}

llvm::Expected<ScenarioProgram>
ddpharness::loadScenarioProgram(const std::string &Command) {
  std::string Requested = scenarioProgram();
  llvm::Expected<std::string> Resolved = resolveExecutable(Requested);
  if (!Resolved) {
    llvm::consumeError(Resolved.takeError());
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "scenario program not found or not executable: '" + Requested +
            "' (build the ddp-scenario target, or point "
            "DDP_HARNESS_SCENARIO_BIN at it)");
  }
  ScenarioProgram Program;
  Program.Path = std::move(*Resolved);
  std::vector<std::string> Warnings;
  llvm::Expected<std::vector<ScenarioInfo>> Listed =
      listScenarios(Program.Path, Warnings, Program.Skipped);
  if (!Listed)
    return Listed.takeError();
  Program.Scenarios = std::move(*Listed);
  for (const std::string &W : Warnings)
    std::fprintf(stderr, "ddp-harness %s: warning: %s\n", Command.c_str(),
                 W.c_str());
  return std::move(Program);
}

VariantOutcome ddpharness::runMeasured(const MeasuredCommand &C,
                                       const std::string &Dir,
                                       const VariantOptions &O) {
  VariantOutcome R;
  const char *Cmd = O.Command.c_str();
  auto fail = [&](llvm::Error E) {
    R.Verdict = "harness error";
    R.HarnessError = true;
    std::fprintf(stderr, "ddp-harness %s: error: %s\n", Cmd,
                 llvm::toString(std::move(E)).c_str());
    return std::move(R);
  };

  llvm::Expected<std::string> Made = prepareRunDirectory(Dir);
  if (!Made)
    return fail(Made.takeError());
  R.RunDir = *Made;

  LaunchOptions Options;
  Options.NumRanks = O.NumRanks;
  Options.Backend = O.Backend;
  Options.TimeoutSeconds = C.Timeout;
  Options.GraceSeconds = O.Grace;
  Options.RunDir = *Made;
  Options.Command = C.Command;
  Options.Environment = C.Environment;
  Options.Output = O.Output;
  std::fprintf(stderr, "ddp-harness %s: %s (%s, timeout %g s)\n", Cmd,
               C.Title.c_str(), scenarioKindName(C.Kind),
               Options.TimeoutSeconds);

  llvm::Expected<AnalysedRun> Run =
      launchAndAnalyse(Options, C.SvgTitle, C.SvgLabel);
  if (!Run)
    return fail(Run.takeError());
  const RunAnalysis &A = Run->Analysis;
  R.Process = Run->Result.Verdict;
  R.InterruptSignal = Run->Result.InterruptSignal;
  R.WallSeconds = Run->Result.WallSeconds;
  R.Verdict = measuredVerdict(C.Kind, recordOf(Run->Result), A);
  for (ScenarioKind K : {ScenarioKind::Divergence, ScenarioKind::Hang,
                         ScenarioKind::DataOrder, ScenarioKind::GradientScale,
                         ScenarioKind::Progress})
    R.KindVerdicts[K] = measuredVerdict(K, recordOf(Run->Result), A);
  R.FirstDivergentStep = A.FirstDivergentStep;
  R.MaxDrift = A.MaxDrift;
  R.Metrics = metricsJson(A);
  R.PartedAt = partedSites(A.Collectives);
  R.Parted = partedSentence(A.Collectives);
  R.PartedTable = partedTable(A.Collectives);
  for (const std::string &W : warningsToShow(A.Warnings, 5))
    std::fprintf(stderr, "ddp-harness %s: %s: warning: %s\n", Cmd,
                 C.Title.c_str(), W.c_str());
  if (!A.Steps.empty())
    R.Series = driftSeries(C.SvgLabel, A);
  return R;
}

VariantOutcome ddpharness::runScenarioVariant(const std::string &Program,
                                              const ScenarioInfo &S,
                                              const std::string &Variant,
                                              const std::string &Dir,
                                              const VariantOptions &O) {
  MeasuredCommand C;
  C.Command = {Program, S.Name, Variant};
  if (O.Steps > 0) {
    C.Command.push_back("--steps");
    C.Command.push_back(std::to_string(O.Steps));
  }
  if (!O.Device.empty()) {
    C.Command.push_back("--device");
    C.Command.push_back(O.Device);
  }
  C.Kind = S.Kind;
  C.Title = S.Name + " " + Variant;
  C.SvgTitle = "Cross-rank drift: " + S.Name + " " + Variant;
  C.SvgLabel = Variant;
  C.Timeout = S.Kind == ScenarioKind::Hang ? O.HangTimeout : O.RunTimeout;
  addPreload(C.Environment, traceLibraries(Program));
  return runMeasured(C, Dir, O);
}
