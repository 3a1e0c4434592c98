//===- ConfirmCommand.cpp - ddp-harness confirm ---------------------------===//
//
// ddp-harness confirm FINDINGS [--nproc N] [--output FILE] ...
//
// Turns ddplint's static findings into run-time evidence. For every check
// that has findings and a scenario in ddp-scenario, it runs the scenario's
// buggy variant and one fixed variant on real ranks, once per check, and
// writes the findings back with `runtime: {verdict, evidence, svg}` on each
// finding of that check. The findings file is ddplint's JSON document (or a
// bare array of findings) or a SARIF log; the output has the input's format.
//
// When a flagged file is a complete program (it defines main), confirm also
// builds it against LibTorch (Programs.h) and runs it on the same ranks with
// the probe: its own probe calls, or the auto-probe preloaded. Its findings
// then carry `runtime.program` (what the user's own program showed) and
// `runtime.scenario`, and the top-level verdict is the program's wherever
// its run measured the bug's presence or absence.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "ConfirmEvidence.h"
#include "ConfirmFindings.h"
#include "ExitCodes.h"
#include "Options.h"
#include "Programs.h"
#include "RunDirectory.h"
#include "RunRecords.h"
#include "Scenarios.h"
#include "Svg.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <functional>
#include <map>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

const char *Cmd = "confirm";

struct ConfirmOptions {
  int NumRanks = 2, Steps = 0;
  std::string Findings, Output, Format = "auto", Backend = "gloo", RunDir;
  double HangTimeout = 10, RunTimeout = 300, Grace = 2;
  double ProgramTimeout = 60, BuildTimeout = 600;
  bool Verbose = false, NoPrograms = false;
};

void addConfirmOptions(OptionParser &Parser, ConfirmOptions &O) {
  Parser.addPositional("FINDINGS", &O.Findings, /*Required=*/true);
  Parser.addInt("nproc", &O.NumRanks, 1, "N", "ranks per run (default 2)");
  Parser.addString("output", &O.Output, "FILE",
                   "write the annotated findings here (default: stdout)");
  Parser.addChoice("format", &O.Format, {"auto", "json", "sarif"},
                   "the findings file's format: ddplint's JSON document or "
                   "SARIF (default: auto, SARIF when it has \"runs\")");
  Parser.addChoice("backend", &O.Backend, {"gloo", "nccl"},
                   "DDP_HARNESS_BACKEND for the ranks (default gloo)");
  Parser.addSeconds("timeout", &O.HangTimeout,
                    "timeout for scenarios of kind hang (default 10)");
  Parser.addSeconds("run-timeout", &O.RunTimeout,
                    "timeout for the other kinds (default 300)");
  Parser.addSeconds("grace", &O.Grace,
                    "grace after a crash and before SIGKILL (default 2)");
  Parser.addInt("steps", &O.Steps, 1, "K", "pass --steps K to every scenario");
  Parser.addString("run-dir", &O.RunDir, "DIR",
                   "root of the run directories (default: a new directory "
                   "under $TMPDIR/ddp-harness)");
  Parser.addFlag("verbose", &O.Verbose, "stream the ranks' output to stderr");
  Parser.addFlag("no-programs", &O.NoPrograms,
                 "run the scenarios only, not the flagged programs");
  Parser.addSeconds("program-timeout", &O.ProgramTimeout,
                    "timeout for a flagged program's run; past it the "
                    "verdict is hang (default 60)");
  Parser.addSeconds("build-timeout", &O.BuildTimeout,
                    "timeout for building a flagged program (default 600)");
}

/// The findings file, parsed; the error says why it is unusable.
llvm::Expected<json::Value> readFindingsFile(const std::string &Findings) {
  auto Buffer = llvm::MemoryBuffer::getFileOrSTDIN(Findings, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read '" + Findings +
                                       "': " + Buffer.getError().message());
  llvm::Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + Findings + "' is not JSON: " +
                                       llvm::toString(Parsed.takeError()));
  return Parsed;
}

/// The exit code when the user interrupted the run behind \p Out (128+N,
/// after saying so); none when it ran on.
std::optional<int> interruptedExit(const VariantOutcome &Out) {
  if (Out.HarnessError || Out.Process != ProcessVerdict::Interrupted)
    return std::nullopt;
  std::fprintf(stderr, "ddp-harness confirm: interrupted\n");
  return 128 + Out.InterruptSignal;
}

/// The variant a scenario's buggy one is measured against: its first fix
/// ("buggy-..." variants show a bug a partial fix leaves: not fixes), or
/// "" when it has none.
std::string firstFix(const ScenarioInfo &S) {
  for (const std::string &V : S.Variants)
    if (!llvm::StringRef(V).starts_with("buggy"))
      return V;
  return "";
}

/// The scenario that demonstrates \p Check, or null.
const ScenarioInfo *scenarioFor(const std::vector<ScenarioInfo> &Listed,
                                const std::string &Check) {
  for (const ScenarioInfo &S : Listed)
    if (S.Check == Check && llvm::is_contained(S.Variants, "buggy"))
      return &S;
  return nullptr;
}

void reportNotRun(const std::string &File, const std::string &Why) {
  std::fprintf(stderr,
               "ddp-harness confirm: %s: not run: %s; its findings "
               "keep the scenarios' evidence\n",
               File.c_str(), Why.c_str());
}

/// A check with findings and the scenario that demonstrates it.
struct PlannedCheck {
  std::string Check;
  const ScenarioInfo *Scenario;
};

/// One confirm run, in phases: plan which scenarios demonstrate the
/// findings' checks, run each scenario, then build and run each flagged
/// program. Each phase returns an exit code when confirm must stop there
/// (the harness cannot work, or the user interrupted it).
class Confirmation {
public:
  Confirmation(const ConfirmOptions &Options, std::vector<FindingRef> &Refs);

  std::optional<int> run();

  const ScenarioResults &scenarioResults() const { return ScenarioEvidence; }
  const ProgramResults &programResults() const { return ProgramEvidence; }
  bool harnessError() const { return HarnessError; }

private:
  std::optional<int> loadScenarios(std::vector<PlannedCheck> &Planned);
  std::vector<PlannedCheck> planChecks();
  std::optional<int> runScenario(const PlannedCheck &P);
  std::string drawScenarioDrift(const PlannedCheck &P, const std::string &Dir,
                                const VariantOutcome &Bug,
                                const std::optional<VariantOutcome> &Fix);
  std::vector<std::string> flaggedFiles() const;
  std::vector<std::string> checksOf(const std::string &File) const;
  std::optional<int> runProgram(size_t N, const std::string &File);
  llvm::Expected<BuiltProgram> buildFlagged(const std::string &File,
                                            const std::string &Abs,
                                            const std::string &Dir);
  std::optional<int> measureProgram(const std::string &File,
                                    const BuiltProgram &Built,
                                    const std::string &Base,
                                    const std::string &Dir);
  void record(const std::string &File,
              const std::function<CheckResult(ScenarioKind)> &Result);

  const ConfirmOptions &Options;
  std::vector<FindingRef> &Refs;
  VariantOptions VOpts;
  ScenarioProgram Program;
  std::string Root;
  /// Findings per check, and each check's kind once a scenario has it.
  std::map<std::string, unsigned> PerCheck;
  std::map<std::string, ScenarioKind> KindOf;
  ScenarioResults ScenarioEvidence;
  ProgramResults ProgramEvidence;
  bool HarnessError = false;
};

Confirmation::Confirmation(const ConfirmOptions &Options,
                           std::vector<FindingRef> &Refs)
    : Options(Options), Refs(Refs) {
  VOpts.Command = Cmd;
  VOpts.NumRanks = Options.NumRanks;
  VOpts.Backend = Options.Backend;
  VOpts.HangTimeout = Options.HangTimeout;
  VOpts.RunTimeout = Options.RunTimeout;
  VOpts.Grace = Options.Grace;
  VOpts.Steps = Options.Steps;
  // stdout may carry the annotated document: the ranks' output never goes
  // there.
  VOpts.Output =
      Options.Verbose ? RankOutput::StreamToStderr : RankOutput::LogOnly;
}

std::optional<int> Confirmation::run() {
  std::vector<PlannedCheck> Planned;
  if (std::optional<int> Code = loadScenarios(Planned))
    return Code;
  if (Planned.empty())
    return std::nullopt;
  llvm::Expected<std::string> Made = makeFreshDirectory(Options.RunDir, Cmd);
  if (!Made)
    return reportHarnessError(Cmd, llvm::toString(Made.takeError()));
  Root = *Made;
  for (const PlannedCheck &P : Planned)
    if (std::optional<int> Code = runScenario(P))
      return Code;
  // The flagged programs themselves: each complete one built and run once,
  // and measured for each of its checks.
  for (const PlannedCheck &P : Planned)
    KindOf[P.Check] = P.Scenario->Kind;
  std::vector<std::string> Files = flaggedFiles();
  for (size_t N = 0; N < Files.size(); ++N)
    if (std::optional<int> Code = runProgram(N, Files[N]))
      return Code;
  return std::nullopt;
}

/// Loads the scenario program when there are findings at all, and plans the
/// checks a scenario demonstrates.
std::optional<int>
Confirmation::loadScenarios(std::vector<PlannedCheck> &Planned) {
  if (Refs.empty())
    return std::nullopt;
  llvm::Expected<ScenarioProgram> Loaded = loadScenarioProgram(Cmd);
  if (!Loaded)
    return reportHarnessError(Cmd, llvm::toString(Loaded.takeError()));
  Program = std::move(*Loaded);
  HarnessError |= Program.Skipped > 0;
  Planned = planChecks();
  return std::nullopt;
}

/// Distinct checks in the order their first finding appears, each with its
/// scenario; the checks without one are named on stderr.
std::vector<PlannedCheck> Confirmation::planChecks() {
  std::vector<std::string> Checks;
  for (const FindingRef &R : Refs)
    if (PerCheck[R.Check]++ == 0)
      Checks.push_back(R.Check);
  std::vector<PlannedCheck> Planned;
  for (const std::string &Check : Checks) {
    if (const ScenarioInfo *S = scenarioFor(Program.Scenarios, Check)) {
      Planned.push_back({Check, S});
      continue;
    }
    std::fprintf(stderr,
                 "ddp-harness confirm: %s: no scenario demonstrates this "
                 "check; its %u finding%s left without runtime "
                 "evidence\n",
                 Check.c_str(), PerCheck[Check],
                 PerCheck[Check] == 1 ? " is" : "s are");
  }
  return Planned;
}

/// Runs the scenario's buggy variant against its first fix and records
/// what they showed for the check.
std::optional<int> Confirmation::runScenario(const PlannedCheck &P) {
  const ScenarioInfo &S = *P.Scenario;
  std::string Fixed = firstFix(S);
  std::string Dir = Root + "/" + S.Name;
  VariantOutcome Bug =
      runScenarioVariant(Program.Path, S, "buggy", Dir + "/buggy", VOpts);
  if (std::optional<int> Code = interruptedExit(Bug))
    return Code;
  std::optional<VariantOutcome> Fix;
  if (!Fixed.empty()) {
    Fix = runScenarioVariant(Program.Path, S, Fixed, Dir + "/" + Fixed, VOpts);
    if (std::optional<int> Code = interruptedExit(*Fix))
      return Code;
  }
  if (Bug.HarnessError || (Fix && Fix->HarnessError)) {
    // Nothing was measured: the findings keep no evidence rather than a
    // verdict about a run that did not happen.
    HarnessError = true;
    std::fprintf(stderr,
                 "ddp-harness confirm: %s: scenario %s could not run; "
                 "its findings are left without runtime evidence\n",
                 P.Check.c_str(), S.Name.c_str());
    return std::nullopt;
  }
  std::string Context = "(scenario " + S.Name + ", " +
                        rankContext(Options.NumRanks, Options.Backend) + ")";
  CheckResult R =
      scenarioResult(S.Kind, Bug, Fix, Fixed, Context, VOpts.HangTimeout);
  R.Svg = drawScenarioDrift(P, Dir, Bug, Fix);
  std::fprintf(stderr, "ddp-harness confirm: %s: %s\n", P.Check.c_str(),
               R.Evidence.c_str());
  ScenarioEvidence[P.Check] = std::move(R);
  return std::nullopt;
}

/// Dir/drift.svg with both variants' drift, or "" when the probe recorded
/// no steps (a hang or a data-order run may have none to draw) or it could
/// not be written.
std::string
Confirmation::drawScenarioDrift(const PlannedCheck &P, const std::string &Dir,
                                const VariantOutcome &Bug,
                                const std::optional<VariantOutcome> &Fix) {
  std::vector<DriftSeries> Series;
  if (Bug.Series)
    Series.push_back(*Bug.Series);
  if (Fix && Fix->Series)
    Series.push_back(*Fix->Series);
  if (Series.empty())
    return "";
  std::string SvgPath = Dir + "/drift.svg";
  std::string Title =
      "Cross-rank drift: " + P.Scenario->Name + " (" + P.Check + ")";
  if (llvm::Error E = writeFileAtomically(SvgPath, driftSvg(Title, Series))) {
    std::fprintf(stderr, "ddp-harness confirm: warning: %s\n",
                 llvm::toString(std::move(E)).c_str());
    return "";
  }
  return SvgPath;
}

/// The distinct files flagged by findings of a check that has a scenario,
/// in the order they first appear (none with --no-programs).
std::vector<std::string> Confirmation::flaggedFiles() const {
  std::vector<std::string> Files;
  for (const FindingRef &F : Refs)
    if (!Options.NoPrograms && !F.File.empty() && KindOf.count(F.Check) &&
        !llvm::is_contained(Files, F.File))
      Files.push_back(F.File);
  return Files;
}

/// The checks with a scenario among \p File's findings.
std::vector<std::string> Confirmation::checksOf(const std::string &File) const {
  std::vector<std::string> Checks;
  for (const FindingRef &F : Refs)
    if (F.File == File && KindOf.count(F.Check) &&
        !llvm::is_contained(Checks, F.Check))
      Checks.push_back(F.Check);
  return Checks;
}

/// Records what \p File's run showed for each of its checks.
void Confirmation::record(
    const std::string &File,
    const std::function<CheckResult(ScenarioKind)> &Result) {
  for (const std::string &Check : checksOf(File))
    ProgramEvidence[{File, Check}] = Result(KindOf[Check]);
}

/// Builds the \p N-th flagged file, when it is a complete program, into
/// Root/programs/<N+1>-<name>/ and runs it there.
std::optional<int> Confirmation::runProgram(size_t N, const std::string &File) {
  llvm::SmallString<256> Abs(File);
  (void)llvm::sys::fs::make_absolute(Abs);
  auto Text = llvm::MemoryBuffer::getFile(Abs);
  if (!Text) {
    reportNotRun(File, "cannot read it (" + Text.getError().message() + ")");
    return std::nullopt;
  }
  if (!definesMain((*Text)->getBuffer().str())) {
    reportNotRun(File, "it defines no main, so it is not a complete program");
    return std::nullopt;
  }
  std::string Base = llvm::sys::path::stem(Abs).str();
  std::string Dir = Root + "/programs/" + std::to_string(N + 1) + "-" + Base;
  llvm::Expected<BuiltProgram> Built =
      buildFlagged(File, std::string(Abs), Dir);
  if (!Built) {
    std::string Why = llvm::toString(Built.takeError());
    std::fprintf(stderr, "ddp-harness confirm: %s: %s\n", File.c_str(),
                 Why.c_str());
    record(File, [&](ScenarioKind) {
      return CheckResult{"not run", "not run: " + Why, "", ""};
    });
    return std::nullopt;
  }
  return measureProgram(File, *Built, Base, Dir);
}

llvm::Expected<BuiltProgram>
Confirmation::buildFlagged(const std::string &File, const std::string &Abs,
                           const std::string &Dir) {
  ProgramSources Sources = programSources(Abs);
  if (Sources.Files.size() > 1)
    std::fprintf(stderr,
                 "ddp-harness confirm: building %s with %zu other unit(s) of "
                 "its directory from %s\n",
                 File.c_str(), Sources.Files.size() - 1,
                 Sources.Database.c_str());
  else
    std::fprintf(stderr, "ddp-harness confirm: building %s\n", File.c_str());
  llvm::Expected<std::string> BuildDir = prepareRunDirectory(Dir + "/build");
  if (!BuildDir)
    return BuildDir.takeError();
  return buildProgram(Abs, *BuildDir, Options.BuildTimeout);
}

/// Runs the built program on the ranks into Dir/run and measures it for
/// each of \p File's checks.
std::optional<int> Confirmation::measureProgram(const std::string &File,
                                                const BuiltProgram &Built,
                                                const std::string &Base,
                                                const std::string &Dir) {
  MeasuredCommand C;
  C.Command = {Built.Path};
  C.Environment = Built.Environment;
  C.Kind = ScenarioKind::Divergence;
  C.Title = "program " + File;
  C.SvgTitle = "Cross-rank drift: " + Base;
  C.SvgLabel = Base;
  C.Timeout = Options.ProgramTimeout;
  VariantOutcome Run = runMeasured(C, Dir + "/run", VOpts);
  if (std::optional<int> Code = interruptedExit(Run))
    return Code;
  if (Run.HarnessError) {
    HarnessError = true;
    record(File, [&](ScenarioKind) {
      return CheckResult{"not run", "not run: the harness could not run it", "",
                         Run.RunDir};
    });
    return std::nullopt;
  }
  std::string Context =
      "(this program, " + rankContext(Options.NumRanks, Options.Backend) +
      (Built.OwnProbe ? ", its own probe calls" : ", auto-probe") + ")";
  std::string Svg = Run.RunDir + "/drift.svg";
  record(File, [&](ScenarioKind Kind) {
    CheckResult R = programResult(Kind, Run, Context, Options.ProgramTimeout);
    if (Run.Series && llvm::sys::fs::exists(Svg))
      R.Svg = Svg;
    return R;
  });
  for (const std::string &Check : checksOf(File))
    std::fprintf(stderr, "ddp-harness confirm: %s: %s: %s\n", File.c_str(),
                 Check.c_str(),
                 ProgramEvidence[{File, Check}].Evidence.c_str());
  return std::nullopt;
}

/// Writes the annotated document to \p Output (stdout for "" or "-").
int writeDocument(const json::Value &Doc, const std::string &Output,
                  bool HarnessError) {
  std::string Text = llvm::formatv("{0:2}", Doc).str() + "\n";
  if (Output.empty() || Output == "-") {
    llvm::outs() << Text;
    llvm::outs().flush();
  } else if (llvm::Error E = writeFileAtomically(Output, Text)) {
    return reportHarnessError(Cmd, llvm::toString(std::move(E)));
  }
  return HarnessError ? ExitHarnessError : ExitOk;
}

} // namespace

int ddpharness::confirmCommand(const std::vector<std::string> &Args) {
  ConfirmOptions Options;
  OptionParser Parser(Cmd, "confirm FINDINGS [--nproc N] [--output FILE] "
                           "[--format auto|json|sarif]");
  addConfirmOptions(Parser, Options);
  if (llvm::Error E = Parser.parse(Args))
    return reportHarnessError(Cmd, llvm::toString(std::move(E)) + "\n" +
                                       Parser.usage());
  if (Parser.helpRequested()) {
    std::fputs(Parser.usage().c_str(), stdout);
    return ExitOk;
  }

  // The input first: a bad findings file is reported before any rank runs.
  llvm::Expected<json::Value> Parsed = readFindingsFile(Options.Findings);
  if (!Parsed)
    return reportHarnessError(Cmd, llvm::toString(Parsed.takeError()));
  json::Value Doc = std::move(*Parsed);
  InputFormat Detected = InputFormat::Json;
  llvm::Expected<std::vector<FindingRef>> Refs =
      collectFindings(Doc, Options.Format, Detected);
  if (!Refs)
    return reportHarnessError(
        Cmd, "'" + Options.Findings + "': " + llvm::toString(Refs.takeError()));

  Confirmation Run(Options, *Refs);
  if (std::optional<int> Code = Run.run())
    return *Code;
  annotateFindings(*Refs, Run.scenarioResults(), Run.programResults(),
                   Detected);
  return writeDocument(Doc, Options.Output, Run.harnessError());
}
