//===- Report.h - Tables and JSON for a run and for two runs --------------===//
//
// The text report follows seed 001's two tables: the gradient each rank
// stepped with (norm, and the first element of one parameter's gradient)
// with a `synced` column, and the cross-rank drift max|W_rank0 - W_rankK|
// after each step; `compare` puts two runs side by side. The JSON report
// carries the same data for programs.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_REPORT_H
#define DDPHARNESS_LAUNCHER_REPORT_H

#include "Analysis.h"
#include "RunDirectory.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace ddpharness {

/// Drift as the tables print it: "0.000000", "0.125000", "1.769e-04".
std::string formatDrift(std::optional<double> D);

/// Seed 001's tables (and the per-parameter, data-order and metric tables
/// when there is something to show) for one run.
void printRunTables(llvm::raw_ostream &OS, const RunAnalysis &A);

/// The closing summary: verdicts, last lines of hung or crashed ranks,
/// warnings, where the evidence is.
void printRunSummary(llvm::raw_ostream &OS, const HarnessRecord &Process,
                     const RunAnalysis &A, const std::string &RunDir,
                     const std::string &SvgPath);

/// Two runs side by side, labelled \p LabelA and \p LabelB.
void printComparison(llvm::raw_ostream &OS, const RunAnalysis &A,
                     const RunAnalysis &B, const std::string &LabelA,
                     const std::string &LabelB);

/// The per-step data as JSON (shared by `run --format json` and the
/// scenarios report).
llvm::json::Array stepsJson(const RunAnalysis &A);
/// Where the ranks' collectives part and where each rank blocks, as lines
/// ("collectives: ...") and as JSON (null without a trace).
void printCollectives(llvm::raw_ostream &OS, const CollectiveAnalysis &C);
llvm::json::Value collectivesJson(const CollectiveAnalysis &C);
/// "the ranks parted at collective 6 on gloo#0: rank 0 in allreduce ... at
/// F.cpp:46, rank 1 in barrier at F.cpp:53", or "" when they never parted.
std::string partedSentence(const CollectiveAnalysis &C);
/// Every call site (file, line) of each rank's collective where the ranks
/// parted, the program's frames outward.
std::vector<std::pair<std::string, int>> partedSites(const CollectiveAnalysis &C);
/// Where the ranks parted as a small table, one object per rank: `rank`,
/// `collective` (or "none"), `site`, `blocked` ("" or "12.3 s"); empty when
/// they never parted. What `confirm` hands to ddplint's HTML report.
llvm::json::Array partedTable(const CollectiveAnalysis &C);
llvm::json::Value dataOrderJson(const RunAnalysis &A);
llvm::json::Object metricsJson(const RunAnalysis &A);

/// A number, or null when unset or not finite.
llvm::json::Value numberOrNull(std::optional<double> D);

/// Dedupes and caps the warnings for printing.
std::vector<std::string> warningsToShow(const std::vector<std::string> &All,
                                        size_t Limit = 10);

} // namespace ddpharness

#endif
