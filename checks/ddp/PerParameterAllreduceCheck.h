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

#include "ddp/DdpCheck.h"
#include "analysis/CollectiveSites.h"

#include <memory>

namespace clang::tidy::ddp {

/// Where one collective per parameter comes from.
struct PerParameterSite {
  const Stmt *Iteration = nullptr; // the code run once per parameter
  const Stmt *Origin = nullptr;    // the loop, or the register_hook call
  bool IsHook = false;
  /// The parameters' values are synchronised or handed out, not their
  /// gradients: a model average or a start, which may run once (at
  /// start-up, after training).
  bool ValuesOnly = false;
};

class PerParameterAllreduceCheck : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// The loop or hook that runs \p Call once per parameter, with the
  /// parameter (or its gradient) among its arguments; empty when none does.
  PerParameterSite siteOf(const Expr &Call, ASTContext &Context) const;
  /// A call of a helper of this translation unit that issues a collective.
  void checkHelper(const CallExpr &Call, ASTContext &Context);
  /// A call clang could not type-check, whose candidates (functions of this
  /// translation unit) all issue a collective: a call of the first.
  void checkRecovered(const RecoveryExpr &Recovered, ASTContext &Context);
  void checkHelperSite(const Expr &Call, const CollectiveSite &What,
                       bool Blocking, ASTContext &Context);
  CollectiveSites &sites(ASTContext &Context);
  /// \p Helper: the helper \p Call runs, whose body issues the collective;
  /// null when \p Call is the collective.
  void report(const Expr &Call, const FunctionDecl *Helper,
              CollectiveKind Kind, bool Blocking, const PerParameterSite &Site);
  /// Whether a collective of kind \p K hands one rank's values out (a
  /// broadcast or scatter) rather than bringing the ranks' together.
  static bool handsOut(CollectiveKind K);
  /// A broadcast or scatter of each parameter in a loop that runs again
  /// and again.
  void reportHandedOut(const Expr &Call, const FunctionDecl *Helper,
                       CollectiveKind Kind, bool Blocking,
                       const PerParameterSite &Site);
  void reportPlaces(const FunctionDecl *Helper, const PerParameterSite &Site);
  /// Whether a collective of kind \p Kind that \p Site runs once per
  /// parameter is reported: not in a coalescing group, and, for values
  /// synchronised or handed out (not gradients), in a loop that runs again
  /// and again.
  bool reportable(const Expr &Call, CollectiveKind Kind, PerParameterSite &Site,
                  ASTContext &Context);
  bool isBlocking(const CallExpr &Collective, const CollectiveInfo &Info,
                  const Stmt &Iteration, ASTContext &Context) const;
  bool isCoalesced(const Expr &Collective, const Stmt &Iteration,
                   ASTContext &Context);

  std::unique_ptr<CollectiveSites> Sites;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_PERPARAMETERALLREDUCECHECK_H
