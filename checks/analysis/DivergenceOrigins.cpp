//===--- DivergenceOrigins.cpp - where a value comes from -----------------===//
//
// Summaries that say which inputs reach which outputs, so that a value is
// rank-dependent only where a rank flows into it: what a helper leaves in
// its output parameters (`init(rank, world)` fills `world` from the world
// size alone), which constructor arguments decide how many times a loop
// over an object runs (`ProgressRange(n, rank == 0)` runs n times), and
// which variables a signal handler sets (each process receives its own
// signals).
//
//===----------------------------------------------------------------------===//

#include "analysis/Divergence.h"
#include "analysis/DivergenceInternal.h"

#include "analysis/ASTUtils.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

Divergence FunctionDivergence::writtenAtExit(unsigned Index) const {
  Divergence D;
  if (!Cfg || Index >= Function.getNumParams())
    return D;
  const ParmVarDecl *P = Function.getParamDecl(Index);
  auto It = Out.find(&Cfg->getExit());
  if (It == Out.end())
    return Divergence::parameter(Index);
  for (const auto &[Where, Value] : It->second)
    if (Where.first == P)
      D.merge(Value);
  return D;
}

std::optional<Divergence> DivergenceAnalysis::written(const FunctionDecl &FD,
                                                      unsigned Index) {
  const FunctionDecl *Def = userDefinition(FD);
  if (!Def || InProgress.count(Def))
    return std::nullopt;
  FunctionDivergence *Facts = function(*Def);
  if (!Facts)
    return std::nullopt;
  return Facts->writtenAtExit(Index);
}

namespace {

/// The fields of this object that \p Method reads.
void fieldsRead(const FunctionDecl &Method,
                llvm::SmallPtrSetImpl<const FieldDecl *> &Fields) {
  forEachStmt(Method.getBody(), [&](const Stmt *S) {
    if (const auto *ME = dyn_cast<MemberExpr>(S))
      if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
          F && isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
        Fields.insert(F);
  });
}

/// The parameters of \p Def that \p E mentions (bits). In a constructor, a
/// field of the object stands for what its initialiser mentions
/// (`tqdm_(C_, active)` after `C_(C)`).
uint64_t parametersIn(const FunctionDecl &Def, const Stmt *E,
                      unsigned Depth = 0) {
  uint64_t Bits = 0;
  const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Def);
  forEachStmt(E, [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      for (unsigned I = 0; I < Def.getNumParams() && I < 64; ++I)
        if (Ref->getDecl() == Def.getParamDecl(I))
          Bits |= uint64_t(1) << I;
    const auto *ME = dyn_cast<MemberExpr>(S);
    if (!Ctor || !ME || Depth > 2 ||
        !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      return;
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->getMember() && Init->getMember() == ME->getMemberDecl())
        Bits |= parametersIn(Def, Init->getInit(), Depth + 1);
  });
  return Bits;
}

} // namespace

std::optional<uint64_t>
DivergenceAnalysis::extentParameters(const CXXConstructorDecl &Ctor) {
  auto Known = Extents.find(&Ctor);
  if (Known != Extents.end())
    return Known->second;
  std::optional<uint64_t> &Result = Extents[&Ctor];
  const auto *Def = dyn_cast_or_null<CXXConstructorDecl>(userDefinition(Ctor));
  const CXXRecordDecl *Class = Ctor.getParent();
  if (!Def || !Class)
    return Result;
  // What the class's begin(), end() and size() read.
  llvm::SmallPtrSet<const FieldDecl *, 8> Read;
  bool SawExtent = false;
  for (const CXXMethodDecl *M : Class->methods()) {
    if (!M->getDeclName().isIdentifier() ||
        (M->getName() != "begin" && M->getName() != "end" &&
         M->getName() != "size"))
      continue;
    const FunctionDecl *Body = userDefinition(*M);
    if (!Body)
      return Result; // out of sight: any argument may count
    fieldsRead(*Body, Read);
    SawExtent = true;
  }
  if (!SawExtent)
    return Result;
  // Which parameters the constructor stores in those fields: of an object
  // stored there, only those that decide its own extent.
  uint64_t Bits = 0;
  for (const CXXCtorInitializer *Init : Def->inits())
    if (const FieldDecl *F = Init->getMember(); F && Read.count(F))
      Bits |= extentParametersIn(*Def, Init->getInit());
  forEachStmt(Def->getBody(), [&](const Stmt *S) {
    const auto *Assign = dyn_cast<BinaryOperator>(S);
    if (!Assign || !Assign->isAssignmentOp())
      return;
    const auto *ME = dyn_cast<MemberExpr>(Assign->getLHS()->IgnoreParenImpCasts());
    if (ME && Read.count(dyn_cast<FieldDecl>(ME->getMemberDecl())))
      Bits |= extentParametersIn(*Def, Assign->getRHS());
  });
  Result = Bits;
  return Result;
}

std::optional<llvm::SmallVector<const Expr *, 4>>
DivergenceAnalysis::extentArguments(const Expr *E) {
  const Expr *Made = stripObjectWrappers(E);
  std::optional<uint64_t> Deciding;
  llvm::ArrayRef<const Expr *> Arguments;
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Made)) {
    Deciding = extentParameters(*Construct->getConstructor());
    Arguments = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
  } else if (const auto *Call = dyn_cast_or_null<CallExpr>(Made);
             Call && !isa<CXXOperatorCallExpr>(Call) &&
             Call->getDirectCallee()) {
    Deciding = returnedExtentParameters(*Call->getDirectCallee());
    Arguments = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
  }
  if (!Deciding)
    return std::nullopt;
  llvm::SmallVector<const Expr *, 4> Result;
  for (unsigned I = 0; I < Arguments.size() && I < 64; ++I)
    if (*Deciding & (uint64_t(1) << I))
      Result.push_back(Arguments[I]);
  return Result;
}

uint64_t DivergenceAnalysis::extentParametersIn(const FunctionDecl &Def,
                                                const Expr *E) {
  std::optional<llvm::SmallVector<const Expr *, 4>> Deciding =
      extentArguments(E);
  if (!Deciding)
    return parametersIn(Def, E);
  uint64_t Bits = 0;
  for (const Expr *Argument : *Deciding)
    Bits |= parametersIn(Def, Argument);
  return Bits;
}

std::optional<uint64_t>
DivergenceAnalysis::returnedExtentParameters(const FunctionDecl &FD) {
  auto Known = ReturnedExtents.find(&FD);
  if (Known != ReturnedExtents.end())
    return Known->second;
  ReturnedExtents[&FD] = std::nullopt; // a recursive call decides nothing
  const FunctionDecl *Def = userDefinition(FD);
  if (!Def || !Def->getReturnType()->isRecordType())
    return std::nullopt;
  uint64_t Bits = 0;
  bool Returns = false;
  forEachStmt(Def->getBody(), [&](const Stmt *S) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(S); Ret && Ret->getRetValue()) {
      Returns = true;
      Bits |= extentParametersIn(*Def, Ret->getRetValue());
    }
  });
  std::optional<uint64_t> Result;
  if (Returns)
    Result = Bits;
  ReturnedExtents[&FD] = Result;
  return Result;
}

namespace {

/// The body a signal handler argument runs: a function of the unit, or a
/// lambda's call operator.
const FunctionDecl *handlerBody(const Expr *Handler) {
  if (!Handler)
    return nullptr;
  if (const LambdaExpr *Lambda = lambdaOf(Handler))
    return Lambda->getCallOperator();
  const Expr *E = Handler->IgnoreParenImpCasts();
  if (const auto *AddrOf = dyn_cast<UnaryOperator>(E);
      AddrOf && AddrOf->getOpcode() == UO_AddrOf)
    E = AddrOf->getSubExpr()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *FD = Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
  return FD ? userDefinition(*FD) : nullptr;
}

/// The handlers a function installs: `signal(SIGTERM, on_term)`, and
/// `act.sa_handler = on_term` (or `sa_sigaction`) in a function that calls
/// `sigaction`.
void installedHandlers(const FunctionDecl &Caller, const CallExpr &Call,
                       llvm::SmallVectorImpl<const FunctionDecl *> &Out) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !Callee->getDeclName().isIdentifier())
    return;
  llvm::StringRef Name = Callee->getName();
  if ((Name == "signal" || Name == "sigset" || Name == "bsd_signal") &&
      Call.getNumArgs() == 2) {
    if (const FunctionDecl *Body = handlerBody(Call.getArg(1)))
      Out.push_back(Body);
    return;
  }
  if (Name != "sigaction")
    return;
  forEachStmt(Caller.getBody(), [&](const Stmt *S) {
    const auto *Assign = dyn_cast<BinaryOperator>(S);
    if (!Assign || Assign->getOpcode() != BO_Assign)
      return;
    const auto *ME = dyn_cast<MemberExpr>(Assign->getLHS()->IgnoreParenImpCasts());
    const NamedDecl *Member = ME ? ME->getMemberDecl() : nullptr;
    if (Member && Member->getDeclName().isIdentifier() &&
        (Member->getName() == "sa_handler" ||
         Member->getName() == "sa_sigaction" ||
         Member->getName() == "__sigaction_handler"))
      if (const FunctionDecl *Body = handlerBody(Assign->getRHS()))
        Out.push_back(Body);
  });
}

} // namespace

bool DivergenceAnalysis::isSignalFlag(const VarDecl &V) {
  if (!V.hasGlobalStorage())
    return false;
  if (!SignalFlags) {
    SignalFlags.emplace();
    llvm::SmallVector<const FunctionDecl *, 4> Handlers;
    forEachUserCall(Context, [&](const FunctionDecl &Caller,
                                 const CallExpr &Call) {
      installedHandlers(Caller, Call, Handlers);
    });
    for (const FunctionDecl *Handler : Handlers)
      forEachStmt(Handler->getBody(), [&](const Stmt *S) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
          if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
              Var && Var->hasGlobalStorage() &&
              !Var->getType().isConstQualified())
            SignalFlags->insert(Var->getCanonicalDecl());
      });
  }
  return SignalFlags->count(V.getCanonicalDecl());
}

} // namespace clang::tidy::ddp
