//===--- WrapperLife.cpp --------------------------------------------------===//

#include "model/WrapperLife.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

/// The first module handle (not itself a wrapper) named inside \p E: the
/// module a wrapper is built from, in `DDP(model.ptr(), pg)`,
/// `std::make_shared<DDP>(model, pg)` or `DDP{model}`.
const ValueDecl *moduleNamedIn(const Expr *E, const Vocabulary &Vocab) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const Vocabulary &Vocab;
    const ValueDecl *Found = nullptr;
    explicit Finder(const Vocabulary &Vocab) : Vocab(Vocab) {}
    bool visit(const Expr *E) {
      const ValueDecl *D = referencedDecl(E);
      if (D && modules::moduleClassOfHandle(D->getType()) &&
          !Vocab.wrapperClassOfHandle(D->getType())) {
        Found = D;
        return false;
      }
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) { return visit(E); }
    bool VisitMemberExpr(MemberExpr *E) { return visit(E); }
  } F(Vocab);
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

/// Whether \p Inner lies inside \p Outer in the AST.
bool isInside(const Stmt *Inner, const Stmt *Outer, ASTContext &Context) {
  DynTypedNode Node = DynTypedNode::create(*Inner);
  for (unsigned Depth = 0; Depth < 256; ++Depth) {
    if (Node.get<Stmt>() == Outer)
      return true;
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty())
      return false;
    Node = Parents[0];
  }
  return false;
}

} // namespace

WrapperLife::WrapperLife(const FunctionDecl &Function, ASTContext &Context,
                         const Vocabulary &Vocab)
    : Function(Function), Context(Context), Vocab(Vocab),
      Flow(&Function, Function.getBody(), Context) {
  const Stmt *Body = Function.getBody();
  if (!Body)
    return;
  // Wrappers built before this function runs.
  for (const ParmVarDecl *P : Function.parameters())
    if (isWrapperType(P->getType()))
      Wraps.push_back({P, nullptr, nullptr, P->getLocation()});
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Function))
    addConstructorBuiltWraps(*Method->getParent());
  // Wrappers built here.
  addDeclaredWraps(*Body);
  addAssignedWraps(*Body);
  addResetWraps(*Body);
}

bool WrapperLife::isWrapperType(QualType T) const {
  return Vocab.wrapperClassOfHandle(T) != nullptr;
}

void WrapperLife::addConstructorBuiltWraps(const CXXRecordDecl &Class) {
  for (const CXXConstructorDecl *Ctor : Class.ctors())
    for (const CXXCtorInitializer *Init : Ctor->inits()) {
      const FieldDecl *Field = Init->getMember();
      if (!Field || !Init->isWritten() || !isWrapperType(Field->getType()))
        continue;
      const ValueDecl *Module = moduleNamedIn(Init->getInit(), Vocab);
      // `Trainer(Net model) : model_(model), ddp_(make_shared<DDP>(model))`:
      // the other member functions know the module as the field model_.
      for (const CXXCtorInitializer *Other : Ctor->inits())
        if (Other->getMember() && Other->isWritten() && Module &&
            handleDecl(Other->getInit()) == Module &&
            modules::moduleClassOfHandle(Other->getMember()->getType()))
          CopyOf[Other->getMember()] = Module;
      Wraps.push_back({Field, Module, nullptr, Init->getSourceLocation()});
    }
}

void WrapperLife::addDeclaredWraps(const Stmt &Body) {
  for (const BoundNodes &N :
       match(findAll(declStmt(has(varDecl(hasInitializer(expr())).bind("v")))
                         .bind("d")),
             Body, Context)) {
    const auto *V = N.getNodeAs<VarDecl>("v");
    const auto *D = N.getNodeAs<DeclStmt>("d");
    if (isWrapperType(V->getType())) {
      addWrap(V, V->getInit(), D, V->getLocation());
    } else if (modules::moduleClassOfHandle(V->getType())) {
      // `auto alias = model;`, `NetImpl &ref = *model;`,
      // `Net &inner = ddp->module();`
      if (const Expr *Base = Vocab.innerModuleAccessBase(V->getInit()))
        InnerOf[V] = Base;
      else if (const ValueDecl *Source = handleDecl(V->getInit()))
        CopyOf[V] = Source;
    }
  }
}

void WrapperLife::addAssignedWraps(const Stmt &Body) {
  for (const BoundNodes &N : match(
           findAll(expr(anyOf(cxxOperatorCallExpr(
                                  hasOverloadedOperatorName("="),
                                  argumentCountIs(2)),
                              binaryOperator(hasOperatorName("="))))
                       .bind("a")),
           Body, Context)) {
    const auto *A = N.getNodeAs<Expr>("a");
    const Expr *Lhs, *Rhs;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(A)) {
      Lhs = Op->getArg(0);
      Rhs = Op->getArg(1);
    } else {
      Lhs = cast<BinaryOperator>(A)->getLHS();
      Rhs = cast<BinaryOperator>(A)->getRHS();
    }
    const ValueDecl *Target = handleDecl(Lhs);
    if (!Target || !isWrapperType(Target->getType()))
      continue;
    Rebuilds[Target].push_back(A);
    addWrap(Target, Rhs, A, A->getBeginLoc());
  }
}

void WrapperLife::addResetWraps(const Stmt &Body) {
  for (const BoundNodes &N : match(
           findAll(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("reset"))))
                       .bind("r")),
           Body, Context)) {
    const auto *R = N.getNodeAs<CXXMemberCallExpr>("r");
    // The smart pointer's own reset (libstdc++ defines it in a base class),
    // not a method of the wrapper reached through `->`.
    const Expr *Object = R->getImplicitObjectArgument()->IgnoreImpCasts();
    const ValueDecl *Target = referencedDecl(Object);
    if (!Target || !isWrapperType(Target->getType()) ||
        !modules::isPointerLikeHandle(Target->getType()))
      continue;
    Rebuilds[Target].push_back(R);
    // `reset()` fills in a default null argument: that empties the pointer
    // rather than building a wrapper; so does `reset(nullptr)`.
    const Expr *Arg = R->getNumArgs() == 1 ? R->getArg(0) : nullptr;
    if (Arg && !isa<CXXDefaultArgExpr>(Arg) &&
        !Arg->IgnoreParenImpCasts()->isNullPointerConstant(
            Context, Expr::NPC_ValueDependentIsNotNull))
      addWrap(Target, Arg, R, R->getBeginLoc());
  }
}

void WrapperLife::addWrap(const ValueDecl *Wrapper, const Expr *Init,
                          const Stmt *Site, SourceLocation Loc) {
  Wraps.push_back({Wrapper, moduleNamedIn(Init, Vocab), Site, Loc});
  if (Site)
    Rebuilds[Wrapper].push_back(Site);
}

bool WrapperLife::live(const Wrap &W, const Stmt *At) const {
  auto RebuildIt = Rebuilds.find(W.Wrapper);
  llvm::ArrayRef<const Stmt *> Avoid;
  if (RebuildIt != Rebuilds.end())
    Avoid = RebuildIt->second;
  if (!W.Site)
    return Flow.reachableFromEntry(At, Avoid);
  if (!Flow.reachable(W.Site, At, Avoid))
    return false;
  // A local wrapper is destroyed at the end of its scope.
  if (const auto *DS = dyn_cast<DeclStmt>(W.Site)) {
    DynTypedNodeList Parents = Context.getParents(*DS);
    if (!Parents.empty())
      if (const auto *Scope = Parents[0].get<Stmt>())
        return isInside(At, Scope, Context);
  }
  return true;
}

std::string WrapperLife::moduleName(const Wrap &W) {
  if (W.Module)
    return "'" + W.Module->getNameAsString() + "'";
  return "the module inside '" + W.Wrapper->getNameAsString() + "'";
}

const Wrap *WrapperLife::wrapOfWrapperDecl(const ValueDecl *D,
                                           const Stmt *At) const {
  const Wrap *Found = nullptr;
  for (const Wrap &W : Wraps)
    if (W.Wrapper == D && live(W, At))
      Found = &W; // the latest wrap that reaches this point
  return Found;
}

bool WrapperLife::isWrapped(const ValueDecl *Module) const {
  for (const Wrap &W : Wraps) {
    const ValueDecl *D = W.Module;
    for (unsigned Hops = 0; D && Hops < 4; ++Hops) {
      if (D == Module)
        return true;
      auto It = CopyOf.find(D);
      D = It == CopyOf.end() ? nullptr : It->second;
    }
  }
  // A copy of the module was wrapped: `Net copy = model; DDP ddp(copy);`.
  auto It = CopyOf.find(Module);
  return It != CopyOf.end() && isWrapped(It->second);
}

const Wrap *WrapperLife::wrapper(const Expr *Handle, const Stmt *At) const {
  const ValueDecl *D = handleDecl(Handle);
  return D ? wrapOfWrapperDecl(D, At) : nullptr;
}

const Wrap *WrapperLife::wrapReturnedBy(const CallExpr &Call, const Stmt *At,
                                        unsigned Depth) const {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member || Depth > 2)
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  const auto *Caller = dyn_cast<CXXMethodDecl>(&Function);
  if (!MD || !Caller || MD->getParent() != Caller->getParent() ||
      !isa<CXXThisExpr>(
          Member->getImplicitObjectArgument()->IgnoreParenImpCasts()))
    return nullptr;
  const FunctionDecl *Def = nullptr;
  if (!MD->hasBody(Def) || !Def->getBody())
    return nullptr;
  for (const BoundNodes &N :
       match(findAll(returnStmt(hasReturnValue(expr().bind("e")))),
             *Def->getBody(), Context))
    if (const Wrap *W = resolve(N.getNodeAs<Expr>("e"), At, Depth + 1))
      return W;
  return nullptr;
}

const Wrap *WrapperLife::resolve(const Expr *Handle, const Stmt *At,
                                 unsigned Depth) const {
  if (!Handle)
    return nullptr;
  // `ddp->module()`, `ddp.module_`: the inner module of a live wrapper.
  if (const Expr *Base = Vocab.innerModuleAccessBase(Handle))
    return wrapper(Base, At);
  if (const auto *Call = dyn_cast<CallExpr>(peelHandle(Handle)))
    if (const Wrap *W = wrapReturnedBy(*Call, At, Depth))
      return W;
  const ValueDecl *D = handleDecl(Handle);
  if (!D)
    return nullptr;
  for (unsigned Hops = 0; Hops < 4; ++Hops) {
    for (const Wrap &W : Wraps)
      if (W.Module == D && live(W, At))
        return &W;
    if (auto Inner = InnerOf.find(D); Inner != InnerOf.end())
      return wrapper(Inner->second, At);
    auto It = CopyOf.find(D);
    if (It == CopyOf.end())
      break;
    D = It->second;
  }
  return nullptr;
}

const Wrap *WrapperLife::wrappedModule(const Expr *Handle,
                                       const Stmt *At) const {
  // The wrapper itself is not an alias of its module.
  if (const ValueDecl *D = handleDecl(Handle))
    if (Vocab.wrapperClassOfHandle(D->getType()))
      return nullptr;
  return resolve(Handle, At, 0);
}

} // namespace clang::tidy::ddp
