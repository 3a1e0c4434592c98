//===--- CollectiveSites.cpp ----------------------------------------------===//

#include "analysis/CollectiveSites.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/LLVMCompat.h"
#include "vocabulary/TensorMethods.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

#include <cstdint>

namespace clang::tidy::ddp {

const void *CollectiveSite::key() const {
  if (Kind)
    return reinterpret_cast<const void *>(
        static_cast<uintptr_t>(static_cast<unsigned>(*Kind) + 1));
  return Callee->getCanonicalDecl();
}

bool CollectiveSites::handsCommunicator(const CallExpr &Call, bool InStructs) {
  for (const Expr *Arg : Call.arguments()) {
    QualType T = Arg->getType();
    if (collectives::isCommunicatorType(T))
      return true;
    if (!InStructs)
      continue;
    if (const CXXRecordDecl *RD = pointeeRecord(T))
      if (RD->hasDefinition() && !inSystemHeader(*RD))
        for (const FieldDecl *F : RD->getDefinition()->fields())
          if (collectives::isCommunicatorType(F->getType()))
            return true;
  }
  return false;
}

std::optional<CollectiveSite> CollectiveSites::constructs(
    const CXXRecordDecl &RD) {
  const CXXRecordDecl *Def = RD.getDefinition();
  if (!Def)
    return std::nullopt;
  // A TORCH_MODULE holder constructs its Impl.
  if (inSystemHeader(*Def)) {
    const CXXRecordDecl *Impl =
        modules::moduleClassOfHandle(Context.getRecordType(Def));
    if (!Impl || Impl == Def || inSystemHeader(*Impl))
      return std::nullopt;
    Def = Impl;
  }
  for (const CXXConstructorDecl *Ctor : Def->ctors())
    if (const FunctionDecl *Body = userDefinition(*Ctor))
      if (std::optional<CollectiveSite> Inner = issues(*Body))
        return CollectiveSite{CollectiveSite::Via::Helper, Ctor, Inner->Api,
                              Inner->Kind};
  return std::nullopt;
}

std::optional<CollectiveSite> CollectiveSites::collective(const Expr &E) {
  auto It = Sites.find(&E);
  if (It != Sites.end())
    return It->second;
  std::optional<CollectiveSite> Site = classify(E);
  Sites[&E] = Site;
  return Site;
}

namespace {
/// `std::thread`, `std::jthread`: constructing one runs its callable.
bool startsThread(const CXXRecordDecl &RD) {
  llvm::StringRef Name = identifierName(&RD);
  return inSystemHeader(RD) && (Name == "thread" || Name == "jthread");
}
} // namespace

std::optional<CollectiveSite> CollectiveSites::classify(const Expr &E) {
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Ctor->isCopyOrMoveConstructor())
      return std::nullopt;
    if (const FunctionDecl *Body = userDefinition(*Ctor)) {
      if (std::optional<CollectiveSite> Inner = issues(*Body))
        return CollectiveSite{CollectiveSite::Via::Helper, Ctor, Inner->Api,
                              Inner->Kind};
      return std::nullopt;
    }
    if (std::optional<CollectiveSite> Made = constructs(*Ctor->getParent()))
      return Made;
    // std::thread(lambda) runs it; a std::function made from one only
    // keeps it.
    if (startsThread(*Ctor->getParent()))
      return handedOver(*Construct);
    return std::nullopt;
  }
  // A call clang could not type-check (a const gradient bound to a
  // `Tensor &`): a helper of this unit among its candidates that issues one.
  if (const auto *Recovery = dyn_cast<RecoveryExpr>(&E)) {
    if (std::optional<RecoveredCall> Recovered = recoveredCall(*Recovery))
      for (const FunctionDecl *Candidate : Recovered->Candidates)
        if (const FunctionDecl *Body = userDefinition(*Candidate))
          if (std::optional<CollectiveSite> Inner = issues(*Body))
            return CollectiveSite{CollectiveSite::Via::Helper, Candidate,
                                  Inner->Api, Inner->Kind};
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CallExpr>(&E);
  return Call ? classifyCall(*Call) : std::nullopt;
}

std::optional<CollectiveSite>
CollectiveSites::classifyCall(const CallExpr &TheCall) {
  const CallExpr *Call = &TheCall;
  // Defined in another translation unit whose summary the project's cache
  // holds: what its body does, whatever its name or arguments suggest.
  if (const FunctionDecl *Callee = Call->getDirectCallee())
    if (std::optional<FunctionEffects> Effects =
            ProjectFunctions::instance().lookup(*Callee)) {
      if (!Effects->Communicates)
        return handedOver(*Call);
      return CollectiveSite{CollectiveSite::Via::Helper, Callee, nullptr,
                            Effects->Collective};
    }
  if (std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Call))
    return CollectiveSite{CollectiveSite::Via::Api, Call->getDirectCallee(),
                          Call->getDirectCallee(), Info->Kind};
  if (std::optional<CollectiveSite> Stored = storedFunction(*Call))
    return Stored;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || Vocab.returnsRank(*Call) || Vocab.rankOutputArgument(*Call))
    return std::nullopt;
  return classifyByCallee(*Call, *FD);
}

std::optional<CollectiveSite>
CollectiveSites::classifyByCallee(const CallExpr &TheCall,
                                  const FunctionDecl &Callee) {
  const CallExpr *Call = &TheCall;
  const FunctionDecl *FD = &Callee;
  // A transport of the project's own (sockets, shared memory) issues
  // nothing the vocabulary knows; a function named as one collective
  // (`all_reduce(tensor)`, a pure virtual `allReduce`) is that collective.
  std::optional<CollectiveKind> Named = collectives::collectiveKindOfName(*FD);
  auto ByName = [&]() -> std::optional<CollectiveSite> {
    if (!Named)
      return std::nullopt;
    return CollectiveSite{CollectiveSite::Via::Helper, FD, nullptr, Named};
  };
  const FunctionDecl *Body = userDefinition(*FD);
  if (const auto *Method = dyn_cast<CXXMethodDecl>(FD);
      Method && (!Body || ddplint::compat::isPureVirtual(*Method)))
    if (std::optional<CollectiveSite> Overridden = overriders(*Method))
      return Overridden;
  if (Body) {
    if (std::optional<CollectiveSite> Inner = issues(*Body))
      return CollectiveSite{CollectiveSite::Via::Helper, FD, Inner->Api,
                            Inner->Kind};
    if (std::optional<CollectiveSite> Handed = handedOver(*Call))
      return Handed;
    return ByName();
  }
  if (inSystemHeader(*FD)) {
    // std::make_shared<Wrapper>(...) and friends run Wrapper's constructor.
    if (tensors::isObjectFactory(identifierName(FD)))
      if (const CXXRecordDecl *Made = pointeeRecord(FD->getReturnType()))
        return constructs(*Made);
    return handedOver(*Call); // std::async(lambda), std::invoke(lambda)
  }
  // Declared in user code, defined in another translation unit: a function
  // handed the communicator is taken to communicate through it. Not an SDK's
  // own function (`MPI_Comm_size`, `MPI_Abort`, `ncclSend`) whose header came
  // in with -I: the tables name its collectives.
  if (!Vocab.isRankName(*FD) && !sdk::isSdkFunction(*FD) &&
      handsCommunicator(*Call, /*InStructs=*/false))
    return CollectiveSite{CollectiveSite::Via::Communicator, FD, nullptr,
                          std::nullopt};
  if (std::optional<CollectiveSite> Handed = handedOver(*Call))
    return Handed;
  return ByName();
}

std::optional<CollectiveSite>
CollectiveSites::issues(const FunctionDecl &FD) {
  auto It = Issues.find(&FD);
  if (It != Issues.end())
    return It->second;
  Issues[&FD] = std::nullopt; // a recursive call issues nothing more
  std::optional<CollectiveSite> Found;
  auto Visit = [&](const Expr *E) {
    if (!Found)
      Found = collective(*E);
    if (!Found)
      if (const auto *Call = dyn_cast<CallExpr>(E))
        Found = backward(FD, *Call);
    if (Found && !IssuedAt.count(&FD))
      IssuedAt[&FD] = E;
  };
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&FD))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten())
        forEachCall(Init->getInit(), Visit);
  forEachCall(FD.getBody(), Visit);
  Issues[&FD] = Found;
  return Found;
}

const Expr *CollectiveSites::firstIssued(const FunctionDecl &FD) {
  if (!issues(FD))
    return nullptr;
  return IssuedAt.lookup(&FD);
}

bool CollectiveSites::wrapperSyncs(const CXXRecordDecl &Wrapper) {
  const CXXRecordDecl *Def = Wrapper.getDefinition();
  if (!Def || inSystemHeader(*Def))
    return true; // defined out of sight: take it to be PyTorch's kind
  auto It = WrapperSyncs.find(Def);
  if (It != WrapperSyncs.end())
    return It->second;
  WrapperSyncs[Def] = false;
  bool SeenBody = false;
  bool Syncs = false;
  for (const CXXMethodDecl *Method : Def->methods()) {
    const FunctionDecl *Body = definitionOrPattern(*Method);
    if (!Body)
      continue;
    SeenBody = true;
    if (isa<CXXConstructorDecl>(Method))
      continue; // the initial broadcast
    if (std::optional<CollectiveSite> Site = issues(*Body))
      if (Site->Kind == CollectiveKind::AllReduce ||
          Site->Kind == CollectiveKind::ReduceScatter || !Site->Kind)
        Syncs = true;
  }
  Syncs = Syncs || !SeenBody;
  WrapperSyncs[Def] = Syncs;
  return Syncs;
}

const ValueDecl *CollectiveSites::syncingWrapperIn(const FunctionDecl &FD) {
  auto It = SyncingWrappers.find(&FD);
  if (It != SyncingWrappers.end())
    return It->second;
  SyncingWrappers[&FD] = nullptr;
  const ValueDecl *Found = nullptr;
  forEachCall(FD.getBody(), [&](const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(E);
    if (Found || !Call)
      return;
    const Expr *Receiver = Vocab.forwardReceiver(*Call);
    if (!Receiver)
      return;
    const CXXRecordDecl *Wrapper =
        Vocab.wrapperClassOfHandle(Receiver->getType());
    if (Wrapper && wrapperSyncs(*Wrapper))
      Found = handleDecl(Receiver);
  });
  SyncingWrappers[&FD] = Found;
  return Found;
}

std::optional<CollectiveSite>
CollectiveSites::backward(const FunctionDecl &FD, const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || !tensors::isBackwardPass(*Callee))
    return std::nullopt;
  const ValueDecl *Wrapper = syncingWrapperIn(FD);
  if (!Wrapper)
    Wrapper = syncingHooksIn(FD);
  if (!Wrapper)
    return std::nullopt;
  CollectiveSite Site{CollectiveSite::Via::Backward, Callee, nullptr,
                      CollectiveKind::AllReduce};
  Site.Wrapper = Wrapper;
  return Site;
}

} // namespace clang::tidy::ddp
