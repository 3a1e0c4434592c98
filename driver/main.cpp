//===--- main.cpp - ddplint, the standalone driver ------------------------===//
//
// Runs the ddp-* checks without a clang-tidy binary. It takes clang-tidy's
// command-line shape (files, -p, --, --checks, .clang-tidy files, NOLINT) and
// prints clang-style diagnostics, but keeps compile errors apart from the
// findings and returns an exit code CI can act on:
//   0  nothing found
//   1  findings
//   2  usage error or tool error (missing file, unusable compile database)
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Finding.h"
#include "Fixes.h"
#include "Options.h"
#include "Output.h"
#include "Subcommands.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
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

// Chooses the compile commands the way clang-tidy users expect: '--' wins,
// then -p, then a database found above the first source file, then none.
std::unique_ptr<tooling::CompilationDatabase>
loadCompilations(int &Argc, const char **Argv, bool &Failed) {
  std::string Error;
  std::unique_ptr<tooling::CompilationDatabase> DB =
      tooling::FixedCompilationDatabase::loadFromCommandLine(Argc, Argv, Error);
  if (!Error.empty()) {
    WithColor::error(errs(), "ddplint") << Error << "\n";
    Failed = true;
    return nullptr;
  }
  if (DB)
    return DB;

  if (!BuildPath.empty()) {
    // A database right in the build directory must load; only when there is
    // none are the parent directories searched, as clang tools do.
    SmallString<256> Json(BuildPath);
    sys::path::append(Json, "compile_commands.json");
    if (sys::fs::exists(Json))
      DB = tooling::JSONCompilationDatabase::loadFromFile(
          Json, Error, tooling::JSONCommandLineSyntax::AutoDetect);
    else
      DB = tooling::CompilationDatabase::autoDetectFromDirectory(BuildPath,
                                                                 Error);
    if (!DB) {
      WithColor::error(errs(), "ddplint")
          << "cannot use the compile database in '" << BuildPath
          << "': " << Error << "\n";
      Failed = true;
      return nullptr;
    }
    return tooling::inferMissingCompileCommands(std::move(DB));
  }

  if (!SourcePaths.empty()) {
    DB = tooling::CompilationDatabase::autoDetectFromSource(SourcePaths[0],
                                                            Error);
    if (DB)
      return tooling::inferMissingCompileCommands(std::move(DB));
  }
  // Nothing describes how to compile the files: parse them with no flags,
  // as clang-tidy does, and say so.
  WithColor::warning(errs(), "ddplint")
      << "no compile database found; parsing with no compiler flags "
         "(pass -p <build dir> or '-- <flags>')\n";
  return std::make_unique<tooling::FixedCompilationDatabase>(
      ".", std::vector<std::string>());
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
          "tool error.\n",
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
  if (SourcePaths.empty()) {
    WithColor::error(errs(), "ddplint")
        << "no input files; usage: ddplint [options] <source files> "
           "[-- <compiler flags>]\n";
    return ExitToolError;
  }

  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      loadCompilations(Argc, Argv, Failed);
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

  // A file that cannot be read is reported and skipped; the others are still
  // analysed.
  std::vector<std::string> Files, ToolErrors;
  for (const std::string &Path : SourcePaths) {
    SmallString<256> Abs(Path);
    sys::fs::make_absolute(Abs);
    auto Buffer = MemoryBuffer::getFile(Abs);
    if (!Buffer) {
      WithColor::error(errs(), "ddplint")
          << "cannot read '" << Path << "': " << Buffer.getError().message()
          << "\n";
      ToolErrors.push_back("cannot read '" + Path +
                           "': " + Buffer.getError().message());
      Failed = true;
      continue;
    }
    Files.push_back(std::string(Abs));
  }

  std::vector<Finding> Findings, CompileErrors;
  if (!Files.empty()) {
    Analyser Analysis(std::move(OptionsProvider), BaseFS);
    std::vector<UnitResult> Units; // for --fix: each unit's own findings
    for (const std::string &File : Files) {
      UnitResult Unit = Analysis.run(*Compilations, File);
      if (fixesRequested())
        Units.push_back(Unit);
      if (!Unit.ToolError.empty()) {
        WithColor::error(errs(), "ddplint") << Unit.ToolError << "\n";
        ToolErrors.push_back(Unit.ToolError);
        Failed = true;
      }
      std::move(Unit.Findings.begin(), Unit.Findings.end(),
                std::back_inserter(Findings));
      std::move(Unit.CompileErrors.begin(), Unit.CompileErrors.end(),
                std::back_inserter(CompileErrors));
    }
    sortAndUnique(Findings);
    sortAndUnique(CompileErrors);

    // Before the report, so that its exit code counts a failed export.
    if (!exportFixesIfRequested(Findings))
      Failed = true;
    Report Result{Findings, CompileErrors, ToolErrors, Enabled,
                  Failed ? ExitToolError
                         : Findings.empty() ? ExitClean : ExitFindings};
    if (!emitReport(Result))
      Failed = true;
    // After the report, whose snippets show the code as it was analysed.
    if (!applyFixesIfRequested(Units, [&](StringRef File) -> std::optional<size_t> {
          UnitResult Again = Analysis.run(*Compilations, File);
          if (!Again.ToolError.empty())
            return std::nullopt;
          return Again.CompileErrors.size();
        }))
      Failed = true;
    if (!CompileErrors.empty()) {
      // Apart from the findings, once: what clang could not build. The checks
      // still ran over everything else in those files.
      errs() << "\n";
      WithColor::warning(errs(), "ddplint")
          << CompileErrors.size() << " compile error"
          << (CompileErrors.size() == 1 ? "" : "s")
          << "; the checks ran on everything clang could build, findings "
             "that depend on the broken code may be missing:\n";
      // A unit whose main header is missing can produce thousands of
      // errors; the first ones say what is wrong.
      constexpr size_t Shown = 20;
      for (size_t I = 0; I < CompileErrors.size() && I < Shown; ++I) {
        const Location &L = CompileErrors[I].Where;
        if (!L.File.empty())
          errs() << L.File << ":" << L.Line << ":" << L.Column << ": ";
        errs() << "error: " << CompileErrors[I].Message << "\n";
      }
      if (CompileErrors.size() > Shown)
        errs() << "... and " << CompileErrors.size() - Shown
               << " more compile errors\n";
    }
  }

  if (!Quiet)
    errs() << Findings.size() << " finding" << (Findings.size() == 1 ? "" : "s")
           << " in " << Files.size() << " file"
           << (Files.size() == 1 ? "" : "s") << "\n";
  if (Failed)
    return ExitToolError;
  return Findings.empty() ? ExitClean : ExitFindings;
}
