//===--- UnwrappedForwardCheck.h - ddp-unwrapped-forward ------------------===//
//
// Finds a forward pass through the wrapped module instead of its wrapper
// whose result reaches a backward(): the wrapper's gradient sync is never
// armed, so each rank trains its own replica.
//
// docs/checks/ddp-unwrapped-forward.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UNWRAPPEDFORWARDCHECK_H
#define DDPLINT_CHECKS_UNWRAPPEDFORWARDCHECK_H

#include "ddp/WrapperCheckBase.h"

namespace clang::tidy::ddp {

class UnwrappedForwardCheck : public WrapperCheckBase {
public:
  using WrapperCheckBase::WrapperCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// The backward() in \p Function that the value of \p Call flows into.
  const CallExpr *backwardFedBy(const CallExpr &Call,
                                const FunctionDecl &Function,
                                ASTContext &Context) const;
  /// Whether every gradient is all-reduced after \p Backward (directly or in
  /// a helper of this translation unit): the hand-written fix.
  bool gradientsReducedAfter(const CallExpr &Backward,
                             const FunctionDecl &Function,
                             const WrapperLife &Life,
                             ASTContext &Context) const;
  bool reducesGradients(const Stmt &S, ASTContext &Context,
                        unsigned Depth) const;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNWRAPPEDFORWARDCHECK_H
