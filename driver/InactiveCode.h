//===--- InactiveCode.h - distributed code the preprocessor skipped -*- C++ -*-===//
//
// Distributed code often sits under `#ifdef USE_NCCL`, `USE_MPI`, `USE_C10D`
// or `WITH_MPI`. When the lint's flags do not define the macro, the checks
// never see that code, and a clean report says nothing about it. This
// collector notes each skipped preprocessor branch of the main file and its
// user headers (not system headers) whose text mentions a collective, so
// that -v can name it and the macro that would bring it in.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_INACTIVECODE_H
#define DDPLINT_DRIVER_INACTIVECODE_H

#include "Finding.h"

#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/PPCallbacks.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class SourceManager;
} // namespace clang

namespace ddplint {

/// Whether Text reads like distributed code: it names a collective or a
/// communication library (case-insensitive).
bool mentionsDistributedCode(llvm::StringRef Text);

class InactiveCodeCollector : public clang::PPCallbacks {
public:
  InactiveCodeCollector(const clang::SourceManager &SM,
                        std::vector<InactiveRegion> &Out)
      : SM(SM), Out(Out) {}

  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind FileType,
                   clang::FileID PrevFID) override;
  void Else(clang::SourceLocation Loc, clang::SourceLocation IfLoc) override;
  void Elif(clang::SourceLocation Loc, clang::SourceRange ConditionRange,
            ConditionValueKind ConditionValue,
            clang::SourceLocation IfLoc) override;
  void Elifdef(clang::SourceLocation Loc, clang::SourceRange ConditionRange,
               clang::SourceLocation IfLoc) override;
  void Elifndef(clang::SourceLocation Loc, clang::SourceRange ConditionRange,
                clang::SourceLocation IfLoc) override;
  void SourceRangeSkipped(clang::SourceRange Range,
                          clang::SourceLocation EndifLoc) override;

private:
  using LineKey = std::pair<clang::FileID, unsigned>;
  LineKey lineOf(clang::SourceLocation Loc) const;
  /// Remembers which #if an #else or #elif at Loc continues.
  void noteBranch(clang::SourceLocation Loc, clang::SourceLocation IfLoc);
  /// Whether FID is a second inclusion of a file: a header re-read under
  /// its include guard is skipped whole, and that is no news.
  bool isRepeatedInclusion(clang::FileID FID);

  const clang::SourceManager &SM;
  std::vector<InactiveRegion> &Out;
  /// The line of an #else/#elif -> the #if it continues.
  std::map<LineKey, clang::SourceLocation> Openers;
  /// The #if locations (raw) of chains with an #elif.
  std::set<unsigned> ChainsWithElif;
  /// Each file's first inclusion.
  std::map<const clang::FileEntry *, clang::FileID> FirstInclusion;
};

/// "214 lines under '#ifdef USE_NCCL' not analysed (define USE_NCCL to
/// analyse them)", without the location.
std::string describeInactiveRegion(const InactiveRegion &R);

} // namespace ddplint

#endif // DDPLINT_DRIVER_INACTIVECODE_H
