//===- CompareCommand.cpp - ddp-harness compare ---------------------------===//
//
// ddp-harness compare RUN_DIR_A RUN_DIR_B [--label-a L] [--label-b L]
//
// Seed 001's tables for two runs side by side (typically the buggy program
// next to the fixed one), and one drift plot with both lines.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Commands.h"
#include "ExitCodes.h"
#include "Options.h"
#include "Report.h"
#include "RunDirectory.h"
#include "Svg.h"
#include "Verdict.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace ddpharness;

static std::string baseName(std::string Path) {
  while (Path.size() > 1 && Path.back() == '/')
    Path.pop_back();
  size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

static void printSide(llvm::raw_ostream &OS, const std::string &Label,
                      const RunEvidence &Run, const RunAnalysis &A) {
  OS << llvm::StringRef(Label).upper() << ": " << Run.Dir << "\n  ";
  if (Run.Harness) {
    std::string Failure = processFailure(*Run.Harness);
    OS << "processes " << (Failure.empty() ? "ok" : Failure) << "; ";
  }
  OS << "replicas " << replicaVerdict(A);
  if (A.MaxDrift)
    OS << ", max drift " << formatDrift(A.MaxDrift);
  if (A.StepsWithGrads)
    OS << "; gradients synced at " << A.StepsSynced << " of "
       << A.StepsWithGrads << " steps";
  if (A.Order.Available)
    OS << "; data order " << dataOrderVerdict(A);
  std::string Scale = gradientScale(A);
  if (!Scale.empty())
    OS << "; " << Scale;
  OS << "\n";
  for (const std::string &W : warningsToShow(A.Warnings, 5))
    OS << "  warning: " << W << "\n";
}

int ddpharness::compareCommand(const std::vector<std::string> &Args) {
  std::string DirA, DirB, LabelA, LabelB, SvgPath;
  OptionParser Parser("compare", "compare RUN_DIR_A RUN_DIR_B [--label-a "
                                 "NAME] [--label-b NAME] [--svg FILE]");
  Parser.addPositional("RUN_DIR_A", &DirA, /*Required=*/true);
  Parser.addPositional("RUN_DIR_B", &DirB, /*Required=*/true);
  Parser.addString("label-a", &LabelA, "NAME",
                   "name of the first run (default: its directory's name)");
  Parser.addString("label-b", &LabelB, "NAME",
                   "name of the second run (default: its directory's name)");
  Parser.addString("svg", &SvgPath, "FILE",
                   "where the drift plot goes (default: "
                   "RUN_DIR_A/drift-compare.svg)");
  if (llvm::Error E = Parser.parse(Args))
    return reportHarnessError("compare", llvm::toString(std::move(E)) +
                                             "\n" + Parser.usage());
  if (Parser.helpRequested()) {
    std::fputs(Parser.usage().c_str(), stdout);
    return ExitOk;
  }
  if (LabelA.empty())
    LabelA = baseName(DirA);
  if (LabelB.empty())
    LabelB = baseName(DirB);
  if (LabelA == LabelB) {
    LabelA += " (a)";
    LabelB += " (b)";
  }

  llvm::Expected<RunEvidence> RunA = readRunDirectory(DirA, 0);
  if (!RunA)
    return reportHarnessError("compare", llvm::toString(RunA.takeError()));
  llvm::Expected<RunEvidence> RunB = readRunDirectory(DirB, 0);
  if (!RunB)
    return reportHarnessError("compare", llvm::toString(RunB.takeError()));
  RunAnalysis A = analyseRun(*RunA), B = analyseRun(*RunB);
  if (A.Steps.empty() && B.Steps.empty())
    return reportHarnessError("compare", "neither '" + DirA + "' nor '" +
                                             DirB +
                                             "' holds probe data to compare");

  llvm::raw_ostream &OS = llvm::outs();
  printSide(OS, LabelA, *RunA, A);
  printSide(OS, LabelB, *RunB, B);
  OS << "\n";
  printComparison(OS, A, B, LabelA, LabelB);

  if (SvgPath.empty())
    SvgPath = DirA + "/drift-compare.svg";
  if (llvm::Error E = writeFileAtomically(
          SvgPath, driftSvg("Cross-rank drift: " + LabelA + " vs " + LabelB,
                            {driftSeries(LabelA, A), driftSeries(LabelB, B)})))
    return reportHarnessError("compare", llvm::toString(std::move(E)));
  OS << "\ndrift plot: " << SvgPath << "\n";
  OS.flush();
  return ExitOk;
}
