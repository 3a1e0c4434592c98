//===--- GradientValues.h - locals made from gradients --------------------===//
//
// Which locals of a body hold values made from gradients: initialised or
// assigned (a whole tensor, or an array element by element) from a
// gradient access or from another such local. A summary asks it to tell a
// step written by hand (a parameter updated by such a value) and a
// broadcast of reduced gradients (no broadcast of the parameters).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_SUMMARY_GRADIENTVALUES_H
#define DDPLINT_CHECKS_SUMMARY_GRADIENTVALUES_H

#include "analysis/ASTUtils.h"
#include "vocabulary/Training.h"
#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::ddp {

/// The locals of a body whose values are made from gradients: initialised
/// or assigned from a gradient access or from another such local.
class GradientValues {
public:
  explicit GradientValues(const Stmt &Body) {
    for (bool Changed = true; Changed;) {
      Changed = false;
      forEachStmt(&Body, [&](const Stmt *S) {
        const VarDecl *Var = nullptr;
        const Expr *Value = nullptr;
        if (const auto *DS = dyn_cast<DeclStmt>(S)) {
          for (const Decl *D : DS->decls())
            if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit())
              if (!Locals.contains(V) && mentions(V->getInit()))
                Changed |= Locals.insert(V).second;
          return;
        }
        if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
            Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
          Var = dyn_cast_or_null<VarDecl>(referencedDecl(Op->getArg(0)));
          Value = Op->getArg(1);
        } else if (const auto *Bin = dyn_cast<BinaryOperator>(S);
                   Bin && Bin->isAssignmentOp()) {
          // `G[i] = f[i].item<double>()`: an array filled element-wise.
          Var = arrayRoot(Bin->getLHS());
          Value = Bin->getRHS();
        }
        if (Var && Var->hasLocalStorage() && !Locals.contains(Var) &&
            mentions(Value))
          Changed |= Locals.insert(Var).second;
      });
    }
  }

  /// The local an element assignment writes: `a` in `a[i]`, `a[i][j]`.
  static const VarDecl *arrayRoot(const Expr *E) {
    while (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts()))
      E = Sub->getBase();
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  }

  /// Whether \p E reads a gradient or a local made from one.
  bool mentions(const Expr *E) const {
    bool Found = false;
    forEachStmt(E, [&](const Stmt *S) {
      if (const auto *Call = dyn_cast<CallExpr>(S))
        Found |= training::isGradAccess(*Call);
      else if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
        Found |= Locals.contains(dyn_cast<VarDecl>(Ref->getDecl()));
    });
    return Found;
  }

private:
  llvm::DenseSet<const VarDecl *> Locals;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_SUMMARY_GRADIENTVALUES_H
