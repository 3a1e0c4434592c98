//===--- Runner.h - analysing many units --------------------------*- C++ -*-===//
//
// Runs the checks over a list of translation units: N at a time on worker
// threads (each with its own clang-tidy context and file system), reusing
// cached findings and shared precompiled preambles when asked, and showing
// progress on a terminal.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_RUNNER_H
#define DDPLINT_DRIVER_RUNNER_H

#include "Finding.h"

#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ddplint {

class FindingsCache;
class SharedPreambles;

/// Makes the options provider of one worker (providers are not shared
/// between threads), reading .clang-tidy files through FS.
using OptionsProviderFactory =
    std::function<std::unique_ptr<clang::tidy::ClangTidyOptionsProvider>(
        llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS)>;

struct RunOptions {
  unsigned Jobs = 1;
  /// "[12/340] src/train.cpp  0:12 elapsed, ETA 1:02" on standard error,
  /// rewritten in place; for terminals only.
  bool Progress = false;
  /// One line per unit on standard error: analysed (and why) or reused.
  bool Verbose = false;
  FindingsCache *Cache = nullptr;         ///< None: always analyse.
  SharedPreambles *Preambles = nullptr;   ///< None: parse every header.
  /// The directory of ddplint's fallback SDK headers (SdkFallback.h), or ""
  /// when there is none or it is turned off.
  std::string SdkFallback;
};

struct RunStats {
  unsigned Analysed = 0;
  unsigned FromCache = 0;
};

/// A file as the user would name it: relative to the working directory when
/// under it.
std::string shownPath(llvm::StringRef File);

/// Analyses Files (absolute paths) and returns one result per file, in the
/// order given.
std::vector<UnitResult>
runUnits(llvm::ArrayRef<std::string> Files,
         const clang::tooling::CompilationDatabase &Compilations,
         const OptionsProviderFactory &MakeOptions, const RunOptions &Options,
         RunStats &Stats);

} // namespace ddplint

#endif // DDPLINT_DRIVER_RUNNER_H
