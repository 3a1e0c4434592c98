//===--- DivergenceEvaluation.cpp - what an expression holds --------------===//
//
// The value lattice (Divergence: sources with an origin each, parameters)
// and FunctionDivergence's evaluation of one expression in the current flow
// state: seeds from the vocabulary (rank queries, gradients, shapes, loader
// positions), helper summaries, fields, and what collectives make uniform.
// Part of FunctionDivergence (analysis/Divergence.h).
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"
#include "analysis/DivergenceInternal.h"
#include "vocabulary/TensorMethods.h"
#include "vocabulary/UserNames.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace clang::tidy::ddp {

//===----------------------------------------------------------------------===//
// Divergence
//===----------------------------------------------------------------------===//

Divergence Divergence::seed(DivergenceSource S, const Stmt *Origin) {
  Divergence D;
  D.Sources = bit(S);
  D.Origins[static_cast<unsigned>(S)] = Origin;
  return D;
}

Divergence Divergence::parameter(unsigned Index) {
  Divergence D;
  if (Index < 64)
    D.Params = uint64_t(1) << Index;
  return D;
}

Divergence Divergence::onEntry() {
  Divergence D;
  D.OnEntry = true;
  return D;
}

DivergenceSource Divergence::primary() const {
  // The most specific explanation first: a shape query on local data is
  // about the shape, a loss accumulated over batches about the loss.
  for (DivergenceSource S :
       {DivergenceSource::Rank, DivergenceSource::GradientPresence,
        DivergenceSource::TensorShape, DivergenceSource::LoaderExhaustion,
        DivergenceSource::ProcessEvent, DivergenceSource::LocalData,
        DivergenceSource::GradientValue, DivergenceSource::BatchCount})
    if (has(S))
      return S;
  return DivergenceSource::LocalData;
}

bool Divergence::merge(const Divergence &Other) {
  bool Added = (Other.Sources & ~Sources) || (Other.Params & ~Params) ||
               (Other.OnEntry && !OnEntry);
  for (unsigned I = 0; I < NumDivergenceSources; ++I)
    if (!Origins[I])
      Origins[I] = Other.Origins[I];
  Sources |= Other.Sources;
  Params |= Other.Params;
  OnEntry |= Other.OnEntry;
  return Added;
}

void Divergence::drop(DivergenceSource S) {
  Sources &= uint8_t(~bit(S));
  Origins[static_cast<unsigned>(S)] = nullptr;
}

Divergence Divergence::sourcesOnly() const {
  Divergence D = *this;
  D.Params = 0;
  D.OnEntry = false;
  return D;
}

Divergence Divergence::through(const Stmt *Origin) const {
  Divergence D = *this;
  for (unsigned I = 0; I < NumDivergenceSources; ++I)
    if (D.Sources & (1u << I))
      D.Origins[I] = Origin;
  return D;
}

namespace {

/// Where values live and how ranks talk: devices and tensor options (a rank
/// picks its GPU from its rank, but where a value lives does not change the
/// value), communicators, c10d's stores and options (a store is the server
/// on rank 0), and a class of the project's own named as a communicator
/// that keeps one (`struct NcclComm { ncclComm_t comm_; }`). Built from the rank, they
/// carry no rank-local data; a null one is a failure to make it.
bool isInfrastructureType(QualType T) {
  if (collectives::isCommunicatorType(T))
    return true;
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  if (tensors::isDeviceOptionsOrC10dType(Name))
    return true;
  if (!RD->hasDefinition() || inSystemHeader(*RD) ||
      !usernames::namedLikeCommunicatorClass(identifierName(RD)))
    return false;
  return llvm::any_of(RD->getDefinition()->fields(), [](const FieldDecl *F) {
    return collectives::isCommunicatorType(F->getType());
  });
}

} // namespace

bool isOutputPointer(const FunctionDecl &FD, unsigned I, const Expr *Arg) {
  if (I >= FD.getNumParams())
    return false;
  QualType P = FD.getParamDecl(I)->getType();
  const auto *AddrOf = dyn_cast<UnaryOperator>(Arg->IgnoreParenImpCasts());
  return P->isPointerType() && !P->getPointeeType().isConstQualified() &&
         AddrOf && AddrOf->getOpcode() == UO_AddrOf;
}

Divergence atCall(const Divergence &Summary, const CallExpr &Call,
                  llvm::function_ref<Divergence(const Expr *)> ArgumentValue) {
  Divergence D = Summary.sourcesOnly().through(&Call);
  const auto *Method =
      dyn_cast_or_null<CXXMethodDecl>(Call.getDirectCallee());
  unsigned Offset =
      isa<CXXOperatorCallExpr>(Call) && Method && !Method->isStatic() ? 1 : 0;
  for (unsigned I = 0; I < 64 && I + Offset < Call.getNumArgs(); ++I)
    if (Summary.parameters() & (uint64_t(1) << I))
      D.merge(ArgumentValue(Call.getArg(I + Offset)));
  return D;
}

//===----------------------------------------------------------------------===//
// FunctionDivergence: expressions
//===----------------------------------------------------------------------===//

bool FunctionDivergence::isGradient(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 8)
    return false;
  E = stripObjectWrappers(E);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (training::isGradAccess(*Call))
      return true;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      llvm::StringRef Name = identifierName(Member->getMethodDecl());
      if (tensors::yieldsSameTensor(Name))
        return isGradient(Member->getImplicitObjectArgument(), Depth + 1);
    }
    return false;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return false;
    // A tensor hook only runs when the gradient was computed: testing it
    // there is the same on every rank that runs the hook.
    if (const auto *P = dyn_cast<ParmVarDecl>(V); P && isHookParameter(*P))
      return false;
    if (llvm::StringRef(identifierName(V).lower()).contains("grad"))
      return true;
    return isLocal(V) && V->getInit() && isGradient(V->getInit(), Depth + 1);
  }
  return isGradientStorage(E);
}

bool FunctionDivergence::isGradientStorage(const Expr *E) const {
  const auto *ME = E ? dyn_cast<MemberExpr>(stripObjectWrappers(E)) : nullptr;
  return ME && flow::namesGradientStorage(identifierName(ME->getMemberDecl()));
}

/// The gradient a tensor hook receives: a parameter of a lambda passed to
/// `register_hook`. Autograd calls the hook with the gradient it computed,
/// so the gradient is always there.
bool FunctionDivergence::isHookParameter(const ParmVarDecl &P) const {
  const auto *Method = dyn_cast<CXXMethodDecl>(P.getDeclContext());
  if (!Method || !Method->getParent()->isLambda())
    return false;
  const CXXRecordDecl *Closure = Method->getParent();
  const auto *Enclosing = dyn_cast<FunctionDecl>(Closure->getDeclContext());
  if (!Enclosing || !Enclosing->getBody())
    return false;
  // The lambda expression in the enclosing body, then the call it is
  // handed to.
  const LambdaExpr *Lambda = nullptr;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S || Lambda)
      return;
    if (const auto *L = dyn_cast<LambdaExpr>(S);
        L && L->getLambdaClass() == Closure)
      Lambda = L;
    for (const Stmt *Child : S->children())
      Find(Child);
  };
  Find(Enclosing->getBody());
  const ParentMap &Parents = Owner.parents(*Enclosing);
  const Stmt *S = Lambda;
  for (unsigned Depth = 0; S && Depth < 8; ++Depth) {
    S = Parents.getParent(S);
    if (const auto *Call = dyn_cast_or_null<CallExpr>(S))
      return tensors::isHookRegistration(
          identifierName(Call->getDirectCallee()));
    if (S && !isa<Expr>(S))
      return false;
  }
  return false;
}

bool FunctionDivergence::isParameterLike(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 8)
    return false;
  E = stripObjectWrappers(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return false;
    return ParameterVariables.count(V) || hasParameterName(V) ||
           (isLocal(V) && V->getInit() &&
            isParameterLike(V->getInit(), Depth + 1));
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return hasParameterName(ME->getMemberDecl());
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    llvm::StringRef Name = identifierName(Member->getMethodDecl());
    if (tensors::isGradientAccessor(Name) ||
        tensors::isModuleTensorCollection(Name))
      return true;
    return tensors::keepsShape(Name) &&
           isParameterLike(Member->getImplicitObjectArgument(), Depth + 1);
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() >= 1)
      return isParameterLike(Op->getArg(0), Depth + 1);
  return false;
}

Divergence FunctionDivergence::valueOf(const Expr *E) {
  auto It = Values.find(E);
  return It != Values.end() ? It->second : evaluate(E);
}

Divergence FunctionDivergence::evaluate(const Expr *E) {
  if (isa<LambdaExpr>(E) || isa<UnaryExprOrTypeTraitExpr>(E) ||
      isa<CXXThisExpr>(E) || isa<CXXDefaultArgExpr>(E) ||
      isa<CXXDefaultInitExpr>(E) || isInfrastructureType(E->getType()))
    return {};
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return {};
    // Where the value came from, when the flow knows, explains more than
    // the variable's name.
    Divergence D = isLocal(V) ? read(V) : Divergence();
    if (Vocab.isRankName(*V) && !inSystemHeader(*V) && !LoopCounters.count(V))
      D.merge(Divergence::seed(DivergenceSource::Rank, DRE));
    // A flag a signal handler sets: each process gets its own signals.
    if (!isLocal(V) && Owner.isSignalFlag(*V))
      D.merge(Divergence::seed(DivergenceSource::ProcessEvent, DRE));
    return D;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return evaluateMember(*ME);
  // `if (!layer->grad)` on a raw pointer to a homegrown gradient.
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E);
      Cast && Cast->getCastKind() == CK_PointerToBoolean &&
      isGradientStorage(Cast->getSubExpr()))
    return Divergence::seed(DivergenceSource::GradientPresence, Cast);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return evaluateCall(*Call);
  // `{.rank = rank, .state = state}` handed to a helper: a rank placed in a
  // field of a struct is what the struct is for, not data it carries, as in
  // a local struct (read()).
  if (const auto *List = dyn_cast<InitListExpr>(E);
      List && List->getType()->isRecordType()) {
    Divergence D = childrenValue(*E);
    D.drop(DivergenceSource::Rank);
    return D;
  }
  return childrenValue(*E);
}

Divergence FunctionDivergence::childrenValue(const Expr &E) {
  Divergence D;
  for (const Stmt *Child : E.children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      D.merge(valueOf(ChildExpr));
  return D;
}

Divergence FunctionDivergence::evaluateMember(const MemberExpr &ME) {
  Divergence D;
  const auto *F = dyn_cast<FieldDecl>(ME.getMemberDecl());
  if (F) {
    if (Vocab.isRankName(*F) && !inSystemHeader(*F))
      D = Divergence::seed(DivergenceSource::Rank, &ME);
    else if (OwnFields.count(F) &&
             isa<CXXThisExpr>(ME.getBase()->IgnoreParenImpCasts()))
      D = readOwnField(*F, ME);
    else
      D = Owner.field(*F).through(&ME);
  }
  const Expr *Base = ME.getBase()->IgnoreParenImpCasts();
  const auto *BaseRef = dyn_cast<DeclRefExpr>(Base);
  const auto *BaseVar =
      BaseRef ? dyn_cast<VarDecl>(BaseRef->getDecl()) : nullptr;
  if (F && !ME.isArrow() && isLocal(BaseVar))
    D.merge(readField(BaseVar, F)); // `stats.loss`: that field's slot
  else if (!isa<CXXThisExpr>(Base))
    D.merge(valueOf(ME.getBase()));
  return D;
}

Divergence FunctionDivergence::evaluateCall(const CallExpr &Call) {
  // What a collective produces is the same on every rank.
  if (std::optional<CollectiveSite> Site = Owner.sites().collective(Call))
    if (Site->How != CollectiveSite::Via::Helper)
      return {};
  if (Vocab.returnsRank(Call) || Vocab.readsRankEnvironment(Call))
    return Divergence::seed(DivergenceSource::Rank, &Call);
  if (ranks::readsClock(Call))
    return Divergence::seed(DivergenceSource::ProcessEvent, &Call);
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD)
    return childrenValue(Call);
  // An SDK call's status says whether it failed, not what it computed:
  // `ncclCommInitRank(&comm, n, ids[rank], rank)` succeeds on every rank.
  if (sdk::returnsStatusOnly(*FD))
    return {};
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    Object = Member->getImplicitObjectArgument();

  if (std::optional<Divergence> D = tensorQueryValue(Call, *FD, Object))
    return *D;
  // `!meta->grad_` on a homegrown autograd's gradient handle.
  if (isa<CXXConversionDecl>(FD) && Call.getType()->isBooleanType() &&
      isGradientStorage(Object))
    return Divergence::seed(DivergenceSource::GradientPresence, &Call);
  if (std::optional<Divergence> D = extentValue(Call, *FD, Object))
    return *D;
  if (std::optional<Divergence> D = userCallValue(Call, *FD, Object))
    return *D;
  // What the call writes through a pointer is its output, not an input of
  // its value: `read(fd, &buf, n)` does not return what `buf` held.
  Divergence D;
  for (unsigned I = 0; I < Call.getNumArgs(); ++I)
    if (!isOutputPointer(*FD, I, Call.getArg(I)))
      D.merge(valueOf(Call.getArg(I)));
  if (Object)
    D.merge(valueOf(Object));
  return D;
}

std::optional<Divergence>
FunctionDivergence::tensorQueryValue(const CallExpr &Call,
                                     const FunctionDecl &FD,
                                     const Expr *Object) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&FD);
  if (!Method || !Object || !tensors::isTensorClass(*Method->getParent()))
    return std::nullopt;
  if (training::isGradAccess(Call))
    return Divergence::seed(DivergenceSource::GradientValue, &Call);
  // After a backward() on every path, which parameters have a gradient is
  // what the model's structure says, the same on every rank.
  auto Presence = [&] {
    return afterBackward(&Call)
               ? Divergence()
               : Divergence::seed(DivergenceSource::GradientPresence, &Call);
  };
  if (tensors::isDefinedQuery(identifierName(&FD)))
    return isGradient(Object) ? Presence() : valueOf(Object);
  if (!tensors::isTensorShapeQuery(Call))
    return std::nullopt;
  // An undefined gradient has no elements: `grad().numel() != 0` is a
  // gradient-presence test.
  if (tensors::isElementCount(identifierName(&FD)) && isGradient(Object))
    return Presence();
  // Parameters and gradients have the model's shapes; tensors built
  // here or reduced are alike everywhere. A tensor computed from this
  // rank's data, or handed in, may not be.
  // The rank picks which rows a rank holds, not how many: a slice at a
  // rank's offset has the same shape everywhere. A tensor handed in
  // has the shape its callers give it. Tensors computed from this
  // rank's data may differ in shape too.
  Divergence D = valueOf(Object);
  D.drop(DivergenceSource::Rank);
  if (isParameterLike(Object))
    return Divergence();
  if (D.diverges())
    D.merge(Divergence::seed(DivergenceSource::TensorShape, &Call));
  return D;
}

std::optional<Divergence>
FunctionDivergence::extentValue(const CallExpr &Call, const FunctionDecl &FD,
                                const Expr *Object) {
  if (!Object)
    return std::nullopt;
  llvm::StringRef Name = identifierName(&FD);
  bool Bound = Name == "begin" || Name == "end" || Name == "cbegin" ||
               Name == "cend";
  bool OfLoader = Bound && loaders::dataLoaderOfHandle(Object->getType());
  // How many elements a container holds depends on what was inserted when,
  // not on the values inserted: a bucket of unreduced gradients has the
  // same size everywhere.
  // Nor does where it begins and ends: a range-for over a vector of
  // unreduced gradients runs as often on every rank.
  if ((Name == "size" || Name == "empty" || Name == "length" ||
       (Bound && !OfLoader)) &&
      isa<CXXMethodDecl>(FD) && inSystemHeader(FD)) {
    Divergence D = extentOf(Object);
    D.drop(DivergenceSource::LocalData);
    D.drop(DivergenceSource::GradientValue);
    // A container of tensors handed in (the gradients, a bucket's tensors)
    // holds as many as the model has: what callers pass says how the
    // values differ, not how many there are.
    QualType T = Object->getType();
    if (tensors::isTensorType(T) && !tensors::isTensor(T))
      return D.sourcesOnly();
    return D;
  }
  if (OfLoader)
    return Divergence::seed(DivergenceSource::LoaderExhaustion, &Call);
  return std::nullopt;
}

std::optional<Divergence>
FunctionDivergence::userCallValue(const CallExpr &Call, const FunctionDecl &FD,
                                  const Expr *Object) {
  if (const FunctionDecl *Def = userDefinition(FD)) {
    Divergence D = atCall(Owner.returned(*Def), Call,
                          [&](const Expr *Arg) { return valueOf(Arg); });
    // Where an object of the project's own begins and ends depends on what
    // its constructor stored for them (extentOf), not on every argument it
    // was built with.
    llvm::StringRef Name = identifierName(&FD);
    bool Extent = Name == "begin" || Name == "end" || Name == "size";
    if (Object)
      D.merge(Extent ? extentOf(Object) : valueOf(Object));
    return D;
  }
  if (inSystemHeader(FD))
    return std::nullopt;
  // Defined in another unit of the project: where its summary says the
  // result comes from, before what its name suggests.
  if (std::optional<FunctionEffects> Effects =
          ProjectFunctions::instance().lookup(FD)) {
    if (Effects->Returned & FunctionEffects::FromRank)
      return Divergence::seed(DivergenceSource::Rank, &Call);
    if (Effects->Communicates)
      return Divergence(); // it reduces: the same on every rank
    return std::nullopt;
  }
  if (Vocab.isRankName(FD))
    return Divergence::seed(DivergenceSource::Rank, &Call);
  // Defined elsewhere and handed a struct holding the communicator
  // (`all_reduce_mean(context, loss)`): its result is taken as reduced.
  if (CollectiveSites::handsCommunicator(Call, /*InStructs=*/true))
    return Divergence();
  return std::nullopt;
}

} // namespace clang::tidy::ddp
