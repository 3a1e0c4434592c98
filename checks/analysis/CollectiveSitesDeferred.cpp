//===--- CollectiveSitesDeferred.cpp --------------------------------------===//
//
// Collectives a call hands over rather than issues in its own body: a lambda
// given to a thread or a thread pool, the lambdas stored in a std::function,
// the overriders of a virtual method. The work runs on this rank all the
// same, so for every check the call is where it is issued.
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/CollectiveSites.h"
#include "vocabulary/TensorMethods.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

/// A function that keeps a callable for later rather than running it: a
/// hook, a callback, a handler registered.
bool registersCallable(const FunctionDecl *Callee) {
  if (!Callee || !Callee->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = Callee->getName();
  if (tensors::isHookRegistration(Name))
    return true;
  std::string Lower = Name.lower();
  llvm::StringRef N(Lower);
  return N.contains("hook") || N.contains("callback") ||
         N.contains("register") || N.contains("handler") ||
         N.contains("listener") || N.starts_with("on_") ||
         (Name.size() > 2 && Name.starts_with("on") && isUppercase(Name[2]));
}

/// Whether \p Call calls a std::function object.
const ValueDecl *calledFunctionObject(const CallExpr &Call) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  if (!Op || Op->getOperator() != OO_Call || Op->getNumArgs() < 1)
    return nullptr;
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
  if (!Method || !inSystemHeader(*Method) ||
      identifierName(Method->getParent()) != "function")
    return nullptr;
  return referencedDecl(Op->getArg(0));
}

} // namespace

std::optional<CollectiveSite>
CollectiveSites::lambdasIssue(llvm::ArrayRef<const Expr *> Args,
                              const FunctionDecl *Callee) {
  if (registersCallable(Callee))
    return std::nullopt;
  for (const Expr *Arg : Args)
    if (const LambdaExpr *Lambda = lambdaOf(Arg))
      if (std::optional<CollectiveSite> Inner =
              issues(*Lambda->getCallOperator()))
        return CollectiveSite{CollectiveSite::Via::Helper, Callee, Inner->Api,
                              Inner->Kind};
  return std::nullopt;
}

std::optional<CollectiveSite>
CollectiveSites::handedOver(const CallExpr &Call) {
  return lambdasIssue({Call.getArgs(), Call.getNumArgs()},
                      Call.getDirectCallee());
}

std::optional<CollectiveSite>
CollectiveSites::handedOver(const CXXConstructExpr &Construct) {
  return lambdasIssue({Construct.getArgs(), Construct.getNumArgs()},
                      Construct.getConstructor());
}

std::optional<CollectiveSite>
CollectiveSites::storedFunction(const CallExpr &Call) {
  const ValueDecl *Holder = calledFunctionObject(Call);
  if (!Holder)
    return std::nullopt;
  indexUserCode();
  std::optional<CollectiveSite> Found;
  for (const LambdaExpr *Lambda : StoredLambdas.lookup(Holder)) {
    std::optional<CollectiveSite> Inner = issues(*Lambda->getCallOperator());
    if (!Inner)
      return std::nullopt; // one stored callable issues nothing
    if (!Found)
      Found = CollectiveSite{CollectiveSite::Via::Helper,
                             Call.getDirectCallee(), Inner->Api, Inner->Kind};
  }
  return Found;
}

std::optional<CollectiveSite>
CollectiveSites::overriders(const CXXMethodDecl &Method) {
  if (!Method.isVirtual())
    return std::nullopt;
  indexUserCode();
  std::optional<CollectiveSite> Found;
  for (const CXXMethodDecl *Overrider :
       Overriders.lookup(Method.getCanonicalDecl())) {
    const FunctionDecl *Body = userDefinition(*Overrider);
    std::optional<CollectiveSite> Inner = Body ? issues(*Body) : std::nullopt;
    if (!Inner)
      return std::nullopt; // an overrider that issues nothing
    if (!Found)
      Found = CollectiveSite{CollectiveSite::Via::Helper, &Method, Inner->Api,
                             Inner->Kind};
  }
  return Found;
}

void CollectiveSites::indexUserCode() {
  if (Indexed)
    return;
  Indexed = true;
  auto StoredInto = [&](const ValueDecl *Holder, const Expr *Value) {
    if (const LambdaExpr *Lambda = Holder ? lambdaOf(Value) : nullptr)
      StoredLambdas[Holder].push_back(Lambda);
  };
  auto Matcher = stmt(anyOf(
      cxxOperatorCallExpr(hasOverloadedOperatorName("="), argumentCountIs(2))
          .bind("assign"),
      declStmt().bind("decl")));
  for (const Decl *Top : Context.getTranslationUnitDecl()->decls()) {
    if (inSystemHeader(*Top))
      continue;
    for (const BoundNodes &N :
         match(findAll(cxxMethodDecl(isOverride()).bind("method")), *Top,
               Context)) {
      const auto *M = N.getNodeAs<CXXMethodDecl>("method");
      for (const CXXMethodDecl *Base : M->overridden_methods())
        Overriders[Base->getCanonicalDecl()].push_back(M);
    }
    for (const BoundNodes &N : match(findAll(Matcher), *Top, Context)) {
      if (const auto *Assign = N.getNodeAs<CXXOperatorCallExpr>("assign"))
        StoredInto(referencedDecl(Assign->getArg(0)), Assign->getArg(1));
      if (const auto *DS = N.getNodeAs<DeclStmt>("decl"))
        for (const Decl *D : DS->decls())
          if (const auto *Var = dyn_cast<VarDecl>(D))
            StoredInto(Var, Var->getInit());
    }
    for (const BoundNodes &N :
         match(findAll(cxxConstructorDecl().bind("ctor")), *Top, Context))
      for (const CXXCtorInitializer *Init :
           N.getNodeAs<CXXConstructorDecl>("ctor")->inits())
        if (Init->isWritten() && Init->getMember())
          StoredInto(Init->getMember(), Init->getInit());
  }
}

} // namespace clang::tidy::ddp
