//===--- Configuration.cpp - the checks' configuration --------------------===//

#include "Configuration.h"
#include "Options.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang::tidy;
using namespace llvm;

namespace ddplint {
namespace {

cl::opt<std::string> Checks("checks", cl::desc(R"(
Comma-separated globs of checks to run, added
to those of .clang-tidy files, as in clang-tidy.
Default: 'ddp-*'.)"),
                            cl::init(""), cl::cat(optionCategory()));

cl::opt<std::string> Config("config", cl::desc(R"(
Configuration in YAML or JSON, as clang-tidy's
--config: overrides .clang-tidy files.)"),
                            cl::init(""), cl::cat(optionCategory()));

cl::opt<std::string> ConfigFile("config-file", cl::desc(R"(
A configuration file used instead of the
.clang-tidy files found next to the sources.)"),
                                cl::init(""), cl::cat(optionCategory()));

cl::opt<std::string> HeaderFilter("header-filter", cl::desc(R"(
Regular expression of header names whose
findings are shown, as in clang-tidy. Findings
in the main files are always shown.)"),
                                  cl::init(""), cl::cat(optionCategory()));

/// Returns the default checks for the driver: only ddplint's own.
ClangTidyOptions defaultOptions() {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,ddp-*";
  return Defaults;
}

} // namespace

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

} // namespace ddplint
