//===--- CollectiveSitesHooks.cpp - wrappers known by their hooks ---------===//
//
// A data-parallel wrapper of the project's own need not be named like one:
// what makes it one is a hook on each parameter's gradient that issues a
// collective, directly or by counting the gradients that are ready and
// reducing a bucket once all have come. Once such hooks are installed, every
// backward() through those parameters issues collectives, whichever forward
// ran before it.
//
//===----------------------------------------------------------------------===//

#include "analysis/CollectiveSites.h"

#include "analysis/ASTUtils.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

namespace {

/// A collective that reduces gradients: an all-reduce, a reduce-scatter,
/// or one whose kind is out of sight.
bool reducesGradients(const std::optional<CollectiveSite> &Site) {
  return Site && (!Site->Kind || *Site->Kind == CollectiveKind::AllReduce ||
                  *Site->Kind == CollectiveKind::ReduceScatter);
}

/// The class of the object a declaration holds: the class itself, through
/// references and (smart) pointers, or a TORCH_MODULE holder's module.
const CXXRecordDecl *heldClass(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (RD && inSystemHeader(*RD))
    return modules::moduleClassOfHandle(T);
  return RD;
}

} // namespace

bool CollectiveSites::installsSyncingHooks(const FunctionDecl &FD) {
  auto It = InstallsHooks.find(&FD);
  if (It != InstallsHooks.end())
    return It->second;
  InstallsHooks[&FD] = false; // a call cycle installs nothing more
  bool Installs = false;
  forEachCall(FD.getBody(), [&](const Expr *E) {
    if (Installs)
      return;
    const FunctionDecl *Callee = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (const Expr *Callback = training::gradientHookCallback(*Call)) {
        const LambdaExpr *Lambda = lambdaOf(Callback);
        Installs =
            Lambda && reducesGradients(issues(*Lambda->getCallOperator()));
        return;
      }
      Callee = Call->getDirectCallee();
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      Callee = Construct->getConstructor();
    }
    if (const FunctionDecl *Body =
            Callee ? definitionOrPattern(*Callee) : nullptr)
      Installs = installsSyncingHooks(*Body);
  });
  InstallsHooks[&FD] = Installs;
  return Installs;
}

bool CollectiveSites::classHooksSync(const CXXRecordDecl &RD) {
  const CXXRecordDecl *Def = RD.getDefinition();
  // A specialization nothing completed (`std::make_shared<Reducer<Net>>`
  // needs the class only in a body that is not instantiated): the template.
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(&RD);
      !Def && Spec)
    Def = Spec->getSpecializedTemplate()->getTemplatedDecl()->getDefinition();
  if (!Def || inSystemHeader(*Def))
    return false;
  auto It = ClassHooks.find(Def);
  if (It != ClassHooks.end())
    return It->second;
  ClassHooks[Def] = false;
  bool Hooks = false;
  for (const CXXMethodDecl *Method : Def->methods())
    if (const FunctionDecl *Body = definitionOrPattern(*Method))
      if ((Hooks = installsSyncingHooks(*Body)))
        break;
  ClassHooks[Def] = Hooks;
  return Hooks;
}

const ValueDecl *CollectiveSites::syncingHooksIn(const FunctionDecl &FD) {
  auto It = SyncingHooks.find(&FD);
  if (It != SyncingHooks.end())
    return It->second;
  SyncingHooks[&FD] = nullptr;
  auto Holds = [&](const ValueDecl *D) {
    const CXXRecordDecl *RD = D ? heldClass(D->getType()) : nullptr;
    return RD && classHooksSync(*RD);
  };
  const ValueDecl *Found = nullptr;
  // Phase 1: an object of such a class declared or named in the body, or
  // a call that installs the hooks.
  forEachStmt(FD.getBody(), [&](const Stmt *S) {
    if (Found)
      return;
    if (const auto *Decls = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : Decls->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D); Var && Holds(Var))
          Found = Var;
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
      if (Holds(Ref->getDecl()))
        Found = Ref->getDecl();
    } else if (const auto *Member = dyn_cast<MemberExpr>(S)) {
      if (Holds(Member->getMemberDecl()))
        Found = Member->getMemberDecl();
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      const FunctionDecl *Body =
          Callee ? definitionOrPattern(*Callee) : nullptr;
      if (Body && installsSyncingHooks(*Body))
        Found = Callee;
    }
  });
  // Phase 2: a field of the method's class (a trainer holding the
  // averager), or hooks the function registers itself.
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&FD); !Found && Method)
    for (const FieldDecl *Field : Method->getParent()->fields())
      if (!Found && Holds(Field))
        Found = Field;
  if (!Found && installsSyncingHooks(FD))
    Found = &FD;
  SyncingHooks[&FD] = Found;
  return Found;
}

} // namespace clang::tidy::ddp
