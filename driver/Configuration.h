//===--- Configuration.h - the checks' configuration ------------*- C++ -*-===//
//
// Which checks run and with which options, as clang-tidy decides it:
// .clang-tidy files next to the sources, or --config / --config-file instead,
// with --checks and --header-filter on top. The driver's checks are ddp-*
// adjusted by what those say about ddp- checks (a .clang-tidy written for
// clang-tidy's checks leaves them all on); compiler warnings and the static
// analyzer never run. The plugin keeps clang-tidy's meaning.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_CONFIGURATION_H
#define DDPLINT_DRIVER_CONFIGURATION_H

#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <memory>
#include <optional>

namespace clang::tidy {
class ClangTidyContext;
} // namespace clang::tidy

namespace ddplint {

/// The options provider the command line describes, reading .clang-tidy
/// files through FS. Null, with Failed set after an error on stderr, when
/// --config or --config-file cannot be used.
std::unique_ptr<clang::tidy::ClangTidyOptionsProvider>
createOptionsProvider(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                      bool &Failed);

/// The file system units are read through: the real one, with the
/// --vfsoverlay description over it (Failed set, after an error on
/// stderr, when that cannot be used).
llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem>
createBaseFileSystem(bool &Failed);

/// --line-filter as given ("" when none): a unit's findings depend on it.
std::string lineFilterText();

/// --enable-check-profile and --store-check-profile, on an analyser's
/// context.
void configureContext(clang::tidy::ClangTidyContext &Context);

/// The first .clang-tidy that the configuration of Files would read and
/// that does not parse, as "invalid configuration file PATH:LINE:COL:
/// message"; "" when they all parse (or --config/--config-file replaces
/// them).
std::string brokenConfiguration(llvm::ArrayRef<std::string> Files);

/// For -v: a line saying that the configuration File sees names checks but
/// no ddp- check, so every ddp- check runs; "" otherwise.
std::string
checkSelectionNote(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                   llvm::StringRef File);

/// Each ddp- glob that names no check and each unknown ddp- check option
/// of the configuration File sees (its files and the command line), one
/// sentence each.
std::vector<std::string>
configurationProblems(clang::tidy::ClangTidyOptionsProvider &Provider,
                      llvm::StringRef File);

/// Prints configurationProblems as warnings: a misspelled check or option
/// changes nothing and would go unnoticed.
void warnConfigurationProblems(clang::tidy::ClangTidyOptionsProvider &Provider,
                               llvm::StringRef File);

/// --verify-config: prints configurationProblems as errors, or "No config
/// errors detected."; false when something was printed as an error.
bool verifyConfiguration(clang::tidy::ClangTidyOptionsProvider &Provider,
                         llvm::StringRef File);

/// --load: loads the plugins before any check is created. False after an
/// error on stderr (ConfigurationQueries.cpp).
bool loadPlugins();

/// --list-checks, --explain-config, --verify-config and --dump-config, for
/// the configuration File sees: prints the answer and returns the exit
/// code; None when none was asked for (ConfigurationQueries.cpp).
std::optional<int> answerQuery(clang::tidy::ClangTidyOptionsProvider &Provider,
                               llvm::StringRef File,
                               clang::tidy::ClangTidyOptions Effective,
                               llvm::ArrayRef<std::string> Enabled);

} // namespace ddplint

#endif // DDPLINT_DRIVER_CONFIGURATION_H
