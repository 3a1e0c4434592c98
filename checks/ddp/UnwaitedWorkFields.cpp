//===--- UnwaitedWorkFields.cpp - requests kept in an object's fields -----===//
//
// `MPI_Isend(&step_, 1, MPI_INT, i, tag, comm, &step_req_)` in one method of
// a class, and no method of the class waits on or tests `step_req_`: the
// request leaks, and nothing says when `step_` may change again. Freeing the
// request (`MPI_Request_free`) gives up the only way to know. The class is
// judged only where every method it declares is defined in sight; a field
// handed to any other function may be completed there.
//
//===----------------------------------------------------------------------===//

#include "ddp/UnwaitedWorkCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/RequestTests.h"
#include "vocabulary/DataFlow.h"
#include "vocabulary/Collectives.h"
#include "vocabulary/LLVMCompat.h"
#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::ddp {

namespace {

/// The field of this object a request expression designates: `&req_`,
/// `&reqs_[i][j]`, `reqs_.data()`, `this->req_`.
const FieldDecl *requestField(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 6; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
      E = UO->getSubExpr();
    else if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E))
      E = Sub->getBase();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Subscript)
      E = Op->getArg(0);
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
      E = Member->getImplicitObjectArgument();
    else if (const auto *ME = dyn_cast<MemberExpr>(E))
      return isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())
                 ? dyn_cast<FieldDecl>(ME->getMemberDecl())
                 : nullptr;
    else
      return nullptr;
  }
  return nullptr;
}

/// Every method \p Class declares, defined where this unit sees it; empty
/// when one is out of sight.
llvm::SmallVector<const FunctionDecl *, 8> definedMethods(const CXXRecordDecl &Class) {
  llvm::SmallVector<const FunctionDecl *, 8> Out;
  for (const CXXMethodDecl *M : Class.methods()) {
    if (M->isImplicit() || ddplint::compat::isPureVirtual(*M) || M->isDeleted() ||
        M->isDefaulted())
      continue;
    const FunctionDecl *Def = M->getDefinition();
    if (!Def || !Def->getBody())
      return {};
    Out.push_back(Def);
  }
  return Out;
}

} // namespace

void UnwaitedWorkCheck::checkRequestFields(const CXXRecordDecl &Class) {
  if (Class.isDependentContext() || Class.isLambda())
    return;
  llvm::DenseMap<const FieldDecl *, const CallExpr *> Started;
  llvm::DenseSet<const FieldDecl *> Accounted; // completed, or handed on
  for (const FunctionDecl *Method : definedMethods(Class))
    forEachStmtAndLambda(Method->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call)
        return;
      collectives::RequestUse Use = collectives::mpiRequestUse(*Call);
      if (Use == collectives::RequestUse::Starts && Call->getNumArgs() > 0) {
        if (const FieldDecl *F = requestField(Call->getArg(Call->getNumArgs() - 1)))
          Started.try_emplace(F, Call);
        return;
      }
      // Freeing is no completion, nor is a test whose answer nobody reads;
      // subscripting or comparing the container hands nothing on.
      if (Use == collectives::RequestUse::Frees || isa<CXXOperatorCallExpr>(Call) ||
          flow::releasesStorage(*Call) ||
          (Use == collectives::RequestUse::Tests &&
           !testAnswerRead(*Call, *Method->getBody())))
        return;
      for (const Expr *Arg : Call->arguments())
        if (const FieldDecl *F = requestField(Arg))
          Accounted.insert(F);
    });
  for (const auto &[Field, Call] : Started)
    if (!Accounted.contains(Field))
      diag(Call->getExprLoc(),
           "the request of %0 kept in field %1 is never waited on or tested "
           "by any method of %2: nothing says when the transfer is done, so "
           "its buffer may change or be read while it is in flight, and the "
           "request leaks; complete it (MPI_Wait, MPI_Test) before the "
           "buffer is used again")
          << Call->getDirectCallee() << Field << &Class;
}

} // namespace clang::tidy::ddp
