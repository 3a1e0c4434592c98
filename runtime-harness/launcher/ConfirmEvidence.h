//===- ConfirmEvidence.h - What a measured run says about a finding -------===//
//
// `confirm` measures a check's scenario (its buggy variant against its first
// fix) and the flagged program itself. This file turns those measurements
// into a finding's runtime verdict and the evidence sentence quoted with it.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_CONFIRMEVIDENCE_H
#define DDPHARNESS_LAUNCHER_CONFIRMEVIDENCE_H

#include "Scenarios.h"
#include "Verdict.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace ddpharness {

/// A check's runtime evidence, as a finding's `runtime` object shows it.
struct CheckResult {
  std::string Verdict, Evidence, Svg, RunDir;
  /// Where the ranks' collectives parted in the measured run (call sites),
  /// for a finding to be confirmed at its own line or elsewhere.
  std::vector<std::pair<std::string, int>> PartedAt;
  /// The same as a table per rank (partedTable), for the report.
  llvm::json::Array PartedTable;

  llvm::json::Object toJSON() const;
};

/// Check -> what its scenario showed.
using ScenarioResults = std::map<std::string, CheckResult>;
/// (file, check) -> what the flagged program showed.
using ProgramResults =
    std::map<std::pair<std::string, std::string>, CheckResult>;

/// "2 ranks, Gloo": the part of an evidence sentence's context that says
/// how the ranks ran.
std::string rankContext(int NumRanks, const std::string &Backend);

/// What a check's scenario showed: `confirmed` when \p Bug shows the bug of
/// \p Kind and \p Fix (the variant \p Fixed; none when the scenario has no
/// fix) does not. \p Context ends the evidence sentence.
CheckResult scenarioResult(ScenarioKind Kind, const VariantOutcome &Bug,
                           const std::optional<VariantOutcome> &Fix,
                           const std::string &Fixed, const std::string &Context,
                           double HangTimeout);

/// What the user's program showed for a check of kind \p Kind.
CheckResult programResult(ScenarioKind Kind, const VariantOutcome &Run,
                          const std::string &Context, double Timeout);

} // namespace ddpharness

#endif
