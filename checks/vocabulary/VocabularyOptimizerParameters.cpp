//===--- VocabularyOptimizerParameters.cpp - optimizers and module copies -===//
//
// The part of the vocabulary that says which variables hold an optimizer,
// which calls hand an optimizer more parameters, and which calls make a
// module copy with parameters of its own: what ddp-optimizer-stale-parameters
// asks to tell an optimizer's parameters from the ones training updates.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace clang::tidy::ddp {

namespace {

/// The name of a member call's method, resolved or left dependent.
llvm::StringRef memberName(const CallExpr &Call) {
  if (!isa<CXXMemberCallExpr>(Call) && !modules::dependentMemberCall(Call))
    return "";
  return spelledCalleeName(Call);
}

} // namespace

bool isOptimizerName(llvm::StringRef Name) {
  std::string Lower = Name.lower();
  llvm::StringRef Trimmed = llvm::StringRef(Lower).trim('_');
  return Trimmed.contains("optim") || Trimmed == "opt";
}

bool TrainingVocabulary::holdsOptimizer(const ValueDecl &D) const {
  QualType T = D.getType();
  if (T.isNull())
    return false;
  if (const CXXRecordDecl *RD = pointeeRecord(T))
    if (!RD->isDependentContext() && isOptimizerClass(*RD))
      return true;
  return T->isDependentType() || T->isUndeducedType()
             ? isOptimizerName(identifierName(&D))
             : false;
}

const Expr *
TrainingVocabulary::optimizerParameterAddition(const CallExpr &Call) const {
  llvm::StringRef Name = memberName(Call);
  if (Name != "add_param_group" && Name != "add_parameters")
    return nullptr;
  const Expr *Object = modules::memberCallObject(Call);
  if (!Object)
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return isOptimizerClass(*Member->getMethodDecl()->getParent()) ? Object
                                                                   : nullptr;
  const ValueDecl *D = handleDecl(Object);
  return D && isOptimizerName(identifierName(D)) ? Object : nullptr;
}

const Expr *modules::moduleCopySource(const CallExpr &Call) {
  if (memberName(Call) != "clone" || Call.getNumArgs() > 1)
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return modules::isModuleClass(*Member->getMethodDecl()->getParent())
               ? Member->getImplicitObjectArgument()
               : nullptr;
  return modules::memberCallObject(Call);
}

} // namespace clang::tidy::ddp
