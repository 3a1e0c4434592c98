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

#include <map>

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

/// A YAML single-quoted scalar.
std::string quoted(StringRef Value) {
  std::string Out = "'";
  for (char C : Value)
    Out += C == '\'' ? std::string("''") : std::string(1, C);
  return Out + "'";
}

/// --dump-config: the effective configuration with every option of the
/// enabled checks, sorted by name; an option every enabled check reads
/// with one value (the vocabulary's) once, unprefixed, as a .clang-tidy
/// file sets it for all of them.
std::string dumpedConfiguration(ClangTidyOptions Effective,
                                ArrayRef<std::string> Enabled) {
  ClangTidyOptions::OptionMap Options = getCheckOptions(Effective, false);
  // Option name -> the values the enabled checks give it.
  std::map<std::string, std::map<std::string, std::string>> ByName;
  std::map<std::string, std::string> Sorted;
  for (const auto &Entry : Options) {
    StringRef Key = Entry.getKey();
    auto [Check, Name] = Key.split('.');
    if (!Name.empty() && llvm::is_contained(Enabled, Check.str()))
      ByName[Name.str()][Check.str()] = Entry.getValue().Value;
    else
      Sorted[Key.str()] = Entry.getValue().Value;
  }
  for (const auto &[Name, Values] : ByName) {
    bool Shared = Values.size() == Enabled.size() && Enabled.size() > 1 &&
                  llvm::all_of(Values, [&](const auto &V) {
                    return V.second == Values.begin()->second;
                  });
    if (Shared)
      Sorted[Name] = Values.begin()->second;
    else
      for (const auto &[Check, Value] : Values)
        Sorted[Check + "." + Name] = Value;
  }
  Effective.CheckOptions.clear();
  std::string Text = configurationAsText(
      ClangTidyOptions::getDefaults().mergeWith(Effective, 0));
  // The empty map clang-tidy writes gives way to the sorted one.
  if (size_t Empty = Text.find("\nCheckOptions:"); Empty != std::string::npos)
    Text.erase(Empty + 1, Text.find('\n', Empty + 1) - Empty);
  std::string Listed = "CheckOptions:\n";
  for (const auto &[Key, Value] : Sorted)
    Listed += "  " + Key + ": " + quoted(Value) + "\n";
  size_t End = Text.rfind("...");
  return End == std::string::npos || Sorted.empty()
             ? Text
             : Text.substr(0, End) + Listed + Text.substr(End);
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
    outs() << dumpedConfiguration(std::move(Effective), Enabled) << "\n";
    return ExitClean;
  }
  return std::nullopt;
}


} // namespace ddplint
