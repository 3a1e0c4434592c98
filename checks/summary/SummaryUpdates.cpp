//===--- SummaryUpdates.cpp - updates of the parameters written by hand ---===//
//
// A step without an optimizer: `param -= f * lr` where `f` was made from
// `param.grad()`, `p.data().sub_(lr * p.grad())` in a loop over the
// parameters. The function's summary then says it steps the parameters,
// as an optimizer's step() does.
//
//===----------------------------------------------------------------------===//

#include "summary/FunctionSummaries.h"
#include "summary/GradientValues.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/DataFlow.h"
#include "vocabulary/VocabularyHelpers.h"
#include "vocabulary/Training.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

/// The variable a tensor expression is rooted in, through the tensor's own
/// accessors (`p.data()`, `p.value()`).
const VarDecl *updatedRoot(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    const Expr *Stripped = stripObjectWrappers(E);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Stripped)) {
      E = Member->getImplicitObjectArgument();
      continue;
    }
    return dyn_cast_or_null<VarDecl>(referencedDecl(Stripped));
  }
  return nullptr;
}

/// A tensor the function is handed: one of its parameters, or the
/// variable of a range-for (a loop over the parameters it is handed).
bool isHandedTensor(const FunctionDecl &Def, const VarDecl *V,
                    const llvm::DenseSet<const VarDecl *> &LoopVariables) {
  if (!V)
    return false;
  if (const auto *P = dyn_cast<ParmVarDecl>(V))
    return llvm::is_contained(Def.parameters(), P);
  return LoopVariables.contains(V);
}

} // namespace

void FunctionSummaries::addUpdates(const FunctionDecl &Def,
                                   FunctionEffects &E) {
  const Stmt *Body = Def.getBody();
  if (!Body || E.StepsParameters)
    return;
  GradientValues Gradients(*Body);
  llvm::DenseSet<const VarDecl *> LoopVariables;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *For = dyn_cast<CXXForRangeStmt>(S))
      LoopVariables.insert(For->getLoopVariable());
  });
  forEachStmt(Body, [&](const Stmt *S) {
    const Expr *Target = nullptr;
    llvm::SmallVector<const Expr *, 2> Values;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getNumArgs() == 2 &&
        (Op->getOperator() == OO_MinusEqual || Op->getOperator() == OO_PlusEqual)) {
      Target = Op->getArg(0);
      Values.push_back(Op->getArg(1));
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
      llvm::StringRef Name = identifierName(Member->getMethodDecl());
      if (flow::updatesInPlace(Name) && Name != "copy_" && Name != "set_") {
        Target = Member->getImplicitObjectArgument();
        Values.append(Member->arg_begin(), Member->arg_end());
      }
    }
    const VarDecl *Root = Target ? updatedRoot(Target) : nullptr;
    if (isHandedTensor(Def, Root, LoopVariables) &&
        !Gradients.mentions(Target) &&
        llvm::any_of(Values, [&](const Expr *V) { return Gradients.mentions(V); }))
      E.StepsParameters = true;
  });
}

} // namespace clang::tidy::ddp
