//===--- Analysis.h - running the checks over translation units -----------===//
//
// The driver's counterpart of clang::tidy::runClangTidy: the same checks, the
// same diagnostics consumer (so NOLINT, header filters and .clang-tidy files
// behave as in clang-tidy), with two differences:
//  - the AST matchers traverse only declarations outside system headers:
//    system headers cannot hold a reported finding, and skipping them is most
//    of the speed difference on a unit that includes <torch/torch.h>;
//  - clang's "N warnings generated." summary is not printed.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_ANALYSIS_H
#define DDPLINT_DRIVER_ANALYSIS_H

#include "Finding.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ddplint {

/// Runs the enabled checks over translation units, one at a time, and
/// returns each unit's findings and compile errors with lines and columns
/// resolved. An analyser may run any number of units, but is not shared
/// between threads: give each thread its own.
///
/// The checks' diagnostics are custom diagnostic IDs whose check names the
/// context remembers by ID, so every unit an analyser runs goes through the
/// same DiagnosticIDs table (as in clang-tidy's own runner); a fresh table per
/// unit would hand out the same IDs for other messages and attribute findings
/// to the wrong check.
class Analyser {
public:
  /// SdkFallback: the directory of ddplint's fallback SDK headers
  /// (SdkFallback.h), appended last to every command; "" for none.
  Analyser(std::unique_ptr<clang::tidy::ClangTidyOptionsProvider> Options,
           llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
           std::string SdkFallback = "");
  ~Analyser();

  /// What a unit's result depends on besides its compile command.
  struct Inputs {
    /// The absolute path of every file clang read (main file and headers).
    std::vector<std::string> Files;
    /// Where headers that only the SDK fallback provided were looked for
    /// in vain: the result is stale once one of them exists.
    std::vector<std::string> Absent;
  };

  /// A shared precompiled preamble (Preamble.h) for one unit: the PCH to
  /// load before the main file, and the main file's text with the include
  /// lines the PCH covers blanked out (same length, same line breaks, so
  /// every offset, line and column is unchanged).
  struct PreambleUse {
    std::string PCH;
    std::string MainFileText;
  };

  /// Analyses File. When Dependencies is given, it receives what the
  /// result depends on. A unit whose errors say it names standard-library
  /// symbols it never includes is analysed again with those headers
  /// force-included (StdIncludes.h).
  UnitResult run(const clang::tooling::CompilationDatabase &Compilations,
                 llvm::StringRef File, Inputs *Dependencies = nullptr,
                 const PreambleUse *Preamble = nullptr);

  /// The compile command File is analysed with: the database's first, with
  /// the ExtraArgs and ExtraArgsBefore of its .clang-tidy configuration,
  /// then the SDK fallback's arguments.
  std::optional<clang::tooling::CompileCommand>
  command(const clang::tooling::CompilationDatabase &Compilations,
          llvm::StringRef File);

  clang::tidy::ClangTidyContext &context() { return *Context; }

  /// While *Cancelled is set, a unit whose parse has finished skips the
  /// checks (an editor's analysis a newer edit made stale): its result is
  /// then incomplete and meant to be dropped.
  void setCancellation(const std::atomic<bool> *Cancelled) {
    this->Cancelled = Cancelled;
  }

private:
  /// One analysis of File, with ForcedIncludes (StdIncludes.h) added.
  UnitResult runOnce(const clang::tooling::CompilationDatabase &Compilations,
                     llvm::StringRef File, Inputs *Dependencies,
                     const PreambleUse *Preamble,
                     llvm::ArrayRef<std::string> ForcedIncludes);

  std::unique_ptr<clang::tidy::ClangTidyContext> Context;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> DiagIDs;
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS;
  std::string SdkFallback;
  const std::atomic<bool> *Cancelled = nullptr;
};

} // namespace ddplint

#endif // DDPLINT_DRIVER_ANALYSIS_H
