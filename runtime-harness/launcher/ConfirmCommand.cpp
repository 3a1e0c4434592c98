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
#include "ExitCodes.h"
#include "RunRecords.h"
#include "Options.h"
#include "Process.h"
#include "Programs.h"
#include "Report.h"
#include "RunDirectory.h"
#include "Scenarios.h"
#include "Svg.h"
#include "Verdict.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

const char *Cmd = "confirm";

enum class InputFormat { Json, Sarif };

/// A finding's object inside the parsed document and the check it names.
/// The pointers stay valid: the document is not resized while they live.
struct FindingRef {
  std::string Check;
  json::Object *Object;
  /// The flagged file as the finding names it ("" when it names none).
  std::string File;
};

/// A SARIF artifact URI as a path: file:// URIs lose their scheme.
std::string pathOfUri(llvm::StringRef Uri) {
  if (Uri.consume_front("file://"))
    Uri.consume_front("localhost");
  std::string Out;
  for (size_t I = 0; I < Uri.size(); ++I) {
    unsigned Byte;
    if (Uri[I] == '%' && I + 2 < Uri.size() &&
        !Uri.substr(I + 1, 2).getAsInteger(16, Byte)) {
      Out += static_cast<char>(Byte);
      I += 2;
    } else {
      Out += Uri[I];
    }
  }
  return Out;
}

/// The flagged file of finding \p F. In SARIF a relative artifact URI is
/// resolved against the run's `originalUriBaseIds` entry its `uriBaseId`
/// names (ddplint writes paths relative to %SRCROOT%, the directory it ran
/// in), so confirm finds the file from any working directory.
std::string fileOf(const json::Object &F, InputFormat Format,
                   const json::Object *BaseIds) {
  if (Format == InputFormat::Json) {
    std::optional<llvm::StringRef> File = F.getString("file");
    return File ? File->str() : "";
  }
  const json::Array *Locations = F.getArray("locations");
  const json::Object *Loc = Locations && !Locations->empty()
                                ? (*Locations)[0].getAsObject()
                                : nullptr;
  const json::Object *Physical =
      Loc ? Loc->getObject("physicalLocation") : nullptr;
  const json::Object *Artifact =
      Physical ? Physical->getObject("artifactLocation") : nullptr;
  std::optional<llvm::StringRef> Uri =
      Artifact ? Artifact->getString("uri") : std::nullopt;
  if (!Uri)
    return "";
  std::string Path = pathOfUri(*Uri);
  std::optional<llvm::StringRef> BaseId = Artifact->getString("uriBaseId");
  const json::Object *Base =
      BaseId && BaseIds ? BaseIds->getObject(*BaseId) : nullptr;
  std::optional<llvm::StringRef> BaseUri =
      Base ? Base->getString("uri") : std::nullopt;
  if (BaseUri && !llvm::sys::path::is_absolute(Path)) {
    llvm::SmallString<256> Joined(pathOfUri(*BaseUri));
    llvm::sys::path::append(Joined, Path);
    return std::string(Joined);
  }
  return Path;
}

/// Finds the findings in \p Doc: ddplint's document (`findings[]`), a bare
/// array of findings, or SARIF (`runs[0].results[]`, check in `ruleId`).
llvm::Expected<std::vector<FindingRef>>
collectFindings(json::Value &Doc, const std::string &Format,
                InputFormat &Detected) {
  auto error = [](const std::string &Message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
  };
  json::Array *List = nullptr;
  const json::Object *BaseIds = nullptr;
  std::string CheckKey = "check";
  json::Object *Top = Doc.getAsObject();
  bool LooksSarif = Top && Top->get("runs");
  if (Format == "sarif" || (Format == "auto" && LooksSarif)) {
    Detected = InputFormat::Sarif;
    json::Array *Runs = Top ? Top->getArray("runs") : nullptr;
    json::Object *Run =
        Runs && !Runs->empty() ? (*Runs)[0].getAsObject() : nullptr;
    List = Run ? Run->getArray("results") : nullptr;
    if (!List)
      return error("not a SARIF log with runs[0].results");
    BaseIds = Run->getObject("originalUriBaseIds");
    CheckKey = "ruleId";
  } else {
    Detected = InputFormat::Json;
    if (Top)
      List = Top->getArray("findings");
    else
      List = Doc.getAsArray();
    if (!List)
      return error("not a ddplint findings document: expected an object "
                   "with a \"findings\" array, a bare array of findings, or "
                   "a SARIF log");
  }
  std::vector<FindingRef> Out;
  for (size_t I = 0; I < List->size(); ++I) {
    json::Object *F = (*List)[I].getAsObject();
    std::optional<llvm::StringRef> Check =
        F ? F->getString(CheckKey) : std::nullopt;
    if (!Check)
      return error("finding " + std::to_string(I) + " has no \"" + CheckKey +
                   "\" string");
    Out.push_back({Check->str(), F, fileOf(*F, Detected, BaseIds)});
  }
  return Out;
}

/// Whether a variant's measurement shows the bug its scenario demonstrates,
/// shows it absent, or shows neither (a crash, no probe data).
enum class Shows { Bug, Clean, Neither };

std::optional<double> gradRatio(const VariantOutcome &V) {
  if (std::optional<double> R = V.Metrics.getNumber("grad_ratio"))
    if (std::isfinite(*R))
      return R;
  return std::nullopt;
}

Shows classify(ScenarioKind Kind, const VariantOutcome &V) {
  if (V.HarnessError)
    return Shows::Neither;
  llvm::StringRef Verdict = V.Verdict;
  // A job that hangs, or whose ranks stop on the wrapper's own error (a
  // bucket that never fills), does not finish; the fixed variant finishing
  // is what makes either one evidence.
  if (Kind == ScenarioKind::Hang)
    return V.Process == ProcessVerdict::Hang ||
                   V.Process == ProcessVerdict::Crash
               ? Shows::Bug
           : V.Process == ProcessVerdict::Ok ? Shows::Clean
                                             : Shows::Neither;
  // For the other kinds a hung or crashed run measured nothing about the
  // bug.
  if (V.Process != ProcessVerdict::Ok)
    return Shows::Neither;
  switch (Kind) {
  case ScenarioKind::DataOrder:
    if (Verdict.starts_with("same-order") || Verdict.contains("overlap"))
      return Shows::Bug;
    return Verdict == "reshuffled" ? Shows::Clean : Shows::Neither;
  case ScenarioKind::GradientScale: {
    std::optional<double> R = gradRatio(V);
    if (!R)
      return Shows::Neither;
    // The same tolerance as the report's colouring: the ratio is a mean of
    // float norms, exact 1.0 only up to rounding.
    return std::fabs(*R - 1.0) > 0.01 ? Shows::Bug : Shows::Clean;
  }
  case ScenarioKind::Progress:
    return Verdict == "frozen"     ? Shows::Bug
           : Verdict == "training" ? Shows::Clean
                                   : Shows::Neither;
  default:
    if (Verdict.starts_with("diverged"))
      return Shows::Bug;
    return Verdict == "consistent" ? Shows::Clean : Shows::Neither;
  }
}

std::string number(double D) { return llvm::formatv("{0:f3}", D).str(); }

/// What the buggy variant showed, as a clause of the evidence sentence.
std::string bugClause(ScenarioKind Kind, const VariantOutcome &V,
                      double Timeout) {
  switch (Kind) {
  case ScenarioKind::Hang:
  {
    if (V.Process == ProcessVerdict::Crash)
      return "the ranks stopped with an error instead of finishing (" +
             V.Verdict + ")";
    char Seconds[32];
    std::snprintf(Seconds, sizeof(Seconds), "%g", Timeout);
    return std::string("hang, the ranks did not finish within ") + Seconds +
           " s and were killed";
  }
  case ScenarioKind::DataOrder:
    return V.Verdict == "same-order"
               ? "every epoch replayed the previous epoch's data order "
                 "(same-order)"
               : "data order " + V.Verdict;
  case ScenarioKind::GradientScale:
    return "the ranks stepped with a gradient " +
           llvm::formatv("{0:f2}", *gradRatio(V)).str() +
           "x the average of their local gradients";
  case ScenarioKind::Progress:
    return "the trained module's parameters never changed (frozen)";
  default: {
    std::string S = "replicas diverged";
    if (V.FirstDivergentStep)
      S += " at step " + std::to_string(*V.FirstDivergentStep);
    if (V.MaxDrift)
      S += ", max drift " + number(*V.MaxDrift);
    return S;
  }
  }
}

/// What the fixed variant showed, when it was clean.
std::string cleanClause(ScenarioKind Kind, const VariantOutcome &V) {
  switch (Kind) {
  case ScenarioKind::Hang:
    return "finished";
  case ScenarioKind::DataOrder:
    return "reshuffled every epoch";
  case ScenarioKind::GradientScale:
    return "stepped with " + llvm::formatv("{0:f2}", *gradRatio(V)).str() +
           "x the average";
  case ScenarioKind::Progress:
    return "changed its parameters every run (training)";
  default:
    return "stayed consistent";
  }
}

std::string backendName(const std::string &B) {
  return B == "nccl" ? "NCCL" : B == "gloo" ? "Gloo" : B;
}

struct CheckResult {
  std::string Verdict, Evidence, Svg, RunDir;

  json::Object toJSON() const {
    json::Object O{{"verdict", Verdict}, {"evidence", Evidence}};
    if (!Svg.empty())
      O["svg"] = Svg;
    if (!RunDir.empty())
      O["run_dir"] = RunDir;
    return O;
  }
};

/// The exit code when the user interrupted the run behind \p Out (128+N,
/// after saying so); none when it ran on.
std::optional<int> interruptedExit(const VariantOutcome &Out) {
  if (Out.HarnessError || Out.Process != ProcessVerdict::Interrupted)
    return std::nullopt;
  std::fprintf(stderr, "ddp-harness confirm: interrupted\n");
  return 128 + Out.InterruptSignal;
}

/// What the user's program showed for a check of kind \p Kind.
CheckResult programResult(ScenarioKind Kind, const VariantOutcome &Run,
                          const std::string &Context, double Timeout) {
  CheckResult R;
  R.RunDir = Run.RunDir;
  // One run serves every check of the file: each is measured its own way.
  VariantOutcome AsKind = Run;
  if (auto It = Run.KindVerdicts.find(Kind); It != Run.KindVerdicts.end())
    AsKind.Verdict = It->second;
  switch (classify(Kind, AsKind)) {
  case Shows::Bug:
    R.Verdict = "confirmed";
    R.Evidence = "confirmed: " + bugClause(Kind, AsKind, Timeout) + " " +
                 Context;
    break;
  case Shows::Clean:
    R.Verdict = "not confirmed";
    R.Evidence = "not confirmed: the program " + cleanClause(Kind, AsKind) +
                 " " + Context;
    break;
  case Shows::Neither:
    R.Verdict = "inconclusive";
    R.Evidence = "inconclusive: the program's run measured '" +
                 AsKind.Verdict + "' " + Context;
    break;
  }
  return R;
}

} // namespace

int ddpharness::confirmCommand(const std::vector<std::string> &Args) {
  int NumRanks = 2, Steps = 0;
  std::string Findings, Output, Format = "auto", Backend = "gloo", RunDir;
  double HangTimeout = 10, RunTimeout = 300, Grace = 2;
  double ProgramTimeout = 60, BuildTimeout = 600;
  bool Verbose = false, NoPrograms = false;
  OptionParser Parser(Cmd, "confirm FINDINGS [--nproc N] [--output FILE] "
                           "[--format auto|json|sarif]");
  Parser.addPositional("FINDINGS", &Findings, /*Required=*/true);
  Parser.addInt("nproc", &NumRanks, 1, "N", "ranks per run (default 2)");
  Parser.addString("output", &Output, "FILE",
                   "write the annotated findings here (default: stdout)");
  Parser.addChoice("format", &Format, {"auto", "json", "sarif"},
                   "the findings file's format: ddplint's JSON document or "
                   "SARIF (default: auto, SARIF when it has \"runs\")");
  Parser.addChoice("backend", &Backend, {"gloo", "nccl"},
                   "DDP_HARNESS_BACKEND for the ranks (default gloo)");
  Parser.addSeconds("timeout", &HangTimeout,
                    "timeout for scenarios of kind hang (default 10)");
  Parser.addSeconds("run-timeout", &RunTimeout,
                    "timeout for the other kinds (default 300)");
  Parser.addSeconds("grace", &Grace,
                    "grace after a crash and before SIGKILL (default 2)");
  Parser.addInt("steps", &Steps, 1, "K", "pass --steps K to every scenario");
  Parser.addString("run-dir", &RunDir, "DIR",
                   "root of the run directories (default: a new directory "
                   "under $TMPDIR/ddp-harness)");
  Parser.addFlag("verbose", &Verbose, "stream the ranks' output to stderr");
  Parser.addFlag("no-programs", &NoPrograms,
                 "run the scenarios only, not the flagged programs");
  Parser.addSeconds("program-timeout", &ProgramTimeout,
                    "timeout for a flagged program's run; past it the "
                    "verdict is hang (default 60)");
  Parser.addSeconds("build-timeout", &BuildTimeout,
                    "timeout for building a flagged program (default 600)");
  if (llvm::Error E = Parser.parse(Args))
    return reportHarnessError(Cmd, llvm::toString(std::move(E)) + "\n" +
                                       Parser.usage());
  if (Parser.helpRequested()) {
    std::fputs(Parser.usage().c_str(), stdout);
    return ExitOk;
  }

  // The input first: a bad findings file is reported before any rank runs.
  auto Buffer = llvm::MemoryBuffer::getFileOrSTDIN(Findings, /*IsText=*/true);
  if (!Buffer)
    return reportHarnessError(Cmd, "cannot read '" + Findings +
                                       "': " + Buffer.getError().message());
  llvm::Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed)
    return reportHarnessError(Cmd, "'" + Findings + "' is not JSON: " +
                                       llvm::toString(Parsed.takeError()));
  json::Value Doc = std::move(*Parsed);
  InputFormat Detected = InputFormat::Json;
  llvm::Expected<std::vector<FindingRef>> Refs =
      collectFindings(Doc, Format, Detected);
  if (!Refs)
    return reportHarnessError(Cmd, "'" + Findings + "': " +
                                       llvm::toString(Refs.takeError()));

  // Distinct checks in the order their first finding appears.
  std::vector<std::string> Checks;
  std::map<std::string, unsigned> PerCheck;
  for (const FindingRef &R : *Refs)
    if (PerCheck[R.Check]++ == 0)
      Checks.push_back(R.Check);

  std::map<std::string, CheckResult> Results;
  /// (file, check) -> what the flagged program showed.
  std::map<std::pair<std::string, std::string>, CheckResult> ProgramResults;
  bool HarnessError = false;
  if (!Checks.empty()) {
    llvm::Expected<ScenarioProgram> Program = loadScenarioProgram(Cmd);
    if (!Program)
      return reportHarnessError(Cmd, llvm::toString(Program.takeError()));
    HarnessError |= Program->Skipped > 0;
    const std::vector<ScenarioInfo> *Listed = &Program->Scenarios;

    std::vector<std::pair<std::string, const ScenarioInfo *>> ToRun;
    for (const std::string &Check : Checks) {
      const ScenarioInfo *Found = nullptr;
      for (const ScenarioInfo &S : *Listed)
        if (S.Check == Check && llvm::is_contained(S.Variants, "buggy")) {
          Found = &S;
          break;
        }
      if (Found)
        ToRun.push_back({Check, Found});
      else
        std::fprintf(stderr,
                     "ddp-harness confirm: %s: no scenario demonstrates this "
                     "check; its %u finding%s left without runtime "
                     "evidence\n",
                     Check.c_str(), PerCheck[Check],
                     PerCheck[Check] == 1 ? " is" : "s are");
    }

    if (!ToRun.empty()) {
      llvm::Expected<std::string> Root = makeFreshDirectory(RunDir, Cmd);
      if (!Root)
        return reportHarnessError(Cmd, llvm::toString(Root.takeError()));
      VariantOptions VOpts;
      VOpts.Command = Cmd;
      VOpts.NumRanks = NumRanks;
      VOpts.Backend = Backend;
      VOpts.HangTimeout = HangTimeout;
      VOpts.RunTimeout = RunTimeout;
      VOpts.Grace = Grace;
      VOpts.Steps = Steps;
      // stdout may carry the annotated document: the ranks' output never
      // goes there.
      VOpts.Output =
          Verbose ? RankOutput::StreamToStderr : RankOutput::LogOnly;

      for (const auto &[Check, S] : ToRun) {
        // The buggy variant against the scenario's first fix ("buggy-..."
        // variants show a bug a partial fix leaves: not fixes).
        std::string Fixed;
        for (const std::string &V : S->Variants)
          if (!llvm::StringRef(V).starts_with("buggy")) {
            Fixed = V;
            break;
          }
        std::string Dir = *Root + "/" + S->Name;
        VariantOutcome Bug =
            runScenarioVariant(Program->Path, *S, "buggy", Dir + "/buggy", VOpts);
        if (std::optional<int> Code = interruptedExit(Bug))
          return *Code;
        std::optional<VariantOutcome> Fix;
        if (!Fixed.empty()) {
          Fix = runScenarioVariant(Program->Path, *S, Fixed, Dir + "/" + Fixed,
                                   VOpts);
          if (std::optional<int> Code = interruptedExit(*Fix))
            return *Code;
        }
        if (Bug.HarnessError || (Fix && Fix->HarnessError)) {
          // Nothing was measured: the findings keep no evidence rather than
          // a verdict about a run that did not happen.
          HarnessError = true;
          std::fprintf(stderr,
                       "ddp-harness confirm: %s: scenario %s could not run; "
                       "its findings are left without runtime evidence\n",
                       Check.c_str(), S->Name.c_str());
          continue;
        }

        Shows BugShows = classify(S->Kind, Bug);
        Shows FixShows = Fix ? classify(S->Kind, *Fix) : Shows::Clean;
        bool Confirmed = BugShows == Shows::Bug && FixShows == Shows::Clean;
        std::string Context = "(scenario " + S->Name + ", " +
                              std::to_string(NumRanks) + " rank" +
                              (NumRanks == 1 ? "" : "s") + ", " +
                              backendName(Backend) + ")";
        CheckResult R;
        R.Verdict = Confirmed ? "confirmed" : "not confirmed";
        if (Confirmed) {
          R.Evidence = "confirmed: " +
                       bugClause(S->Kind, Bug, VOpts.HangTimeout) + " " +
                       Context;
          if (Fix)
            R.Evidence += "; the fixed variant (" + Fixed + ") " +
                          cleanClause(S->Kind, *Fix);
        } else {
          R.Evidence = "not confirmed: the buggy variant measured '" +
                       Bug.Verdict + "'";
          if (Fix)
            R.Evidence +=
                ", the fixed variant (" + Fixed + ") '" + Fix->Verdict + "'";
          R.Evidence += " " + Context;
        }

        std::vector<DriftSeries> Series;
        if (Bug.Series)
          Series.push_back(*Bug.Series);
        if (Fix && Fix->Series)
          Series.push_back(*Fix->Series);
        // A drift picture only where the probe recorded steps: a hang or a
        // data-order run may have none to draw.
        if (!Series.empty()) {
          std::string SvgPath = Dir + "/drift.svg";
          if (llvm::Error E = writeFileAtomically(
                  SvgPath, driftSvg("Cross-rank drift: " + S->Name + " (" +
                                        Check + ")",
                                    Series)))
            std::fprintf(stderr, "ddp-harness confirm: warning: %s\n",
                         llvm::toString(std::move(E)).c_str());
          else
            R.Svg = SvgPath;
        }
        std::fprintf(stderr, "ddp-harness confirm: %s: %s\n", Check.c_str(),
                     R.Evidence.c_str());
        Results[Check] = std::move(R);
      }

      // The flagged programs themselves: each complete one built and run
      // once, and measured for each of its checks.
      std::map<std::string, ScenarioKind> KindOf;
      for (const auto &[Check, S] : ToRun)
        KindOf[Check] = S->Kind;
      std::vector<std::string> Files;
      for (const FindingRef &F : *Refs)
        if (!NoPrograms && !F.File.empty() && KindOf.count(F.Check) &&
            !llvm::is_contained(Files, F.File))
          Files.push_back(F.File);
      for (size_t N = 0; N < Files.size(); ++N) {
        const std::string &File = Files[N];
        auto note = [&](const std::string &Why) {
          std::fprintf(stderr,
                       "ddp-harness confirm: %s: not run: %s; its findings "
                       "keep the scenarios' evidence\n",
                       File.c_str(), Why.c_str());
        };
        llvm::SmallString<256> Abs(File);
        (void)llvm::sys::fs::make_absolute(Abs);
        auto Text = llvm::MemoryBuffer::getFile(Abs);
        if (!Text) {
          note("cannot read it (" + Text.getError().message() + ")");
          continue;
        }
        if (!definesMain((*Text)->getBuffer().str())) {
          note("it defines no main, so it is not a complete program");
          continue;
        }
        std::vector<std::string> FileChecks;
        for (const FindingRef &F : *Refs)
          if (F.File == File && KindOf.count(F.Check) &&
              !llvm::is_contained(FileChecks, F.Check))
            FileChecks.push_back(F.Check);
        auto record = [&](const std::function<CheckResult(ScenarioKind)> &R) {
          for (const std::string &Check : FileChecks)
            ProgramResults[{File, Check}] = R(KindOf[Check]);
        };

        std::string Base = llvm::sys::path::stem(Abs).str();
        std::string Dir =
            *Root + "/programs/" + std::to_string(N + 1) + "-" + Base;
        std::fprintf(stderr, "ddp-harness confirm: building %s\n",
                     File.c_str());
        llvm::Expected<std::string> BuildDir =
            prepareRunDirectory(Dir + "/build");
        llvm::Expected<BuiltProgram> Built =
            BuildDir ? buildProgram(std::string(Abs), *BuildDir, BuildTimeout)
                     : BuildDir.takeError();
        if (!Built) {
          std::string Why = llvm::toString(Built.takeError());
          std::fprintf(stderr, "ddp-harness confirm: %s: %s\n", File.c_str(),
                       Why.c_str());
          record([&](ScenarioKind) {
            return CheckResult{"not run", "not run: " + Why, "", ""};
          });
          continue;
        }
        MeasuredCommand C;
        C.Command = {Built->Path};
        C.Environment = Built->Environment;
        C.Kind = ScenarioKind::Divergence;
        C.Title = "program " + File;
        C.SvgTitle = "Cross-rank drift: " + Base;
        C.SvgLabel = Base;
        C.Timeout = ProgramTimeout;
        VariantOutcome Run = runMeasured(C, Dir + "/run", VOpts);
        if (std::optional<int> Code = interruptedExit(Run))
          return *Code;
        if (Run.HarnessError) {
          HarnessError = true;
          record([&](ScenarioKind) {
            return CheckResult{"not run",
                               "not run: the harness could not run it", "",
                               Run.RunDir};
          });
          continue;
        }
        std::string Context = "(this program, " + std::to_string(NumRanks) +
                              " rank" + (NumRanks == 1 ? "" : "s") + ", " +
                              backendName(Backend) +
                              (Built->OwnProbe ? ", its own probe calls"
                                               : ", auto-probe") +
                              ")";
        std::string Svg = Run.RunDir + "/drift.svg";
        record([&](ScenarioKind Kind) {
          CheckResult R = programResult(Kind, Run, Context, ProgramTimeout);
          if (Run.Series && llvm::sys::fs::exists(Svg))
            R.Svg = Svg;
          return R;
        });
        for (const std::string &Check : FileChecks)
          std::fprintf(stderr, "ddp-harness confirm: %s: %s: %s\n",
                       File.c_str(), Check.c_str(),
                       ProgramResults[{File, Check}].Evidence.c_str());
      }
    }
  }

  for (FindingRef &F : *Refs) {
    auto It = Results.find(F.Check);
    auto P = ProgramResults.find({F.File, F.Check});
    if (It == Results.end() && P == ProgramResults.end())
      continue;
    json::Object Runtime;
    if (P == ProgramResults.end()) {
      Runtime = It->second.toJSON();
    } else {
      // The user's own program speaks first where it measured something.
      const CheckResult &Program = P->second;
      bool Measured = Program.Verdict == "confirmed" ||
                      Program.Verdict == "not confirmed";
      const CheckResult &Top =
          Measured || It == Results.end() ? Program : It->second;
      Runtime = json::Object{{"verdict", Top.Verdict},
                             {"evidence", Top.Evidence}};
      std::string Svg = !Top.Svg.empty() ? Top.Svg
                        : It != Results.end() ? It->second.Svg
                                              : Program.Svg;
      if (!Svg.empty())
        Runtime["svg"] = Svg;
      Runtime["program"] = Program.toJSON();
      if (It != Results.end())
        Runtime["scenario"] = It->second.toJSON();
    }
    if (Detected == InputFormat::Sarif) {
      // SARIF keeps tool-specific data in a property bag.
      json::Object *Props = F.Object->getObject("properties");
      if (!Props) {
        (*F.Object)["properties"] = json::Object{};
        Props = F.Object->getObject("properties");
      }
      (*Props)["runtime"] = std::move(Runtime);
    } else {
      (*F.Object)["runtime"] = std::move(Runtime);
    }
  }

  std::string Text = llvm::formatv("{0:2}", Doc).str() + "\n";
  if (Output.empty() || Output == "-") {
    llvm::outs() << Text;
    llvm::outs().flush();
  } else if (llvm::Error E = writeFileAtomically(Output, Text)) {
    return reportHarnessError(Cmd, llvm::toString(std::move(E)));
  }
  return HarnessError ? ExitHarnessError : ExitOk;
}
