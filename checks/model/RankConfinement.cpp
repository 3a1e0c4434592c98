//===--- RankConfinement.cpp ----------------------------------------------===//

#include "model/RankConfinement.h"
#include "analysis/ASTUtils.h"
#include "vocabulary/VocabularyHelpers.h"

#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

const Expr *RankConfinement::rankCondition(const CodeUnit &U,
                                           const Stmt &S) const {
  FunctionDivergence *Flow = Analysis.function(*U.Function);
  const CFGBlock *Block = Flow ? Flow->blockOf(&S) : nullptr;
  if (!Block)
    return nullptr;
  for (const CFGBlock *Branch : Flow->controllingBranches(*Block))
    if (Analysis.fromCallers(*U.Function, Flow->conditionValue(*Branch))
            .has(DivergenceSource::Rank))
      return Flow->condition(*Branch);
  return nullptr;
}

bool RankConfinement::decided(const CodeUnit &U, const Stmt &S,
                              bool OutOfSight) const {
  if (rankCondition(U, S))
    return true;
  if (!OutOfSight)
    return false;
  FunctionDivergence *Flow = Analysis.function(*U.Function);
  const CFGBlock *Block = Flow ? Flow->blockOf(&S) : nullptr;
  if (!Block)
    return false;
  return llvm::any_of(Flow->controllingBranches(*Block),
                      [&](const CFGBlock *Branch) {
                        return readsOutOfSight(Flow->condition(*Branch));
                      });
}

bool RankConfinement::readsOutOfSight(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 3)
    return false;
  bool Found = false;
  forEachStmt(E, [&](const Stmt *S) {
    if (Found)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      Found = FD && Summaries.outOfSight(*FD);
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
      const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
      Found = V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
              readsOutOfSight(V->getInit(), Depth + 1);
    }
  });
  return Found;
}

bool RankConfinement::someRanksOnly(const CodeUnit &U, const Stmt &S,
                                    unsigned Depth, bool OutOfSight) const {
  if (decided(U, S, OutOfSight))
    return true;
  llvm::ArrayRef<CallSite> Callers = Graph.callers(U);
  return Depth < 3 && !Callers.empty() &&
         llvm::all_of(Callers, [&](const CallSite &Site) {
           return someRanksOnly(*Site.Caller, *Site.Call, Depth + 1,
                                OutOfSight);
         });
}

} // namespace clang::tidy::ddp
