//===--- HiddenCode.h - code the AST of a unit does not show --------------===//
//
// Tokens of a unit's source that the AST lacks: after compile errors,
// statements clang dropped (a call into a missing header). A check that
// would report a missing sync or average asks first whether such code may
// hold one. Code the preprocessor skipped (`#ifdef USE_DISTRIBUTED ...
// #endif` where the configuration does not define it) is not built: it
// holds nothing that runs.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_HIDDENCODE_H
#define DDPLINT_CHECKS_HIDDENCODE_H

#include "model/CodeUnits.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace clang::tidy::ddp {

class HiddenCode {
public:
  /// \p Skipped: the source ranges the preprocessor skipped, in any file
  /// (not hidden code: code this configuration does not build).
  HiddenCode(ASTContext &Context, const CodeUnitGraph &Graph,
             std::vector<SourceRange> Skipped)
      : Context(Context), Graph(Graph), Skipped(std::move(Skipped)) {}

  /// Whether U's source holds a token (a called name, or `/`, `/=`)
  /// accepted by \p Matches that the AST does not show. Comments do not
  /// count. Only tokens inside \p Within (a statement of U; the body when
  /// null) count.
  bool hides(const CodeUnit &U,
             llvm::function_ref<bool(llvm::StringRef)> Matches,
             const Stmt *Within) const;

private:
  /// Raw-lexes [Begin, End) of one file: whether a matching token lies
  /// there for which \p Shown is false.
  bool scan(SourceLocation Begin, SourceLocation End,
            llvm::function_ref<bool(llvm::StringRef)> Matches,
            llvm::function_ref<bool(SourceLocation)> Shown) const;
  /// Fills Spelled from every unit's statements, once.
  void recordSpelledNames() const;

  ASTContext &Context;
  const CodeUnitGraph &Graph;
  std::vector<SourceRange> Skipped;
  /// Where the AST names something (a declaration reference, a member, an
  /// operator), as spelled: tokens found elsewhere were dropped.
  mutable llvm::DenseSet<SourceLocation> Spelled;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_HIDDENCODE_H
