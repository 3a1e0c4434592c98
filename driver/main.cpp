//===--- main.cpp - ddplint, the standalone driver ------------------------===//
//
// Runs the ddp-* checks without a clang-tidy binary. It takes clang-tidy's
// command-line shape (files, -p, --, --checks, .clang-tidy files, NOLINT) and
// prints clang-style diagnostics, but keeps compile errors apart from the
// findings and returns an exit code CI can act on:
//   0  nothing found
//   1  findings
//   2  usage error or tool error (missing file, unusable compile database)
//   3  a unit's analysis was vacuous (Vacuity.h; --no-vacuous-status)
// When several apply, the first of 2, 3, 1 wins (RunStatus.h).
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Baseline.h"
#include "Cache.h"
#include "CompileDatabase.h"
#include "Configuration.h"
#include "Finding.h"
#include "Fixes.h"
#include "Options.h"
#include "Output.h"
#include "Preamble.h"
#include "RunStatus.h"
#include "Runner.h"
#include "SdkFallback.h"
#include "Subcommands.h"
#include "Units.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace clang;
using namespace clang::tidy;
using namespace llvm;
using namespace ddplint;

namespace ddplint {
cl::OptionCategory &optionCategory() {
  static cl::OptionCategory Category("ddplint options");
  return Category;
}
} // namespace ddplint

namespace {

cl::OptionCategory &DdplintCategory = optionCategory();

cl::list<std::string> SourcePaths(cl::Positional, cl::desc("<source files>"),
                                  cl::cat(DdplintCategory));

cl::opt<std::string> BuildPath("p", cl::desc(R"(
Build directory holding compile_commands.json.
Without -p and without '--', ddplint looks for
compile_commands.json or compile_flags.txt in
the parent directories of the first source file.)"),
                               cl::value_desc("build dir"),
                               cl::cat(DdplintCategory));

cl::list<std::string> ExtraArgs("extra-arg",
                                cl::desc("Compiler argument to append."),
                                cl::cat(DdplintCategory));
cl::list<std::string> ExtraArgsBefore("extra-arg-before",
                                      cl::desc("Compiler argument to prepend."),
                                      cl::cat(DdplintCategory));

cl::opt<unsigned> Jobs("j", cl::desc(R"(
Units analysed in parallel (default: one per
CPU core).)"),
                       cl::value_desc("N"), cl::init(0), cl::Prefix,
                       cl::cat(DdplintCategory));

cl::opt<std::string> Shard("shard", cl::desc(R"(
Analyse only shard I of N (1-based) of the
units: every N-th unit of the sorted list. N CI
jobs with --shard 1/N .. N/N cover every unit
once; join their outputs with 'ddplint merge'.)"),
                           cl::value_desc("I/N"), cl::init(""),
                           cl::cat(DdplintCategory));

cl::opt<bool> NoCache("no-cache", cl::desc(R"(
Analyse every unit, without reusing or storing
findings in the cache.)"),
                      cl::init(false), cl::cat(DdplintCategory));

cl::opt<std::string> CacheDir("cache-dir", cl::desc(R"(
Where findings and shared preambles are kept.
Default: $DDPLINT_CACHE_DIR, else
$XDG_CACHE_HOME/ddplint, else ~/.cache/ddplint.)"),
                              cl::value_desc("dir"), cl::init(""),
                              cl::cat(DdplintCategory));

cl::opt<unsigned> CacheSizeLimit("cache-size-limit", cl::desc(R"(
Size limit of the cache directory in MiB; the
least recently used entries go first.)"),
                                 cl::value_desc("MiB"), cl::init(4096),
                                 cl::cat(DdplintCategory));

cl::opt<bool> NoPreamble("no-preamble", cl::desc(R"(
Parse every unit's headers itself instead of
sharing a precompiled header between units that
start with the same LibTorch includes.)"),
                         cl::init(false), cl::cat(DdplintCategory));

cl::opt<bool> NoSdkFallback("no-sdk-fallback", cl::desc(R"(
Do not fall back on ddplint's declarations of
<mpi.h>, <nccl.h>, <cuda_runtime.h> and
<boost/mpi.hpp> when no include directory has
the real header: a missing SDK header is then a
compile error, as it is for the compiler, and
the unit's analysis is vacuous (exit 3).)"),
                            cl::init(false), cl::cat(DdplintCategory));

cl::opt<bool> Verbose("verbose", cl::desc(R"(
Say, for each unit, whether it was analysed (and
why: what changed) or its findings reused.)"),
                      cl::init(false), cl::cat(DdplintCategory));
cl::alias VerboseShort("v", cl::desc("Alias for --verbose"),
                       cl::aliasopt(Verbose), cl::NotHidden);

cl::opt<std::string> Baseline("baseline", cl::desc(R"(
Hide the findings recorded in this file by
--write-baseline: only new findings are shown.)"),
                              cl::value_desc("file"), cl::init(""),
                              cl::cat(DdplintCategory));

cl::opt<std::string> WriteBaseline("write-baseline", cl::desc(R"(
Record this run's findings in a baseline file.)"),
                                   cl::value_desc("file"), cl::init(""),
                                   cl::cat(DdplintCategory));

cl::opt<bool> Quiet("quiet",
                    cl::desc("Do not print the summary on standard error."),
                    cl::init(false), cl::cat(DdplintCategory));

/// Parses ddplint's own options: everything before '--' (what follows is
/// the compile command, CompileDatabase.h). Returns false after printing
/// what is wrong with them.
bool parseOwnOptions(int Argc, const char **Argv) {
  cl::HideUnrelatedOptions(DdplintCategory);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "ddplint " DDPLINT_VERSION " (checks built against LLVM "
       << LLVM_VERSION_STRING << ")\n";
  });
  int OwnArgc = Argc;
  for (int I = 1; I < Argc; ++I)
    if (StringRef(Argv[I]) == "--") {
      OwnArgc = I;
      break;
    }
  return cl::ParseCommandLineOptions(
      OwnArgc, Argv,
      "ddplint: finds silent data-parallel training bugs in LibTorch, MPI "
      "and NCCL code.\n\n"
      "  ddplint [options] <source files> -- <compiler flags>\n"
      "  ddplint -p <build folder> [options] [<source files>]\n\n"
      "Compiler flags come after '--', from the compile database -p names, "
      "or from a compile_commands.json or compile_flags.txt found above the "
      "first file (or in a build/ folder of a folder above it).\n\n"
      "Exit codes: 0 nothing found, 1 findings, 2 usage or "
      "tool error, 3 a unit's analysis was vacuous (a header not found, a "
      "file clang cannot read, no function left to analyse); when "
      "several apply, 2 wins over 3, and 3 over 1.\n",
      &errs());
}

/// Whether the command line describes a run: some check enabled, something
/// to analyse, a valid --shard (read into ShardIndex and ShardCount).
/// Prints why not.
bool checkInvocation(const ClangTidyOptions &Effective,
                     ArrayRef<std::string> Enabled, unsigned &ShardIndex,
                     unsigned &ShardCount) {
  if (Enabled.empty()) {
    WithColor::error(errs(), "ddplint")
        << "no checks enabled (checks: '" << Effective.Checks.value_or("")
        << "'); see --list-checks\n";
    return false;
  }
  if (SourcePaths.empty() && BuildPath.empty()) {
    WithColor::error(errs(), "ddplint")
        << "no input files; usage: ddplint [options] <source files> "
           "[-- <compiler flags>], or ddplint -p <build dir> for every unit "
           "of its compile database\n";
    return false;
  }
  if (!outputWritable())
    return false;
  if (!Shard.empty() && !parseShard(Shard, ShardIndex, ShardCount)) {
    WithColor::error(errs(), "ddplint")
        << "invalid --shard '" << Shard
        << "': expected I/N with 1 <= I <= N\n";
    return false;
  }
  return true;
}

/// What a run gathers on its way to the report and the exit code.
struct RunState {
  std::vector<std::string> Enabled; ///< The enabled checks.
  bool Failed = false;              ///< A tool error: exit code 2.
  std::vector<std::string> ToolErrors;
  std::vector<std::string> Files; ///< The units to analyse, readable.
  std::vector<Finding> Findings, CompileErrors;
  std::vector<UnitResult> UnitResults; ///< Each unit's own, for --fix.
  std::vector<SdkFallbackNote> Fallbacks;
  std::vector<VacuousUnit> Vacuous;
  RunStats Stats;
  unsigned Hidden = 0; ///< Known findings hidden by --baseline.

  /// Reports what the tool could not do; the run goes on, and exits 2.
  void toolError(const std::string &Message) {
    WithColor::error(errs(), "ddplint") << Message << "\n";
    ToolErrors.push_back(Message);
    Failed = true;
  }

  /// Takes in what the analysis of one unit found.
  void add(UnitResult &Unit) {
    if (fixesRequested())
      UnitResults.push_back(Unit); // --fix: each unit's own findings
    if (!Unit.ToolError.empty())
      toolError(Unit.ToolError);
    std::move(Unit.Findings.begin(), Unit.Findings.end(),
              std::back_inserter(Findings));
    std::move(Unit.CompileErrors.begin(), Unit.CompileErrors.end(),
              std::back_inserter(CompileErrors));
    if (!Unit.SdkFallbacks.empty())
      Fallbacks.push_back({Unit.File, Unit.SdkFallbacks});
    if (!Unit.Vacuous.empty())
      Vacuous.push_back({Unit.File, Unit.Vacuous});
  }

  int exitStatus() const {
    return exitCode(Failed, !Vacuous.empty(), !Findings.empty());
  }
};

/// The compile commands (CompileDatabase.h), with --extra-arg-before and
/// --extra-arg applied; null when there is nothing to analyse with.
std::unique_ptr<tooling::CompilationDatabase>
createCompileDatabase(int &Argc, const char **Argv, RunState &Run) {
  std::string Found;
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      loadCompilations(Argc, Argv, BuildPath, SourcePaths,
                       [&](const std::string &Why) { Run.toolError(Why); },
                       &Found);
  if (!Compilations)
    return Compilations;
  if (Verbose && !Found.empty())
    errs() << "ddplint: the compile database in " << Found << "\n";
  auto Adjuster = tooling::combineAdjusters(
      tooling::combineAdjusters(
          tooling::getInsertArgumentAdjuster(
              ExtraArgsBefore, tooling::ArgumentInsertPosition::BEGIN),
          tooling::getInsertArgumentAdjuster(
              ExtraArgs, tooling::ArgumentInsertPosition::END)),
      headersAsCpp);
  auto Adjusting = std::make_unique<tooling::ArgumentsAdjustingCompilations>(
      std::move(Compilations));
  Adjusting->appendArgumentsAdjuster(Adjuster);
  return Adjusting;
}

/// The units of this run (this shard's, with --shard) into Run.Files. A file
/// that cannot be read is reported and skipped; the others are still
/// analysed.
void selectFiles(const tooling::CompilationDatabase &Compilations,
                 unsigned ShardIndex, unsigned ShardCount, RunState &Run) {
  std::vector<std::string> SelectErrors;
  std::vector<Unit> Units =
      selectUnits(SourcePaths, &Compilations, SelectErrors);
  for (const std::string &E : SelectErrors)
    Run.toolError(E);
  if (SourcePaths.empty() && Units.empty())
    Run.toolError("the compile database in '" + BuildPath + "' lists no units");
  if (ShardCount > 1)
    Units = shardUnits(std::move(Units), ShardIndex, ShardCount);
  for (const Unit &U : Units) {
    if (!isSourceFile(U.Path)) {
      Run.toolError("cannot analyse '" + U.Named +
                    "': not a C, C++ or CUDA source or header");
      continue;
    }
    auto Buffer = MemoryBuffer::getFile(U.Path);
    if (!Buffer) {
      Run.toolError("cannot read '" + U.Named +
                    "': " + Buffer.getError().message());
      continue;
    }
    Run.Files.push_back(U.Path);
  }
}

/// The findings cache and the shared preambles, each unless turned off.
/// A run of one unit with the cache on (an editor running ddplint on save)
/// precompiles that unit's preamble for the runs after its next edit.
void openCaches(std::optional<FindingsCache> &Cache,
                std::optional<SharedPreambles> &Preambles, size_t Units) {
  SmallString<256> CacheDirectory(
      CacheDir.empty() ? FindingsCache::defaultDirectory() : CacheDir);
  // Preambles are built from each unit's own directory: a relative cache
  // directory must not move with it.
  if (CacheDirectory.empty() || sys::fs::make_absolute(CacheDirectory))
    return;
  // A directory that cannot be used costs speed, not findings: say so.
  std::error_code Unusable = sys::fs::create_directories(CacheDirectory);
  if (!Unusable)
    Unusable = sys::fs::access(CacheDirectory, sys::fs::AccessMode::Write);
  if (Unusable && !(NoCache && NoPreamble)) {
    WithColor::warning(errs(), "ddplint")
        << "cannot use the cache directory '" << CacheDirectory
        << "': " << Unusable.message()
        << "; running without the findings cache and shared preambles\n";
    return;
  }
  if (!NoCache)
    Cache.emplace(std::string(CacheDirectory), uint64_t(CacheSizeLimit) << 20);
  if (!NoPreamble)
    Preambles.emplace(std::string(CacheDirectory),
                      /*Sharers=*/Units == 1 && !NoCache ? 0 : 2);
}

/// Analyses Run.Files and gathers their results, sorted.
void analyseFiles(const tooling::CompilationDatabase &Compilations,
                  FindingsCache *Cache, SharedPreambles *Preambles,
                  const std::string &SdkFallback, RunState &Run) {
  RunOptions Options;
  Options.Jobs = Jobs ? Jobs.getValue()
                      : std::max(1u, std::thread::hardware_concurrency());
  Options.Progress = !Quiet && sys::Process::StandardErrIsDisplayed();
  Options.Verbose = Verbose;
  Options.Cache = Cache;
  Options.Preambles = Preambles;
  Options.SdkFallback = SdkFallback;
  auto MakeOptions = [](IntrusiveRefCntPtr<vfs::FileSystem> FS) {
    bool Ignored = false;
    return createOptionsProvider(std::move(FS), Ignored);
  };
  for (UnitResult &Unit :
       runUnits(Run.Files, Compilations, MakeOptions, Options, Run.Stats))
    Run.add(Unit);
  if (Cache)
    Cache->trim();
  sortAndUnique(Run.Findings);
  sortAndUnique(Run.CompileErrors);
}

/// Opens the caches and analyses every selected unit with them.
void analyseWithCaches(const tooling::CompilationDatabase &Compilations,
                       const std::string &SdkFallback, RunState &Run) {
  std::optional<FindingsCache> Cache;
  std::optional<SharedPreambles> Preambles;
  openCaches(Cache, Preambles, Run.Files.size());
  if (!Run.Files.empty())
    analyseFiles(Compilations, Cache ? &*Cache : nullptr,
                 Preambles ? &*Preambles : nullptr, SdkFallback, Run);
}

/// --write-baseline records the findings; --baseline then hides the known
/// ones.
void applyBaselineOptions(const OutputOptions &Out, RunState &Run) {
  if (!WriteBaseline.empty()) {
    std::string Why = writeBaseline(WriteBaseline, Run.Findings, Out);
    if (!Why.empty())
      Run.toolError("cannot write baseline '" + WriteBaseline + "': " + Why);
  }
  if (!Baseline.empty()) {
    std::string Why;
    Run.Hidden = applyBaseline(Baseline, Run.Findings, Out, Why);
    if (!Why.empty())
      Run.toolError(Why);
  }
}

/// The fix-it export, the report and the fixed files, in that order.
void writeOutputs(const tooling::CompilationDatabase &Compilations,
                  IntrusiveRefCntPtr<vfs::OverlayFileSystem> BaseFS,
                  const std::string &SdkFallback, RunState &Run) {
  // Before the report, so that its exit code counts a failed export.
  if (!exportFixesIfRequested(Run.Findings))
    Run.Failed = true;
  Report Result{Run.Findings, Run.CompileErrors, Run.ToolErrors,
                Run.Enabled,  Run.exitStatus(),  Run.Fallbacks,
                Run.Vacuous};
  if (!emitReport(Result))
    Run.Failed = true;
  if (!fixesRequested())
    return;
  // After the report, whose snippets show the code as it was analysed.
  // Each fixed unit is parsed again, without the cache or a preamble.
  Analyser Recheck(createOptionsProvider(BaseFS, Run.Failed), BaseFS,
                   SdkFallback);
  if (!applyFixesIfRequested(
          Run.UnitResults, [&](StringRef File) -> std::optional<size_t> {
            UnitResult Again = Recheck.run(Compilations, File);
            if (!Again.ToolError.empty())
              return std::nullopt;
            return Again.CompileErrors.size();
          }))
    Run.Failed = true;
}

/// A .clang-tidy that does not parse: one error naming it, the report
/// (SARIF carries it as a tool notification), exit 2. Nothing is analysed:
/// clang-tidy would go on with its default checks, silently.
int refuseConfiguration(const std::string &Why, RunState &Run) {
  Run.toolError(Why);
  emitReport(Report{{}, {}, Run.ToolErrors, Run.Enabled, ExitToolError, {}, {}});
  return ExitToolError;
}

} // namespace

int main(int Argc, const char **Argv) {
  InitLLVM Init(Argc, Argv);
  if (!parseOwnOptions(Argc, Argv) || !loadPlugins())
    return ExitToolError;
  applyColorOption();
  if (std::optional<int> Code = runSubcommand(Argv[0]))
    return *Code;

  // The configuration, as the first source file sees it.
  RunState Run;
  std::string FirstFile = SourcePaths.empty() ? "dummy.cpp" : SourcePaths[0];
  if (std::string Why = brokenConfiguration({FirstFile}); !Why.empty())
    return refuseConfiguration(Why, Run);
  auto BaseFS = createBaseFileSystem(Run.Failed);
  if (Run.Failed)
    return ExitToolError;
  auto OptionsProvider = createOptionsProvider(BaseFS, Run.Failed);
  if (!OptionsProvider)
    return ExitToolError;
  ClangTidyOptions Effective = OptionsProvider->getOptions(FirstFile);
  if (std::string Note = checkSelectionNote(BaseFS, FirstFile);
      Verbose && !Note.empty())
    WithColor::note(errs(), "ddplint") << Note << "\n";
  Run.Enabled =
      getCheckNames(Effective, /*AllowEnablingAnalyzerAlphaCheckers=*/false);
  if (std::optional<int> Code =
          answerQuery(*OptionsProvider, FirstFile, Effective, Run.Enabled))
    return *Code;
  unsigned ShardIndex = 1, ShardCount = 1;
  if (!checkInvocation(Effective, Run.Enabled, ShardIndex, ShardCount))
    return ExitToolError;

  // The units and their compile commands.
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      createCompileDatabase(Argc, Argv, Run);
  if (!Compilations)
    return ExitToolError;
  selectFiles(*Compilations, ShardIndex, ShardCount, Run);
  if (std::string Why = brokenConfiguration(Run.Files); !Why.empty())
    return refuseConfiguration(Why, Run);
  warnConfigurationProblems(*OptionsProvider, FirstFile);

  // The analysis.
  std::string SdkFallback =
      NoSdkFallback ? std::string() : sdkFallbackDirectory(Argv[0]);
  analyseWithCaches(*Compilations, SdkFallback, Run);

  // The outputs, then what goes to standard error besides.
  applyBaselineOptions(outputOptionsFromCommandLine(), Run);
  if (!Run.Files.empty())
    writeOutputs(*Compilations, BaseFS, SdkFallback, Run);
  printCompileErrors(Run.CompileErrors);
  printVacuousUnits(Run.Vacuous);
  if (!Quiet)
    printSummary(Run.Findings, Run.Files.size(), Run.Stats,
                 Run.Vacuous.size(), Run.Hidden);
  return Run.exitStatus();
}
