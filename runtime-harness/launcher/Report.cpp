//===- Report.cpp - Tables for a run and for two runs ---------------------===//

#include "Report.h"

#include "Verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

std::string printfString(const char *Format, double Value) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), Format, Value);
  return Buf;
}

/// Gradient elements, as seed 001 prints them (5 decimals), switching to
/// scientific notation where that would hide the value.
std::string formatGrad(std::optional<double> G) {
  if (!G)
    return "-";
  if (!std::isfinite(*G))
    return printfString("%g", *G);
  double M = std::fabs(*G);
  if (M != 0 && (M < 1e-4 || M >= 1e6))
    return printfString("%.4e", *G);
  return printfString("%.5f", *G);
}

std::string formatNorm(std::optional<double> N) {
  if (!N)
    return "-";
  if (!std::isfinite(*N))
    return printfString("%g", *N);
  if (*N != 0 && (*N < 1e-3 || *N >= 1e7))
    return printfString("%.3e", *N);
  return printfString("%.3f", *N);
}

std::string formatMetric(double V) {
  if (!std::isfinite(V))
    return printfString("%g", V);
  double M = std::fabs(V);
  if (M != 0 && (M < 1e-4 || M >= 1e7))
    return printfString("%.4e", V);
  return printfString("%.6f", V);
}

std::string yesNo(std::optional<bool> B) {
  if (!B)
    return "-";
  return *B ? "yes" : "no";
}

std::string stepLabel(const StepAnalysis &S, bool WithEpoch) {
  if (WithEpoch)
    return std::to_string(S.Epoch) + ":" + std::to_string(S.Step);
  return std::to_string(S.Step);
}

/// Step numbers alone identify steps unless the program restarts them every
/// epoch; then the tables show "epoch:step".
bool stepsNeedEpoch(const std::vector<StepAnalysis> &Steps) {
  std::set<int64_t> Seen;
  for (const StepAnalysis &S : Steps)
    if (!Seen.insert(S.Step).second)
      return true;
  return false;
}

/// A table of strings: each column as wide as its widest cell, cells right
/// aligned unless the column is marked left-aligned; a "|" column separates
/// groups.
class Table {
public:
  void addRow(std::vector<std::string> Cells) {
    Rows.push_back(std::move(Cells));
  }
  void setLeftAligned(size_t Column) { Left.insert(Column); }
  std::vector<std::string> render() const {
    std::vector<size_t> Width;
    for (const auto &Row : Rows)
      for (size_t C = 0; C < Row.size(); ++C) {
        if (Width.size() <= C)
          Width.push_back(0);
        Width[C] = std::max(Width[C], Row[C].size());
      }
    std::vector<std::string> Lines;
    for (const auto &Row : Rows) {
      std::string Line;
      for (size_t C = 0; C < Row.size(); ++C) {
        if (C)
          Line += ' ';
        size_t Pad = Width[C] - Row[C].size();
        if (Left.count(C))
          Line += Row[C] + std::string(Pad, ' ');
        else
          Line += std::string(Pad, ' ') + Row[C];
      }
      while (!Line.empty() && Line.back() == ' ')
        Line.pop_back();
      Lines.push_back(Line);
    }
    return Lines;
  }
  void print(llvm::raw_ostream &OS) const {
    for (const std::string &Line : render())
      OS << Line << "\n";
  }

private:
  std::vector<std::vector<std::string>> Rows;
  std::set<size_t> Left;
};

bool anyGradients(const RunAnalysis &A) {
  for (const StepAnalysis &S : A.Steps)
    for (const std::optional<double> &N : S.GradNorm)
      if (N)
        return true;
  return false;
}

/// The gradient columns of one run at one step (norms, elements, synced).
void gradientCells(const RunAnalysis &A, const StepAnalysis *S,
                   std::vector<std::string> &Row) {
  for (int R = 0; R < A.NumRanks; ++R)
    Row.push_back(S ? formatNorm(S->GradNorm[R]) : "");
  for (int R = 0; R < A.NumRanks; ++R)
    Row.push_back(S ? formatGrad(S->GradFirst[R]) : "");
  Row.push_back(S ? yesNo(S->GradSynced) : "");
}

void gradientHeader(const RunAnalysis &A, std::vector<std::string> &Row) {
  for (int R = 0; R < A.NumRanks; ++R)
    Row.push_back("norm_r" + std::to_string(R));
  for (int R = 0; R < A.NumRanks; ++R)
    Row.push_back("g_r" + std::to_string(R));
  Row.push_back("synced");
}

std::string gradientTitle(const RunAnalysis &A) {
  std::string Title = "Table 1 - gradient per rank after backward (norm_rR: "
                      "L2 norm over all parameters";
  if (!A.GradParam.empty())
    Title += "; g_rR: first element of the gradient of '" + A.GradParam + "'";
  return Title + "):";
}

void printParameterTable(llvm::raw_ostream &OS, const RunAnalysis &A,
                         bool WithEpoch) {
  std::vector<std::string> Names;
  for (const StepAnalysis &S : A.Steps)
    for (const ParamDrift &P : S.Params)
      if (std::find(Names.begin(), Names.end(), P.Name) == Names.end())
        Names.push_back(P.Name);
  if (Names.size() < 2)
    return;
  const size_t Shown = std::min<size_t>(Names.size(), 6);
  OS << "\nTable 3 - max|W_rank0 - W_rankK| per parameter after each step";
  if (Shown < Names.size())
    OS << " (first " << Shown << " of " << Names.size()
       << " parameters; all in --format json)";
  OS << ":\n";
  Table T;
  std::vector<std::string> Header{"step", "|"};
  Header.insert(Header.end(), Names.begin(), Names.begin() + Shown);
  T.addRow(Header);
  for (const StepAnalysis &S : A.Steps) {
    std::vector<std::string> Row{stepLabel(S, WithEpoch), "|"};
    for (size_t I = 0; I < Shown; ++I) {
      auto It = std::find_if(S.Params.begin(), S.Params.end(),
                             [&](const ParamDrift &P) {
                               return P.Name == Names[I];
                             });
      Row.push_back(It == S.Params.end() ? "-" : formatDrift(It->MaxAbs));
    }
    T.addRow(Row);
  }
  T.print(OS);
}

std::string firstIndices(const std::vector<int64_t> &Seq, size_t Limit) {
  std::string Out;
  for (size_t I = 0; I < Seq.size() && I < Limit; ++I)
    Out += (I ? " " : "") + std::to_string(Seq[I]);
  if (Seq.size() > Limit)
    Out += " ... (" + std::to_string(Seq.size()) + ")";
  return Out;
}

void printDataOrderTable(llvm::raw_ostream &OS, const RunAnalysis &A) {
  const DataOrderAnalysis &O = A.Order;
  if (!O.Available)
    return;
  OS << "\nData order - indices each rank consumed per epoch (first 8):\n";
  Table T;
  T.setLeftAligned(4);
  T.addRow({"epoch", "|", "rank", "|", "indices", "|", "repeats previous"});
  for (int64_t Epoch : O.Epochs)
    for (size_t R = 0; R < O.Sequences.size(); ++R) {
      auto It = O.Sequences[R].find(Epoch);
      if (It == O.Sequences[R].end())
        continue;
      std::string Repeats = "-";
      if (It != O.Sequences[R].begin() && Epoch >= 0)
        Repeats = std::prev(It)->second == It->second ? "yes" : "no";
      T.addRow({std::to_string(Epoch), "|", std::to_string(R), "|",
                firstIndices(It->second, 8), "|", Repeats});
    }
  T.print(OS);
  OS << "overlap between ranks: "
     << (O.Overlap ? O.OverlapDetail : std::string("none")) << "\n";
}

void printMetricsTable(llvm::raw_ostream &OS, const RunAnalysis &A) {
  if (A.Metrics.empty())
    return;
  OS << "\nMetrics (result-rank<R>.json):\n";
  Table T;
  T.setLeftAligned(0);
  std::vector<std::string> Header{"metric", "|"};
  for (int R = 0; R < A.NumRanks; ++R)
    Header.push_back("rank " + std::to_string(R));
  T.addRow(Header);
  for (const auto &[Name, PerRank] : A.Metrics) {
    std::vector<std::string> Row{Name, "|"};
    for (int R = 0; R < A.NumRanks; ++R)
      Row.push_back(R < static_cast<int>(PerRank.size()) && PerRank[R]
                        ? formatMetric(*PerRank[R])
                        : "-");
    T.addRow(Row);
  }
  T.print(OS);
}

std::string syncedSummary(const RunAnalysis &A) {
  if (A.StepsWithGrads == 0)
    return A.Replicas == "single rank" ? "one rank, nothing to compare"
                                       : "no gradients recorded";
  return "synced at " + std::to_string(A.StepsSynced) + " of " +
         std::to_string(A.StepsWithGrads) + " steps";
}

std::string replicaSummary(const RunAnalysis &A) {
  std::string Out = replicaVerdict(A);
  if (A.Replicas == "diverged" || A.Replicas == "consistent")
    Out += ", max drift " + formatDrift(A.MaxDrift);
  return Out;
}

} // namespace

std::string ddpharness::formatDrift(std::optional<double> D) {
  if (!D)
    return "-";
  if (!std::isfinite(*D))
    return printfString("%g", *D);
  if (*D == 0)
    return "0.000000";
  if (*D < 1e-4 || *D >= 1e7)
    return printfString("%.3e", *D);
  return printfString("%.6f", *D);
}

void ddpharness::printRunTables(llvm::raw_ostream &OS, const RunAnalysis &A) {
  if (A.Steps.empty()) {
    OS << "No probe data in the run directory (a program calls the probe "
          "each step to fill it).\n";
    printMetricsTable(OS, A);
    return;
  }
  bool WithEpoch = stepsNeedEpoch(A.Steps);
  if (anyGradients(A)) {
    OS << gradientTitle(A) << "\n";
    Table T;
    std::vector<std::string> Header{"step", "|"};
    gradientHeader(A, Header);
    // Group separators between norms, elements and synced.
    Header.insert(Header.begin() + 2 + A.NumRanks, "|");
    Header.insert(Header.begin() + 3 + 2 * A.NumRanks, "|");
    T.addRow(Header);
    for (const StepAnalysis &S : A.Steps) {
      std::vector<std::string> Row{stepLabel(S, WithEpoch), "|"};
      gradientCells(A, &S, Row);
      Row.insert(Row.begin() + 2 + A.NumRanks, "|");
      Row.insert(Row.begin() + 3 + 2 * A.NumRanks, "|");
      T.addRow(Row);
    }
    T.print(OS);
    OS << "\n";
  }

  if (A.Replicas == "single rank") {
    printDataOrderTable(OS, A);
    printMetricsTable(OS, A);
    return;
  }
  OS << "Table 2 - cross-rank divergence max|W_rank0 - W_rankK| after each "
        "step:\n";
  Table T;
  T.setLeftAligned(4);
  T.setLeftAligned(6);
  T.addRow({"step", "|", "drift", "|", "replicas", "|", "largest in"});
  for (const StepAnalysis &S : A.Steps) {
    std::string Largest = "-";
    double Max = 0;
    for (const ParamDrift &P : S.Params)
      if (P.MaxAbs && *P.MaxAbs > Max) {
        Max = *P.MaxAbs;
        Largest = P.Name;
      }
    std::string Replicas = S.RanksPresent < 2 ? "1 rank"
                           : S.ParamsEqual    ? "equal"
                                              : "differ";
    T.addRow({stepLabel(S, WithEpoch), "|", formatDrift(S.MaxDrift), "|",
              Replicas, "|", Largest});
  }
  T.print(OS);

  printParameterTable(OS, A, WithEpoch);
  printDataOrderTable(OS, A);
  printMetricsTable(OS, A);
}

std::vector<std::string>
ddpharness::warningsToShow(const std::vector<std::string> &All,
                           size_t Limit) {
  std::vector<std::string> Unique;
  std::set<std::string> Seen;
  for (const std::string &W : All)
    if (Seen.insert(W).second)
      Unique.push_back(W);
  if (Unique.size() > Limit) {
    size_t More = Unique.size() - Limit;
    Unique.resize(Limit);
    Unique.push_back("... and " + std::to_string(More) + " more");
  }
  return Unique;
}

static void replicaLines(llvm::raw_ostream &OS, const RunAnalysis &A,
                         const std::string &RunDir, const std::string &SvgPath);

void ddpharness::printRunSummary(llvm::raw_ostream &OS,
                                 const HarnessRecord &Process,
                                 const RunAnalysis &A,
                                 const std::string &RunDir,
                                 const std::string &SvgPath) {
  OS << "\n";
  for (const std::string &W : warningsToShow(A.Warnings))
    OS << "warning: " << W << "\n";

  printProcessVerdict(OS, Process);
  printCollectives(OS, A.Collectives);
  replicaLines(OS, A, RunDir, SvgPath);
}

static void replicaLines(llvm::raw_ostream &OS, const RunAnalysis &A,
                         const std::string &RunDir,
                         const std::string &SvgPath) {
  OS << "replicas: " << replicaSummary(A) << "\n";
  if (!A.Steps.empty())
    OS << "gradients: " << syncedSummary(A) << "\n";
  if (A.Order.Available)
    OS << "data order: " << dataOrderVerdict(A) << "\n";
  std::string Scale = gradientScale(A);
  if (!Scale.empty())
    OS << "gradient scale: " << Scale << " (metric grad_ratio)\n";
  if (!SvgPath.empty())
    OS << "drift plot: " << SvgPath << "\n";
  OS << "run directory: " << RunDir << "\n";
}

namespace {

/// The union of two runs' steps, in order, each with its analysis in either
/// run (null where that run lacks it).
struct ComparedSteps {
  std::map<std::pair<int64_t, int64_t>,
           std::pair<const StepAnalysis *, const StepAnalysis *>>
      Rows;
  std::vector<StepAnalysis> Keys;
  bool WithEpoch = false;

  ComparedSteps(const RunAnalysis &A, const RunAnalysis &B) {
    for (const StepAnalysis &S : A.Steps)
      Rows[{S.Epoch, S.Step}].first = &S;
    for (const StepAnalysis &S : B.Steps)
      Rows[{S.Epoch, S.Step}].second = &S;
    for (const auto &[Key, Pair] : Rows) {
      StepAnalysis K;
      K.Epoch = Key.first;
      K.Step = Key.second;
      Keys.push_back(K);
    }
    WithEpoch = stepsNeedEpoch(Keys);
  }

  std::pair<const StepAnalysis *, const StepAnalysis *> at(size_t I) const {
    return Rows.at({Keys[I].Epoch, Keys[I].Step});
  }
};

/// Table 1 for two runs side by side, each run's label above its columns.
void printComparedGradients(llvm::raw_ostream &OS, const RunAnalysis &A,
                            const RunAnalysis &B, const ComparedSteps &Steps,
                            const std::string &UpperA,
                            const std::string &UpperB) {
  std::string Param = !A.GradParam.empty() ? A.GradParam : B.GradParam;
  OS << "Table 1 - gradient per rank after backward (norm_rR: L2 norm over "
        "all parameters";
  if (!Param.empty())
    OS << "; g_rR: first element of the gradient of '" << Param << "'";
  OS << "):\n";
  Table T;
  std::vector<std::string> Header{"step", "|"};
  gradientHeader(A, Header);
  Header.push_back("|");
  gradientHeader(B, Header);
  T.addRow(Header);
  for (size_t I = 0; I < Steps.Keys.size(); ++I) {
    auto [SA, SB] = Steps.at(I);
    std::vector<std::string> Row{stepLabel(Steps.Keys[I], Steps.WithEpoch),
                                 "|"};
    gradientCells(A, SA, Row);
    Row.push_back("|");
    gradientCells(B, SB, Row);
    T.addRow(Row);
  }
  // The labels go above their groups, after the header's separators.
  std::vector<std::string> Lines = T.render();
  size_t First = Lines[0].find('|');
  size_t Second = Lines[0].find('|', First + 1);
  std::string Title(First, ' ');
  Title += "| " + UpperA;
  if (Title.size() < Second)
    Title.resize(Second, ' ');
  else
    Title += ' ';
  Title += "| " + UpperB;
  OS << Title << "\n";
  for (const std::string &Line : Lines)
    OS << Line << "\n";
  OS << "\n";
}

} // namespace

void ddpharness::printComparison(llvm::raw_ostream &OS, const RunAnalysis &A,
                                 const RunAnalysis &B,
                                 const std::string &LabelA,
                                 const std::string &LabelB) {
  ComparedSteps Steps(A, B);
  std::string UpperA = llvm::StringRef(LabelA).upper();
  std::string UpperB = llvm::StringRef(LabelB).upper();
  if (anyGradients(A) || anyGradients(B))
    printComparedGradients(OS, A, B, Steps, UpperA, UpperB);

  OS << "Table 2 - cross-rank divergence max|W_rank0 - W_rankK| after each "
        "step:\n";
  Table T;
  T.addRow({"step", "|", UpperA, "|", UpperB});
  for (size_t I = 0; I < Steps.Keys.size(); ++I) {
    auto [SA, SB] = Steps.at(I);
    T.addRow({stepLabel(Steps.Keys[I], Steps.WithEpoch), "|",
              SA ? formatDrift(SA->MaxDrift) : "", "|",
              SB ? formatDrift(SB->MaxDrift) : ""});
  }
  T.print(OS);
}
