//===--- MutationAfterWrapCheck.h - ddp-mutation-after-wrap ---------------===//
//
// Finds a wrapped module changed after the wrap in a way the wrapper cannot
// follow: new parameters, buffers or submodules (never synced), and
// parameter values changed on some ranks only (replicas diverge).
//
// docs/checks/ddp-mutation-after-wrap.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_MUTATIONAFTERWRAPCHECK_H
#define DDPLINT_CHECKS_MUTATIONAFTERWRAPCHECK_H

#include "ddp/WrapperCheckBase.h"

namespace clang::tidy::ddp {

class MutationAfterWrapCheck : public WrapperCheckBase {
public:
  using WrapperCheckBase::WrapperCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkStructural(const CallExpr &Call, const Expr &Receiver,
                       const WrapperLife &Life);
  void checkValue(const CallExpr &Change, const Expr &Target,
                  const FunctionDecl &Function, const WrapperLife &Life,
                  ASTContext &Context);
  /// The condition mentioning the rank that decides whether \p Change runs.
  const Expr *rankCondition(const CallExpr &Change, ASTContext &Context) const;
  /// Whether a collective follows \p Change on every path to the exit.
  bool reconciledAfter(const CallExpr &Change, const FunctionDecl &Function,
                       const WrapperLife &Life, ASTContext &Context) const;
  void reportChange(const CallExpr &Change, const Wrap &W,
                    const Expr *RankCondition);
  /// The wrap whose module owns the tensor or module \p Target denotes.
  const Wrap *owningWrap(const Expr *Target, const Stmt *At,
                         const WrapperLife &Life, ASTContext &Context) const;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_MUTATIONAFTERWRAPCHECK_H
