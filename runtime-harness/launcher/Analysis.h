//===- Analysis.h - What the probes say about the replicas ----------------===//
//
// Turns the evidence in a run directory into answers: per step, whether the
// ranks stepped with the same gradients and hold the same parameters, and by
// how much they differ (max |W_rank0 - W_rankK|, from the raw values); the
// first step where the replicas differ; whether each rank's data order
// repeats across epochs and whether ranks share samples; the scenario's own
// metrics.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_ANALYSIS_H
#define DDPHARNESS_LAUNCHER_ANALYSIS_H

#include "CollectiveTrace.h"
#include "RunDirectory.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ddpharness {

struct ParamDrift {
  std::string Name;
  /// max over ranks K of max |W_rank0 - W_rankK| for this parameter; unset
  /// when the values could not be read.
  std::optional<double> MaxAbs;
  bool HashesEqual = true;
};

struct StepAnalysis {
  int64_t Step = 0;
  int64_t Epoch = -1;
  /// Ranks that recorded this step.
  int RanksPresent = 0;
  /// Per rank: L2 norm of all gradients together, and the first element of
  /// the tracked parameter's gradient. Unset where a rank has none.
  std::vector<std::optional<double>> GradNorm;
  std::vector<std::optional<double>> GradFirst;
  /// Every gradient's hash equal on every rank; unset when no rank recorded
  /// a gradient at this step.
  std::optional<bool> GradSynced;
  /// Every parameter's hash equal on every rank.
  bool ParamsEqual = true;
  std::optional<double> MaxDrift;
  std::vector<ParamDrift> Params;
};

struct DataOrderAnalysis {
  bool Available = false;
  /// "same-order", "reshuffled" or "single-epoch" (nothing to compare).
  std::string Verdict;
  std::vector<int64_t> Epochs;
  /// [rank][epoch] -> the indices it consumed that epoch, in order.
  std::vector<std::map<int64_t, std::vector<int64_t>>> Sequences;
  /// "rank 0: epoch 1 repeats epoch 0", for every replay found.
  std::vector<std::string> Repeats;
  bool Overlap = false;
  /// Distinct indices consumed by two or more ranks in one epoch, summed
  /// over epochs.
  uint64_t OverlapCount = 0;
  std::string OverlapDetail;
};

struct RunAnalysis {
  int NumRanks = 0;
  std::vector<StepAnalysis> Steps;
  /// The parameter whose gradient's first element the report shows.
  std::string GradParam;
  /// "diverged", "consistent", "no probe data" or "single rank".
  std::string Replicas;
  std::optional<int64_t> FirstDivergentStep;
  std::optional<double> MaxDrift;
  /// Whether some rank's parameters changed between its first and last
  /// recorded steps (by hash); unset when no rank recorded two steps.
  std::optional<bool> ParamsChanged;
  unsigned StepsWithGrads = 0;
  unsigned StepsSynced = 0;
  DataOrderAnalysis Order;
  /// Metric name -> value per rank (unset where a rank did not report it).
  std::map<std::string, std::vector<std::optional<double>>> Metrics;
  /// Metric name -> mean over the ranks that reported it.
  std::map<std::string, double> MetricMeans;
  /// Each rank's collectives, where they part and where ranks block.
  CollectiveAnalysis Collectives;
  std::vector<std::string> Warnings;
};

RunAnalysis analyseRun(const RunEvidence &Run);

} // namespace ddpharness

#endif
