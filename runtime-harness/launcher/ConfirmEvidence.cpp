//===- ConfirmEvidence.cpp - What a measured run says about a finding -----===//

#include "ConfirmEvidence.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

/// Whether a variant's measurement shows the bug its scenario demonstrates,
/// shows it absent, or shows neither (a crash, no probe data).
enum class Shows { Bug, Clean, Neither };

std::optional<double> gradRatio(const VariantOutcome &V) {
  if (std::optional<double> R = V.Metrics.getNumber("grad_ratio"))
    if (std::isfinite(*R))
      return R;
  return std::nullopt;
}

Shows classify(ScenarioKind Kind, const VariantOutcome &V) {
  if (V.HarnessError)
    return Shows::Neither;
  llvm::StringRef Verdict = V.Verdict;
  // A job that hangs, or whose ranks stop on the wrapper's own error (a
  // bucket that never fills), does not finish; the fixed variant finishing
  // is what makes either one evidence.
  if (Kind == ScenarioKind::Hang)
    return V.Process == ProcessVerdict::Hang ||
                   V.Process == ProcessVerdict::Crash
               ? Shows::Bug
           : V.Process == ProcessVerdict::Ok ? Shows::Clean
                                             : Shows::Neither;
  // For the other kinds a hung or crashed run measured nothing about the
  // bug.
  if (V.Process != ProcessVerdict::Ok)
    return Shows::Neither;
  switch (Kind) {
  case ScenarioKind::DataOrder:
    if (Verdict.starts_with("same-order") || Verdict.contains("overlap"))
      return Shows::Bug;
    return Verdict == "reshuffled" ? Shows::Clean : Shows::Neither;
  case ScenarioKind::GradientScale: {
    std::optional<double> R = gradRatio(V);
    if (!R)
      return Shows::Neither;
    // The same tolerance as the report's colouring: the ratio is a mean of
    // float norms, exact 1.0 only up to rounding.
    return std::fabs(*R - 1.0) > 0.01 ? Shows::Bug : Shows::Clean;
  }
  case ScenarioKind::Progress:
    return Verdict == "frozen"     ? Shows::Bug
           : Verdict == "training" ? Shows::Clean
                                   : Shows::Neither;
  default:
    if (Verdict.starts_with("diverged"))
      return Shows::Bug;
    return Verdict == "consistent" ? Shows::Clean : Shows::Neither;
  }
}

std::string number(double D) { return llvm::formatv("{0:f3}", D).str(); }

/// What the buggy variant showed, as a clause of the evidence sentence.
std::string bugClause(ScenarioKind Kind, const VariantOutcome &V,
                      double Timeout) {
  switch (Kind) {
  case ScenarioKind::Hang: {
    if (V.Process == ProcessVerdict::Crash)
      return "the ranks stopped with an error instead of finishing (" +
             V.Verdict + ")";
    char Seconds[32];
    std::snprintf(Seconds, sizeof(Seconds), "%g", Timeout);
    return std::string("hang, the ranks did not finish within ") + Seconds +
           " s and were killed";
  }
  case ScenarioKind::DataOrder:
    return V.Verdict == "same-order"
               ? "every epoch replayed the previous epoch's data order "
                 "(same-order)"
               : "data order " + V.Verdict;
  case ScenarioKind::GradientScale:
    return "the ranks stepped with a gradient " +
           llvm::formatv("{0:f2}", *gradRatio(V)).str() +
           "x the average of their local gradients";
  case ScenarioKind::Progress:
    return "the trained module's parameters never changed (frozen)";
  default: {
    std::string S = "replicas diverged";
    if (V.FirstDivergentStep)
      S += " at step " + std::to_string(*V.FirstDivergentStep);
    if (V.MaxDrift)
      S += ", max drift " + number(*V.MaxDrift);
    return S;
  }
  }
}

/// What the fixed variant showed, when it was clean.
std::string cleanClause(ScenarioKind Kind, const VariantOutcome &V) {
  switch (Kind) {
  case ScenarioKind::Hang:
    return "finished";
  case ScenarioKind::DataOrder:
    return "reshuffled every epoch";
  case ScenarioKind::GradientScale:
    return "stepped with " + llvm::formatv("{0:f2}", *gradRatio(V)).str() +
           "x the average";
  case ScenarioKind::Progress:
    return "changed its parameters every run (training)";
  default:
    return "stayed consistent";
  }
}

std::string backendName(const std::string &B) {
  return B == "nccl" ? "NCCL" : B == "gloo" ? "Gloo" : B;
}

} // namespace

json::Object CheckResult::toJSON() const {
  json::Object O{{"verdict", Verdict}, {"evidence", Evidence}};
  if (!Svg.empty())
    O["svg"] = Svg;
  if (!RunDir.empty())
    O["run_dir"] = RunDir;
  if (!PartedTable.empty())
    O["collectives"] = json::Array(PartedTable);
  return O;
}

std::string ddpharness::rankContext(int NumRanks, const std::string &Backend) {
  return std::to_string(NumRanks) + " rank" + (NumRanks == 1 ? "" : "s") +
         ", " + backendName(Backend);
}

CheckResult ddpharness::scenarioResult(ScenarioKind Kind,
                                       const VariantOutcome &Bug,
                                       const std::optional<VariantOutcome> &Fix,
                                       const std::string &Fixed,
                                       const std::string &Context,
                                       double HangTimeout) {
  Shows BugShows = classify(Kind, Bug);
  Shows FixShows = Fix ? classify(Kind, *Fix) : Shows::Clean;
  bool Confirmed = BugShows == Shows::Bug && FixShows == Shows::Clean;
  CheckResult R;
  R.Verdict = Confirmed ? "confirmed" : "not confirmed";
  if (Confirmed) {
    R.Evidence =
        "confirmed: " + bugClause(Kind, Bug, HangTimeout) + " " + Context;
    if (!Bug.Parted.empty())
      R.Evidence += "; " + Bug.Parted;
    R.PartedTable = Bug.PartedTable;
    if (Fix)
      R.Evidence +=
          "; the fixed variant (" + Fixed + ") " + cleanClause(Kind, *Fix);
    return R;
  }
  R.Evidence =
      "not confirmed: the buggy variant measured '" + Bug.Verdict + "'";
  if (Fix)
    R.Evidence += ", the fixed variant (" + Fixed + ") '" + Fix->Verdict + "'";
  R.Evidence += " " + Context;
  return R;
}

CheckResult ddpharness::programResult(ScenarioKind Kind,
                                      const VariantOutcome &Run,
                                      const std::string &Context,
                                      double Timeout) {
  CheckResult R;
  R.RunDir = Run.RunDir;
  // One run serves every check of the file: each is measured its own way.
  VariantOutcome AsKind = Run;
  if (auto It = Run.KindVerdicts.find(Kind); It != Run.KindVerdicts.end())
    AsKind.Verdict = It->second;
  switch (classify(Kind, AsKind)) {
  case Shows::Bug:
    R.Verdict = "confirmed";
    R.Evidence =
        "confirmed: " + bugClause(Kind, AsKind, Timeout) + " " + Context;
    if (!Run.Parted.empty())
      R.Evidence += "; " + Run.Parted;
    R.PartedAt = Run.PartedAt;
    R.PartedTable = Run.PartedTable;
    break;
  case Shows::Clean:
    R.Verdict = "not confirmed";
    R.Evidence = "not confirmed: the program " + cleanClause(Kind, AsKind) +
                 " " + Context;
    break;
  case Shows::Neither:
    R.Verdict = "inconclusive";
    R.Evidence = "inconclusive: the program's run measured '" + AsKind.Verdict +
                 "' " + Context;
    break;
  }
  return R;
}
