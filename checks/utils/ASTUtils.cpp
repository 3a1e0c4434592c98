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
