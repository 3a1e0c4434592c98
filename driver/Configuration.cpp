//===--- Configuration.cpp - the checks' configuration --------------------===//

#include "Configuration.h"
#include "Options.h"

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/GlobList.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>

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

cl::opt<std::string> LineFilter("line-filter", cl::desc(R"(
List of files and line ranges whose findings
are shown, in JSON, as in clang-tidy:
[{"name":"file.cpp","lines":[[1,3],[5,7]]},...].
Findings elsewhere are dropped.)"),
                                cl::init(""), cl::cat(optionCategory()));

cl::opt<std::string> WarningsAsErrors("warnings-as-errors", cl::desc(R"(
Checks whose findings are reported as errors,
as globs, as in clang-tidy (and its
WarningsAsErrors configuration key).)"),
                                      cl::init(""), cl::cat(optionCategory()));

cl::opt<bool> SystemHeaders("system-headers", cl::desc(R"(
Report findings in system headers too, as
clang-tidy does with this option: their code is
then parsed and analysed in full (slower).)"),
                            cl::init(false), cl::cat(optionCategory()));

cl::opt<std::string> VfsOverlay("vfsoverlay", cl::desc(R"(
Overlay the virtual file system described by
this YAML file (clang's -ivfsoverlay format) over
the real one, as in clang-tidy.)"),
                                cl::value_desc("filename"), cl::init(""),
                                cl::cat(optionCategory()));

cl::opt<bool> EnableCheckProfile("enable-check-profile", cl::desc(R"(
Time each check's matchers and print the
profile, per unit, on standard error, as in
clang-tidy.)"),
                                 cl::init(false), cl::cat(optionCategory()));

cl::opt<std::string> StoreCheckProfile("store-check-profile", cl::desc(R"(
With --enable-check-profile: store each unit's
profile as JSON under this prefix instead, as in
clang-tidy.)"),
                                       cl::value_desc("prefix"), cl::init(""),
                                       cl::cat(optionCategory()));

/// Returns the default checks for the driver: only ddplint's own.
ClangTidyOptions defaultOptions() {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,ddp-*";
  return Defaults;
}

/// The globs of a Checks value that name ddp- checks (`ddp-*`,
/// `-ddp-unused-parameters`), in order; Positive is set when one of them
/// enables checks.
std::vector<std::string> ddpGlobs(StringRef Checks, bool &Positive) {
  SmallVector<StringRef, 16> Globs;
  Checks.split(Globs, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<std::string> Kept;
  for (StringRef Glob : Globs) {
    Glob = Glob.trim();
    bool Negative = Glob.consume_front("-");
    if (!Glob.trim().starts_with_insensitive("ddp"))
      continue;
    Positive |= !Negative;
    Kept.push_back((Negative ? "-" : "") + Glob.trim().str());
  }
  return Kept;
}

/// The driver's checks: ddp-* adjusted by what the configuration files
/// (.clang-tidy, --config, --config-file) say about ddp- checks. Their globs
/// about other checks (clang-tidy's, in a .clang-tidy written for
/// clang-tidy) are left out: a configuration that names no ddp- check
/// leaves them all on, one that enables some enables those only, one that
/// disables some disables those. --checks applies on top, whole.
class DdpChecksProvider : public ClangTidyOptionsProvider {
public:
  explicit DdpChecksProvider(std::unique_ptr<ClangTidyOptionsProvider> Inner)
      : Inner(std::move(Inner)) {}

  const ClangTidyGlobalOptions &getGlobalOptions() override {
    return Inner->getGlobalOptions();
  }

  std::vector<OptionsSource> getRawOptions(StringRef FileName) override {
    std::vector<OptionsSource> Sources = Inner->getRawOptions(FileName);
    if (Sources.empty())
      return Sources;
    bool Positive = false;
    for (size_t I = 1; I < Sources.size(); ++I) {
      std::optional<std::string> &Checks = Sources[I].first.Checks;
      if (!Checks)
        continue;
      std::vector<std::string> Ddp = ddpGlobs(*Checks, Positive);
      // --checks is said to ddplint: it keeps clang-tidy's meaning whole.
      if (Sources[I].second !=
          ClangTidyOptionsProvider::OptionsSourceTypeCheckCommandLineOption)
        Checks = join(Ddp, ",");
    }
    Sources.front().first.Checks = Positive ? "-*" : "-*,ddp-*";
    return Sources;
  }

private:
  std::unique_ptr<ClangTidyOptionsProvider> Inner;
};

/// Parses the configuration file Path; on an error, its place and message.
std::optional<std::string> parseError(StringRef Path, bool &Inherits) {
  auto Text = MemoryBuffer::getFile(Path);
  if (!Text)
    return "cannot read '" + Path.str() + "': " + Text.getError().message();
  std::string Diagnostic;
  auto Parsed = parseConfigurationWithDiags(
      MemoryBufferRef((*Text)->getBuffer(), Path), [&](const SMDiagnostic &D) {
        if (Diagnostic.empty())
          Diagnostic = (Path + ":" + Twine(D.getLineNo()) + ":" +
                        Twine(D.getColumnNo() + 1) + ": " + D.getMessage())
                           .str();
      });
  if (!Parsed)
    return Diagnostic.empty() ? Path.str() + ": " + Parsed.getError().message()
                              : Diagnostic;
  Inherits = Parsed->InheritParentConfig.value_or(false);
  return std::nullopt;
}

} // namespace

namespace {

/// --config or --config-file, parsed: std::nullopt when neither is given;
/// Failed is set (with an error printed) when the one given is unreadable
/// or invalid.
std::optional<ClangTidyOptions> explicitConfiguration(bool &Failed) {
  std::string Source = "--config";
  std::unique_ptr<MemoryBuffer> File;
  MemoryBufferRef Buffer(Config, "--config");
  if (Config.empty()) {
    if (ConfigFile.empty())
      return std::nullopt;
    Source = "--config-file '" + ConfigFile + "'";
    auto Text = MemoryBuffer::getFile(ConfigFile);
    if (!Text) {
      WithColor::error(errs(), "ddplint")
          << "cannot read " << Source << ": " << Text.getError().message()
          << "\n";
      Failed = true;
      return std::nullopt;
    }
    File = std::move(*Text);
    Buffer = File->getMemBufferRef();
  }
  auto Parsed = parseConfiguration(Buffer);
  if (!Parsed) {
    WithColor::error(errs(), "ddplint")
        << "invalid " << Source << ": " << Parsed.getError().message() << "\n";
    Failed = true;
    return std::nullopt;
  }
  return std::move(*Parsed);
}

/// The options provider with clang-tidy's meaning of the configuration.
std::unique_ptr<ClangTidyOptionsProvider>
createClangTidyProvider(IntrusiveRefCntPtr<vfs::FileSystem> FS, bool &Failed) {
  ClangTidyGlobalOptions Global;
  if (!LineFilter.empty())
    if (std::error_code Error = parseLineFilter(LineFilter, Global)) {
      WithColor::error(errs(), "ddplint")
          << "invalid --line-filter: " << Error.message() << "\n";
      Failed = true;
      return nullptr;
    }
  ClangTidyOptions Overrides;
  if (!Checks.empty())
    Overrides.Checks = Checks;
  if (!WarningsAsErrors.empty())
    Overrides.WarningsAsErrors = WarningsAsErrors;
  if (SystemHeaders)
    Overrides.SystemHeaders = true;
  if (!HeaderFilter.empty())
    Overrides.HeaderFilterRegex = HeaderFilter;
  // The driver carries no compiler-warning or static-analyzer checks of its
  // own; compile errors are always collected.
  Overrides.Checks = (Overrides.Checks && !Overrides.Checks->empty()
                           ? *Overrides.Checks + ","
                           : std::string()) +
                      "-clang-analyzer-*,-clang-diagnostic-*";

  std::optional<ClangTidyOptions> Explicit = explicitConfiguration(Failed);
  if (Failed)
    return nullptr;
  if (Explicit)
    return std::make_unique<ConfigOptionsProvider>(
        Global, defaultOptions(), std::move(*Explicit), Overrides, FS);
  return std::make_unique<FileOptionsProvider>(Global, defaultOptions(),
                                               Overrides, FS);
}

} // namespace

std::unique_ptr<ClangTidyOptionsProvider>
createOptionsProvider(IntrusiveRefCntPtr<vfs::FileSystem> FS, bool &Failed) {
  std::unique_ptr<ClangTidyOptionsProvider> Provider =
      createClangTidyProvider(std::move(FS), Failed);
  if (!Provider)
    return nullptr;
  return std::make_unique<DdpChecksProvider>(std::move(Provider));
}

IntrusiveRefCntPtr<vfs::OverlayFileSystem> createBaseFileSystem(bool &Failed) {
  auto FS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(
      vfs::createPhysicalFileSystem());
  if (VfsOverlay.empty())
    return FS;
  auto Buffer = MemoryBuffer::getFile(VfsOverlay);
  IntrusiveRefCntPtr<vfs::FileSystem> Overlay =
      Buffer ? vfs::getVFSFromYAML(std::move(*Buffer), nullptr, VfsOverlay,
                                   nullptr, FS)
             : nullptr;
  if (!Overlay) {
    WithColor::error(errs(), "ddplint")
        << "cannot use --vfsoverlay '" << VfsOverlay << "': "
        << (Buffer ? "not a virtual file system description"
                   : Buffer.getError().message())
        << "\n";
    Failed = true;
    return FS;
  }
  FS->pushOverlay(Overlay);
  return FS;
}

std::string lineFilterText() {
  return LineFilter.empty() ? "" : "\nLineFilter: " + LineFilter;
}

void configureContext(ClangTidyContext &Context) {
  Context.setEnableProfiling(EnableCheckProfile);
  if (!StoreCheckProfile.empty())
    Context.setProfileStoragePrefix(StoreCheckProfile);
}

std::string brokenConfiguration(ArrayRef<std::string> Files) {
  if (!Config.empty() || !ConfigFile.empty())
    return ""; // checked when the provider is made
  std::set<std::string> Seen;
  for (const std::string &File : Files) {
    SmallString<256> Dir(File);
    sys::fs::make_absolute(Dir);
    for (StringRef D = sys::path::parent_path(Dir); !D.empty();
         D = sys::path::parent_path(D)) {
      SmallString<256> Path(D);
      sys::path::append(Path, ".clang-tidy");
      if (!sys::fs::is_regular_file(Path) || !Seen.insert(Path.str().str()).second)
        continue;
      bool Inherits = false;
      if (std::optional<std::string> Error = parseError(Path, Inherits))
        return "invalid configuration file " + *Error;
      if (!Inherits)
        break;
    }
  }
  return "";
}

std::string checkSelectionNote(IntrusiveRefCntPtr<vfs::FileSystem> FS,
                               StringRef File) {
  bool Failed = false, Named = false, Positive = false;
  std::unique_ptr<ClangTidyOptionsProvider> Provider =
      createClangTidyProvider(std::move(FS), Failed);
  if (!Provider)
    return "";
  std::vector<ClangTidyOptionsProvider::OptionsSource> Sources =
      Provider->getRawOptions(File);
  for (size_t I = 1; I < Sources.size(); ++I) {
    const std::optional<std::string> &Checks = Sources[I].first.Checks;
    if (!Checks || StringRef(*Checks).trim().empty() ||
        Sources[I].second ==
            ClangTidyOptionsProvider::OptionsSourceTypeCheckCommandLineOption)
      continue;
    if (!ddpGlobs(*Checks, Positive).empty())
      return "";
    Named = true;
  }
  return Named ? "the configuration names no ddp- check: every ddp- check "
                 "runs (its other checks are clang-tidy's)"
               : "";
}


std::vector<std::string>
configurationProblems(ClangTidyOptionsProvider &Provider, StringRef File) {
  ClangTidyOptions Every = Provider.getOptions(File);
  Every.Checks = "-*,ddp-*";
  std::vector<std::string> Known = getCheckNames(Every, false);
  ClangTidyOptions::OptionMap KnownOptions = getCheckOptions(Every, false);
  std::vector<std::string> Problems;
  bool Failed = false, Positive = false;
  std::unique_ptr<ClangTidyOptionsProvider> Raw =
      createClangTidyProvider(vfs::getRealFileSystem(), Failed);
  if (!Raw)
    return Problems; // the run itself says why the configuration is broken
  for (const auto &[Options, Source] : Raw->getRawOptions(File)) {
    for (const std::string &Glob : ddpGlobs(Options.Checks.value_or(""), Positive))
      if (GlobList G(StringRef(Glob).ltrim('-'));
          llvm::none_of(Known, [&](const std::string &Check) {
            return G.contains(Check);
          }))
        Problems.push_back(
            ("'" + Twine(Glob) + "' in the " + Source + " names no ddp- check")
                .str());
    for (const auto &[Key, Value] : Options.CheckOptions)
      if (StringRef(Key).starts_with("ddp-") && !KnownOptions.count(Key))
        Problems.push_back(
            ("unknown option '" + Twine(Key) + "' in the " + Source).str());
  }
  return Problems;
}

void warnConfigurationProblems(ClangTidyOptionsProvider &Provider,
                               StringRef File) {
  for (const std::string &Problem : configurationProblems(Provider, File))
    WithColor::warning(errs(), "ddplint") << Problem << "\n";
}

bool verifyConfiguration(ClangTidyOptionsProvider &Provider, StringRef File) {
  std::vector<std::string> Problems = configurationProblems(Provider, File);
  for (const std::string &Problem : Problems)
    outs() << "error: " << Problem << "\n";
  if (Problems.empty())
    outs() << "No config errors detected.\n";
  return Problems.empty();
}

} // namespace ddplint
