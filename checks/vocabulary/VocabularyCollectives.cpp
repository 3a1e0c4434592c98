//===--- VocabularyCollectives.cpp - collectives and their handles --------===//
//
// The collectives of c10d (1.x ProcessGroup, 2.x Backend), MPI, NCCL,
// boost::mpi and the configured ones; process groups and other
// communicators; the pending work an asynchronous collective hands out,
// what waits on it, and the brackets that coalesce collectives.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"
#include "vocabulary/UserNames.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

namespace {

struct NamedCollective {
  llvm::StringLiteral Name;
  CollectiveKind Kind;
  bool Asynchronous;
};

// c10d ProcessGroup (1.x) and Backend (2.x) methods. Every c10d collective
// returns a Work, so all are asynchronous.
constexpr NamedCollective C10dCollectives[] = {
    {"allreduce", CollectiveKind::AllReduce, true},
    {"allreduce_coalesced", CollectiveKind::AllReduce, true},
    {"broadcast", CollectiveKind::Broadcast, true},
    {"allgather", CollectiveKind::AllGather, true},
    {"_allgather_base", CollectiveKind::AllGather, true},
    {"allgather_coalesced", CollectiveKind::AllGather, true},
    {"allgather_into_tensor_coalesced", CollectiveKind::AllGather, true},
    {"gather", CollectiveKind::Gather, true},
    {"scatter", CollectiveKind::Scatter, true},
    {"reduce", CollectiveKind::Reduce, true},
    {"reduce_scatter", CollectiveKind::ReduceScatter, true},
    {"_reduce_scatter_base", CollectiveKind::ReduceScatter, true},
    {"reduce_scatter_tensor_coalesced", CollectiveKind::ReduceScatter, true},
    {"alltoall", CollectiveKind::AllToAll, true},
    {"alltoall_base", CollectiveKind::AllToAll, true},
    {"barrier", CollectiveKind::Barrier, true},
};

constexpr NamedCollective MpiCollectives[] = {
    {"MPI_Allreduce", CollectiveKind::AllReduce, false},
    {"MPI_Iallreduce", CollectiveKind::AllReduce, true},
    {"MPI_Bcast", CollectiveKind::Broadcast, false},
    {"MPI_Ibcast", CollectiveKind::Broadcast, true},
    {"MPI_Allgather", CollectiveKind::AllGather, false},
    {"MPI_Allgatherv", CollectiveKind::AllGather, false},
    {"MPI_Iallgather", CollectiveKind::AllGather, true},
    {"MPI_Gather", CollectiveKind::Gather, false},
    {"MPI_Gatherv", CollectiveKind::Gather, false},
    {"MPI_Igather", CollectiveKind::Gather, true},
    {"MPI_Scatter", CollectiveKind::Scatter, false},
    {"MPI_Scatterv", CollectiveKind::Scatter, false},
    {"MPI_Iscatter", CollectiveKind::Scatter, true},
    {"MPI_Reduce", CollectiveKind::Reduce, false},
    {"MPI_Ireduce", CollectiveKind::Reduce, true},
    {"MPI_Reduce_scatter", CollectiveKind::ReduceScatter, false},
    {"MPI_Reduce_scatter_block", CollectiveKind::ReduceScatter, false},
    {"MPI_Ireduce_scatter", CollectiveKind::ReduceScatter, true},
    {"MPI_Alltoall", CollectiveKind::AllToAll, false},
    {"MPI_Alltoallv", CollectiveKind::AllToAll, false},
    {"MPI_Ialltoall", CollectiveKind::AllToAll, true},
    {"MPI_Barrier", CollectiveKind::Barrier, false},
    {"MPI_Ibarrier", CollectiveKind::Barrier, true},
};

// NCCL collectives are enqueued on a CUDA stream.
constexpr NamedCollective NcclCollectives[] = {
    {"ncclAllReduce", CollectiveKind::AllReduce, true},
    {"ncclBroadcast", CollectiveKind::Broadcast, true},
    {"ncclBcast", CollectiveKind::Broadcast, true},
    {"ncclAllGather", CollectiveKind::AllGather, true},
    {"ncclReduce", CollectiveKind::Reduce, true},
    {"ncclReduceScatter", CollectiveKind::ReduceScatter, true},
};

constexpr NamedCollective BoostMpiCollectives[] = {
    {"all_reduce", CollectiveKind::AllReduce, false},
    {"broadcast", CollectiveKind::Broadcast, false},
    {"all_gather", CollectiveKind::AllGather, false},
    {"gather", CollectiveKind::Gather, false},
    {"scatter", CollectiveKind::Scatter, false},
    {"reduce", CollectiveKind::Reduce, false},
    {"all_to_all", CollectiveKind::AllToAll, false},
    {"barrier", CollectiveKind::Barrier, false},
};

template <size_t N>
const NamedCollective *lookup(const NamedCollective (&Table)[N],
                              llvm::StringRef Name) {
  for (const NamedCollective &C : Table)
    if (C.Name == Name)
      return &C;
  return nullptr;
}

/// c10d's Work: `c10d::Work` (1.13 and 2.x) or the nested
/// `c10d::ProcessGroup::Work` of older releases.
bool isWorkClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "c10d::Work") ||
         isSameOrDerivedFrom(RD, "c10d::ProcessGroup::Work");
}

/// A function of the project's own, defined in another translation unit (or
/// pure virtual), named for a reducing collective in any spelling:
/// `allReduce`, `all_reduce`, `Allreduce_Tensor`, `allgather`,
/// `reduce_scatter_async`. Its body is out of sight, its name is what it does.
std::optional<CollectiveKind> namedCollective(const FunctionDecl &FD) {
  if (FD.isDefined())
    return std::nullopt;
  return collectives::collectiveKindOfName(FD);
}

} // namespace

bool isGlobalCFunction(const FunctionDecl &FD) {
  return !isa<CXXMethodDecl>(FD) && FD.getDeclContext()->getRedeclContext()
                                        ->isTranslationUnit();
}

std::optional<CollectiveKind>
collectives::collectiveKindOfName(const FunctionDecl &FD) {
  if (!FD.getDeclName().isIdentifier() ||
      inSystemHeader(FD) ||
      sdk::isSdkFunction(FD))
    return std::nullopt;
  std::string Name;
  for (char C : FD.getName())
    if (C != '_')
      Name += llvm::toLower(C);
  llvm::StringRef N(Name);
  // A communicator class's own methods may take the short names
  // (`comm.gather(t, 0)`, `Comm::bcast`) that elsewhere name other things
  // (a tensor's gather, an algorithm's reduce).
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&FD);
      Method && usernames::namedLikeCommunicatorClass(
                    identifierName(Method->getParent())))
    if (std::optional<CollectiveKind> Short =
            llvm::StringSwitch<std::optional<CollectiveKind>>(N)
                .Case("gather", CollectiveKind::Gather)
                .Cases("broadcast", "bcast", CollectiveKind::Broadcast)
                .Case("reduce", CollectiveKind::Reduce)
                .Case("scatter", CollectiveKind::Scatter)
                .Case("barrier", CollectiveKind::Barrier)
                .Default(std::nullopt))
      return Short;
  std::optional<CollectiveKind> Kind;
  if (N.consume_front("allreduce"))
    Kind = CollectiveKind::AllReduce;
  else if (N.consume_front("allgather"))
    Kind = CollectiveKind::AllGather;
  else if (N.consume_front("reducescatter"))
    Kind = CollectiveKind::ReduceScatter;
  // `allReduceGradients(model)` syncs a whole model: a gradient sync
  // function, not one collective.
  bool OneCollective = llvm::StringSwitch<bool>(N)
                           .Cases("", "tensor", "tensors", "async", true)
                           .Cases("inplace", "multiple", "coalesced", true)
                           .Default(false);
  return OneCollective ? Kind : std::nullopt;
}

llvm::StringRef collectiveKindName(CollectiveKind K) {
  switch (K) {
  case CollectiveKind::AllReduce: return "allreduce";
  case CollectiveKind::Broadcast: return "broadcast";
  case CollectiveKind::AllGather: return "allgather";
  case CollectiveKind::Gather: return "gather";
  case CollectiveKind::Scatter: return "scatter";
  case CollectiveKind::Reduce: return "reduce";
  case CollectiveKind::ReduceScatter: return "reduce_scatter";
  case CollectiveKind::AllToAll: return "alltoall";
  case CollectiveKind::Barrier: return "barrier";
  }
  return "collective";
}

llvm::StringRef collectiveApiName(CollectiveApi A) {
  switch (A) {
  case CollectiveApi::C10d: return "c10d";
  case CollectiveApi::Mpi: return "mpi";
  case CollectiveApi::Nccl: return "nccl";
  case CollectiveApi::BoostMpi: return "boost-mpi";
  case CollectiveApi::Configured: return "configured";
  case CollectiveApi::Named: return "named";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Collectives and process groups
//===----------------------------------------------------------------------===//

bool collectives::isProcessGroupClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "c10d::ProcessGroup") ||
         isSameOrDerivedFrom(RD, "c10d::Backend");
}

const CXXRecordDecl *collectives::processGroupOfHandle(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  return RD && collectives::isProcessGroupClass(*RD) ? RD : nullptr;
}

std::optional<CollectiveInfo>
CollectiveVocabulary::classifyCollective(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return std::nullopt;
  llvm::StringRef Name = FD->getName();

  for (const ConfiguredCollective &C : ConfiguredCollectives)
    if (C.Name.matches(*FD))
      return CollectiveInfo{C.Kind, CollectiveApi::Configured, false};
  if (std::optional<CollectiveKind> Kind = namedCollective(*FD))
    return CollectiveInfo{*Kind, CollectiveApi::Named, false};

  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    if (collectives::isProcessGroupClass(*MD->getParent()))
      if (const NamedCollective *C = lookup(C10dCollectives, Name))
        return CollectiveInfo{C->Kind, CollectiveApi::C10d, C->Asynchronous};
    if (qualifiedName(*MD->getParent()) == "boost::mpi::communicator" &&
        Name == "barrier")
      return CollectiveInfo{CollectiveKind::Barrier, CollectiveApi::BoostMpi,
                            false};
    return std::nullopt;
  }
  if (isGlobalCFunction(*FD)) {
    if (const NamedCollective *C = lookup(MpiCollectives, Name))
      return CollectiveInfo{C->Kind, CollectiveApi::Mpi, C->Asynchronous};
    if (const NamedCollective *C = lookup(NcclCollectives, Name))
      return CollectiveInfo{C->Kind, CollectiveApi::Nccl, C->Asynchronous};
    return std::nullopt;
  }
  // c10d's free helper that DDP uses to broadcast its initial state.
  if (qualifiedName(*FD) == "c10d::broadcast_coalesced")
    return CollectiveInfo{CollectiveKind::Broadcast, CollectiveApi::C10d,
                          false};
  if (qualifiedName(*FD) == ("boost::mpi::" + Name).str())
    if (const NamedCollective *C = lookup(BoostMpiCollectives, Name))
      return CollectiveInfo{C->Kind, CollectiveApi::BoostMpi, C->Asynchronous};
  return std::nullopt;
}

bool CollectiveVocabulary::isPointToPoint(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    bool Communicator = collectives::isProcessGroupClass(*MD->getParent()) ||
                        qualifiedName(*MD->getParent()) ==
                            "boost::mpi::communicator";
    return Communicator && llvm::StringSwitch<bool>(Name)
                               .Cases("send", "recv", "isend", "irecv", true)
                               .Cases("recvAnysource", "sendrecv", true)
                               .Default(false);
  }
  return isGlobalCFunction(*FD) &&
         llvm::StringSwitch<bool>(Name)
             .Cases("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", true)
             .Cases("MPI_Ssend", "MPI_Issend", "MPI_Bsend", "MPI_Rsend", true)
             .Cases("MPI_Ibsend", "MPI_Irsend", true)
             .Cases("MPI_Sendrecv", "MPI_Sendrecv_replace", true)
             .Cases("ncclSend", "ncclRecv", true)
             .Default(false);
}

std::optional<CollectiveInfo>
collectives::classifyUnresolvedCollective(const CallExpr &Call,
                                         const FunctionDecl *&Callee) {
  const auto *Lookup =
      dyn_cast_or_null<UnresolvedLookupExpr>(Call.getCallee()->IgnoreImpCasts());
  if (!Lookup || Lookup->hasExplicitTemplateArgs() ||
      !Lookup->getName().isIdentifier())
    return std::nullopt;
  // MPI's and NCCL's C functions, or boost::mpi's function templates
  // (`boost::mpi::gather(world, grads, all, 0)` with dependent values).
  const FunctionDecl *Found = nullptr;
  bool Boost = false;
  for (const NamedDecl *D : Lookup->decls()) {
    const NamedDecl *Underlying = D->getUnderlyingDecl();
    const auto *FD = dyn_cast<FunctionDecl>(Underlying);
    if (const auto *Template = dyn_cast<FunctionTemplateDecl>(Underlying)) {
      FD = Template->getTemplatedDecl();
      if (qualifiedName(*FD) != ("boost::mpi::" + FD->getName()).str())
        return std::nullopt;
      Boost = true;
      Found = Found ? Found : FD;
      continue;
    }
    if (!FD || !isGlobalCFunction(*FD) ||
        (Found && Found->getCanonicalDecl() != FD->getCanonicalDecl()))
      return std::nullopt;
    Found = FD;
  }
  if (!Found)
    return std::nullopt;
  Callee = Found;
  llvm::StringRef Name = Found->getName();
  if (Boost) {
    const NamedCollective *C = lookup(BoostMpiCollectives, Name);
    return C ? std::optional<CollectiveInfo>(CollectiveInfo{
                   C->Kind, CollectiveApi::BoostMpi, C->Asynchronous})
             : std::nullopt;
  }
  if (const NamedCollective *C = lookup(MpiCollectives, Name))
    return CollectiveInfo{C->Kind, CollectiveApi::Mpi, C->Asynchronous};
  if (const NamedCollective *C = lookup(NcclCollectives, Name))
    return CollectiveInfo{C->Kind, CollectiveApi::Nccl, C->Asynchronous};
  return std::nullopt;
}

std::optional<collectives::CommunicatorSplit>
collectives::communicatorSplit(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() ||
      !FD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return std::nullopt;
  // The colour's argument (-1: none) and the output's, by name.
  auto [ColourIndex, OutputIndex] =
      llvm::StringSwitch<std::pair<int, int>>(FD->getName())
          .Cases("MPI_Comm_split", "ncclCommSplit", {1, 3})
          .Case("MPI_Comm_split_type", {-1, 4})
          .Case("MPI_Comm_create", {-1, 2})
          .Case("MPI_Comm_create_group", {-1, 3})
          .Default({-1, -1});
  if (OutputIndex < 0 || Call.getNumArgs() <= unsigned(OutputIndex))
    return std::nullopt;
  return CommunicatorSplit{ColourIndex < 0 ? nullptr : Call.getArg(ColourIndex),
                           Call.getArg(OutputIndex)};
}

bool collectives::isCommunicatorType(QualType T) {
  if (T.isNull())
    return false;
  if (collectives::processGroupOfHandle(T))
    return true;
  T = T.getNonReferenceType();
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    const auto *TT = T->getAs<TypedefType>();
    if (!TT)
      break;
    llvm::StringRef Name = TT->getDecl()->getName();
    if (Name == "MPI_Comm" || Name == "ncclComm_t")
      return true;
    T = TT->desugar();
  }
  const CXXRecordDecl *RD = pointeeRecord(T);
  return RD && isSameOrDerivedFrom(*RD, "boost::mpi::communicator");
}

//===----------------------------------------------------------------------===//
// Pending work and coalescing
//===----------------------------------------------------------------------===//

bool collectives::isWorkType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (const auto *TT = T->getAs<TypedefType>())
    if (TT->getDecl()->getName() == "MPI_Request")
      return true;
  const CXXRecordDecl *RD = pointeeRecord(T);
  return RD && isWorkClass(*RD);
}

bool collectives::isWaitCall(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return MD->getName() == "wait" && isWorkClass(*MD->getParent());
  return isGlobalCFunction(*FD) &&
         llvm::StringSwitch<bool>(FD->getName())
             .Cases("MPI_Wait", "MPI_Waitall", "MPI_Waitany", true)
             .Cases("cudaStreamSynchronize", "cudaDeviceSynchronize", true)
             .Default(false);
}

//===----------------------------------------------------------------------===//
// SDK functions
//===----------------------------------------------------------------------===//

bool sdk::isSdkFunction(const FunctionDecl &FD) {
  if (!FD.getDeclName().isIdentifier() || !isGlobalCFunction(FD))
    return false;
  llvm::StringRef Name = FD.getName();
  if (Name.starts_with("MPI_") || Name.starts_with("PMPI_") ||
      Name.starts_with("nccl") || Name.starts_with("cuda") ||
      Name.starts_with("cublas") || Name.starts_with("cudnn"))
    return true;
  // The driver API: cuInit, cuMemAlloc, cuStreamSynchronize.
  return Name.size() > 2 && Name.starts_with("cu") && Name[2] >= 'A' && Name[2] <= 'Z';
}

bool sdk::returnsStatusOnly(const FunctionDecl &FD) {
  if (!isSdkFunction(FD))
    return false;
  QualType T = FD.getReturnType();
  if (FD.getName().starts_with("MPI_") || FD.getName().starts_with("PMPI_"))
    return T->isSpecificBuiltinType(BuiltinType::Int) &&
           FD.getName() != "MPI_Wtime";
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    const auto *TT = T->getAs<TypedefType>();
    if (!TT)
      break;
    if (llvm::StringSwitch<bool>(TT->getDecl()->getName())
            .Cases("ncclResult_t", "cudaError_t", "CUresult", true)
            .Cases("cublasStatus_t", "cudnnStatus_t", true)
            .Default(false))
      return true;
    T = TT->desugar();
  }
  if (const auto *ET = T->getAs<EnumType>())
    return ET->getDecl()->getName() == "cudaError";
  return false;
}

bool sdk::neverReturns(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD)
    return false;
  if (FD->isNoReturn())
    return true;
  return FD->getDeclName().isIdentifier() && isGlobalCFunction(*FD) &&
         (FD->getName() == "MPI_Abort" || FD->getName() == "PMPI_Abort");
}

std::optional<bool> collectives::coalescingBracket(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    if (!collectives::isProcessGroupClass(*MD->getParent()))
      return std::nullopt;
    if (Name == "startCoalescing")
      return true;
    if (Name == "endCoalescing")
      return false;
    return std::nullopt;
  }
  if (!isGlobalCFunction(*FD))
    return std::nullopt;
  if (Name == "ncclGroupStart")
    return true;
  if (Name == "ncclGroupEnd")
    return false;
  return std::nullopt;
}

const Expr *collectives::waitedObject(const CallExpr &Call) {
  if (!collectives::isWaitCall(Call))
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return Member->getImplicitObjectArgument();
  llvm::StringRef Name = Call.getDirectCallee()->getName();
  unsigned Index = (Name == "MPI_Waitall" || Name == "MPI_Waitany") ? 1 : 0;
  return Index < Call.getNumArgs() ? Call.getArg(Index) : nullptr;
}

const Expr *CollectiveVocabulary::requestArgument(const CallExpr &Call) const {
  if (collectives::mpiRequestUse(Call) == collectives::RequestUse::Starts)
    return Call.getArg(Call.getNumArgs() - 1);
  std::optional<CollectiveInfo> C = classifyCollective(Call);
  if (!C || C->Api != CollectiveApi::Mpi || !C->Asynchronous ||
      Call.getNumArgs() == 0)
    return nullptr;
  return Call.getArg(Call.getNumArgs() - 1);
}

} // namespace clang::tidy::ddp
