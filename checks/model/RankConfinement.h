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
// reaches is taken to run on every rank.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_MODEL_RANKCONFINEMENT_H
#define DDPLINT_CHECKS_MODEL_RANKCONFINEMENT_H

#include "analysis/Divergence.h"
#include "model/CodeUnits.h"

namespace clang::tidy::ddp {

class RankConfinement {
public:
  RankConfinement(const CodeUnitGraph &Graph, DivergenceAnalysis &Analysis)
      : Graph(Graph), Analysis(Analysis) {}

  /// The condition on the rank in \p U's own function that decides whether
  /// \p S runs, or null.
  const Expr *rankCondition(const CodeUnit &U, const Stmt &S) const;
  /// Whether \p S runs on some ranks only: under a condition on the rank,
  /// in \p U or around every call of \p U (callers up to three levels).
  bool someRanksOnly(const CodeUnit &U, const Stmt &S) const {
    return someRanksOnly(U, S, 0);
  }

private:
  bool someRanksOnly(const CodeUnit &U, const Stmt &S, unsigned Depth) const;

  const CodeUnitGraph &Graph;
  DivergenceAnalysis &Analysis;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_MODEL_RANKCONFINEMENT_H
