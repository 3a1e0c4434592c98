//===--- DivergentSites.h - collectives that only some ranks issue --------===//
//
// The analysis behind ddp-divergent-collective, one function at a time, in
// phases the way clang-tidy's use-after-move check takes them: collect the
// collectives the body issues (analysis/CollectiveSites); decide, for each,
// the nearest branch on a condition that differs between ranks
// (analysis/Divergence) that decides whether it runs, with the collective
// inside the branch or after an early exit taken on it; and keep, of the
// collectives one early exit skips, the first.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_DIVERGENTSITES_H
#define DDPLINT_CHECKS_ANALYSIS_DIVERGENTSITES_H

#include "analysis/CollectiveSites.h"
#include "analysis/Divergence.h"

#include "clang/AST/ParentMap.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"

#include <optional>
#include <vector>

namespace clang::tidy::ddp {

/// The collectives of one function that only some ranks issue.
class DivergentSites {
public:
  /// A collective issued in the function under analysis.
  struct Site {
    const Expr *Call;
    const CFGBlock *Block;
    CollectiveSite What;
  };

  /// A collective that some ranks skip, and the branch that decides it.
  struct Finding {
    const Site *Collective;
    const CFGBlock *Branch;
    Divergence Condition;
    /// The early exit taken on the condition; null when the collective sits
    /// inside the conditional statement itself.
    const Stmt *Exit;
    /// The if, loop, ?: or switch whose condition the branch tests.
    const Stmt *Controlling;
  };

  DivergentSites(DivergenceAnalysis &Analysis, const FunctionDecl &Function,
                 FunctionDivergence &Flow);

  /// Phase 1: the collectives the body issues, in source order. Returns
  /// whether there is any.
  bool collect();
  /// Phase 2: for each collective, the nearest diverging branch that
  /// decides whether it runs; in source order. The findings point into
  /// this object.
  std::vector<Finding> decide();
  /// Phase 3: the findings to report. An early exit skips every later
  /// collective: only the first one it skips is reported (the next in
  /// source order, or the first of the next iteration).
  std::vector<const Finding *>
  toReport(const std::vector<Finding> &Findings) const;

  /// The condition a diagnostic of \p F points at: the controlling
  /// statement's whole condition, or the tested one for a range-for; null
  /// when there is none.
  const Expr *condition(const Finding &F) const;
  /// Whether \p Inner lies in \p Outer (not counting lambdas defined there).
  bool isWithin(const Stmt *Inner, const Stmt *Outer) const;
  /// Whether \p A begins before \p B in the translation unit.
  bool precedes(const Stmt *A, const Stmt *B) const;

private:
  std::optional<CollectiveSite> siteOf(const Expr &E) const;
  std::optional<Finding> decide(const Site &S);
  /// The collectives met on one side of a branch before the sides join, in
  /// source order.
  std::vector<const Site *> region(const CFGBlock *Start,
                                   const CFGBlock *Branch,
                                   const CFGBlock *Join) const;
  /// Both sides issue the matching collective at the same position: root
  /// `gather(outputs, inputs)` against the others' `gather(inputs)`.
  /// \p Controlling: the branch's statement; \p Guarded: it holds the
  /// collective. A side that reaches the collective on some paths only, and
  /// leaves the statement early on another, matches nothing.
  bool matched(const CFGBlock &Branch, const Site &Collective,
               const Stmt *Controlling, bool Guarded) const;
  /// Whether a path from \p Start, issuing no collective that matches
  /// \p Collective and failing nowhere, leaves \p Controlling early
  /// (`return`, `goto`, a `break` or `continue` of a loop around it).
  bool leavesWithout(const CFGBlock &Start, const Site &Collective,
                     const Stmt &Controlling) const;
  /// Whether \p Branch asks if this rank is a member of a group
  /// (`contains(ranks, rank)`, `ranks.count(rank)`) that \p Collective's
  /// communicator is looked up by: the ranks that call it are its members.
  bool testsGroupMembership(const CFGBlock &Branch,
                            const Site &Collective) const;
  /// Whether \p Collective's communicators hold some ranks only, split off
  /// by what differs between ranks, and \p Branch's condition \p Value
  /// depends on nothing but the ranks of other communicators: the branch may
  /// pick exactly the members (`if (world_rank != 0)` around a barrier on
  /// the communicator split by `world_rank == 0`).
  bool withinSubgroup(const CFGBlock &Branch, const Site &Collective,
                      const Divergence &Value) const;

  DivergenceAnalysis &Analysis;
  const FunctionDecl &Function;
  FunctionDivergence &Flow;
  const SourceManager &SM;
  const ParentMap &Parents;
  std::vector<Site> Sites;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_DIVERGENTSITES_H
