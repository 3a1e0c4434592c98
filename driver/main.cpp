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

cl::opt<std::string> Checks("checks", cl::desc(R"(
Comma-separated globs of checks to run, added
to those of .clang-tidy files, as in clang-tidy.
Default: 'ddp-*'.)"),
                            cl::init(""), cl::cat(DdplintCategory));

cl::opt<std::string> Config("config", cl::desc(R"(
Configuration in YAML or JSON, as clang-tidy's
--config: overrides .clang-tidy files.)"),
                            cl::init(""), cl::cat(DdplintCategory));

cl::opt<std::string> ConfigFile("config-file", cl::desc(R"(
A configuration file used instead of the
.clang-tidy files found next to the sources.)"),
                                cl::init(""), cl::cat(DdplintCategory));

cl::opt<std::string> HeaderFilter("header-filter", cl::desc(R"(
Regular expression of header names whose
findings are shown, as in clang-tidy. Findings
in the main files are always shown.)"),
                                  cl::init(""), cl::cat(DdplintCategory));

cl::list<std::string> ExtraArgs("extra-arg",
                                cl::desc("Compiler argument to append."),
                                cl::cat(DdplintCategory));
cl::list<std::string> ExtraArgsBefore("extra-arg-before",
                                      cl::desc("Compiler argument to prepend."),
                                      cl::cat(DdplintCategory));

cl::opt<bool> ListChecks("list-checks",
                         cl::desc("List the enabled checks and exit."),
                         cl::init(false), cl::cat(DdplintCategory));

cl::opt<bool> DumpConfig("dump-config", cl::desc(R"(
Print the effective configuration, with every
option of the enabled checks, and exit.)"),
                         cl::init(false), cl::cat(DdplintCategory));

cl::opt<unsigned> Jobs("j", cl::desc(R"(
Units analysed in parallel (default: one per
CPU core).)"),
                       cl::value_desc("N"), cl::init(0),
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
                       cl::aliasopt(Verbose));

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

// Returns the default checks for the driver: only ddplint's own.
ClangTidyOptions defaultOptions() {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,ddp-*";
  return Defaults;
}

std::unique_ptr<ClangTidyOptionsProvider>
createOptionsProvider(IntrusiveRefCntPtr<vfs::FileSystem> FS, bool &Failed) {
  ClangTidyGlobalOptions Global;
  ClangTidyOptions Overrides;
  if (!Checks.empty())
    Overrides.Checks = Checks;
  if (!HeaderFilter.empty())
    Overrides.HeaderFilterRegex = HeaderFilter;
  // The driver carries no compiler-warning or static-analyzer checks of its
  // own; compile errors are always collected.
  auto WithoutForeignChecks = [](ClangTidyOptions Opts) {
    Opts.Checks = Opts.Checks.value_or("") +
                  ",-clang-analyzer-*,-clang-diagnostic-*";
    return Opts;
  };

  if (!Config.empty()) {
    auto Parsed = parseConfiguration(MemoryBufferRef(Config, "--config"));
    if (!Parsed) {
      WithColor::error(errs(), "ddplint")
          << "invalid --config: " << Parsed.getError().message() << "\n";
      Failed = true;
      return nullptr;
    }
    return std::make_unique<ConfigOptionsProvider>(
        Global, defaultOptions(), std::move(*Parsed),
        WithoutForeignChecks(Overrides), FS);
  }
  if (!ConfigFile.empty()) {
    auto Text = MemoryBuffer::getFile(ConfigFile);
    if (!Text) {
      WithColor::error(errs(), "ddplint")
          << "cannot read --config-file '" << ConfigFile
          << "': " << Text.getError().message() << "\n";
      Failed = true;
      return nullptr;
    }
    auto Parsed = parseConfiguration((*Text)->getMemBufferRef());
    if (!Parsed) {
      WithColor::error(errs(), "ddplint")
          << "invalid --config-file '" << ConfigFile
          << "': " << Parsed.getError().message() << "\n";
      Failed = true;
      return nullptr;
    }
    return std::make_unique<ConfigOptionsProvider>(
        Global, defaultOptions(), std::move(*Parsed),
        WithoutForeignChecks(Overrides), FS);
  }
  return std::make_unique<FileOptionsProvider>(
      Global, defaultOptions(), WithoutForeignChecks(Overrides), FS);
}

} // namespace

int main(int Argc, const char **Argv) {
  InitLLVM Init(Argc, Argv);
  cl::HideUnrelatedOptions(DdplintCategory);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "ddplint " DDPLINT_VERSION " (checks built against LLVM "
       << LLVM_VERSION_STRING << ")\n";
  });

  bool Failed = false;

  // Parse our own options from everything before '--'.
  int OwnArgc = Argc;
  for (int I = 1; I < Argc; ++I)
    if (StringRef(Argv[I]) == "--") {
      OwnArgc = I;
      break;
    }
  if (!cl::ParseCommandLineOptions(
          OwnArgc, Argv,
          "ddplint: finds silent data-parallel training bugs in LibTorch "
          "code.\n\nExit codes: 0 nothing found, 1 findings, 2 usage or "
          "tool error, 3 a unit's analysis was vacuous (a header not found, a "
          "file clang cannot read, no function left to analyse); when "
          "several apply, 2 wins over 3, and 3 over 1.\n",
          &errs()))
    return ExitToolError;
  applyColorOption();
  if (std::optional<int> Code = runSubcommand())
    return *Code;

  auto BaseFS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(
      vfs::getRealFileSystem());
  auto OptionsProvider = createOptionsProvider(BaseFS, Failed);
  if (!OptionsProvider)
    return ExitToolError;

  std::string FirstFile = SourcePaths.empty() ? "dummy.cpp" : SourcePaths[0];
  ClangTidyOptions Effective = OptionsProvider->getOptions(FirstFile);
  std::vector<std::string> Enabled =
      getCheckNames(Effective, /*AllowEnablingAnalyzerAlphaCheckers=*/false);

  if (ListChecks) {
    outs() << "Enabled checks:";
    for (const std::string &Name : Enabled)
      outs() << "\n    " << Name;
    outs() << "\n\n";
    return ExitClean;
  }
  if (DumpConfig) {
    Effective.CheckOptions = getCheckOptions(Effective, false);
    outs() << configurationAsText(ClangTidyOptions::getDefaults().mergeWith(
                  Effective, 0))
           << "\n";
    return ExitClean;
  }
  if (Enabled.empty()) {
    WithColor::error(errs(), "ddplint")
        << "no checks enabled (checks: '" << Effective.Checks.value_or("")
        << "'); see --list-checks\n";
    return ExitToolError;
  }
  if (SourcePaths.empty() && BuildPath.empty()) {
    WithColor::error(errs(), "ddplint")
        << "no input files; usage: ddplint [options] <source files> "
           "[-- <compiler flags>], or ddplint -p <build dir> for every unit "
           "of its compile database\n";
    return ExitToolError;
  }
  unsigned ShardIndex = 1, ShardCount = 1;
  if (!Shard.empty() && !parseShard(Shard, ShardIndex, ShardCount)) {
    WithColor::error(errs(), "ddplint")
        << "invalid --shard '" << Shard
        << "': expected I/N with 1 <= I <= N\n";
    return ExitToolError;
  }

  std::vector<std::string> ToolErrors;
  auto ToolError = [&](const std::string &Message) {
    WithColor::error(errs(), "ddplint") << Message << "\n";
    ToolErrors.push_back(Message);
    Failed = true;
  };

  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      loadCompilations(Argc, Argv, BuildPath, SourcePaths, ToolError);
  if (!Compilations)
    return ExitToolError;
  if (!ExtraArgs.empty() || !ExtraArgsBefore.empty()) {
    auto Adjuster = tooling::combineAdjusters(
        tooling::getInsertArgumentAdjuster(ExtraArgsBefore,
                                           tooling::ArgumentInsertPosition::BEGIN),
        tooling::getInsertArgumentAdjuster(ExtraArgs,
                                           tooling::ArgumentInsertPosition::END));
    Compilations = std::make_unique<tooling::ArgumentsAdjustingCompilations>(
        std::move(Compilations));
    static_cast<tooling::ArgumentsAdjustingCompilations &>(*Compilations)
        .appendArgumentsAdjuster(Adjuster);
  }

  std::vector<std::string> SelectErrors;
  std::vector<Unit> Units =
      selectUnits(SourcePaths, Compilations.get(), SelectErrors);
  for (const std::string &E : SelectErrors)
    ToolError(E);
  if (SourcePaths.empty() && Units.empty())
    ToolError("the compile database in '" + BuildPath + "' lists no units");
  if (ShardCount > 1)
    Units = shardUnits(std::move(Units), ShardIndex, ShardCount);

  // A file that cannot be read is reported and skipped; the others are still
  // analysed.
  std::vector<std::string> Files;
  for (const Unit &U : Units) {
    auto Buffer = MemoryBuffer::getFile(U.Path);
    if (!Buffer) {
      ToolError("cannot read '" + U.Named +
                "': " + Buffer.getError().message());
      continue;
    }
    Files.push_back(U.Path);
  }

  std::optional<FindingsCache> Cache;
  std::optional<SharedPreambles> Preambles;
  SmallString<256> CacheDirectory(
      CacheDir.empty() ? FindingsCache::defaultDirectory() : CacheDir);
  // Preambles are built from each unit's own directory: a relative cache
  // directory must not move with it.
  if (!CacheDirectory.empty() && !sys::fs::make_absolute(CacheDirectory)) {
    if (!NoCache)
      Cache.emplace(std::string(CacheDirectory),
                    uint64_t(CacheSizeLimit) << 20);
    if (!NoPreamble)
      Preambles.emplace(std::string(CacheDirectory));
  }

  std::vector<Finding> Findings, CompileErrors;
  std::vector<UnitResult> UnitResults; // kept for --fix
  std::vector<SdkFallbackNote> Fallbacks;
  std::vector<VacuousUnit> Vacuous;
  std::string SdkFallback =
      NoSdkFallback ? std::string() : sdkFallbackDirectory(Argv[0]);
  RunStats Stats;
  if (!Files.empty()) {
    RunOptions Run;
    Run.Jobs = Jobs ? Jobs.getValue()
                    : std::max(1u, std::thread::hardware_concurrency());
    Run.Progress = !Quiet && sys::Process::StandardErrIsDisplayed();
    Run.Verbose = Verbose;
    Run.Cache = Cache ? &*Cache : nullptr;
    Run.Preambles = Preambles ? &*Preambles : nullptr;
    Run.SdkFallback = SdkFallback;
    auto MakeOptions = [](IntrusiveRefCntPtr<vfs::FileSystem> FS) {
      bool Ignored = false;
      return createOptionsProvider(std::move(FS), Ignored);
    };
    for (UnitResult &Unit :
         runUnits(Files, *Compilations, MakeOptions, Run, Stats)) {
      if (fixesRequested())
        UnitResults.push_back(Unit); // --fix: each unit's own findings
      if (!Unit.ToolError.empty())
        ToolError(Unit.ToolError);
      std::move(Unit.Findings.begin(), Unit.Findings.end(),
                std::back_inserter(Findings));
      std::move(Unit.CompileErrors.begin(), Unit.CompileErrors.end(),
                std::back_inserter(CompileErrors));
      if (!Unit.SdkFallbacks.empty())
        Fallbacks.push_back({Unit.File, Unit.SdkFallbacks});
      if (!Unit.Vacuous.empty())
        Vacuous.push_back({Unit.File, Unit.Vacuous});
    }
    if (Cache)
      Cache->trim();
    sortAndUnique(Findings);
    sortAndUnique(CompileErrors);
  }

  OutputOptions Out = outputOptionsFromCommandLine();
  if (!WriteBaseline.empty()) {
    std::string Why = writeBaseline(WriteBaseline, Findings, Out);
    if (!Why.empty())
      ToolError("cannot write baseline '" + WriteBaseline + "': " + Why);
  }
  unsigned Hidden = 0;
  if (!Baseline.empty()) {
    std::string Why;
    Hidden = applyBaseline(Baseline, Findings, Out, Why);
    if (!Why.empty())
      ToolError(Why);
  }

  if (!Files.empty()) {
    // Before the report, so that its exit code counts a failed export.
    if (!exportFixesIfRequested(Findings))
      Failed = true;
    Report Result{Findings, CompileErrors, ToolErrors, Enabled,
                  exitCode(Failed, !Vacuous.empty(), !Findings.empty()),
                  Fallbacks, Vacuous};
    if (!emitReport(Result))
      Failed = true;
    // After the report, whose snippets show the code as it was analysed.
    // Each fixed unit is parsed again, without the cache or a preamble.
    if (fixesRequested()) {
      Analyser Recheck(createOptionsProvider(BaseFS, Failed), BaseFS,
                       SdkFallback);
      if (!applyFixesIfRequested(
              UnitResults, [&](StringRef File) -> std::optional<size_t> {
                UnitResult Again = Recheck.run(*Compilations, File);
                if (!Again.ToolError.empty())
                  return std::nullopt;
                return Again.CompileErrors.size();
              }))
        Failed = true;
    }
  }
  printCompileErrors(CompileErrors);
  printVacuousUnits(Vacuous);

  if (!Quiet) {
    errs() << Findings.size() << " finding" << (Findings.size() == 1 ? "" : "s")
           << " in " << Files.size() << " file"
           << (Files.size() == 1 ? "" : "s");
    if (Stats.FromCache)
      errs() << " (" << Stats.Analysed << " analysed, " << Stats.FromCache
             << " from the cache)";
    if (!Vacuous.empty())
      errs() << "; " << Vacuous.size()
             << (Vacuous.size() == 1 ? " unit's analysis was"
                                     : " units' analyses were")
             << " vacuous";
    if (Hidden)
      errs() << "; " << Hidden << " known finding" << (Hidden == 1 ? "" : "s")
             << " hidden by the baseline";
    errs() << "\n";
  }
  return exitCode(Failed, !Vacuous.empty(), !Findings.empty());
}
