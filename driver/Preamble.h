//===--- Preamble.h - one precompiled header for many units ------*- C++ -*-===//
//
// Most of the time spent on a LibTorch unit is parsing <torch/torch.h>, and
// every unit of a project parses it again. When units begin with the same
// heavy includes (LibTorch, ATen, c10, c10d) under the same compile command,
// they share one precompiled header:
//
//   - the shared preamble of a main file is its leading run of `#include`
//     lines (comments and blank lines may sit between them; a `//` comment
//     goes on over every line a backslash at its end joins to it, as in
//     translation phase 2), up to and including the last heavy one;
//     anything else (a macro, a conditional, code) ends the run, since what
//     follows may depend on it. A quoted include is named by the absolute
//     path of the file it finds, so the shared header finds the same file;
//   - a main file that starts with a project header ("related header
//     first") shares the heavy include run that header starts with (after
//     its include guard): those headers are then the first thing the unit
//     preprocesses either way;
//   - the PCH is built once from exactly those lines, with the unit's own
//     compile command, and kept in the cache directory under a key of the
//     lines, the command and the compiler;
//   - the unit is then parsed with the PCH loaded and those include lines
//     blanked out (spaces, same line breaks), so every offset, line and
//     column of a finding is what it would have been.
//
// Findings are the same with and without the preamble (a test compares
// them). A PCH clang refuses (a header changed since it was built) is
// rebuilt; a unit whose parse reports a problem with the PCH is analysed
// again without it.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_PREAMBLE_H
#define DDPLINT_DRIVER_PREAMBLE_H

#include "Analysis.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ddplint {

/// The leading heavy includes of a main file, as found by splitPreamble.
struct PreambleSplit {
  std::string Header;       ///< The include lines, one per line.
  /// The main file with those lines blanked (unchanged when they came from
  /// the header it starts with).
  std::string BlankedMain;
};

/// Splits Text, the contents of a main file in MainDirectory, as described
/// above; quoted includes are looked up beside their includer, then in
/// SearchDirectories. None when there is no heavy include run to share.
std::optional<PreambleSplit>
splitPreamble(llvm::StringRef Text, llvm::StringRef MainDirectory,
              llvm::ArrayRef<std::string> SearchDirectories);

/// Whether clang refused the shared preamble PCH for the unit R: its errors
/// name the PCH, or sit in the preamble's header. The unit is then analysed
/// again without it, and the PCH discarded.
bool preambleRefused(const UnitResult &R, llvm::StringRef PCH);

class SharedPreambles {
public:
  /// PCHs go into Dir/preambles. A PCH is built once Sharers announced
  /// units would use it; 0 builds one for any unit (a server that analyses
  /// the same file after every edit).
  explicit SharedPreambles(std::string Dir, unsigned Sharers = 2);

  /// Announces that File will be analysed under Command in this run. A PCH
  /// is built only when at least two announced units share it (or an
  /// earlier run left it on disk): for a single unit, building it costs
  /// more than it saves.
  void expect(llvm::StringRef File,
              const clang::tooling::CompileCommand &Command);

  /// The preamble to use for File under Command, built on first use, or
  /// None when the file has no heavy include run, no other unit shares it,
  /// the PCH could not be built, or another thread is still compiling it
  /// (the unit is then parsed in full rather than left waiting).
  /// Dependencies receives the headers the PCH was built from.
  /// Text: the main file's contents when they are not (yet) what the
  /// file on disk holds (an editor's unsaved buffer).
  std::optional<Analyser::PreambleUse>
  get(llvm::StringRef File, const clang::tooling::CompileCommand &Command,
      std::vector<std::string> &Dependencies,
      std::optional<llvm::StringRef> Text = std::nullopt);

  /// Whether get() would first build a PCH for File under Command (none
  /// ready in this run or on disk).
  bool wouldBuild(llvm::StringRef File,
                  const clang::tooling::CompileCommand &Command,
                  std::optional<llvm::StringRef> Text = std::nullopt);

  /// Forgets a PCH clang would not load, so the next unit rebuilds it.
  void discard(const std::string &PCH);

  /// How many PCHs this run built and how many units reused one.
  unsigned built() const { return Built; }
  unsigned reused() const { return Reused; }

private:
  struct Entry {
    /// Building: the first unit checks for a PCH on disk (others wait);
    /// Compiling: it builds one (others go without).
    enum State { Building, Compiling, Ready, Failed } S = Building;
    std::string PCH;
    std::vector<std::string> Dependencies;
  };

  std::optional<std::string>
  keyFor(llvm::StringRef File, const clang::tooling::CompileCommand &Command,
         PreambleSplit &Split, std::optional<llvm::StringRef> Text);
  /// For a unit whose entry another unit claimed first: waits until that
  /// one knows whether the PCH is on disk, then uses it if it is ready.
  std::optional<Analyser::PreambleUse>
  reuse(Entry &E, std::unique_lock<std::mutex> &Guard, std::string BlankedMain,
        std::vector<std::string> &Dependencies);
  /// Under the lock: moves E to S and wakes the units waiting on it.
  void setState(Entry &E, Entry::State S);
  /// Under the lock: E is ready (Ok) or failed, and was built by this unit
  /// (Fresh) or found on disk.
  void publish(Entry &E, bool Ok, bool Fresh, const std::string &PCH,
               const std::vector<std::string> &Deps);

  std::string Dir;
  unsigned Sharers;
  std::map<std::string, unsigned> Announced;
  std::mutex Lock;
  std::condition_variable Done;
  std::map<std::string, Entry> Entries;
  unsigned Built = 0, Reused = 0;
};

} // namespace ddplint

#endif // DDPLINT_DRIVER_PREAMBLE_H
