//===- ReportJson.cpp - The reports as JSON -------------------------------===//
//
// The JSON halves of Report.h: what `run --format json` prints per step,
// for the data order and the metrics.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include <cmath>

using namespace ddpharness;
namespace json = llvm::json;

json::Value ddpharness::numberOrNull(std::optional<double> D) {
  if (!D || !std::isfinite(*D))
    return nullptr;
  return *D;
}

json::Array ddpharness::stepsJson(const RunAnalysis &A) {
  json::Array Steps;
  for (const StepAnalysis &S : A.Steps) {
    json::Array Norms, Firsts, Params;
    for (int R = 0; R < A.NumRanks; ++R) {
      Norms.push_back(numberOrNull(S.GradNorm[R]));
      Firsts.push_back(numberOrNull(S.GradFirst[R]));
    }
    for (const ParamDrift &P : S.Params)
      Params.push_back(json::Object{{"name", P.Name},
                                    {"max_drift", numberOrNull(P.MaxAbs)},
                                    {"hashes_equal", P.HashesEqual}});
    json::Value Synced = nullptr;
    if (S.GradSynced)
      Synced = *S.GradSynced;
    Steps.push_back(json::Object{{"step", S.Step},
                                 {"epoch", S.Epoch},
                                 {"ranks_present", S.RanksPresent},
                                 {"grad_synced", std::move(Synced)},
                                 {"params_equal", S.ParamsEqual},
                                 {"max_drift", numberOrNull(S.MaxDrift)},
                                 {"grad_norm", std::move(Norms)},
                                 {"grad_first", std::move(Firsts)},
                                 {"params", std::move(Params)}});
  }
  return Steps;
}

json::Value ddpharness::dataOrderJson(const RunAnalysis &A) {
  const DataOrderAnalysis &O = A.Order;
  if (!O.Available)
    return nullptr;
  json::Array Repeats;
  for (const std::string &R : O.Repeats)
    Repeats.push_back(R);
  json::Array Epochs;
  for (int64_t E : O.Epochs)
    Epochs.push_back(E);
  return json::Object{{"verdict", O.Verdict},
                      {"overlap", O.Overlap},
                      {"overlap_count", static_cast<int64_t>(O.OverlapCount)},
                      {"epochs", std::move(Epochs)},
                      {"repeats", std::move(Repeats)}};
}

json::Object ddpharness::metricsJson(const RunAnalysis &A) {
  json::Object Metrics;
  for (const auto &[Name, Mean] : A.MetricMeans)
    Metrics[Name] = numberOrNull(Mean);
  return Metrics;
}
