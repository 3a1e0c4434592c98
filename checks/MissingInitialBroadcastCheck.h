//===--- MissingInitialBroadcastCheck.h - ddp-missing-initial-broadcast ---===//
//
// Finds hand-synced training whose replicas start from different random
// parameters: no common seed before the model is built, and no broadcast of
// the parameters (nor a checkpoint loaded on every rank) before the first
// optimizer step.
//
// docs/checks/ddp-missing-initial-broadcast.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_MISSINGINITIALBROADCASTCHECK_H
#define DDPLINT_CHECKS_MISSINGINITIALBROADCASTCHECK_H

#include "WrapperCheckBase.h"

namespace clang::tidy::ddp {

class MissingInitialBroadcastCheck : public WrapperCheckBase {
public:
  using WrapperCheckBase::WrapperCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Whether \p S issues a broadcast, directly or through a function of this
  /// translation unit; with \p CopiesOut (the body around S copies into
  /// tensors), an all-gather counts too.
  bool issuesBroadcast(const Stmt &S, ASTContext &Context, unsigned Depth,
                       bool CopiesOut = false) const;
  /// Whether \p Call runs a function of this translation unit that steps an
  /// optimizer, directly or through the functions it calls.
  bool stepsInside(const CallExpr &Call, ASTContext &Context,
                   unsigned Depth) const;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_MISSINGINITIALBROADCASTCHECK_H
