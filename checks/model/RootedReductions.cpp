//===--- RootedReductions.cpp - where the sum of a reduction to a root is -===//
//
// A reduction to one root (`MPI_Reduce`, `MPI_Ireduce`, `ncclReduce`)
// leaves the sum on that rank alone; the ranks that skip
// `if (rank == root)` hold none, so only the root's paths need an average.
//
//===----------------------------------------------------------------------===//

#include "model/Averaging.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/Collectives.h"
#include "vocabulary/VocabularyHelpers.h"

#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

/// Whether \p A and \p B name the same rank: the same integer constant or
/// the same variable.
bool sameRank(const Expr *A, const Expr *B, const ASTContext &Context) {
  A = A->IgnoreParenImpCasts();
  B = B->IgnoreParenImpCasts();
  Expr::EvalResult VA, VB;
  if (!A->isValueDependent() && !B->isValueDependent() &&
      A->EvaluateAsInt(VA, Context) && B->EvaluateAsInt(VB, Context))
    return VA.Val.getInt() == VB.Val.getInt();
  const ValueDecl *DA = referencedDecl(A);
  return DA && DA == referencedDecl(B);
}

/// Whether \p Branch of \p If runs on the root alone: the then of
/// `rank == root`, the else of `rank != root`.
bool rootOnlyBranch(const IfStmt &If, const Stmt *Branch, const Expr &Root,
                    const Vocabulary &Vocab, const ASTContext &Context) {
  const auto *Compare =
      If.getCond() ? dyn_cast<BinaryOperator>(If.getCond()->IgnoreParenImpCasts())
                   : nullptr;
  if (!Compare || !Compare->isEqualityOp() || !Branch)
    return false;
  bool Then = Branch == If.getThen();
  if ((!Then && Branch != If.getElse()) || Then != (Compare->getOpcode() == BO_EQ))
    return false;
  const Expr *L = Compare->getLHS(), *R = Compare->getRHS();
  return (Vocab.mentionsRank(L) && sameRank(R, &Root, Context)) ||
         (Vocab.mentionsRank(R) && sameRank(L, &Root, Context));
}

/// The branches of `if (rank == root)` nearest around the averages: what
/// the root runs with the sum.
llvm::SmallVector<const Stmt *, 2>
rootBranches(const GradientModel &Model, const CodeUnit &U, const Expr &Anchor,
             llvm::ArrayRef<const Stmt *> Averages) {
  llvm::SmallVector<const Stmt *, 2> Out;
  const auto *Call = dyn_cast<CallExpr>(&Anchor);
  const Expr *Root = Call ? collectives::reduceRoot(*Call) : nullptr;
  if (!Root)
    return Out;
  for (const Stmt *A : Averages)
    for (const Stmt *S = A; const Stmt *P = U.Parent.lookup(S); S = P)
      if (const auto *If = dyn_cast<IfStmt>(P);
          If && rootOnlyBranch(*If, S, *Root, Model.vocabulary(), Model.context())) {
        if (!llvm::is_contained(Out, S))
          Out.push_back(S);
        break;
      }
  return Out;
}

} // namespace

bool rootAveragesSum(const GradientModel &Model, const CodeUnit &U,
                     const Expr &Anchor, llvm::ArrayRef<const Stmt *> Averages,
                     llvm::ArrayRef<const Stmt *> Avoid) {
  // The root, entering its branch, averages the sum on every path out of
  // the function: the other ranks' paths carry no sum.
  return llvm::any_of(rootBranches(Model, U, Anchor, Averages),
                      [&](const Stmt *Branch) {
                        return !Model.flow(U).exitsFromEntering(Branch, Avoid);
                      });
}

} // namespace clang::tidy::ddp
