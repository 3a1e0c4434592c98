//===--- GradientCopies.cpp - copies of gradients and kept values ---------===//
//
// The part of GradientModel that tells a collective on the gradients from
// one on a copy made for it alone (`clone()`, `torch::cat` into a local)
// whose value is only read down to numbers afterwards, and whether a
// tensor value is kept at all (valueKept), which Averaging also asks of
// out-of-place quotients.
//
//===----------------------------------------------------------------------===//

#include "model/GradientModel.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

/// A tensor expression that makes new storage from its operands (not
/// `flatten_dense_tensors`, which returns a view of a single tensor).
bool makesFreshTensor(const Expr *E) {
  E = stripObjectWrappers(E)->IgnoreParenCasts();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    return flow::isTensorCopyMethod(
        identifierName(Member->getMethodDecl()));
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && !isa<CXXOperatorCallExpr>(Call))
    return flow::copiesIntoNewTensor(
        identifierName(Call->getDirectCallee()));
  return false;
}

/// The tensors a container's initialiser holds (`{a.clone(), b.clone()}`),
/// or the initialiser itself for a tensor; false when it is anything else.
bool initialisedTensors(const Expr *Init,
                        llvm::SmallVectorImpl<const Expr *> &Out,
                        unsigned Depth = 0) {
  if (!Init || Depth > 8)
    return false;
  Init = Init->IgnoreImplicit();
  if (tensors::isTensor(Init->getType())) {
    Out.push_back(Init);
    return true;
  }
  if (const auto *List = dyn_cast<InitListExpr>(Init))
    return List->getNumInits() > 0 &&
           llvm::all_of(List->inits(), [&](const Expr *E) {
             return initialisedTensors(E, Out, Depth + 1);
           });
  if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(Init))
    return initialisedTensors(IL->getSubExpr(), Out, Depth + 1);
  // std::vector's constructor from an initializer list (its allocator
  // left to the default).
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Init))
    return Construct->getNumArgs() >= 1 &&
           llvm::all_of(llvm::drop_begin(Construct->arguments()),
                        [](const Expr *Arg) {
                          return isa<CXXDefaultArgExpr>(Arg);
                        }) &&
           initialisedTensors(Construct->getArg(0), Out, Depth + 1);
  return false;
}

/// The body of a loop statement.
const Stmt *loopBody(const Stmt *Loop) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return For->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Do->getBody();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Range->getBody();
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// Kept values
//===----------------------------------------------------------------------===//

bool GradientModel::valueKept(const CodeUnit &U, const Expr *E,
                              unsigned Depth) const {
  if (Depth > 3)
    return true;
  const Stmt *Current = E;
  while (const Stmt *P = U.Parent.lookup(Current)) {
    switch (keptThroughParent(U, E, Current, P, Depth)) {
    case Keeping::Kept:
      return true;
    case Keeping::Dropped:
      return false;
    case Keeping::Continue:
      Current = P;
      break;
    }
  }
  return true;
}

GradientModel::Keeping
GradientModel::keptThroughParent(const CodeUnit &U, const Expr *E,
                                 const Stmt *Current, const Stmt *P,
                                 unsigned Depth) const {
  // The callee `t.norm` of `t.norm()` holds the object too.
  if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
          CXXBindTemporaryExpr, ExprWithCleanups, MemberExpr>(P))
    return Keeping::Continue;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(P);
      Construct && Construct->getNumArgs() == 1 &&
      tensors::isTensor(Construct->getType()))
    return Keeping::Continue; // a copy or move of the tensor
  // `t.slice(...)`, `t.view_as(g)` go on as tensors; `t.norm().item()` ends
  // in a number; anything else (`data_ptr()`, `begin()`, an accessor) still
  // reaches the data. So does `v[0]` of a vector of tensors.
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(P))
    Object = Member->getImplicitObjectArgument();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
           Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
    Object = Op->getArg(0);
  if (Object && U.contains(Object, E)) {
    QualType T = cast<Expr>(P)->getType();
    if (flow::isNumberType(T))
      return Keeping::Dropped;
    return tensors::isTensorType(T) ? Keeping::Continue : Keeping::Kept;
  }
  // `auto mean = sum / ws;`: kept when a use of the variable is.
  if (const auto *Decl = dyn_cast<DeclStmt>(P))
    return keptThroughDeclaration(U, E, *Decl, Depth) ? Keeping::Kept
                                                       : Keeping::Dropped;
  // A statement of its own (`copy[0].div_(ws);`): the value stays where it
  // was.
  if (isa<CompoundStmt>(P))
    return Keeping::Dropped;
  if (const auto *If = dyn_cast<IfStmt>(P);
      If && (If->getThen() == Current || If->getElse() == Current))
    return Keeping::Dropped;
  if (Current == loopBody(P))
    return Keeping::Dropped;
  // An argument, an operand, an assignment, a return: passed on.
  return Keeping::Kept;
}

bool GradientModel::keptThroughDeclaration(const CodeUnit &U, const Expr *E,
                                           const DeclStmt &Decl,
                                           unsigned Depth) const {
  // A range loop's hidden `__range` holds what the loop walks: kept.
  if (const auto *Range =
          dyn_cast_or_null<CXXForRangeStmt>(U.Parent.lookup(&Decl));
      Range && Range->getRangeStmt() == &Decl)
    return true;
  for (const clang::Decl *D : Decl.decls()) {
    const auto *Var = dyn_cast<VarDecl>(D);
    if (!Var || !Var->getInit() || !U.contains(Var->getInit(), E))
      continue;
    // The variable, or its structured bindings.
    llvm::SmallVector<const ValueDecl *, 4> Names{Var};
    if (const auto *Decomposition = dyn_cast<DecompositionDecl>(Var))
      for (const BindingDecl *B : Decomposition->bindings())
        Names.push_back(B);
    // A lambda capturing the variable names it in its capture list, which
    // counts as passing it on: a lambda's body is not followed.
    return llvm::any_of(U.Stmts, [&](const Stmt *S) {
      const auto *Ref = dyn_cast<DeclRefExpr>(S);
      return Ref && llvm::is_contained(Names, Ref->getDecl()) &&
             valueKept(U, Ref, Depth + 1);
    });
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Copies made for a collective
//===----------------------------------------------------------------------===//

GradientModel::GradientBuffers
GradientModel::gradientBuffers(const CodeUnit &U, const CallExpr &Call) const {
  std::optional<CollectiveInfo> Info = collectiveOf(U, Call);
  if (!Info || Info->Kind == CollectiveKind::Barrier ||
      Info->Kind == CollectiveKind::Scatter ||
      Info->Kind == CollectiveKind::AllToAll)
    return GradientBuffers::None;
  GradientBuffers Found = GradientBuffers::None;
  for (const Expr *Arg : Call.arguments()) {
    if (!(role(U, Arg) & GradientRole))
      continue;
    if (!isDiscardedCopy(U, Call, Arg))
      return GradientBuffers::Gradients;
    Found = GradientBuffers::OnlyCopies;
  }
  return Found;
}

bool GradientModel::copyHolders(
    const CodeUnit &U, const Expr *Buffer,
    llvm::SmallVectorImpl<const VarDecl *> &Holders) const {
  const auto *Var = dyn_cast_or_null<VarDecl>(rootDecl(Buffer));
  auto IsOwnLocal = [&](const VarDecl *V) {
    return V && V->isLocalVarDecl() && !V->isStaticLocal() &&
           !V->getType()->isReferenceType() && ownerUnit(*V) == &U;
  };
  if (!IsOwnLocal(Var))
    return false;
  // The buffer and the locals it was filled with share the reduced storage.
  Holders.push_back(Var);
  llvm::SmallVector<const Expr *, 4> Elements;
  if (!initialisedTensors(Var->getInit(), Elements))
    return false;
  for (const Expr *Element : Elements) {
    if (makesFreshTensor(Element))
      continue;
    const auto *Local = dyn_cast_or_null<VarDecl>(rootDecl(Element));
    if (!IsOwnLocal(Local) || !Local->getInit() ||
        !makesFreshTensor(Local->getInit()) ||
        !tensors::isTensor(Local->getType()))
      return false;
    Holders.push_back(Local);
  }
  return true;
}

llvm::SmallVector<const Expr *, 4>
GradientModel::keptCopyUses(const CodeUnit &U, const CallExpr &Collective,
                            const Expr *Buffer) const {
  llvm::SmallVector<const VarDecl *, 4> Holders;
  llvm::SmallVector<const Expr *, 4> Kept;
  if (!copyHolders(U, Buffer, Holders))
    return Kept;
  const Expr *Init = Holders.front()->getInit();
  for (const Stmt *S : U.Stmts) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    if (!Ref || !llvm::is_contained(Holders, Ref->getDecl()) ||
        U.contains(&Collective, Ref) || U.contains(Init, Ref))
      continue;
    if (valueKept(U, Ref))
      Kept.push_back(Ref);
  }
  return Kept;
}

bool GradientModel::isDiscardedCopy(const CodeUnit &U,
                                    const CallExpr &Collective,
                                    const Expr *Buffer) const {
  llvm::SmallVector<const VarDecl *, 4> Holders;
  return copyHolders(U, Buffer, Holders) &&
         keptCopyUses(U, Collective, Buffer).empty();
}

llvm::SmallVector<const Stmt *, 4>
GradientModel::copyWriteBacks(const CodeUnit &U,
                              const CallExpr &Collective) const {
  llvm::SmallVector<const Stmt *, 4> Uses;
  llvm::SmallVector<const VarDecl *, 4> Holders;
  for (const Expr *Arg : Collective.arguments()) {
    if (!(role(U, Arg) & GradientRole))
      continue;
    Holders.clear();
    if (!copyHolders(U, Arg, Holders))
      return {}; // the gradients themselves are reduced
    for (const Expr *Ref : keptCopyUses(U, Collective, Arg)) {
      // The whole statement that takes the reduced value back.
      const Stmt *Top = Ref;
      while (const Stmt *Up = U.Parent.lookup(Top)) {
        if (!isa<Expr>(Up))
          break;
        Top = Up;
      }
      // The CFG holds the expression, not its cleanups.
      if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Top))
        Top = Cleanups->getSubExpr()->IgnoreImplicit();
      Uses.push_back(Top);
    }
  }
  return Uses;
}

} // namespace clang::tidy::ddp
