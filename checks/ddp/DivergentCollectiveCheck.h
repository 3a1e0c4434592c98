//===--- DivergentCollectiveCheck.h - ddp-divergent-collective ------------===//
//
// Finds collectives that only some ranks issue: a collective under a
// condition that depends on the rank or on data local to a rank, or after an
// early return / break / continue / throw taken on such a condition. Every
// rank must issue the same collectives in the same order; a rank that skips
// one leaves the others blocked in it, and the job hangs.
//
// docs/checks/ddp-divergent-collective.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_DIVERGENTCOLLECTIVECHECK_H
#define DDPLINT_CHECKS_DIVERGENTCOLLECTIVECHECK_H

#include "ddp/DdpCheck.h"
#include "analysis/Divergence.h"
#include "analysis/DivergentSites.h"

#include <memory>

namespace clang::tidy::ddp {

class DivergentCollectiveCheck : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override { Analysis.reset(); }

private:
  /// Collects the function's collectives, decides which of them only some
  /// ranks issue (analysis/DivergentSites) and reports those.
  void checkFunction(const FunctionDecl &Function);
  void report(const DivergentSites::Finding &F, const DivergentSites &Sites);
  /// The condition, the early exit, where the condition's divergence comes
  /// from, and where a helper issues the collective.
  void reportNotes(const DivergentSites::Finding &F,
                   const DivergentSites &Sites);

  /// Helper summaries live as long as the translation unit.
  std::unique_ptr<DivergenceAnalysis> Analysis;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_DIVERGENTCOLLECTIVECHECK_H
