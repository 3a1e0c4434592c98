//===--- RankConfinement.cpp ----------------------------------------------===//

#include "model/RankConfinement.h"

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

bool RankConfinement::someRanksOnly(const CodeUnit &U, const Stmt &S,
                                    unsigned Depth) const {
  if (rankCondition(U, S))
    return true;
  llvm::ArrayRef<CallSite> Callers = Graph.callers(U);
  return Depth < 3 && !Callers.empty() &&
         llvm::all_of(Callers, [&](const CallSite &Site) {
           return someRanksOnly(*Site.Caller, *Site.Call, Depth + 1);
         });
}

} // namespace clang::tidy::ddp
