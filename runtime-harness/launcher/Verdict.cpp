//===- Verdict.cpp - One word for what a run showed -----------------------===//

#include "Verdict.h"

#include "Analysis.h"
#include "RunDirectory.h"

#include <cstdio>

using namespace ddpharness;

ScenarioKind ddpharness::parseScenarioKind(llvm::StringRef Kind) {
  if (Kind == "divergence")
    return ScenarioKind::Divergence;
  if (Kind == "hang")
    return ScenarioKind::Hang;
  if (Kind == "data-order")
    return ScenarioKind::DataOrder;
  if (Kind == "gradient-scale")
    return ScenarioKind::GradientScale;
  if (Kind == "progress")
    return ScenarioKind::Progress;
  return ScenarioKind::Unknown;
}

const char *ddpharness::scenarioKindName(ScenarioKind Kind) {
  switch (Kind) {
  case ScenarioKind::Divergence:
    return "divergence";
  case ScenarioKind::Hang:
    return "hang";
  case ScenarioKind::DataOrder:
    return "data-order";
  case ScenarioKind::GradientScale:
    return "gradient-scale";
  case ScenarioKind::Progress:
    return "progress";
  case ScenarioKind::Unknown:
    break;
  }
  return "unknown";
}

std::string ddpharness::processFailure(const HarnessRecord &Process) {
  if (Process.Verdict == "crash") {
    int R = Process.CrashedRank;
    if (R >= 0 && R < static_cast<int>(Process.RankStatus.size()))
      return "crash (rank " + std::to_string(R) + ": " +
             Process.RankStatus[R] + ")";
    return "crash";
  }
  if (Process.Verdict == "hang" || Process.Verdict == "interrupted")
    return Process.Verdict;
  return "";
}

std::string ddpharness::replicaVerdict(const RunAnalysis &A) {
  if (A.Replicas == "diverged" && A.FirstDivergentStep)
    return "diverged at step " + std::to_string(*A.FirstDivergentStep);
  return A.Replicas;
}

std::string ddpharness::dataOrderVerdict(const RunAnalysis &A) {
  if (!A.Order.Available)
    return "";
  return A.Order.Verdict + (A.Order.Overlap ? ", overlap" : "");
}

std::string ddpharness::gradientScale(const RunAnalysis &A) {
  auto It = A.MetricMeans.find("grad_ratio");
  if (It == A.MetricMeans.end())
    return "";
  char Ratio[32];
  std::snprintf(Ratio, sizeof(Ratio), "%.2fx", It->second);
  return std::string("gradient ") + Ratio + " the average";
}

std::string ddpharness::gradientScaleVerdict(const RunAnalysis &A) {
  std::string Scale = gradientScale(A);
  if (Scale.empty())
    return "";
  if (A.Replicas == "diverged" || A.Replicas == "consistent")
    return A.Replicas + ", " + Scale;
  return Scale;
}

std::string ddpharness::progressVerdict(const RunAnalysis &A) {
  if (!A.ParamsChanged)
    return "";
  return *A.ParamsChanged ? "training" : "frozen";
}

std::string ddpharness::measuredVerdict(ScenarioKind Kind,
                                        const HarnessRecord &Process,
                                        const RunAnalysis &A) {
  std::string Failure = processFailure(Process);
  if (!Failure.empty())
    return Failure;
  switch (Kind) {
  case ScenarioKind::Hang:
    return "ok";
  case ScenarioKind::DataOrder: {
    std::string V = dataOrderVerdict(A);
    return V.empty() ? "no indices recorded" : V;
  }
  case ScenarioKind::GradientScale: {
    std::string V = gradientScaleVerdict(A);
    return V.empty() ? "no grad_ratio metric" : V;
  }
  case ScenarioKind::Progress: {
    std::string V = progressVerdict(A);
    return V.empty() ? "fewer than two steps recorded" : V;
  }
  case ScenarioKind::Divergence:
  case ScenarioKind::Unknown:
    break;
  }
  return A.Replicas;
}

void ddpharness::printProcessVerdict(llvm::raw_ostream &OS,
                                     const HarnessRecord &Process) {
  if (Process.Verdict == "not recorded") {
    OS << "verdict: not recorded (the ranks were started by another "
          "launcher; its exit status says how they ended)\n";
    return;
  }
  std::string Failure = processFailure(Process);
  const std::string &L = Process.Launcher;
  if (!L.empty() && Process.Verdict == "crash" && !Process.RankStatus.empty())
    Failure = "crash (" + L + ": " + Process.RankStatus[0] + ")";
  OS << "verdict: " << (Failure.empty() ? "ok" : Failure);
  if (Failure.empty())
    OS << (!L.empty() ? " (" + L + " exited 0)"
           : Process.RankStatus.size() == 1
               ? std::string(" (the rank exited 0)")
               : " (all " + std::to_string(Process.RankStatus.size()) +
                     " ranks exited 0)");
  OS << "\n";
  if (!Failure.empty()) {
    for (size_t R = 0; R < Process.RankStatus.size(); ++R) {
      OS << "  " << (L.empty() ? "rank " + std::to_string(R) : L) << ": "
         << Process.RankStatus[R];
      const std::string &Last =
          R < Process.LastLines.size() ? Process.LastLines[R] : "";
      if (Last.empty())
        OS << "; printed nothing\n";
      else
        OS << "; last line: "
           << (Last.size() > 200 ? Last.substr(0, 200) + "..." : Last)
           << "\n";
    }
  }
}
