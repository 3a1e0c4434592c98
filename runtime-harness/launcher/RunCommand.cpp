//===- RunCommand.cpp - ddp-harness run -----------------------------------===//
//
// ddp-harness run --nproc N [options] -- PROGRAM [ARGS...]
//
// Starts the ranks, streams their output, then reads what their probes left
// in the run directory and prints the tables, the verdicts and where the
// evidence is.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Commands.h"
#include "ExitCodes.h"
#include "ForeignRuns.h"
#include "Options.h"
#include "Programs.h"
#include "Process.h"
#include "Report.h"
#include "Run.h"
#include "RunDirectory.h"
#include "RunRecords.h"
#include "Svg.h"
#include "Verdict.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace ddpharness;
namespace json = llvm::json;

int ddpharness::reportHarnessError(const std::string &Command,
                                   const std::string &Message) {
  std::fflush(stdout);
  std::fprintf(stderr, "ddp-harness %s: error: %s\n", Command.c_str(),
               Message.c_str());
  return ExitHarnessError;
}

int ddpharness::exitCodeFor(const LaunchResult &R) {
  switch (R.Verdict) {
  case ProcessVerdict::Ok:
    return ExitOk;
  case ProcessVerdict::Hang:
    return ExitHang;
  case ProcessVerdict::Crash:
    return ExitCrash;
  case ProcessVerdict::Interrupted:
    return 128 + R.InterruptSignal;
  }
  return ExitOk;
}

static json::Object runJson(const LaunchOptions &Options,
                            const LaunchResult &Result,
                            const HarnessRecord &Process, const RunAnalysis &A,
                            int ExitCode, const std::string &SvgPath) {
  json::Value Crash = nullptr;
  if (Result.CrashedRank >= 0)
    Crash = json::Object{
        {"rank", Result.CrashedRank},
        {"status", Result.Ranks[Result.CrashedRank].describe()}};
  json::Array Warnings;
  for (const std::string &W : warningsToShow(A.Warnings, 100))
    Warnings.push_back(W);
  json::Array PerRank;
  for (int R = 0; R < A.NumRanks; ++R) {
    json::Object M;
    for (const auto &[Name, Values] : A.Metrics)
      if (R < static_cast<int>(Values.size()) && Values[R])
        M[Name] = numberOrNull(Values[R]);
    PerRank.push_back(std::move(M));
  }
  json::Value FirstDivergent = nullptr;
  if (A.FirstDivergentStep)
    FirstDivergent = *A.FirstDivergentStep;
  return json::Object{
      {"verdict", Process.Verdict},
      {"exit_code", ExitCode},
      {"crash", std::move(Crash)},
      {"nproc", Options.NumRanks},
      {"backend", Options.Backend},
      {"master_port", Result.Port},
      {"wall_seconds", Result.WallSeconds},
      {"leftover_processes", static_cast<int64_t>(Result.LeftoverProcesses)},
      {"ranks", ranksJson(Result)},
      {"replicas", A.Replicas},
      {"first_divergent_step", std::move(FirstDivergent)},
      {"max_drift", numberOrNull(A.MaxDrift)},
      {"grad_param", A.GradParam},
      {"steps_with_gradients", static_cast<int64_t>(A.StepsWithGrads)},
      {"steps_synced", static_cast<int64_t>(A.StepsSynced)},
      {"data_order", dataOrderJson(A)},
      {"progress", A.ParamsChanged ? json::Value(progressVerdict(A))
                                   : json::Value(nullptr)},
      {"metrics", metricsJson(A)},
      {"collectives", collectivesJson(A.Collectives)},
      {"metrics_per_rank", std::move(PerRank)},
      {"steps", stepsJson(A)},
      {"warnings", std::move(Warnings)},
      {"drift_svg", SvgPath.empty() ? json::Value(nullptr)
                                    : json::Value(SvgPath)},
      {"run_dir", Options.RunDir}};
}

namespace {

struct RunOptions {
  int NumRanks = 2;
  std::string Backend = "gloo", RunDir, Format = "text";
  double Timeout = 300, Grace = 2;
  std::string Launcher = "harness";
  bool NoAutoProbe = false, NoTrace = false;
  std::vector<std::string> Command;
};

void addRunOptions(OptionParser &Parser, RunOptions &O) {
  Parser.addInt("nproc", &O.NumRanks, 1, "N", "number of ranks (default 2)");
  Parser.addChoice("backend", &O.Backend, {"gloo", "nccl"},
                   "DDP_HARNESS_BACKEND for the ranks (default gloo)");
  Parser.addSeconds("timeout", &O.Timeout,
                    "kill the ranks and report a hang after S seconds "
                    "(default 300)");
  Parser.addSeconds("grace", &O.Grace,
                    "how long the other ranks may go on after a crash, and "
                    "SIGTERM before SIGKILL (default 2)");
  Parser.addString("run-dir", &O.RunDir, "DIR",
                   "where the evidence goes (default: a new directory under "
                   "$TMPDIR/ddp-harness)");
  Parser.addChoice("format", &O.Format, {"text", "json"},
                   "report as tables (default) or one JSON object on stdout");
  Parser.addChoice("launcher", &O.Launcher, {"harness", "mpirun", "torchrun"},
                   "who starts the ranks: the harness (default), or mpirun "
                   "-np N / torchrun --nproc-per-node N on this machine");
  Parser.addFlag("no-autoprobe", &O.NoAutoProbe,
                 "never preload the auto-probe, even into a LibTorch program "
                 "without a probe of its own");
  Parser.addFlag("no-trace", &O.NoTrace,
                 "never preload the collective trace (each rank's MPI, NCCL "
                 "and c10d collectives with their call sites)");
  Parser.takeCommandAfterDashes(&O.Command, /*Required=*/true);
}

/// The launch of \p O.Command (resolved) into \p Dir; it announces the
/// ranks and the port on stdout (stderr with --format json).
LaunchOptions launchOptionsFor(const RunOptions &O, const std::string &Dir) {
  bool Json = O.Format == "json";
  LaunchOptions Options;
  Options.NumRanks = O.NumRanks;
  Options.Backend = O.Backend;
  Options.TimeoutSeconds = O.Timeout;
  Options.GraceSeconds = O.Grace;
  Options.RunDir = Dir;
  Options.Command = O.Command;
  Options.Output = Json ? RankOutput::StreamToStderr : RankOutput::Stream;
  FILE *Info = Json ? stderr : stdout;
  Options.OnStart = [Info, O, Dir](int Port) {
    std::fprintf(Info,
                 "ddp-harness: %d rank%s of %s%s (backend %s, "
                 "MASTER_ADDR=127.0.0.1 MASTER_PORT=%d, timeout %g s)\n"
                 "ddp-harness: run directory %s\n",
                 O.NumRanks, O.NumRanks == 1 ? "" : "s", O.Command[0].c_str(),
                 O.Launcher == "harness" ? ""
                                         : (" under " + O.Launcher).c_str(),
                 O.Backend.c_str(), Port, O.Timeout, Dir.c_str());
    std::fflush(Info);
  };
  return Options;
}

/// Preloads the auto-probe (LD_PRELOAD for the ranks) into a LibTorch
/// program with optimizers and no probe of its own, unless --no-autoprobe,
/// and says so.
llvm::Error chooseAutoProbe(const RunOptions &O, LaunchOptions &Options) {
  if (O.NoAutoProbe ||
      inspectProgram(O.Command[0]) != ProbeKind::NeedsAutoProbe)
    return llvm::Error::success();
  llvm::Expected<std::string> Preload = autoProbePreload();
  if (!Preload)
    return Preload.takeError();
  if (const char *Old = std::getenv("LD_PRELOAD"); Old && *Old)
    *Preload += std::string(":") + Old;
  Options.Environment.push_back(*Preload);
  std::fprintf(O.Format == "json" ? stderr : stdout,
               "ddp-harness: %s has no probe of its own: preloading the "
               "auto-probe (%s; --no-autoprobe turns it off)\n",
               O.Command[0].c_str(),
               Preload->substr(std::string("LD_PRELOAD=").size()).c_str());
  return llvm::Error::success();
}

} // namespace

void ddpharness::printRunReport(const LaunchOptions &Options,
                                const AnalysedRun &Run,
                                const HarnessRecord &Process, int ExitCode,
                                bool Json) {
  if (Json) {
    llvm::outs() << llvm::formatv(
                        "{0:2}", json::Value(runJson(Options, Run.Result,
                                                     Process, Run.Analysis,
                                                     ExitCode, Run.SvgPath)))
                 << "\n";
  } else {
    llvm::outs() << "\n";
    printRunTables(llvm::outs(), Run.Analysis);
    printRunSummary(llvm::outs(), Process, Run.Analysis, Options.RunDir,
                    Run.SvgPath);
    llvm::outs() << "exit code: " << ExitCode << "\n";
  }
  llvm::outs().flush();
}

int ddpharness::runCommand(const std::vector<std::string> &Args) {
  RunOptions O;
  OptionParser Parser("run", "run [--nproc N] [--backend gloo|nccl] "
                             "[--timeout S] [--run-dir DIR] [--format "
                             "text|json] [--launcher harness|mpirun|torchrun] "
                             "[--no-autoprobe] [--no-trace] -- PROGRAM "
                             "[ARGS...]");
  addRunOptions(Parser, O);
  if (llvm::Error E = Parser.parse(Args))
    return reportHarnessError("run", llvm::toString(std::move(E)) + "\n" +
                                         Parser.usage());
  if (Parser.helpRequested()) {
    std::fputs(Parser.usage().c_str(), stdout);
    return ExitOk;
  }

  llvm::Expected<std::string> Program = resolveExecutable(O.Command[0]);
  if (!Program)
    return reportHarnessError("run", llvm::toString(Program.takeError()));
  O.Command[0] = *Program;
  llvm::Expected<std::string> Dir = prepareRunDirectory(O.RunDir);
  if (!Dir)
    return reportHarnessError("run", llvm::toString(Dir.takeError()));

  LaunchOptions Options = launchOptionsFor(O, *Dir);
  if (llvm::Error E = chooseAutoProbe(O, Options))
    return reportHarnessError("run", llvm::toString(std::move(E)));
  if (!O.NoTrace)
    addPreload(Options.Environment, traceLibraries(O.Command[0]));
  if (O.Launcher != "harness")
    return runUnderLauncher(O.Launcher, std::move(Options), O.Format == "json");
  std::string Label = O.Command[0].substr(O.Command[0].rfind('/') + 1);
  llvm::Expected<AnalysedRun> Run =
      launchAndAnalyse(Options, "Cross-rank drift: " + Label, Label);
  if (!Run)
    return reportHarnessError("run", llvm::toString(Run.takeError()));
  int ExitCode = exitCodeFor(Run->Result);
  printRunReport(Options, *Run, recordOf(Run->Result), ExitCode,
                 O.Format == "json");
  return ExitCode;
}
