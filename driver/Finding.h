//===--- Finding.h - the driver's model of a finding -------------*- C++ -*-===//
//
// Everything ddplint reports leaves clang as a clang::tidy::ClangTidyError,
// which holds file offsets and lives only as long as the run. The driver turns
// each into a Finding: self-contained (file, line, column, notes, fix-its),
// serialisable to JSON, so findings can be printed in any format, cached,
// merged from shards and compared with a baseline.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_FINDING_H
#define DDPLINT_DRIVER_FINDING_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
namespace tidy {
struct ClangTidyError;
} // namespace tidy
} // namespace clang

namespace ddplint {

/// A point in a file; Line and Column are 1-based (0 when unknown), Offset is
/// the byte offset clang reported.
struct Location {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  unsigned Offset = 0;
};

/// One edit of a fix-it: replace Length bytes at Begin by Text.
struct Replacement {
  Location Begin;
  unsigned Length = 0;
  std::string Text;
};

struct Note {
  std::string Message;
  Location Where;
  /// A fix-it attached to the note: a suggestion, applied only by
  /// --fix-unsafe (docs/fixes.md).
  std::vector<Replacement> Fixes;
};

/// What running the program showed about a finding, written back into a
/// findings file by the runtime harness (`ddp-harness`).
/// One rank's row of where the ranks' collectives parted at run time.
struct RankCollective {
  int64_t Rank = 0;
  std::string Collective; ///< "allreduce SUM 49 x Float", or "none".
  std::string Site;       ///< "train.cpp:46 (run)", or empty.
  std::string Blocked;    ///< "12.3 s" when the rank waited there, or empty.
};

struct RuntimeEvidence {
  std::string Verdict;  ///< "diverged", "hang", "consistent", ...
  std::string Evidence; ///< One or a few sentences: what was measured.
  std::string Svg;      ///< Path of a drift picture (SVG), or empty.
  /// Where the ranks' collectives parted, a row per rank; empty when they
  /// did not, or nothing recorded them.
  std::vector<RankCollective> Collectives;
};

struct Finding {
  std::string Check;   ///< "ddp-..." or "clang-diagnostic-error".
  std::string Level;   ///< "warning" or "error".
  std::string Message; ///< Without the trailing " [check]".
  Location Where;
  std::vector<Note> Notes;
  /// The warning's own fix-it: safe, applied by --fix (docs/fixes.md).
  std::vector<Replacement> Fixes;
  std::optional<RuntimeEvidence> Runtime;

  bool isCompileError() const;
};

/// Code the preprocessor skipped that looks distributed (InactiveCode.h):
/// its collectives were never analysed.
struct InactiveRegion {
  std::string File;      ///< Absolute path.
  unsigned Line = 0;     ///< Of the directive that opens the skipped code.
  unsigned Lines = 0;    ///< How many lines were skipped.
  std::string Directive; ///< "#ifdef USE_NCCL", "#else".
  /// For an #else or #elif, the #if it belongs to; otherwise empty.
  std::string Opener;
  /// What brings the code in, when one macro decides: "define USE_NCCL",
  /// "undefine NO_MPI"; otherwise empty.
  std::string Advice;
};

/// Everything one translation unit produced.
struct UnitResult {
  std::string File; ///< Absolute path of the main file.
  std::vector<Finding> Findings;
  std::vector<Finding> CompileErrors;
  /// SDK headers, as included ("nccl.h"), that nothing on the include path
  /// provided, so ddplint's fallback declarations stood in (SdkFallback.h).
  std::vector<std::string> SdkFallbacks;
  /// Standard headers ("functional") the unit names symbols of without
  /// including them, force-included for its analysis (StdIncludes.h).
  std::vector<std::string> AddedIncludes;
  /// Distributed code in skipped preprocessor branches of the main file and
  /// its user headers.
  std::vector<InactiveRegion> Inactive;
  /// Set when the tool could not analyse the unit at all (unreadable file,
  /// no compile command); the message says why.
  std::string ToolError;
  /// Set when the analysis ran but saw (next to) nothing: a header not
  /// found, a fatal error, no function left to analyse (Vacuity.h); the
  /// cause, in one line with advice.
  std::string Vacuous;
  /// What the unit's externally visible functions do, for the units that
  /// call them: "USR<TAB>encoding" (FunctionSummaries, ProjectFunctions).
  std::vector<std::string> Summaries;
  /// The summaries of other units' functions its analysis asked for, as it
  /// got them ("USR<TAB>encoding", the encoding empty for none): the result
  /// is stale once one of them changes.
  std::vector<std::string> AskedSummaries;
};

/// Maps file offsets to lines and columns, reading each file once.
class LineTable {
public:
  /// Fills Line and Column of L from its File and Offset.
  void resolve(Location &L);

private:
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> Files;
};

Finding toFinding(const clang::tidy::ClangTidyError &E, LineTable &Lines);

llvm::json::Value toJSON(const Location &L);
llvm::json::Value toJSON(const RuntimeEvidence &R);
llvm::json::Value toJSON(const Finding &F);
llvm::json::Value toJSON(const InactiveRegion &R);
llvm::json::Value toJSON(const UnitResult &U);
bool fromJSON(const llvm::json::Value &V, Location &L, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, RuntimeEvidence &R,
              llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, Finding &F, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, InactiveRegion &R,
              llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, UnitResult &U, llvm::json::Path P);

/// Orders findings by file, offset, check and message, and drops exact
/// duplicates (a header's finding seen from several units).
void sortAndUnique(std::vector<Finding> &Findings);

} // namespace ddplint

#endif // DDPLINT_DRIVER_FINDING_H
