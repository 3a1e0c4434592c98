//===--- ConfigurationQueries.cpp - answers about the configuration ------===//
//
// The options that answer a question about the configuration instead of
// running the checks (--list-checks, --explain-config, --verify-config,
// --dump-config), and --load.
//
//===----------------------------------------------------------------------===//

#include "Configuration.h"
#include "Options.h"

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/GlobList.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang::tidy;
using namespace llvm;

namespace ddplint {
namespace {

cl::opt<bool> ListChecks("list-checks",
                         cl::desc("List the enabled checks and exit."),
                         cl::init(false), cl::cat(optionCategory()));

cl::opt<bool> ExplainConfig("explain-config", cl::desc(R"(
For each enabled check, say where it is
enabled (ddplint's default, a configuration
file, the command line), and exit.)"),
                            cl::init(false), cl::cat(optionCategory()));

cl::opt<bool> VerifyConfig("verify-config", cl::desc(R"(
Check the configuration: every .clang-tidy
parses, every ddp- glob names a ddp- check,
every ddp- check option exists; exit 2 on a
problem (a configuration error, like any
usage error), 0 otherwise.)"),
                           cl::init(false), cl::cat(optionCategory()));

cl::list<std::string> LoadPlugins("load", cl::desc(R"(
Load a clang-tidy plugin (a shared library of
checks), as clang-tidy does; ddplint's own
plugin is skipped (its checks are built in).)"),
                                  cl::value_desc("pluginfilename"),
                                  cl::cat(optionCategory()));

cl::opt<bool> DumpConfig("dump-config", cl::desc(R"(
Print the effective configuration, with every
option of the enabled checks, and exit.)"),
                         cl::init(false), cl::cat(optionCategory()));


/// --explain-config, as clang-tidy prints it.
void explainConfiguration(ClangTidyOptionsProvider &Provider, StringRef File,
                          ArrayRef<std::string> Enabled) {
  std::vector<ClangTidyOptionsProvider::OptionsSource> Raw =
      Provider.getRawOptions(File);
  for (const std::string &Check : Enabled)
    for (auto It = Raw.rbegin(); It != Raw.rend(); ++It)
      if (It->first.Checks && GlobList(*It->first.Checks).contains(Check)) {
        outs() << "'" << Check << "' is enabled in the "
               << (It->second ==
                           ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary
                       ? "ddplint defaults"
                       : It->second)
               << ".\n";
        break;
      }
}

} // namespace

/// --load: loads the plugins before any check is created. False after an
/// error on stderr.
bool loadPlugins() {
  for (const std::string &Plugin : LoadPlugins) {
    if (sys::path::filename(Plugin) == "ddplint-plugin.so")
      continue; // its checks are built in; loading them twice would clash
    std::string Why;
    if (sys::DynamicLibrary::LoadLibraryPermanently(Plugin.c_str(), &Why)) {
      WithColor::error(errs(), "ddplint")
          << "cannot load plugin '" << Plugin << "': " << Why << "\n";
      return false;
    }
  }
  return true;
}

/// --list-checks, --explain-config, --verify-config and --dump-config:
/// prints the answer and returns the exit code; None when none was asked
/// for.
std::optional<int> answerQuery(ClangTidyOptionsProvider &Provider,
                               StringRef File, ClangTidyOptions Effective,
                               ArrayRef<std::string> Enabled) {
  if (ExplainConfig) {
    explainConfiguration(Provider, File, Enabled);
    return ExitClean;
  }
  if (VerifyConfig)
    return verifyConfiguration(Provider, File) ? ExitClean : ExitToolError;
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
  return std::nullopt;
}


} // namespace ddplint
