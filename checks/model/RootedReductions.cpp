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

/// The first statement the CFG evaluates on entering \p S: a block's first
/// statement, an `if`'s or loop's condition (or init).
const Stmt *firstEvaluated(const Stmt *S) {
  for (unsigned Depth = 0; S && Depth < 16; ++Depth) {
    if (const auto *Block = dyn_cast<CompoundStmt>(S))
      S = Block->body_empty() ? nullptr : Block->body_front();
    else if (const auto *If = dyn_cast<IfStmt>(S))
      return If->getInit() ? If->getInit() : If->getCond();
    else if (const auto *For = dyn_cast<ForStmt>(S))
      return For->getInit() ? For->getInit() : For->getCond();
    else if (const auto *While = dyn_cast<WhileStmt>(S))
      return While->getCond();
    else if (const auto *Do = dyn_cast<DoStmt>(S))
      S = Do->getBody();
    else if (const auto *Range = dyn_cast<CXXForRangeStmt>(S))
      return Range->getRangeStmt();
    else
      return S;
  }
  return nullptr;
}

/// Whether the root, entering \p Branch, averages the sum on every path
/// out of the function: the other ranks' paths carry no sum.
bool rootAverages(const CodeUnit &U, const Reachability &Flow,
                  const Stmt &Branch, llvm::ArrayRef<const Stmt *> Avoid) {
  const Stmt *Start = firstEvaluated(&Branch);
  if (!Start)
    return false;
  if (llvm::any_of(Avoid, [&](const Stmt *A) { return U.contains(A, Start); }))
    return true;
  return !Flow.reachesExit(Start, Avoid);
}

} // namespace

bool rootAveragesSum(const GradientModel &Model, const CodeUnit &U,
                     const Expr &Anchor, llvm::ArrayRef<const Stmt *> Averages,
                     llvm::ArrayRef<const Stmt *> Avoid) {
  return llvm::any_of(rootBranches(Model, U, Anchor, Averages),
                      [&](const Stmt *Branch) {
                        return rootAverages(U, Model.flow(U), *Branch, Avoid);
                      });
}

} // namespace clang::tidy::ddp
