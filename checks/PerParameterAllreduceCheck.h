//===--- PerParameterAllreduceCheck.h - ddp-per-parameter-allreduce -------===//
//
// Finds gradient synchronisation that issues one collective per parameter:
// a collective on each parameter's gradient inside a loop over the
// parameters, or inside a gradient hook registered on each parameter.
// Correct, but every tensor pays a full collective latency.
//
// docs/checks/ddp-per-parameter-allreduce.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_PERPARAMETERALLREDUCECHECK_H
#define DDPLINT_CHECKS_PERPARAMETERALLREDUCECHECK_H

#include "DdpCheck.h"

namespace clang::tidy::ddp {

class PerParameterAllreduceCheck : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  bool isBlocking(const CallExpr &Collective, const CollectiveInfo &Info,
                  const Stmt &Iteration, ASTContext &Context) const;
  bool isCoalesced(const CallExpr &Collective, ASTContext &Context) const;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_PERPARAMETERALLREDUCECHECK_H
