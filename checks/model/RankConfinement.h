//===--- RankConfinement.h - code that only some ranks run ---------------===//
//
// One answer, for every check, to "does this statement run on every rank?":
// no when a branch on a rank-dependent condition decides whether it runs,
// in its own function, or around every call of that function (a helper, a
// member function, a lambda kept in a local), up to three callers up. A
// learner's training step reached only from `if (rank == 0)`, a checkpoint
// lambda called only under `is_rank0()`, run on some ranks only.
//
// The callers are those of this translation unit; a function no call here
// reaches is taken to run on every rank. Where a deciding condition reads
// what a function out of sight returned (`auto ddp = init_from_env();
// if (is_main(ddp))` with `init_from_env` defined in another unit and no
// summary of it), the analysis cannot tell: mayBeSomeRanksOnly() says so,
// for a check whose claim is that every rank runs the statement.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_MODEL_RANKCONFINEMENT_H
#define DDPLINT_CHECKS_MODEL_RANKCONFINEMENT_H

#include "analysis/Divergence.h"
#include "model/CodeUnits.h"
#include "summary/FunctionSummaries.h"

namespace clang::tidy::ddp {

class RankConfinement {
public:
  RankConfinement(const CodeUnitGraph &Graph, FunctionSummaries &Summaries)
      : Graph(Graph), Summaries(Summaries), Analysis(Summaries.analysis()) {}

  /// The condition on the rank in \p U's own function that decides whether
  /// \p S runs, or null.
  const Expr *rankCondition(const CodeUnit &U, const Stmt &S) const;
  /// Whether \p S runs on some ranks only: under a condition on the rank,
  /// in \p U or around every call of \p U (callers up to three levels).
  bool someRanksOnly(const CodeUnit &U, const Stmt &S) const {
    return someRanksOnly(U, S, 0);
  }

  /// Whether \p S may run on some ranks only: as someRanksOnly(), or under
  /// a condition that reads a value of a function out of sight.
  bool mayBeSomeRanksOnly(const CodeUnit &U, const Stmt &S) const {
    return someRanksOnly(U, S, 0, /*OutOfSight=*/true);
  }

private:
  bool someRanksOnly(const CodeUnit &U, const Stmt &S, unsigned Depth,
                     bool OutOfSight = false) const;
  /// A condition deciding \p S in \p U: one on the rank, or (when
  /// \p OutOfSight) one reading a value of a function out of sight.
  bool decided(const CodeUnit &U, const Stmt &S, bool OutOfSight) const;
  /// Whether \p E reads what a function out of sight returned, directly
  /// or through the initialisers of the locals it reads.
  bool readsOutOfSight(const Expr *E, unsigned Depth = 0) const;

  const CodeUnitGraph &Graph;
  FunctionSummaries &Summaries;
  DivergenceAnalysis &Analysis;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_MODEL_RANKCONFINEMENT_H
