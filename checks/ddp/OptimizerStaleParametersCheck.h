//===--- OptimizerStaleParametersCheck.h - ddp-optimizer-stale-parameters -===//
//
// Finds an optimizer built from a module's parameters while training then
// runs another object: the module's holder reassigned (a new module, a
// module re-created to load a checkpoint into), or a copy made with
// `clone()` (alone or inside a wrapper). The optimizer keeps stepping the
// old parameter tensors, and the trained module never changes.
//
// docs/checks/ddp-optimizer-stale-parameters.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_OPTIMIZERSTALEPARAMETERSCHECK_H
#define DDPLINT_CHECKS_OPTIMIZERSTALEPARAMETERSCHECK_H

#include "ddp/DdpCheck.h"

namespace clang::tidy::ddp {

class OptimizerStaleParametersCheck : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkFunction(const FunctionDecl &Function, ASTContext &Context);
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_OPTIMIZERSTALEPARAMETERSCHECK_H
