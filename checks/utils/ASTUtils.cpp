//===--- ASTUtils.cpp -----------------------------------------------------===//

#include "utils/ASTUtils.h"

#include "clang/AST/DeclTemplate.h"

namespace clang::tidy::ddp {

namespace {

/// Whether \p Instance, a declaration of an instantiated class, is an
/// instantiation of \p Pattern with a body.
bool instantiatesWithBody(const Decl *Instance, const FunctionDecl &Pattern) {
  auto Matches = [&](const FunctionDecl *F) {
    return F && F->doesThisDeclarationHaveABody() &&
           F->getTemplateInstantiationPattern() == &Pattern;
  };
  if (const auto *F = dyn_cast<FunctionDecl>(Instance))
    return Matches(F);
  if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(Instance))
    for (const FunctionDecl *Spec : FTD->specializations())
      if (Matches(Spec))
        return true;
  return false;
}

} // namespace

const Stmt *parentStmtAcrossDecls(const Stmt &S, ASTContext &Context) {
  DynTypedNodeList Parents = Context.getParents(S);
  for (unsigned Depth = 0; Depth < 4 && !Parents.empty(); ++Depth) {
    for (const DynTypedNode &Parent : Parents)
      if (const auto *P = Parent.get<Stmt>())
        return P;
    // A lambda's body hangs off its call operator, inside its class, inside
    // the LambdaExpr.
    const auto *Method = Parents[0].get<CXXMethodDecl>();
    const auto *Record = Parents[0].get<CXXRecordDecl>();
    if (!Parents[0].get<VarDecl>() && !(Method && Method->getParent()->isLambda()) &&
        !(Record && Record->isLambda()))
      return nullptr;
    Parents = Context.getParents(Parents[0]);
  }
  return nullptr;
}

bool isInstantiatedPattern(const FunctionDecl &FD) {
  if (!FD.isDependentContext())
    return false;
  // A function template: one of its specializations.
  if (const FunctionTemplateDecl *FTD = FD.getDescribedFunctionTemplate())
    for (const FunctionDecl *Spec : FTD->specializations())
      if (Spec->doesThisDeclarationHaveABody() &&
          Spec->getTemplateInstantiationPattern() == &FD)
        return true;
  // A member of a class template: the member of one of its specializations,
  // whose body is instantiated only where it is used.
  const auto *RD = dyn_cast<CXXRecordDecl>(FD.getDeclContext());
  const ClassTemplateDecl *CTD = RD ? RD->getDescribedClassTemplate() : nullptr;
  if (!CTD)
    return false;
  for (const ClassTemplateSpecializationDecl *Spec : CTD->specializations())
    for (const Decl *Member : Spec->decls())
      if (instantiatesWithBody(Member, FD))
        return true;
  return false;
}

} // namespace clang::tidy::ddp
