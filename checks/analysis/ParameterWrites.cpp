//===--- ParameterWrites.cpp ----------------------------------------------===//

#include "analysis/ParameterWrites.h"
#include "analysis/ASTUtils.h"
#include "vocabulary/Modules.h"
#include "vocabulary/TensorMethods.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"

namespace clang::tidy::ddp {

namespace {

/// The parameter an expression is rooted in: `p`, `p[i]`, `p.field`,
/// `p->x`, through implicit casts and parentheses.
const ParmVarDecl *rootParameter(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<ParmVarDecl>(Ref->getDecl());
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      E = Member->getBase();
    else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
      E = Subscript->getBase();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && (Op->getOperator() == OO_Subscript ||
                    Op->getOperator() == OO_Arrow) && Op->getNumArgs() >= 1)
      E = Op->getArg(0);
    else if (const auto *Unary = dyn_cast<UnaryOperator>(E);
             Unary && Unary->getOpcode() == UO_Deref)
      E = Unary->getSubExpr();
    else if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
             Call && (Call->getType()->isReferenceType() ||
                      tensors::isTensor(Call->getType())))
      E = Call->getImplicitObjectArgument(); // a view: `p.grad()`, `p.data()`
    else
      return nullptr;
  }
  return nullptr;
}

/// Whether the argument \p I of \p Call binds a non-const reference or
/// hands a pointer to non-const.
bool bindsMutable(const CallExpr &Call, const FunctionDecl *Callee,
                  unsigned I) {
  unsigned Offset = isa<CXXOperatorCallExpr>(Call) && Callee &&
                            isa<CXXMethodDecl>(Callee) ? 1 : 0;
  if (Callee && I < Offset) // the object of a member operator
    return !cast<CXXMethodDecl>(Callee)->isConst() ||
           modules::inPlaceChangeTarget(Call);
  if (!Callee || I - Offset >= Callee->getNumParams())
    return true; // unknown callee, or variadic
  return isOutputType(Callee->getParamDecl(I - Offset)->getType());
}

/// Visits every statement of \p S; a lambda is visited (its captures are
/// read) but not its body, which runs where the lambda is called.
template <typename Fn> void walk(const Stmt *S, Fn &Visit) {
  if (!S)
    return;
  Visit(S);
  if (isa<LambdaExpr>(S))
    return;
  for (const Stmt *Child : S->children())
    walk(Child, Visit);
}

} // namespace

bool ParameterWrites::mayWrite(const FunctionDecl &Def, unsigned Index) {
  return Index >= 64 || (summary(Def) & (uint64_t(1) << Index));
}

uint64_t ParameterWrites::summary(const FunctionDecl &Def) {
  auto It = Summaries.find(&Def);
  if (It != Summaries.end())
    return It->second;
  Summaries[&Def] = ~uint64_t(0); // in progress: assume every write
  uint64_t Written = 0;
  auto Mark = [&](const Expr *E) {
    if (const ParmVarDecl *P = rootParameter(E))
      if (P->getDeclContext() == &Def && P->getFunctionScopeIndex() < 64)
        Written |= uint64_t(1) << P->getFunctionScopeIndex();
  };
  auto Visit = [&](const Stmt *S) {
    if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
      if (Binary->isAssignmentOp())
        Mark(Binary->getLHS());
    } else if (const auto *Unary = dyn_cast<UnaryOperator>(S)) {
      if (Unary->isIncrementDecrementOp() || Unary->getOpcode() == UO_AddrOf)
        Mark(Unary->getSubExpr());
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
      // LibTorch declares its in-place tensor operations const.
      const CXXMethodDecl *MD = Member->getMethodDecl();
      if (!MD || !MD->isConst())
        Mark(Member->getImplicitObjectArgument());
      else if (const Expr *Target = modules::inPlaceChangeTarget(*Member))
        Mark(Target);
    } else if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      // A lambda holding a reference to a parameter may write it later.
      for (const LambdaCapture &Capture : Lambda->captures())
        if (Capture.capturesVariable() &&
            Capture.getCaptureKind() == LCK_ByRef)
          if (const auto *P = dyn_cast<ParmVarDecl>(Capture.getCapturedVar()))
            if (P->getDeclContext() == &Def && P->getFunctionScopeIndex() < 64)
              Written |= uint64_t(1) << P->getFunctionScopeIndex();
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
          Op && Op->getNumArgs() >= 1 &&
          (Op->isAssignmentOp() || Op->getOperator() == OO_PlusPlus ||
           Op->getOperator() == OO_MinusMinus))
        Mark(Op->getArg(0));
      const FunctionDecl *Body = Callee ? userDefinition(*Callee) : nullptr;
      for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
        if (!bindsMutable(*Call, Callee, I))
          continue;
        unsigned Offset = isa<CXXOperatorCallExpr>(Call) && Callee &&
                                  isa<CXXMethodDecl>(Callee) ? 1 : 0;
        if (Body && I >= Offset && !mayWrite(*Body, I - Offset))
          continue;
        Mark(Call->getArg(I));
      }
    }
  };
  walk(Def.getBody(), Visit);
  Summaries[&Def] = Written;
  return Written;
}

} // namespace clang::tidy::ddp
