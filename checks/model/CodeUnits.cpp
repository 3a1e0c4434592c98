//===--- CodeUnits.cpp ----------------------------------------------------===//

#include "model/CodeUnits.h"
#include "vocabulary/VocabularyHelpers.h"
#include "analysis/ASTUtils.h"

#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

//===----------------------------------------------------------------------===//
// CodeUnit
//===----------------------------------------------------------------------===//

bool CodeUnit::contains(const Stmt *Outer, const Stmt *Inner) const {
  for (const Stmt *S = Inner; S; S = Parent.lookup(S))
    if (S == Outer)
      return true;
  return false;
}

const Stmt *CodeUnit::commonAncestor(const Stmt *A, const Stmt *B) const {
  for (const Stmt *S = A; S; S = Parent.lookup(S))
    if (contains(S, B))
      return S;
  return Body;
}

//===----------------------------------------------------------------------===//
// Collecting units
//===----------------------------------------------------------------------===//

void CodeUnitGraph::addFunction(const FunctionDecl &Declaration) {
  const FunctionDecl *FD = Declaration.getDefinition();
  // A lambda's body is a unit of the function it is written in.
  if (!FD || !FD->getBody() || ByFunction.count(FD) ||
      (isa<CXXMethodDecl>(FD) && cast<CXXMethodDecl>(FD)->getParent()->isLambda()))
    return;
  auto U = std::make_unique<CodeUnit>();
  U->Function = FD;
  U->Body = FD->getBody();
  U->Reported = !isInstantiatedPattern(*FD);
  CodeUnit &Ref = *U;
  Units.push_back(std::move(U));
  ByFunction[FD] = &Ref;
  collect(Ref, Ref.Body, nullptr);
}

void CodeUnitGraph::collect(CodeUnit &U, const Stmt *S, const Stmt *Parent) {
  if (!S)
    return;
  U.Stmts.push_back(S);
  if (Parent)
    U.Parent[S] = Parent;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    U.Calls.push_back(Call);
  if (const auto *E = dyn_cast<Expr>(S); E && E->containsErrors()) {
    const auto *Outer = dyn_cast_or_null<Expr>(Parent);
    if (!Outer || !Outer->containsErrors())
      U.Broken.push_back(S);
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    // Init-captures run here; the body is a unit of its own, run later.
    for (const Expr *Init : Lambda->capture_inits())
      collect(U, Init, S);
    addLambda(U, *Lambda);
    return;
  }
  for (const Stmt *Child : S->children())
    collect(U, Child, S);
}

void CodeUnitGraph::addLambda(CodeUnit &Enclosing, const LambdaExpr &Lambda) {
  if (ByLambda.count(&Lambda) || !Lambda.getBody())
    return;
  auto Inner = std::make_unique<CodeUnit>();
  Inner->Function = Lambda.getCallOperator();
  Inner->Body = Lambda.getBody();
  Inner->Enclosing = &Enclosing;
  Inner->Reported = Enclosing.Reported;
  CodeUnit &Ref = *Inner;
  Units.push_back(std::move(Inner));
  ByLambda[&Lambda] = &Ref;
  ByFunction[Ref.Function] = &Ref;
  collect(Ref, Ref.Body, nullptr);
}

void CodeUnitGraph::link() {
  for (const auto &U : Units)
    for (const CallExpr *Call : U->Calls) {
      if (const CodeUnit *Callee = calleeUnit(*Call)) {
        Callers[Callee].push_back({U.get(), Call});
        continue;
      }
      // A lambda kept in a local and called where its type is dependent
      // (in a template as written): the call names the local.
      if (!Call->getDirectCallee())
        for (const CodeUnit *Lambda : callableUnits(Call->getCallee()))
          if (Lambda->Enclosing)
            Callers[Lambda].push_back({U.get(), Call});
    }
  for (const auto &U : Units)
    if (const auto *MD = dyn_cast<CXXMethodDecl>(U->Function)) {
      llvm::SmallVector<const CXXMethodDecl *, 4> Work(
          MD->overridden_methods().begin(), MD->overridden_methods().end());
      while (!Work.empty()) {
        const CXXMethodDecl *Base = Work.pop_back_val();
        Overriders[Base->getCanonicalDecl()].push_back(U.get());
        Work.append(Base->overridden_methods().begin(),
                    Base->overridden_methods().end());
      }
    }
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

const CodeUnit *CodeUnitGraph::unitOf(const FunctionDecl *FD) const {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *Def = FD->getDefinition())
    if (CodeUnit *U = ByFunction.lookup(Def))
      return U;
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    if (const FunctionDecl *Def = Pattern->getDefinition())
      return ByFunction.lookup(Def);
  return nullptr;
}

const CodeUnit *CodeUnitGraph::unitOf(const LambdaExpr *Lambda) const {
  return ByLambda.lookup(Lambda);
}

llvm::ArrayRef<CallSite> CodeUnitGraph::callers(const CodeUnit &U) const {
  auto It = Callers.find(&U);
  if (It == Callers.end())
    return {};
  return It->second;
}

llvm::ArrayRef<const CodeUnit *>
CodeUnitGraph::overriders(const FunctionDecl &FD) const {
  auto It = Overriders.find(FD.getCanonicalDecl());
  if (It == Overriders.end())
    return {};
  return It->second;
}

llvm::SmallVector<const CodeUnit *, 2>
CodeUnitGraph::callableUnits(const Expr *Callable) const {
  llvm::SmallVector<const CodeUnit *, 2> Out;
  const Expr *E = Callable;
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
        Ctor && Ctor->getNumArgs() == 1) {
      E = Ctor->getArg(0); // std::function, a converting unique_ptr
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
          Var && Var->hasLocalStorage() && Var->getInit()) {
        E = Var->getInit();
        continue;
      }
      if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
        if (const CodeUnit *U = unitOf(FD))
          Out.push_back(U);
      return Out;
    }
    break;
  }
  if (!E)
    return Out;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(E)) {
    if (const CodeUnit *U = unitOf(Lambda))
      Out.push_back(U);
    return Out;
  }
  hookObjectUnits(E, Out);
  return Out;
}

void CodeUnitGraph::hookObjectUnits(
    const Expr *E, llvm::SmallVectorImpl<const CodeUnit *> &Out) const {
  // A hook object (`std::make_unique<Hook>(this)`, `new Hook`): its
  // operator(), from the class or the template it was instantiated from.
  const CXXRecordDecl *RD = pointeeRecord(E->getType());
  for (const CXXRecordDecl *Class : {RD, RD ? RD->getTemplateInstantiationPattern() : nullptr})
    if (Out.empty() && Class && Class->hasDefinition())
      for (const CXXMethodDecl *M : Class->getDefinition()->methods())
        if (M->getOverloadedOperator() == OO_Call)
          if (const CodeUnit *U = unitOf(M))
            Out.push_back(U);
  if (!Out.empty())
    return;
  // A library hook class wrapping a lambda:
  // `std::make_unique<LambdaPostHook>([&](auto &grads, auto &) {...})`.
  llvm::ArrayRef<const Expr *> Args;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    Args = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
  else if (const auto *New = dyn_cast<CXXNewExpr>(E))
    if (const CXXConstructExpr *Ctor = New->getConstructExpr())
      Args = llvm::ArrayRef(Ctor->getArgs(), Ctor->getNumArgs());
  for (const Expr *Arg : Args) {
    const Expr *Stripped = stripObjectWrappers(Arg);
    if (isa<LambdaExpr>(Stripped) || isa<CXXConstructExpr>(Stripped))
      Out.append(callableUnits(Stripped));
  }
}

const Reachability &CodeUnitGraph::flow(const CodeUnit &U) const {
  std::unique_ptr<Reachability> &Flow = Flows[&U];
  if (!Flow)
    Flow = std::make_unique<Reachability>(U.Function, U.Body, Context);
  return *Flow;
}

const CXXRecordDecl *CodeUnitGraph::memberOf(const CodeUnit &U) {
  const CodeUnit *Root = &U;
  while (Root->Enclosing)
    Root = Root->Enclosing;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Root->Function))
    return MD->getParent();
  return nullptr;
}

llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 4>
CodeUnitGraph::boundArguments(const CallExpr &Call, const CodeUnit &Callee) {
  unsigned Offset =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee.Function);
  llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 4> Out;
  for (unsigned I = Offset, N = Call.getNumArgs();
       I < N && I - Offset < Callee.Function->getNumParams(); ++I)
    Out.emplace_back(Callee.Function->getParamDecl(I - Offset), Call.getArg(I));
  return Out;
}

} // namespace clang::tidy::ddp
