//===--- DivergenceClosures.cpp - what an optimizer's closure assigns -----===//
//
// `optimizer.step([&] { ...; loss_value = loss.item<double>(); ... })`:
// LibTorch runs the closure inside step(), so what it writes through its
// by-reference captures reaches the caller's locals there. Part of
// FunctionDivergence (analysis/Divergence.h).
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"

#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

void FunctionDivergence::closureAssignments(const CallExpr &Step,
                                            const CFGBlock &B) {
  const Expr *Closure = stripObjectWrappers(Vocab.optimizerStepClosure(Step));
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Closure))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()); isLocal(Var))
      Closure = Var->getInit() ? stripObjectWrappers(Var->getInit()) : nullptr;
  const auto *Lambda = dyn_cast_or_null<LambdaExpr>(Closure);
  if (!Lambda)
    return;
  auto Assign = [&](const Expr *Target, const Expr *Value) {
    bool Exact = false;
    Slot Where = rootLocal(Target, Exact);
    if (Where.first)
      define(Where, closureValue(Value, *Lambda->getBody(), 0), false, B);
  };
  forEachStmt(Lambda->getBody(), [&](const Stmt *S) {
    if (const auto *Binary = dyn_cast<BinaryOperator>(S);
        Binary && Binary->isAssignmentOp())
      Assign(Binary->getLHS(), Binary->getRHS());
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
             Op && Op->isAssignmentOp() && Op->getNumArgs() == 2)
      Assign(Op->getArg(0), Op->getArg(1));
  });
}

Divergence FunctionDivergence::closureValue(const Expr *E, const Stmt &Body,
                                            unsigned Depth) {
  Divergence D;
  if (!E || Depth > 6)
    return D;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (std::optional<CollectiveSite> Site = Owner.sites().collective(*Call))
      if (Site->How != CollectiveSite::Via::Helper)
        return D; // reduced: the same on every rank
    if (training::isGradAccess(*Call))
      D.merge(Divergence::seed(DivergenceSource::GradientValue, Call));
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return D;
    if (auto Batch = BatchVariables.find(Var); Batch != BatchVariables.end())
      return Divergence::seed(DivergenceSource::LocalData,
                              Batch->second->getRangeInit());
    if (isLocal(Var))
      return read(Var);
    // A local of the closure: reduced in it, or what it was initialised
    // with.
    bool Reduced = false;
    forEachCall(&Body, [&](const Expr *Call) {
      if (Reduced || !isa<CallExpr>(Call) ||
          !Owner.sites().collective(*Call))
        return;
      for (const Stmt *Arg : Call->children())
        Reduced |= containsWhere(Arg, [&](const Stmt *S) {
          const auto *Use = dyn_cast<DeclRefExpr>(S);
          return Use && Use->getDecl() == Var;
        });
    });
    if (!Reduced && Var->isLocalVarDecl() && Var->getInit())
      return closureValue(Var->getInit(), Body, Depth + 1);
    return D;
  }
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      D.merge(closureValue(ChildExpr, Body, Depth));
  return D;
}

} // namespace clang::tidy::ddp
