//===--- UnwaitedWorkCheck.h - ddp-unwaited-work --------------------------===//
//
// Finds asynchronous collectives whose completion is not awaited before
// their tensors are used: a c10d Work (or an MPI request) not waited on
// before the optimizer steps or the reduced tensors are read, never waited
// on at all, or discarded where the collective is called.
//
// docs/checks/ddp-unwaited-work.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UNWAITEDWORKCHECK_H
#define DDPLINT_CHECKS_UNWAITEDWORKCHECK_H

#include "ddp/DdpCheck.h"
#include "model/UnwaitedWorkStreams.h"
#include "model/UnwaitedWorkUses.h"

namespace clang::tidy::ddp {

class UnwaitedWorkCheck : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkDiscarded(const CallExpr &Call, ASTContext &Context);
  void checkFunction(const FunctionDecl &Function, ASTContext &Context);
  /// MPI requests kept in fields of \p Class that no method of it
  /// completes (UnwaitedWorkFields.cpp).
  void checkRequestFields(const CXXRecordDecl &Class);
  /// \p Use: the tensor or buffer read (or written) there, or the
  /// optimizer step.
  void reportRace(const CallExpr &Collective, const VarDecl &Holder,
                  const PendingUse &Use);
  void reportNeverWaited(const CallExpr &Collective, const VarDecl &Holder);
  void reportReplaced(const CallExpr &Post, const VarDecl &Holder,
                      const CallExpr &Later);
  void reportStreamRace(const StreamRace &Race);
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNWAITEDWORKCHECK_H
