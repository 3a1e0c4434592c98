//===- Analysis.cpp - What the probes say about the replicas --------------===//

#include "Analysis.h"

#include "ddpharness/ProbeHash.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

using namespace ddpharness;

namespace {

/// Steps are matched across ranks by (epoch, step): a program that numbers
/// its steps per epoch still lines up.
using StepKey = std::pair<int64_t, int64_t>;

/// The probe's hash of \p Values, as 16 lowercase hex digits.
std::string hashFloats(const std::vector<float> &Values) {
  char Buf[17];
  std::snprintf(Buf, sizeof(Buf), "%016llx",
                static_cast<unsigned long long>(
                    probe_hash(Values.data(), Values.size())));
  return Buf;
}

/// Reads values from the ranks' .bin files, checking them against the hashes
/// the probe recorded (a mismatch means the two files disagree).
class ValueReader {
public:
  ValueReader(const RunEvidence &Run, std::vector<std::string> &Warnings)
      : Run(Run), Warnings(Warnings), Mismatches(Run.Ranks.size(), 0),
        ReadFailed(Run.Ranks.size(), false) {}

  std::optional<std::vector<float>> read(int Rank, int64_t Offset,
                                         int64_t Numel,
                                         const std::string &Hash,
                                         const std::string &What) {
    std::vector<float> Values;
    if (llvm::Error E =
            readFloats(Run.Ranks[Rank].BinPath, Offset, Numel, Values)) {
      std::string Why = llvm::toString(std::move(E));
      if (!ReadFailed[Rank])
        Warnings.push_back("rank " + std::to_string(Rank) + ": " + Why +
                           " (" + What + "); drift unknown where values are "
                           "missing");
      ReadFailed[Rank] = true;
      return std::nullopt;
    }
    if (!Hash.empty() && hashFloats(Values) != Hash) {
      if (Mismatches[Rank]++ == 0)
        Warnings.push_back("rank " + std::to_string(Rank) + ": the values of " +
                           What + " in probe-rank" + std::to_string(Rank) +
                           ".bin do not match their recorded hash " + Hash);
    }
    return Values;
  }

  /// The values \p P stored, checked against its hash when they are all of
  /// them (a sample cannot be).
  std::optional<std::vector<float>> read(int Rank, const ParamRecord &P,
                                         const std::string &What) {
    return read(Rank, P.Offset, P.Stored,
                P.Stored == P.Numel ? P.Hash : std::string(), What);
  }

  void summarize() {
    for (size_t R = 0; R < Mismatches.size(); ++R)
      if (Mismatches[R] > 1)
        Warnings.push_back("rank " + std::to_string(R) + ": " +
                           std::to_string(Mismatches[R]) +
                           " values in all disagree with their hashes");
  }

private:
  const RunEvidence &Run;
  std::vector<std::string> &Warnings;
  std::vector<unsigned> Mismatches;
  std::vector<bool> ReadFailed;
};

double maxAbsDifference(const std::vector<float> &A,
                        const std::vector<float> &B) {
  double Max = 0;
  for (size_t I = 0; I < A.size() && I < B.size(); ++I) {
    bool NanA = std::isnan(A[I]), NanB = std::isnan(B[I]);
    if (NanA || NanB) {
      if (NanA != NanB)
        return std::numeric_limits<double>::infinity();
      continue;
    }
    double D = std::fabs(static_cast<double>(A[I]) - static_cast<double>(B[I]));
    if (std::isnan(D)) // inf - inf
      D = A[I] == B[I] ? 0 : std::numeric_limits<double>::infinity();
    Max = std::max(Max, D);
  }
  return Max;
}

const ParamRecord *findParam(const ProbeStep &Step, const std::string &Name) {
  for (const ParamRecord &P : Step.Params)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

/// Counts the ranks that recorded the step; returns the first of them (the
/// one the others are compared with), or -1.
int countPresent(const std::vector<const ProbeStep *> &At, StepAnalysis &Out) {
  int Base = -1;
  for (int R = 0; R < static_cast<int>(At.size()); ++R)
    if (At[R]) {
      ++Out.RanksPresent;
      if (Base < 0)
        Base = R;
    }
  return Base;
}

/// Gradient norms and the tracked element, per rank. True when some rank
/// recorded a gradient.
bool analyseGradients(const std::vector<const ProbeStep *> &At,
                      const std::string &GradParam, ValueReader &Values,
                      StepAnalysis &Out) {
  bool AnyGrad = false;
  for (int R = 0; R < static_cast<int>(At.size()); ++R) {
    if (!At[R])
      continue;
    double SumSquares = 0;
    bool Has = false;
    for (const ParamRecord &P : At[R]->Params)
      if (P.Grad) {
        SumSquares += P.Grad->Norm * P.Grad->Norm;
        Has = true;
      }
    if (Has) {
      Out.GradNorm[R] = std::sqrt(SumSquares);
      AnyGrad = true;
    }
    if (const ParamRecord *P = findParam(*At[R], GradParam);
        P && P->Grad && P->Numel > 0)
      if (auto V = Values.read(R, P->Grad->Offset, 1, "",
                               "the gradient of '" + P->Name + "'"))
        Out.GradFirst[R] = (*V)[0];
  }
  return AnyGrad;
}

/// Parameter \p P of rank \p Base against the same parameter on every other
/// rank; clears \p GradsEqual when a gradient differs.
ParamDrift paramDrift(const std::vector<const ProbeStep *> &At, int Base,
                      const ParamRecord &P, ValueReader &Values,
                      bool &GradsEqual, std::vector<std::string> &Warnings) {
  const ProbeStep &Ref = *At[Base];
  ParamDrift Drift;
  Drift.Name = P.Name;
  std::optional<std::vector<float>> RefValues;
  bool Readable = true;
  double Max = 0;
  for (int R = 0; R < static_cast<int>(At.size()); ++R) {
    if (!At[R] || R == Base)
      continue;
    const ParamRecord *Q = findParam(*At[R], P.Name);
    if (!Q || Q->Numel != P.Numel) {
      Drift.HashesEqual = false;
      Readable = false;
      GradsEqual = false;
      Warnings.push_back("step " + std::to_string(Ref.Step) + ": rank " +
                         std::to_string(R) +
                         (Q ? " records '" + P.Name + "' with another size"
                            : " does not record '" + P.Name + "'"));
      continue;
    }
    if (Q->Hash != P.Hash)
      Drift.HashesEqual = false;
    if (P.Grad.has_value() != Q->Grad.has_value() ||
        (P.Grad && P.Grad->Hash != Q->Grad->Hash))
      GradsEqual = false;
    std::string What = "'" + P.Name + "' at step " + std::to_string(Ref.Step);
    if (!RefValues)
      RefValues = Values.read(Base, P, What);
    std::optional<std::vector<float>> Other = Values.read(R, *Q, What);
    // Samples of another size hold other elements: nothing to compare.
    if (!RefValues || !Other || Q->Stored != P.Stored) {
      Readable = false;
      continue;
    }
    Max = std::max(Max, maxAbsDifference(*RefValues, *Other));
  }
  // Parameters present on one rank only make the replicas differ too.
  if (Readable)
    Drift.MaxAbs = Max;
  return Drift;
}

void analyseStep(const std::vector<const ProbeStep *> &At,
                 const std::string &GradParam, ValueReader &Values,
                 StepAnalysis &Out, std::vector<std::string> &Warnings) {
  int NumRanks = static_cast<int>(At.size());
  Out.GradNorm.assign(NumRanks, std::nullopt);
  Out.GradFirst.assign(NumRanks, std::nullopt);
  int Base = countPresent(At, Out);
  bool AnyGrad = analyseGradients(At, GradParam, Values, Out);
  if (Base < 0)
    return;
  const ProbeStep &Ref = *At[Base];
  bool GradsEqual = true;
  for (const ParamRecord &P : Ref.Params) {
    ParamDrift Drift = paramDrift(At, Base, P, Values, GradsEqual, Warnings);
    Out.ParamsEqual &= Drift.HashesEqual;
    Out.Params.push_back(std::move(Drift));
  }
  for (int R = 0; R < NumRanks; ++R)
    if (At[R] && R != Base && At[R]->Params.size() != Ref.Params.size())
      Out.ParamsEqual = false;

  bool AllReadable = !Out.Params.empty() || Ref.Params.empty();
  double Max = 0;
  for (const ParamDrift &D : Out.Params) {
    if (!D.MaxAbs)
      AllReadable = false;
    else
      Max = std::max(Max, *D.MaxAbs);
  }
  if (AllReadable && Out.RanksPresent > 1)
    Out.MaxDrift = Max;
  if (AnyGrad && Out.RanksPresent > 1)
    Out.GradSynced = GradsEqual;
}

void analyseDataOrder(const RunEvidence &Run, DataOrderAnalysis &Out) {
  std::set<int64_t> Epochs;
  Out.Sequences.resize(Run.Ranks.size());
  for (const RankEvidence &R : Run.Ranks)
    for (const ProbeStep &S : R.Steps)
      if (S.Indices) {
        Out.Available = true;
        Epochs.insert(S.Epoch);
        std::vector<int64_t> &Seq = Out.Sequences[R.Rank][S.Epoch];
        Seq.insert(Seq.end(), S.Indices->begin(), S.Indices->end());
      }
  if (!Out.Available)
    return;
  Out.Epochs.assign(Epochs.begin(), Epochs.end());

  // Replay: a rank consuming exactly the previous epoch's order again. (A
  // fresh shuffle repeating by chance is negligible beyond a few samples.)
  bool Comparable = false;
  for (size_t R = 0; R < Out.Sequences.size(); ++R) {
    const auto &PerEpoch = Out.Sequences[R];
    for (auto It = PerEpoch.begin(); It != PerEpoch.end(); ++It) {
      auto Next = std::next(It);
      if (Next == PerEpoch.end() || It->first < 0)
        continue;
      Comparable = true;
      if (Next->second == It->second && !It->second.empty())
        Out.Repeats.push_back("rank " + std::to_string(R) + ": epoch " +
                              std::to_string(Next->first) + " repeats epoch " +
                              std::to_string(It->first));
    }
  }
  if (!Comparable)
    Out.Verdict = "single-epoch";
  else
    Out.Verdict = Out.Repeats.empty() ? "reshuffled" : "same-order";

  // Overlap: an index two ranks both consumed in the same epoch.
  for (int64_t Epoch : Out.Epochs) {
    std::map<int64_t, std::set<size_t>> Consumers;
    for (size_t R = 0; R < Out.Sequences.size(); ++R) {
      auto It = Out.Sequences[R].find(Epoch);
      if (It == Out.Sequences[R].end())
        continue;
      for (int64_t Index : It->second)
        Consumers[Index].insert(R);
    }
    uint64_t Shared = 0;
    for (const auto &[Index, Ranks] : Consumers)
      if (Ranks.size() > 1)
        ++Shared;
    if (Shared)
      Out.OverlapDetail += std::string(Out.OverlapDetail.empty() ? "" : "; ") +
                           "epoch " + std::to_string(Epoch) + ": " +
                           std::to_string(Shared) + " of " +
                           std::to_string(Consumers.size()) +
                           " indices consumed by more than one rank";
    Out.OverlapCount += Shared;
  }
  Out.Overlap = Out.OverlapCount > 0;
}

/// Whether training moves the parameters at all: each rank's first recorded
/// step against its last, parameter by parameter.
void analyseProgress(const RunEvidence &Run, RunAnalysis &Out) {
  for (const RankEvidence &R : Run.Ranks) {
    if (R.Steps.size() < 2)
      continue;
    const ProbeStep &First = R.Steps.front(), &Last = R.Steps.back();
    bool Changed = First.Params.size() != Last.Params.size();
    for (const ParamRecord &P : First.Params) {
      const ParamRecord *Q = findParam(Last, P.Name);
      Changed |= !Q || Q->Hash != P.Hash;
    }
    Out.ParamsChanged = Out.ParamsChanged.value_or(false) || Changed;
  }
}

} // namespace

namespace {

using StepsByKey = std::map<StepKey, std::vector<const ProbeStep *>>;

/// Each step's record per rank, matched by (epoch, step); picks the
/// parameter whose gradient Table 1 tracks. Returns how many ranks wrote a
/// probe file.
int groupSteps(const RunEvidence &Run, StepsByKey &ByStep, RunAnalysis &Out) {
  int WithProbe = 0;
  for (const RankEvidence &R : Run.Ranks) {
    if (!R.HasProbe)
      continue;
    ++WithProbe;
    for (const ProbeStep &S : R.Steps) {
      std::vector<const ProbeStep *> &At = ByStep[{S.Epoch, S.Step}];
      At.resize(Run.Ranks.size(), nullptr);
      if (At[R.Rank])
        Out.Warnings.push_back("rank " + std::to_string(R.Rank) +
                               " records step " + std::to_string(S.Step) +
                               " twice; the later line is used");
      At[R.Rank] = &S;
      if (Out.GradParam.empty())
        for (const ParamRecord &P : S.Params)
          if (P.Grad && P.Numel > 0) {
            Out.GradParam = P.Name;
            break;
          }
    }
  }
  for (const RankEvidence &R : Run.Ranks)
    if (!R.HasProbe && WithProbe > 0)
      Out.Warnings.push_back("rank " + std::to_string(R.Rank) +
                             " wrote no probe-rank" + std::to_string(R.Rank) +
                             ".jsonl");
  return WithProbe;
}

void analyseSteps(const RunEvidence &Run, const StepsByKey &ByStep,
                  RunAnalysis &Out) {
  ValueReader Values(Run, Out.Warnings);
  for (const auto &[Key, At] : ByStep) {
    StepAnalysis S;
    S.Epoch = Key.first;
    S.Step = Key.second;
    analyseStep(At, Out.GradParam, Values, S, Out.Warnings);
    if (S.GradSynced) {
      ++Out.StepsWithGrads;
      Out.StepsSynced += *S.GradSynced;
    }
    if (S.RanksPresent > 1) {
      if (!S.ParamsEqual && !Out.FirstDivergentStep)
        Out.FirstDivergentStep = S.Step;
      if (S.MaxDrift)
        Out.MaxDrift = std::max(Out.MaxDrift.value_or(0), *S.MaxDrift);
    }
    Out.Steps.push_back(std::move(S));
  }
  Values.summarize();
}

/// The metrics per rank, and their means over the ranks that wrote them.
void collectMetrics(const RunEvidence &Run, RunAnalysis &Out) {
  for (const RankEvidence &R : Run.Ranks)
    for (const auto &[Name, Value] : R.Metrics) {
      auto &PerRank = Out.Metrics[Name];
      PerRank.resize(Run.Ranks.size());
      PerRank[R.Rank] = Value;
    }
  for (const auto &[Name, PerRank] : Out.Metrics) {
    double Sum = 0;
    int N = 0;
    for (const std::optional<double> &V : PerRank)
      if (V) {
        Sum += *V;
        ++N;
      }
    Out.MetricMeans[Name] = Sum / N;
  }
}

} // namespace

RunAnalysis ddpharness::analyseRun(const RunEvidence &Run) {
  RunAnalysis Out;
  Out.NumRanks = static_cast<int>(Run.Ranks.size());
  Out.Warnings = Run.Warnings;
  StepsByKey ByStep;
  int WithProbe = groupSteps(Run, ByStep, Out);
  analyseSteps(Run, ByStep, Out);
  if (WithProbe == 0)
    Out.Replicas = "no probe data";
  else if (WithProbe == 1)
    Out.Replicas = "single rank";
  else if (Out.FirstDivergentStep)
    Out.Replicas = "diverged";
  else if (Out.MaxDrift)
    Out.Replicas = "consistent";
  else
    // Probe files, but no step two ranks both recorded (empty files left
    // by a crash, different steps): nothing says the replicas agree.
    Out.Replicas = "not compared (no step recorded by two ranks)";
  analyseDataOrder(Run, Out.Order);
  analyseProgress(Run, Out);
  collectMetrics(Run, Out);
  return Out;
}
