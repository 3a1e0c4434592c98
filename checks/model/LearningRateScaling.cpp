//===--- LearningRateScaling.cpp - learning rates divided by world size -===//
//
// The part of Averaging that finds optimizers built with a learning rate
// divided by the world size (`SGDOptions(lr / ws)`, `options.lr(lr / ws)`,
// `set_lr(lr / ws)` on a parameter group's options), which average their
// updates instead of the gradients, and follows them to the variables,
// fields and parameters that hold those optimizers.
//
//===----------------------------------------------------------------------===//

#include "model/Averaging.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

using averaging::MaxExprDepth;
using averaging::MaxRounds;

namespace {

// How far up the call graph to follow an optimizer handed down as a
// parameter.
constexpr unsigned MaxCallerDepth = 3;

/// The variable or field an options expression belongs to, through member
/// calls, subscripts and casts: `opt` for
/// `static_cast<SGDOptions &>(opt.param_groups()[0].options())`.
const ValueDecl *optionsOwner(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    if (const ValueDecl *D = handleDecl(E))
      return D;
    E = E->IgnoreParenCasts();
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
      E = Member->getImplicitObjectArgument();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Subscript)
      E = Op->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

} // namespace

bool Averaging::isScalingOptions(const Stmt *S) const {
  // SGDOptions(lr / world_size), options.lr(lr / ws), set_lr(lr / ws)
  llvm::ArrayRef<const Expr *> Args;
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(S)) {
    const CXXRecordDecl *Options = Ctor->getConstructor()->getParent();
    if (training::isOptimizerOptionsClass(*Options))
      Args = llvm::ArrayRef(Ctor->getArgs(), Ctor->getNumArgs());
  } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (MD && training::isLearningRateSetter(*MD))
      Args = llvm::ArrayRef(Member->getArgs(), Member->getNumArgs());
  }
  return llvm::any_of(Args, [&](const Expr *Arg) { return isPerRank(Arg); });
}

bool Averaging::mentionsScaled(const Stmt *S) const {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *E = dyn_cast<Expr>(S))
    if (const ValueDecl *D = referencedDecl(E);
        D && ScaledOptimizers.contains(D))
      return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return mentionsScaled(Child); });
}

void Averaging::recordScaledOwner(const CodeUnit &U, const Stmt *S) {
  const Stmt *Child = S;
  for (unsigned Depth = 0; Depth < MaxExprDepth; ++Depth) {
    // options.lr(lr / ws) on a variable, or on the options of an optimizer's
    // parameter group: that variable, that optimizer.
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Child))
      if (const ValueDecl *D =
              optionsOwner(Member->getImplicitObjectArgument())) {
        ScaledOptimizers.insert(D);
        return;
      }
    const Stmt *Parent = U.Parent.lookup(Child);
    if (!Parent)
      break;
    if (const auto *DS = dyn_cast<DeclStmt>(Parent)) {
      for (const Decl *D : DS->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && Var->getInit() == Child) {
          ScaledOptimizers.insert(Var);
          return;
        }
      break;
    }
    const Expr *Target = nullptr;
    if (const auto *Binary = dyn_cast<BinaryOperator>(Parent);
        Binary && Binary->getOpcode() == BO_Assign && Binary->getRHS() == Child)
      Target = Binary->getLHS();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent);
             Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
             Op->getArg(1) == Child)
      Target = Op->getArg(0);
    if (Target) {
      if (const ValueDecl *D = handleDecl(Target)) {
        ScaledOptimizers.insert(D);
        return;
      }
      break;
    }
    if (isa<CompoundStmt>(Parent))
      break;
    Child = Parent;
  }
  ScalingUnits.insert(&U);
}

void Averaging::findScaledLearningRates() {
  for (const auto &U : Model.units()) {
    for (const Stmt *S : U->Stmts)
      if (isScalingOptions(S))
        recordScaledOwner(*U, S);
    // Trainer() : optimizer_(params, SGDOptions(lr / ws)) {}
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(U->Function))
      for (const CXXCtorInitializer *Init : Ctor->inits()) {
        llvm::SmallVector<const Stmt *, 16> Work{Init->getInit()};
        while (!Work.empty()) {
          const Stmt *S = Work.pop_back_val();
          if (!S || isa<LambdaExpr>(S))
            continue;
          if (isScalingOptions(S)) {
            if (Init->isMemberInitializer())
              ScaledOptimizers.insert(Init->getMember());
            else
              ScalingUnits.insert(U.get());
            break;
          }
          Work.append(S->child_begin(), S->child_end());
        }
      }
  }
  propagateScaledOptimizers();
}

void Averaging::propagateScaledOptimizers() {
  if (ScaledOptimizers.empty())
    return;
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    auto Record = [&](const ValueDecl *D, const Expr *Value) {
      if (D && Value && !ScaledOptimizers.contains(D) && mentionsScaled(Value))
        Changed |= ScaledOptimizers.insert(D).second;
    };
    for (const auto &U : Model.units()) {
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(U->Function))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (Init->isMemberInitializer())
            Record(Init->getMember(), Init->getInit());
      for (const Stmt *S : U->Stmts) {
        if (const auto *DS = dyn_cast<DeclStmt>(S)) {
          for (const Decl *D : DS->decls())
            if (const auto *Var = dyn_cast<VarDecl>(D))
              Record(Var, Var->getInit());
        } else if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
          if (Binary->getOpcode() == BO_Assign)
            Record(handleDecl(Binary->getLHS()), Binary->getRHS());
        } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
          if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
            Record(handleDecl(Op->getArg(0)), Op->getArg(1));
        }
      }
    }
    if (!Changed)
      break;
  }
}

bool Averaging::isScaledOptimizer(const CodeUnit &U, const Expr *Optimizer,
                                  unsigned Depth) const {
  const ValueDecl *D = Optimizer ? handleDecl(Optimizer) : nullptr;
  if (!D)
    return false;
  if (ScaledOptimizers.contains(D))
    return true;
  // A parameter: what every caller hands it.
  const auto *Param = dyn_cast<ParmVarDecl>(D);
  if (!Param || Depth >= MaxCallerDepth)
    return false;
  llvm::ArrayRef<CallSite> Sites = Model.callers(U);
  return !Sites.empty() && llvm::all_of(Sites, [&](const CallSite &Site) {
    for (auto [Bound, Arg] : GradientModel::boundArguments(*Site.Call, U))
      if (Bound == Param)
        return isScaledOptimizer(*Site.Caller, Arg, Depth + 1);
    return false;
  });
}
} // namespace clang::tidy::ddp
