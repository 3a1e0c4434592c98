//===--- Vocabulary.cpp - LibTorch and c10d as the ddp checks see them ----===//

#include "Vocabulary.h"
#include "utils/AstWalk.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/StringExtras.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

namespace {

// Defaults of the shared options (docs/architecture.md lists them).
constexpr llvm::StringLiteral DefaultWrapperTypes =
    "DistributedDataParallel;DistributedDataParallelImpl;DDP;*DDP*";
constexpr llvm::StringLiteral DefaultInnerModuleAccessors =
    "module;module_;get_module;underlying_module";
constexpr llvm::StringLiteral DefaultRankFunctions =
    "::c10d::ProcessGroup::getRank;::c10d::Backend::getRank;"
    "::boost::mpi::communicator::rank;MPI_Comm_rank@1;ncclCommUserRank@1";
constexpr llvm::StringLiteral DefaultRankEnvironmentVariables =
    "RANK;LOCAL_RANK;GROUP_RANK;OMPI_COMM_WORLD_RANK;"
    "OMPI_COMM_WORLD_LOCAL_RANK;PMI_RANK;PMIX_RANK;SLURM_PROCID;SLURM_LOCALID";
constexpr llvm::StringLiteral DefaultShufflingSamplers =
    "::torch::data::samplers::DistributedRandomSampler";
constexpr llvm::StringLiteral DefaultWorldSizeFunctions =
    "::c10d::ProcessGroup::getSize;::c10d::Backend::getSize;"
    "::boost::mpi::communicator::size;MPI_Comm_size@1;ncclCommCount@1";
constexpr llvm::StringLiteral DefaultWorldSizeEnvironmentVariables =
    "WORLD_SIZE;OMPI_COMM_WORLD_SIZE;PMI_SIZE;SLURM_NTASKS";
constexpr llvm::StringLiteral DefaultOptimizerTypes =
    "::torch::optim::Optimizer;::torch::optim::LossClosureOptimizer";
constexpr llvm::StringLiteral DefaultGradientSyncFunctions =
    "*[Rr]educe*[Gg]rad*;*[Ss]ync*[Gg]rad*;*[Aa]verage*[Gg]rad*;"
    "*[Aa]vg*[Gg]rad*";

std::vector<llvm::StringRef> splitList(llvm::StringRef Spec) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Spec.split(Parts, ';', -1, /*KeepEmpty=*/false);
  std::vector<llvm::StringRef> Out;
  for (llvm::StringRef P : Parts)
    if (!(P = P.trim()).empty())
      Out.push_back(P);
  return Out;
}

std::string qualifiedName(const NamedDecl &D) {
  return D.getQualifiedNameAsString();
}

/// Whether RD is the class named QualName (no leading `::`; for templates,
/// any specialization) or derives from it.
bool isSameOrDerivedFrom(const CXXRecordDecl &RD, llvm::StringRef QualName) {
  if (qualifiedName(RD) == QualName)
    return true;
  const CXXRecordDecl *Def = RD.getDefinition();
  if (!Def)
    return false;
  bool Found = false;
  Def->forallBases([&](const CXXRecordDecl *Base) {
    if (qualifiedName(*Base) == QualName)
      Found = true;
    return !Found;
  });
  return Found;
}

/// The specialization of class template QualName that RD is or derives from.
const ClassTemplateSpecializationDecl *
findSpecialization(const CXXRecordDecl *RD, llvm::StringRef QualName) {
  if (!RD)
    return nullptr;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    if (qualifiedName(*Spec) == QualName)
      return Spec;
  const CXXRecordDecl *Def = RD->getDefinition();
  if (!Def)
    return nullptr;
  for (const CXXBaseSpecifier &Base : Def->bases())
    if (const auto *Found = findSpecialization(
            Base.getType()->getAsCXXRecordDecl(), QualName))
      return Found;
  return nullptr;
}

/// Whether Names matches RD or one of its bases.
bool matchesSelfOrBase(const NameList &Names, const CXXRecordDecl &RD) {
  if (Names.matches(RD))
    return true;
  const CXXRecordDecl *Def = RD.getDefinition();
  if (!Def)
    return false;
  bool Found = false;
  Def->forallBases([&](const CXXRecordDecl *Base) {
    Found = Names.matches(*Base);
    return !Found;
  });
  return Found;
}

const CXXRecordDecl *templateArgumentRecord(const ClassTemplateSpecializationDecl &Spec,
                                            unsigned Index) {
  const TemplateArgumentList &Args = Spec.getTemplateArgs();
  if (Index >= Args.size() || Args[Index].getKind() != TemplateArgument::Type)
    return nullptr;
  return Args[Index].getAsType()->getAsCXXRecordDecl();
}

} // namespace

const CXXRecordDecl *pointeeRecord(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>())
    T = PT->getPointeeType();
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD)) {
    std::string Name = qualifiedName(*Spec);
    if (Name == "std::shared_ptr" || Name == "std::unique_ptr" ||
        Name == "c10::intrusive_ptr")
      return templateArgumentRecord(*Spec, 0);
  }
  return RD;
}

namespace {

const CXXRecordDecl *objectRecord(const Expr *Object) {
  return Object ? pointeeRecord(Object->getType()) : nullptr;
}

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

std::optional<CollectiveKind> parseKind(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<CollectiveKind>>(Name.lower())
      .Cases("allreduce", "all_reduce", CollectiveKind::AllReduce)
      .Case("broadcast", CollectiveKind::Broadcast)
      .Cases("allgather", "all_gather", CollectiveKind::AllGather)
      .Case("gather", CollectiveKind::Gather)
      .Case("scatter", CollectiveKind::Scatter)
      .Case("reduce", CollectiveKind::Reduce)
      .Cases("reduce_scatter", "reducescatter", CollectiveKind::ReduceScatter)
      .Cases("alltoall", "all_to_all", CollectiveKind::AllToAll)
      .Case("barrier", CollectiveKind::Barrier)
      .Default(std::nullopt);
}

/// c10d's Work: `c10d::Work` (1.13 and 2.x) or the nested
/// `c10d::ProcessGroup::Work` of older releases.
bool isWorkClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "c10d::Work") ||
         isSameOrDerivedFrom(RD, "c10d::ProcessGroup::Work");
}

/// `name[@N]` entries: @N means the value is written through argument N.
template <typename QueryFunction>
std::vector<QueryFunction> parseQueryFunctions(llvm::StringRef Spec) {
  std::vector<QueryFunction> Out;
  for (llvm::StringRef Entry : splitList(Spec)) {
    auto [Name, Arg] = Entry.split('@');
    int OutputArgument = -1;
    if (!Arg.empty() && Arg.trim().getAsInteger(10, OutputArgument))
      continue;
    Out.push_back({NameList(Name.trim()), OutputArgument});
  }
  return Out;
}

std::vector<std::string> parseStrings(llvm::StringRef Spec) {
  std::vector<std::string> Out;
  for (llvm::StringRef Var : splitList(Spec))
    Out.push_back(Var.str());
  return Out;
}

template <typename QueryFunction>
bool returnsQueried(const std::vector<QueryFunction> &Functions,
                    const FunctionDecl &FD) {
  for (const QueryFunction &F : Functions)
    if (F.OutputArgument < 0 && F.Name.matches(FD))
      return true;
  return false;
}

template <typename QueryFunction>
const Expr *queriedOutputArgument(const std::vector<QueryFunction> &Functions,
                                  const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return nullptr;
  for (const QueryFunction &F : Functions)
    if (F.OutputArgument >= 0 &&
        static_cast<unsigned>(F.OutputArgument) < Call.getNumArgs() &&
        F.Name.matches(*FD))
      return Call.getArg(F.OutputArgument);
  return nullptr;
}

/// The string literal a call's argument \p I spells, if it is one.
std::optional<llvm::StringRef> stringArgument(const CallExpr &Call, unsigned I) {
  if (I >= Call.getNumArgs())
    return std::nullopt;
  const Expr *Arg = stripObjectWrappers(Call.getArg(I));
  if (const auto *Ctor = dyn_cast_or_null<CXXConstructExpr>(Arg))
    if (Ctor->getNumArgs() >= 1) // std::string("WORLD_SIZE")
      Arg = Ctor->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Lit = dyn_cast_or_null<StringLiteral>(Arg))
    return Lit->getString();
  return std::nullopt;
}

bool isGlobalCFunction(const FunctionDecl &FD) {
  return !isa<CXXMethodDecl>(FD) && FD.getDeclContext()->getRedeclContext()
                                        ->isTranslationUnit();
}

bool isUpperAscii(char C) { return C >= 'A' && C <= 'Z'; }
bool isLowerAscii(char C) { return C >= 'a' && C <= 'z'; }

/// The lower-case words of an identifier: `local_rank`, `localRank` and
/// `LOCAL_RANK` all give {local, rank}; `m_rank_` gives {m, rank}.
llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words;
  std::string Current;
  auto Flush = [&] {
    if (!Current.empty())
      Words.push_back(std::move(Current));
    Current.clear();
  };
  for (size_t I = 0; I < Name.size(); ++I) {
    char C = Name[I];
    if (C == '_') {
      Flush();
      continue;
    }
    // A new word starts at an upper-case letter that follows a lower-case
    // letter or a digit (`myRank`), or that starts a capitalised word after
    // an acronym (`MPIRank` -> mpi, rank).
    if (isUpperAscii(C) && !Current.empty() &&
        (!isUpperAscii(Name[I - 1]) ||
         (I + 1 < Name.size() && isLowerAscii(Name[I + 1]))))
      Flush();
    Current.push_back(llvm::toLower(C));
  }
  Flush();
  return Words;
}

bool isBoolType(QualType T) {
  return !T.isNull() && T.getNonReferenceType()->isBooleanType();
}

} // namespace

//===----------------------------------------------------------------------===//
// NameList
//===----------------------------------------------------------------------===//

NameList::NameList(llvm::StringRef Spec) : Spec(Spec.str()) {
  for (llvm::StringRef Entry : splitList(Spec)) {
    bool Qualified = Entry.contains("::");
    Entry.consume_front("::");
    if (auto Pattern = llvm::GlobPattern::create(Entry))
      Entries.push_back({std::move(*Pattern), Qualified});
    else
      llvm::consumeError(Pattern.takeError());
  }
}

bool NameList::matchesName(llvm::StringRef Unqualified,
                           llvm::StringRef Qualified) const {
  for (const Entry &E : Entries)
    if (E.Pattern.match(E.Qualified ? Qualified : Unqualified))
      return true;
  return false;
}

bool NameList::matches(const NamedDecl &D) const {
  if (Entries.empty() || !D.getDeclName().isIdentifier())
    return false;
  return matchesName(D.getName(), qualifiedName(D));
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
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

Vocabulary::Vocabulary(ClangTidyCheck::OptionsView &Options)
    : WrapperTypes(Options.getLocalOrGlobal("WrapperTypes",
                                            DefaultWrapperTypes)),
      InnerModuleAccessors(Options.getLocalOrGlobal(
          "InnerModuleAccessors", DefaultInnerModuleAccessors)),
      CollectiveFunctionsSpec(
          Options.getLocalOrGlobal("CollectiveFunctions", "").str()),
      RankFunctionsSpec(
          Options.getLocalOrGlobal("RankFunctions", DefaultRankFunctions)
              .str()),
      RankEnvironmentVariablesSpec(
          Options
              .getLocalOrGlobal("RankEnvironmentVariables",
                                DefaultRankEnvironmentVariables)
              .str()),
      RankVariables(Options.getLocalOrGlobal("RankVariables", "")),
      WorldSizeFunctionsSpec(Options
                                 .getLocalOrGlobal("WorldSizeFunctions",
                                                   DefaultWorldSizeFunctions)
                                 .str()),
      WorldSizeEnvironmentVariablesSpec(
          Options
              .getLocalOrGlobal("WorldSizeEnvironmentVariables",
                                DefaultWorldSizeEnvironmentVariables)
              .str()),
      OptimizerTypes(
          Options.getLocalOrGlobal("OptimizerTypes", DefaultOptimizerTypes)),
      GradientSyncFunctions(Options.getLocalOrGlobal(
          "GradientSyncFunctions", DefaultGradientSyncFunctions)),
      ShufflingSamplers(Options.getLocalOrGlobal("ShufflingSamplers",
                                                 DefaultShufflingSamplers)) {
  // `name[=kind]`: kind defaults to allreduce (a framework's `sum`).
  for (llvm::StringRef Entry : splitList(CollectiveFunctionsSpec)) {
    auto [Name, KindName] = Entry.split('=');
    std::optional<CollectiveKind> Kind =
        KindName.empty() ? CollectiveKind::AllReduce : parseKind(KindName.trim());
    if (Kind)
      ConfiguredCollectives.push_back({NameList(Name.trim()), *Kind});
  }
  RankFunctions = parseQueryFunctions<QueryFunction>(RankFunctionsSpec);
  RankEnvironmentVariables = parseStrings(RankEnvironmentVariablesSpec);
  WorldSizeFunctions = parseQueryFunctions<QueryFunction>(WorldSizeFunctionsSpec);
  WorldSizeEnvironmentVariables =
      parseStrings(WorldSizeEnvironmentVariablesSpec);
}

void Vocabulary::storeOptions(ClangTidyCheck::OptionsView &Options,
                              ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "WrapperTypes", WrapperTypes.spec());
  Options.store(Opts, "InnerModuleAccessors", InnerModuleAccessors.spec());
  Options.store(Opts, "CollectiveFunctions", CollectiveFunctionsSpec);
  Options.store(Opts, "RankFunctions", RankFunctionsSpec);
  Options.store(Opts, "RankEnvironmentVariables",
                RankEnvironmentVariablesSpec);
  Options.store(Opts, "RankVariables", RankVariables.spec());
  Options.store(Opts, "WorldSizeFunctions", WorldSizeFunctionsSpec);
  Options.store(Opts, "WorldSizeEnvironmentVariables",
                WorldSizeEnvironmentVariablesSpec);
  Options.store(Opts, "OptimizerTypes", OptimizerTypes.spec());
  Options.store(Opts, "GradientSyncFunctions", GradientSyncFunctions.spec());
  Options.store(Opts, "ShufflingSamplers", ShufflingSamplers.spec());
}

//===----------------------------------------------------------------------===//
// Shared AST helpers
//===----------------------------------------------------------------------===//

const Expr *stripObjectWrappers(const Expr *E) {
  while (E) {
    const Expr *Before = E;
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *C = dyn_cast<ExprWithCleanups>(E))
      E = C->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      E = F->getSubExpr();
    else if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      if (Ctor->getNumArgs() == 1 &&
          Ctor->getConstructor()->isCopyOrMoveConstructor())
        E = Ctor->getArg(0);
    } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (Call->isCallToStdMove() || (Call->getDirectCallee() &&
                                      Call->getDirectCallee()->getQualifiedNameAsString() ==
                                          "std::forward"))
        if (Call->getNumArgs() == 1)
          E = Call->getArg(0);
    }
    if (E == Before)
      return E;
  }
  return E;
}

llvm::StringRef spelledCalleeName(const CallExpr &Call) {
  if (const FunctionDecl *FD = Call.getDirectCallee())
    return identifierName(FD);
  const Expr *Callee = Call.getCallee()->IgnoreParenImpCasts();
  DeclarationName Name;
  if (const auto *Overloads = dyn_cast<OverloadExpr>(Callee))
    Name = Overloads->getName(); // unresolved lookups and members
  else if (const auto *Dependent = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    Name = Dependent->getMember();
  // An empty name counts as an identifier: ask for the identifier itself.
  const IdentifierInfo *Identifier = Name.getAsIdentifierInfo();
  return Identifier ? Identifier->getName() : "";
}

std::optional<RecoveredCall> recoveredCall(const RecoveryExpr &E) {
  llvm::ArrayRef<const Expr *> Parts = E.subExpressions();
  const auto *Callee =
      Parts.empty() ? nullptr : dyn_cast<UnresolvedLookupExpr>(Parts[0]);
  if (!Callee || !Callee->getName().getAsIdentifierInfo())
    return std::nullopt;
  RecoveredCall Call;
  Call.Name = Callee->getName().getAsIdentifierInfo()->getName();
  Call.Arguments = Parts.drop_front();
  for (const NamedDecl *D : Callee->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D->getUnderlyingDecl()))
      if (FD->getNumParams() == Call.Arguments.size())
        Call.Candidates.push_back(FD);
  if (Call.Candidates.empty())
    return std::nullopt;
  return Call;
}

bool nameContainsAny(llvm::StringRef Name,
                     llvm::ArrayRef<llvm::StringLiteral> Parts) {
  std::string Lower = Name.lower();
  return llvm::any_of(Parts, [&](llvm::StringLiteral Part) {
    return llvm::StringRef(Lower).contains(Part);
  });
}

const ValueDecl *referencedDecl(const Expr *E) {
  E = stripObjectWrappers(E);
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      return ME->getMemberDecl();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

bool Vocabulary::isModuleClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "torch::nn::Module");
}

const CXXRecordDecl *Vocabulary::moduleClassOfHandle(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return nullptr;
  if (const auto *Holder = findSpecialization(RD, "torch::nn::ModuleHolder"))
    RD = templateArgumentRecord(*Holder, 0);
  return RD && isModuleClass(*RD) ? RD : nullptr;
}

const Expr *peelHandle(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = Member->getMethodDecl();
      if (MD && MD->getDeclName().isIdentifier() &&
          (MD->getName() == "ptr" || MD->getName() == "get")) {
        E = Member->getImplicitObjectArgument();
        continue;
      }
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      OverloadedOperatorKind K = Op->getOperator();
      if ((K == OO_Star || K == OO_Arrow) && Op->getNumArgs() >= 1) {
        E = Op->getArg(0);
        continue;
      }
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      if (Unary->getOpcode() == UO_Deref || Unary->getOpcode() == UO_AddrOf) {
        E = Unary->getSubExpr();
        continue;
      }
    }
    return E;
  }
  return E;
}

const ValueDecl *handleDecl(const Expr *E) {
  return referencedDecl(peelHandle(E));
}

const Expr *Vocabulary::forwardReceiver(const CallExpr &Call) const {
  auto IsModuleOrWrapper = [&](const Expr *Object) {
    if (!Object)
      return false;
    if (moduleClassOfHandle(Object->getType()) ||
        wrapperClassOfHandle(Object->getType()))
      return true;
    const CXXRecordDecl *RD = objectRecord(Object);
    return RD && findSpecialization(RD, "torch::nn::ModuleHolder");
  };
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    const Expr *Object = Member->getImplicitObjectArgument();
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "forward" &&
        IsModuleOrWrapper(Object))
      return Object;
    return nullptr;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
    if (Op->getOperator() == OO_Call && Op->getNumArgs() >= 1 &&
        IsModuleOrWrapper(Op->getArg(0)))
      return Op->getArg(0);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Module lifecycle
//===----------------------------------------------------------------------===//

namespace {
/// A call of a module method named one of \p Names: its object, or null.
const Expr *moduleMethodReceiver(const CallExpr &Call,
                                 llvm::ArrayRef<llvm::StringRef> Names,
                                 const CXXMethodDecl **Method = nullptr) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() ||
      !llvm::is_contained(Names, MD->getName()) ||
      !Vocabulary::isModuleClass(*MD->getParent()))
    return nullptr;
  if (Method)
    *Method = MD;
  return Member->getImplicitObjectArgument();
}
} // namespace

const Expr *Vocabulary::moduleMoveReceiver(const CallExpr &Call,
                                           const CXXMethodDecl **Method) {
  return moduleMethodReceiver(Call, {"to"}, Method);
}

const Expr *Vocabulary::structuralChangeReceiver(const CallExpr &Call) {
  return moduleMethodReceiver(Call, {"register_module", "register_parameter",
                                     "register_buffer", "replace_module"});
}

const CXXDependentScopeMemberExpr *
Vocabulary::dependentMemberCall(const CallExpr &Call) {
  return dyn_cast<CXXDependentScopeMemberExpr>(
      Call.getCallee()->IgnoreParenImpCasts());
}

const Expr *Vocabulary::memberCallObject(const CallExpr &Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return Member->getImplicitObjectArgument();
  if (const CXXDependentScopeMemberExpr *Dependent = dependentMemberCall(Call))
    return Dependent->isImplicitAccess() ? nullptr : Dependent->getBase();
  // A known object with dependent arguments: `grads.push_back(p.grad())`.
  if (const auto *Unresolved = dyn_cast<UnresolvedMemberExpr>(
          Call.getCallee()->IgnoreParenImpCasts()))
    return Unresolved->isImplicitAccess() ? nullptr : Unresolved->getBase();
  return nullptr;
}

namespace {
/// The member a call left dependent in a template names (`x.backward()` on
/// an `auto x` computed from a `Model`), or "".
llvm::StringRef dependentMemberName(const CallExpr &Call) {
  return Vocabulary::dependentMemberCall(Call) ? spelledCalleeName(Call) : "";
}
} // namespace

bool Vocabulary::isBackwardCall(const CallExpr &Call) {
  if (dependentMemberName(Call) == "backward")
    return true;
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || FD->getName() != "backward")
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isSameOrDerivedFrom(*MD->getParent(), "at::Tensor") ||
           isSameOrDerivedFrom(*MD->getParent(), "at::TensorBase");
  return qualifiedName(*FD) == "torch::autograd::backward";
}

const Expr *Vocabulary::inPlaceChangeTarget(const Expr &E) {
  // `t.data() = value`, `t.data() += x`, `t += x`: assignments that write
  // into the tensor (a plain `t = x` rebinds the handle instead).
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&E)) {
    OverloadedOperatorKind K = Op->getOperator();
    bool Compound = K == OO_PlusEqual || K == OO_MinusEqual ||
                    K == OO_StarEqual || K == OO_SlashEqual;
    if ((K != OO_Equal && !Compound) || Op->getNumArgs() != 2)
      return nullptr;
    const Expr *Lhs = stripObjectWrappers(Op->getArg(0));
    if (const auto *Data = dyn_cast<CXXMemberCallExpr>(Lhs))
      if (Data->getMethodDecl() &&
          Data->getMethodDecl()->getDeclName().isIdentifier() &&
          Data->getMethodDecl()->getName() == "data" &&
          isTensor(Data->getImplicitObjectArgument()->getType()))
        return Data->getImplicitObjectArgument();
    return Compound && isTensor(Lhs->getType()) ? Lhs : nullptr;
  }
  const auto *Call = dyn_cast<CallExpr>(&E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getDeclName().isIdentifier())
    return nullptr;
  llvm::StringRef Name = FD->getName();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXRecordDecl *RD = Member->getMethodDecl()->getParent();
    bool OnTensor = isSameOrDerivedFrom(*RD, "at::Tensor") ||
                    isSameOrDerivedFrom(*RD, "at::TensorBase");
    bool InPlace = llvm::StringSwitch<bool>(Name)
                       .Cases("add_", "sub_", "mul_", "div_", "copy_", true)
                       .Cases("fill_", "zero_", "set_data", "set_", true)
                       .Cases("normal_", "uniform_", "bernoulli_", "random_",
                              true)
                       .Cases("clamp_", "mul_", "addcmul_", "lerp_", true)
                       .Default(false);
    return OnTensor && InPlace ? Member->getImplicitObjectArgument() : nullptr;
  }
  if (llvm::StringRef(qualifiedName(*FD)).startswith("torch::nn::init::") &&
      Call->getNumArgs() >= 1)
    return Call->getArg(0);
  return nullptr;
}

const Expr *Vocabulary::seedArgument(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || Call.getNumArgs() != 1)
    return nullptr;
  std::string Name = qualifiedName(*FD);
  bool Seed = Name == "torch::manual_seed" || Name == "at::manual_seed" ||
              Name == "torch::cuda::manual_seed" ||
              Name == "torch::cuda::manual_seed_all";
  return Seed ? Call.getArg(0) : nullptr;
}

const Expr *Vocabulary::moduleLoadTarget(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || qualifiedName(*FD) != "torch::load" || Call.getNumArgs() < 1)
    return nullptr;
  const Expr *Target = Call.getArg(0);
  return moduleClassOfHandle(Target->getType()) ? Target : nullptr;
}

bool Vocabulary::isRandomSource(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  std::string Qualified = qualifiedName(*FD);
  if (llvm::StringRef(Qualified).startswith("torch::nn::init::"))
    return Name != "constant_" && Name != "zeros_" && Name != "ones_" &&
           Name != "eye_" && Name != "dirac_";
  if (isa<CXXMethodDecl>(FD))
    return llvm::StringSwitch<bool>(Name)
        .Cases("normal_", "uniform_", "bernoulli_", "random_",
               "exponential_", true)
        .Default(false);
  bool InTorch = llvm::StringRef(Qualified).startswith("torch::") ||
                 llvm::StringRef(Qualified).startswith("at::");
  return InTorch && llvm::StringSwitch<bool>(Name)
                        .Cases("rand", "randn", "randint", "randperm", true)
                        .Cases("rand_like", "randn_like", "randint_like",
                               true)
                        .Cases("bernoulli", "normal", "multinomial", true)
                        .Default(false);
}

bool Vocabulary::isTensor(QualType T) {
  const CXXRecordDecl *RD = T.isNull() ? nullptr
                                       : T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && qualifiedName(*RD) == "at::Tensor";
}

bool Vocabulary::isPointerLikeHandle(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  std::string Name = qualifiedName(*RD);
  return Name == "std::shared_ptr" || Name == "std::unique_ptr" ||
         Name == "c10::intrusive_ptr" ||
         findSpecialization(RD, "torch::nn::ModuleHolder") != nullptr;
}

//===----------------------------------------------------------------------===//
// Parameters and gradients
//===----------------------------------------------------------------------===//

std::optional<ParameterCollection>
Vocabulary::parameterCollection(const CallExpr &Call) {
  // In a template, on a module of dependent type (`model_->parameters()` in
  // `Trainer<Model>`): the name alone.
  llvm::StringRef Dependent = dependentMemberName(Call);
  if (Dependent == "parameters" && Call.getNumArgs() <= 1)
    return ParameterCollection::Parameters;
  if (Dependent == "named_parameters" && Call.getNumArgs() <= 1)
    return ParameterCollection::NamedParameters;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return std::nullopt;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() || !isModuleClass(*MD->getParent()))
    return std::nullopt;
  if (MD->getName() == "parameters")
    return ParameterCollection::Parameters;
  if (MD->getName() == "named_parameters")
    return ParameterCollection::NamedParameters;
  return std::nullopt;
}

bool Vocabulary::isGradAccess(const CallExpr &Call) {
  llvm::StringRef Dependent = dependentMemberName(Call);
  if ((Dependent == "grad" || Dependent == "mutable_grad") &&
      Call.getNumArgs() == 0)
    return true;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() ||
      (MD->getName() != "grad" && MD->getName() != "mutable_grad"))
    return false;
  return isSameOrDerivedFrom(*MD->getParent(), "at::TensorBase") ||
         isSameOrDerivedFrom(*MD->getParent(), "at::Tensor");
}

const VarDecl *Vocabulary::parameterLoopVariable(const CXXForRangeStmt &Loop) {
  const Expr *Range = stripObjectWrappers(Loop.getRangeInit());
  const auto *Call = dyn_cast_or_null<CallExpr>(Range);
  if (!Call || !parameterCollection(*Call))
    return nullptr;
  return Loop.getLoopVariable();
}

namespace {
/// `c` in `i < c.size()` when `c` is a parameter collection, or a local
/// initialized from one; null otherwise.
const Expr *sizeBoundCollection(const Expr *Cond) {
  const Expr *Found = nullptr;
  containsWhere(Cond, [&](const Stmt *S) {
    const auto *Size = dyn_cast<CXXMemberCallExpr>(S);
    if (!Size || identifierName(Size->getMethodDecl()) != "size")
      return false;
    const Expr *Object = stripObjectWrappers(Size->getImplicitObjectArgument());
    const Expr *Source = Object;
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Object))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasLocalStorage() && Var->getInit())
        Source = stripObjectWrappers(Var->getInit());
    const auto *Call = dyn_cast_or_null<CallExpr>(Source);
    if (!Call || !Vocabulary::parameterCollection(*Call))
      return false;
    Found = Object;
    return true;
  });
  return Found;
}

/// Whether \p S reads one of \p Vars, other than to ask whether it is
/// defined (`if (!p.defined()) continue;` skips nothing that could differ).
bool readsAny(const Stmt *S, llvm::ArrayRef<const Decl *> Vars) {
  if (!S)
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S);
      Member && identifierName(Member->getMethodDecl()) == "defined")
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
            stripObjectWrappers(Member->getImplicitObjectArgument()));
        Ref && llvm::is_contained(Vars, Ref->getDecl()))
      return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
      Ref && llvm::is_contained(Vars, Ref->getDecl()))
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return readsAny(Child, Vars); });
}

/// What one iteration of a parameter loop's body does as far as some target
/// statements go: runs one of them for sure, may end early without one
/// (a `continue` or `break` picked by a condition on the parameter), or
/// neither.
enum class Iteration { Neutral, Covered, Escapes };

/// Walks a parameter loop's body in evaluation order. A condition that reads
/// the loop's variables picks parameters, so its worse branch counts; one
/// that is the same for every parameter (`if (world_size == 1) continue;`)
/// is taken to go the same way for all of them, so its better branch
/// counts. Leaving the function (`return`, `throw`) ends the training
/// too, so it is not a skip.
class CoverageWalk {
public:
  CoverageWalk(llvm::function_ref<bool(const Stmt &)> IsTarget,
               llvm::ArrayRef<const Decl *> Vars)
      : IsTarget(IsTarget), Vars(Vars) {}

  Iteration walk(const Stmt *S, bool InLoop = false, bool InSwitch = false) {
    if (!S || isa<LambdaExpr>(S))
      return Iteration::Neutral;
    if (IsTarget(*S))
      return Iteration::Covered;
    if (isa<ContinueStmt>(S))
      return InLoop ? Iteration::Neutral : Iteration::Escapes;
    if (isa<BreakStmt>(S))
      return InLoop || InSwitch ? Iteration::Neutral : Iteration::Escapes;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      Iteration First = sequence({If->getInit(), If->getConditionVariableDeclStmt(),
                                  If->getCond()},
                                 InLoop, InSwitch);
      if (First != Iteration::Neutral)
        return First;
      return branch(If->getCond(), walk(If->getThen(), InLoop, InSwitch),
                    walk(If->getElse(), InLoop, InSwitch));
    }
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(S)) {
      if (Iteration First = walk(Cond->getCond(), InLoop, InSwitch);
          First != Iteration::Neutral)
        return First;
      return branch(Cond->getCond(), walk(Cond->getTrueExpr(), InLoop, InSwitch),
                    walk(Cond->getFalseExpr(), InLoop, InSwitch));
    }
    if (const auto *Logical = dyn_cast<BinaryOperator>(S);
        Logical && Logical->isLogicalOp()) {
      if (Iteration First = walk(Logical->getLHS(), InLoop, InSwitch);
          First != Iteration::Neutral)
        return First;
      return branch(Logical->getLHS(), walk(Logical->getRHS(), InLoop, InSwitch),
                    Iteration::Neutral);
    }
    if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
      if (Iteration First = walk(Switch->getCond(), InLoop, InSwitch);
          First != Iteration::Neutral)
        return First;
      // Its cases may skip what any one of them does: only a `continue`
      // picked by the parameter counts.
      Iteration Body = walk(Switch->getBody(), InLoop, /*InSwitch=*/true);
      return Body == Iteration::Escapes && readsAny(Switch->getCond(), Vars)
                 ? Iteration::Escapes
                 : Iteration::Neutral;
    }
    if (const auto *Do = dyn_cast<DoStmt>(S))
      return walk(Do->getBody(), /*InLoop=*/true, false); // runs at least once
    if (isa<ForStmt, WhileStmt, CXXForRangeStmt>(S))
      return Iteration::Neutral; // may run zero times; its jumps stay in it
    llvm::SmallVector<const Stmt *, 8> Children(S->child_begin(), S->child_end());
    return sequence(Children, InLoop, InSwitch);
  }

private:
  Iteration sequence(llvm::ArrayRef<const Stmt *> Parts, bool InLoop,
                     bool InSwitch) {
    for (const Stmt *Part : Parts)
      if (Iteration R = walk(Part, InLoop, InSwitch); R != Iteration::Neutral)
        return R;
    return Iteration::Neutral;
  }

  Iteration branch(const Expr *Cond, Iteration Then, Iteration Else) const {
    if (Then == Else)
      return Then;
    auto Rank = [](Iteration I) {
      return I == Iteration::Escapes ? 0 : I == Iteration::Neutral ? 1 : 2;
    };
    bool Worse = readsAny(Cond, Vars);
    return (Rank(Then) < Rank(Else)) == Worse ? Then : Else;
  }

  llvm::function_ref<bool(const Stmt &)> IsTarget;
  llvm::ArrayRef<const Decl *> Vars;
};

/// The variables a parameter loop binds per iteration: the range loop's
/// variable (and its structured bindings), or the index loop's counter (the
/// integer its increment steps).
llvm::SmallVector<const Decl *, 4> iterationVariables(const Stmt &Loop) {
  llvm::SmallVector<const Decl *, 4> Vars;
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop)) {
    if (const VarDecl *Var = Range->getLoopVariable()) {
      Vars.push_back(Var);
      if (const auto *Decomposition = dyn_cast<DecompositionDecl>(Var))
        for (const BindingDecl *B : Decomposition->bindings())
          Vars.push_back(B);
    }
  } else if (const auto *For = dyn_cast<ForStmt>(&Loop)) {
    containsWhere(For->getInc(), [&](const Stmt *X) {
      const auto *Ref = dyn_cast<DeclRefExpr>(X);
      if (Ref && isa<VarDecl>(Ref->getDecl()) &&
          Ref->getType()->isIntegerType() &&
          !llvm::is_contained(Vars, Ref->getDecl()))
        Vars.push_back(Ref->getDecl());
      return false;
    });
  }
  return Vars;
}

/// Whether \p S works on this iteration's parameter: it reads the loop's
/// variables, or a local of the body initialised from them
/// (`std::vector<torch::Tensor> one{p.data()}; pg->broadcast(one)`).
bool concernsIteration(const Stmt &S, const Stmt &Body,
                       llvm::ArrayRef<const Decl *> Vars) {
  llvm::SmallVector<const Decl *, 8> Derived(Vars.begin(), Vars.end());
  containsWhere(&Body, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && readsAny(Var->getInit(), Derived))
          Derived.push_back(Var);
    return false;
  });
  return readsAny(&S, Derived);
}

} // namespace

ParameterLoop Vocabulary::enclosingParameterLoop(const Stmt &S,
                                                 ASTContext &Context) {
  DynTypedNode Child = DynTypedNode::create(S);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Child);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      return {};
    DynTypedNode Node = Parents[0];
    const Stmt *From = Child.get<Stmt>();
    if (const auto *Range = Node.get<CXXForRangeStmt>();
        Range && From == Range->getBody() && parameterLoopVariable(*Range))
      return {Range, Range->getRangeInit(), Range->getBody()};
    if (const auto *For = Node.get<ForStmt>();
        For && From == For->getBody() && For->getCond())
      if (const Expr *Collection = sizeBoundCollection(For->getCond()))
        return {For, Collection, For->getBody()};
    Child = Node;
  }
  return {};
}

bool Vocabulary::skipsSomeParameters(
    const ParameterLoop &Loop, const Stmt &S,
    llvm::function_ref<bool(const Stmt &)> AlsoCovers) {
  if (!Loop.Loop)
    return false;
  llvm::SmallVector<const Decl *, 4> Vars = iterationVariables(*Loop.Loop);
  auto IsTarget = [&](const Stmt &N) {
    return &N == &S || (AlsoCovers && AlsoCovers(N));
  };
  CoverageWalk Walk(IsTarget, Vars);
  return Walk.walk(Loop.Body) != Iteration::Covered &&
         concernsIteration(S, *Loop.Body, Vars);
}

const VarDecl *Vocabulary::parameterTensorVariable(const Expr *E) {
  E = stripObjectWrappers(E);
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "value")
      E = stripObjectWrappers(Member->getImplicitObjectArgument());
  }
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Training steps
//===----------------------------------------------------------------------===//

const Expr *Vocabulary::backwardRoot(const CallExpr &Call) {
  if (dependentMemberName(Call) == "backward")
    return memberCallObject(Call);
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || FD->getName() != "backward")
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXRecordDecl *Class = Member->getMethodDecl()->getParent();
    if (isSameOrDerivedFrom(*Class, "at::TensorBase") ||
        isSameOrDerivedFrom(*Class, "at::Tensor"))
      return Member->getImplicitObjectArgument();
    return nullptr;
  }
  if (qualifiedName(*FD) == "torch::autograd::backward" && Call.getNumArgs() >= 1)
    return Call.getArg(0);
  return nullptr;
}

bool Vocabulary::isOptimizerClass(const CXXRecordDecl &RD) const {
  return matchesSelfOrBase(OptimizerTypes, RD);
}

bool Vocabulary::isOptimizerStep(const CallExpr &Call) const {
  // `opt_.step()` on an optimizer whose class is a template parameter: the
  // object's name says it is one.
  if (dependentMemberName(Call) == "step") {
    const ValueDecl *Object = handleDecl(memberCallObject(Call));
    std::string Name = identifierName(Object).lower();
    llvm::StringRef Trimmed = llvm::StringRef(Name).trim('_');
    return Trimmed.contains("optim") || Trimmed == "opt";
  }
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  return MD && MD->getDeclName().isIdentifier() && MD->getName() == "step" &&
         isOptimizerClass(*MD->getParent());
}

const Expr *Vocabulary::optimizerStepClosure(const CallExpr &Call) const {
  if (!isOptimizerStep(Call) || Call.getNumArgs() < 1 ||
      isa<CXXDefaultArgExpr>(Call.getArg(0)))
    return nullptr;
  const Expr *E = Call.getArg(0);
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E))
      return nullptr;
    // std::function's converting constructor, from a lambda or a variable.
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      if (Ctor->getNumArgs() != 1)
        return E;
      E = Ctor->getArg(0);
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (VD->hasLocalStorage() && VD->getInit()) {
          E = VD->getInit();
          continue;
        }
    return E;
  }
  return E;
}

//===----------------------------------------------------------------------===//
// Collectives and process groups
//===----------------------------------------------------------------------===//

bool Vocabulary::isProcessGroupClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "c10d::ProcessGroup") ||
         isSameOrDerivedFrom(RD, "c10d::Backend");
}

const CXXRecordDecl *Vocabulary::processGroupOfHandle(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  return RD && isProcessGroupClass(*RD) ? RD : nullptr;
}

std::optional<CollectiveInfo>
Vocabulary::classifyCollective(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return std::nullopt;
  llvm::StringRef Name = FD->getName();

  for (const ConfiguredCollective &C : ConfiguredCollectives)
    if (C.Name.matches(*FD))
      return CollectiveInfo{C.Kind, CollectiveApi::Configured, false};

  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    if (isProcessGroupClass(*MD->getParent()))
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

namespace {

/// The operation a predefined name stands for: c10d's ReduceOp enumerators,
/// NCCL's ncclRedOp_t, MPI's MPI_Op macros (and Open MPI's objects behind
/// them).
ReduceOpKind reduceOpNamed(llvm::StringRef Name) {
  if (Name.consume_front("ompi_mpi_op_"))
    return Name == "sum" ? ReduceOpKind::Sum : ReduceOpKind::Other;
  if (Name.startswith("MPI_"))
    return Name == "MPI_SUM" ? ReduceOpKind::Sum : ReduceOpKind::Other;
  return llvm::StringSwitch<ReduceOpKind>(Name)
      .Cases("SUM", "ncclSum", ReduceOpKind::Sum)
      .Cases("AVG", "ncclAvg", ReduceOpKind::Average)
      .Case("PREMUL_SUM", ReduceOpKind::PreMultipliedSum)
      .Cases("PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR",
             ReduceOpKind::Other)
      .Cases("ncclProd", "ncclMax", "ncclMin", ReduceOpKind::Other)
      .Default(ReduceOpKind::Unknown);
}

/// Calls to a function named Name anywhere in Scope.
void findCallsNamed(const Stmt *Scope, llvm::StringRef Name,
                    llvm::SmallVectorImpl<const CallExpr *> &Out) {
  if (!Scope)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(Scope))
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (FD->getDeclName().isIdentifier() && FD->getName() == Name)
        Out.push_back(Call);
  for (const Stmt *Child : Scope->children())
    findCallsNamed(Child, Name, Out);
}

/// Assignments `Var.Field = value` anywhere in Scope, in source order.
void findFieldAssignments(const Stmt *Scope, const VarDecl &Var,
                          llvm::StringRef Field,
                          llvm::SmallVectorImpl<const Expr *> &Values) {
  if (!Scope)
    return;
  const Expr *LHS = nullptr, *RHS = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(Scope);
      BO && BO->getOpcode() == BO_Assign)
    LHS = BO->getLHS(), RHS = BO->getRHS();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Scope);
           Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
    LHS = Op->getArg(0), RHS = Op->getArg(1);
  if (LHS)
    if (const auto *ME = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts()))
      if (ME->getMemberDecl()->getDeclName().isIdentifier() &&
          ME->getMemberDecl()->getName() == Field)
        if (const auto *Base =
                dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
          if (Base->getDecl() == &Var)
            Values.push_back(RHS);
  for (const Stmt *Child : Scope->children())
    findFieldAssignments(Child, Var, Field, Values);
}

class ReduceOpClassifier {
public:
  ReduceOpClassifier(const Stmt *Scope, const ASTContext &Context,
                     const ParameterBindings *Bindings)
      : Scope(Scope), Context(Context), Bindings(Bindings) {}

  /// A ReduceOp / ncclRedOp_t / MPI_Op value.
  ReduceOpKind value(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > 6)
      return ReduceOpKind::Unknown;
    if (ReduceOpKind K = macroNamed(E->getBeginLoc()); K != ReduceOpKind::Unknown)
      return K;
    E = stripObjectWrappers(E)->IgnoreParenCasts();
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && Unary->getOpcode() == UO_AddrOf)
      E = Unary->getSubExpr()->IgnoreParenCasts();
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E))
      return Ctor->getNumArgs() == 0 ? ReduceOpKind::Sum // ReduceOp(): SUM
                                     : value(Ctor->getArg(0), Depth + 1);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->getDeclName().isIdentifier() &&
          FD->getName() == "makeNCCLPreMulSum")
        return ReduceOpKind::PreMultipliedSum;
      return ReduceOpKind::Unknown;
    }
    if (const auto *Choice = dyn_cast<ConditionalOperator>(E))
      return conditional(*Choice, Depth);
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    if (!DRE || !DRE->getDecl()->getDeclName().isIdentifier())
      return ReduceOpKind::Unknown;
    if (const auto *Enum = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
      return reduceOpNamed(Enum->getName());
    const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
    if (!Var)
      return ReduceOpKind::Unknown;
    if (const Expr *Bound = bound(Var))
      return value(Bound, Depth + 1);
    if (ReduceOpKind K = reduceOpNamed(Var->getName()); K != ReduceOpKind::Unknown)
      return K;
    // ncclRedOpCreatePreMulSum(&op, &scalar, ...): a scaled sum.
    llvm::SmallVector<const CallExpr *, 2> Creations;
    findCallsNamed(Scope, "ncclRedOpCreatePreMulSum", Creations);
    for (const CallExpr *Create : Creations)
      if (Create->getNumArgs() >= 1 && handleDecl(Create->getArg(0)) == Var)
        return ReduceOpKind::PreMultipliedSum;
    if (Var->hasLocalStorage() || Var->isStaticLocal() ||
        Var->getType().isConstQualified())
      if (const Expr *Init = Var->getInit())
        return value(Init, Depth + 1);
    return ReduceOpKind::Unknown;
  }

  /// A c10d options struct (AllreduceOptions, ReduceScatterOptions, ...).
  ReduceOpKind options(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > 6 || isa<CXXDefaultArgExpr>(E))
      return ReduceOpKind::Sum; // the default AllreduceOptions()
    E = stripObjectWrappers(E);
    if (const auto *Init = dyn_cast<InitListExpr>(E))
      return initList(*Init, Depth);
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E))
      return Ctor->getNumArgs() == 0 ? ReduceOpKind::Sum
                                     : options(Ctor->getArg(0), Depth + 1);
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const auto *Var = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (const Expr *Bound = bound(Var))
      return options(Bound, Depth + 1);
    if (!Var || isa<ParmVarDecl>(Var) || !Var->hasLocalStorage())
      return ReduceOpKind::Unknown;
    llvm::SmallVector<const Expr *, 2> Assigned;
    findFieldAssignments(Scope, *Var, "reduceOp", Assigned);
    if (!Assigned.empty())
      return value(Assigned.back(), Depth + 1);
    return Var->getInit() ? options(Var->getInit(), Depth + 1)
                          : ReduceOpKind::Sum;
  }

private:
  /// What a caller passes for a parameter of the helper the collective is
  /// in (its default argument where it passes none); null otherwise.
  const Expr *bound(const VarDecl *Var) const {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(Var);
    if (!Param || !Bindings)
      return nullptr;
    auto It = Bindings->find(Param);
    if (It == Bindings->end())
      return nullptr;
    if (isa<CXXDefaultArgExpr>(It->second))
      return Param->hasDefaultArg() ? Param->getDefaultArg() : nullptr;
    return It->second;
  }

  /// The enumerator an expression names, through the bindings.
  const EnumConstantDecl *enumerator(const Expr *E) const {
    for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
      const auto *DRE =
          dyn_cast<DeclRefExpr>(stripObjectWrappers(E)->IgnoreParenCasts());
      if (!DRE)
        return nullptr;
      if (const auto *Enum = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
        return Enum;
      E = bound(dyn_cast<VarDecl>(DRE->getDecl()));
    }
    return nullptr;
  }

  /// `op == Op::Sum ? ReduceOp::SUM : ReduceOp::MAX`: the arm the bound
  /// enumerators select, or the kind both arms share.
  ReduceOpKind conditional(const ConditionalOperator &Choice,
                           unsigned Depth) const {
    if (const auto *Test = dyn_cast<BinaryOperator>(
            Choice.getCond()->IgnoreParenImpCasts());
        Test && Test->isEqualityOp()) {
      const EnumConstantDecl *L = enumerator(Test->getLHS());
      const EnumConstantDecl *R = enumerator(Test->getRHS());
      if (L && R)
        return value((L == R) == (Test->getOpcode() == BO_EQ)
                         ? Choice.getTrueExpr()
                         : Choice.getFalseExpr(),
                     Depth + 1);
    }
    ReduceOpKind True = value(Choice.getTrueExpr(), Depth + 1);
    return True == value(Choice.getFalseExpr(), Depth + 1)
               ? True
               : ReduceOpKind::Unknown;
  }

  /// `MPI_SUM` and friends, seen through the macros that spell them.
  ReduceOpKind macroNamed(SourceLocation Loc) const {
    const SourceManager &SM = Context.getSourceManager();
    for (unsigned Depth = 0; Loc.isMacroID() && Depth < 8; ++Depth) {
      if (!SM.isMacroArgExpansion(Loc)) {
        llvm::StringRef Name =
            Lexer::getImmediateMacroName(Loc, SM, Context.getLangOpts());
        if (ReduceOpKind K = reduceOpNamed(Name); K != ReduceOpKind::Unknown)
          return K;
      }
      Loc = SM.getImmediateMacroCallerLoc(Loc);
    }
    return ReduceOpKind::Unknown;
  }

  /// `AllreduceOptions{ReduceOp::AVG}`, `{.reduceOp = ReduceOp::AVG}`, and
  /// derived options (`AllreduceCoalescedOptions{{ReduceOp::AVG}}`).
  ReduceOpKind initList(const InitListExpr &Init, unsigned Depth) const {
    // The semantic form lists one initializer per base and field, in order,
    // designated or not.
    const InitListExpr *Form = &Init;
    if (const InitListExpr *Semantic = Init.getSemanticForm())
      Form = Semantic;
    const CXXRecordDecl *RD = Form->getType()->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition())
      return ReduceOpKind::Unknown;
    unsigned I = 0;
    for (unsigned Bases = RD->getNumBases(); I < Bases; ++I)
      if (I < Form->getNumInits())
        if (const auto *BaseInit =
                dyn_cast<InitListExpr>(Form->getInit(I)->IgnoreImplicit()))
          if (ReduceOpKind K = initList(*BaseInit, Depth + 1);
              K != ReduceOpKind::Unknown)
            return K;
    for (const FieldDecl *Field : RD->fields()) {
      if (Field->getDeclName().isIdentifier() && Field->getName() == "reduceOp") {
        if (I >= Form->getNumInits())
          return ReduceOpKind::Sum;
        const Expr *Value = Form->getInit(I);
        if (isa<ImplicitValueInitExpr>(Value) || isa<CXXDefaultInitExpr>(Value))
          return ReduceOpKind::Sum;
        return value(Value, Depth + 1);
      }
      ++I;
    }
    return ReduceOpKind::Unknown;
  }

  const Stmt *Scope;
  const ASTContext &Context;
  const ParameterBindings *Bindings;
};

/// Whether a record (or one of its bases) has a `reduceOp` field: the c10d
/// options structs of reducing collectives.
bool hasReduceOpField(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return false;
  for (const FieldDecl *Field : RD->fields())
    if (Field->getDeclName().isIdentifier() && Field->getName() == "reduceOp")
      return true;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (hasReduceOpField(Base.getType()->getAsCXXRecordDecl()))
      return true;
  return false;
}

} // namespace

std::optional<ReduceOpKind>
Vocabulary::reduceOp(const CallExpr &Call, const Stmt *Scope,
                     const ASTContext &Context,
                     const ParameterBindings *Bindings) const {
  std::optional<CollectiveInfo> Info = classifyCollective(Call);
  if (!Info || (Info->Kind != CollectiveKind::AllReduce &&
                Info->Kind != CollectiveKind::Reduce &&
                Info->Kind != CollectiveKind::ReduceScatter))
    return std::nullopt;
  ReduceOpClassifier Classify(Scope, Context, Bindings);
  switch (Info->Api) {
  case CollectiveApi::Configured:
    return ReduceOpKind::Sum; // a framework's `sum`
  case CollectiveApi::Mpi:
  case CollectiveApi::Nccl:
    // MPI_Allreduce(send, recv, count, type, op, comm), ncclAllReduce(send,
    // recv, count, type, op, comm, stream): the op is argument 4 in every
    // reducing call of both.
    return Call.getNumArgs() > 4 ? Classify.value(Call.getArg(4))
                                 : ReduceOpKind::Unknown;
  case CollectiveApi::BoostMpi: {
    if (Call.getNumArgs() == 0)
      return ReduceOpKind::Unknown;
    const Expr *Op = Call.getArg(Call.getNumArgs() - 1);
    const CXXRecordDecl *RD = Op->getType()->getAsCXXRecordDecl();
    if (!RD)
      return ReduceOpKind::Unknown;
    std::string Name = qualifiedName(*RD);
    if (Name == "std::plus")
      return ReduceOpKind::Sum;
    if (Name == "std::multiplies" || Name == "boost::mpi::maximum" ||
        Name == "boost::mpi::minimum" || Name == "std::logical_and" ||
        Name == "std::logical_or" || Name == "std::bit_and" ||
        Name == "std::bit_or" || Name == "std::bit_xor")
      return ReduceOpKind::Other;
    return ReduceOpKind::Unknown;
  }
  case CollectiveApi::C10d:
    for (unsigned I = Call.getNumArgs(); I-- > 0;)
      if (hasReduceOpField(Call.getArg(I)->getType()->getAsCXXRecordDecl()))
        return Classify.options(Call.getArg(I));
    return ReduceOpKind::Sum;
  }
  return ReduceOpKind::Unknown;
}

bool Vocabulary::isCommunicatorType(QualType T) {
  if (T.isNull())
    return false;
  if (processGroupOfHandle(T))
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

const Expr *Vocabulary::gradientHookCallback(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member || Call.getNumArgs() < 1)
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return nullptr;
  llvm::StringRef Name = MD->getName();
  const CXXRecordDecl &Class = *MD->getParent();
  bool TensorHook = Name == "register_hook" &&
                    (isSameOrDerivedFrom(Class, "at::TensorBase") ||
                     isSameOrDerivedFrom(Class, "at::Tensor"));
  bool NodeHook = (Name == "add_post_hook" || Name == "add_pre_hook") &&
                  isSameOrDerivedFrom(Class, "torch::autograd::Node");
  return TensorHook || NodeHook ? stripObjectWrappers(Call.getArg(0)) : nullptr;
}

bool Vocabulary::isCustomFunctionBackward(const FunctionDecl &FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  return MD && MD->isStatic() && MD->getDeclName().isIdentifier() &&
         MD->getName() == "backward" &&
         findSpecialization(MD->getParent(), "torch::autograd::Function");
}

bool Vocabulary::isWorkType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (const auto *TT = T->getAs<TypedefType>())
    if (TT->getDecl()->getName() == "MPI_Request")
      return true;
  const CXXRecordDecl *RD = pointeeRecord(T);
  return RD && isWorkClass(*RD);
}

bool Vocabulary::isWaitCall(const CallExpr &Call) {
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
// Rank sources
//===----------------------------------------------------------------------===//

bool Vocabulary::returnsRank(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  if (returnsQueried(RankFunctions, *FD))
    return true;
  // getenv("RANK") and its relatives.
  llvm::StringRef Name = FD->getName();
  if ((Name == "getenv" || Name == "secure_getenv") && Call.getNumArgs() == 1)
    if (std::optional<llvm::StringRef> Var = stringArgument(Call, 0))
      return llvm::is_contained(RankEnvironmentVariables, *Var);
  return false;
}

const Expr *Vocabulary::rankOutputArgument(const CallExpr &Call) const {
  return queriedOutputArgument(RankFunctions, Call);
}

//===----------------------------------------------------------------------===//
// World-size sources
//===----------------------------------------------------------------------===//

bool Vocabulary::returnsWorldSize(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  if (returnsQueried(WorldSizeFunctions, *FD))
    return true;
  // getenv("WORLD_SIZE"), and configuration readers handed the same name
  // (`env_int("WORLD_SIZE", 1)`): the value is the launcher's world size.
  if (FD->getReturnType()->isVoidType())
    return false;
  if (std::optional<llvm::StringRef> Var = stringArgument(Call, 0))
    return llvm::is_contained(WorldSizeEnvironmentVariables, *Var);
  return false;
}

const Expr *Vocabulary::worldSizeOutputArgument(const CallExpr &Call) const {
  return queriedOutputArgument(WorldSizeFunctions, Call);
}

bool Vocabulary::isRankName(const NamedDecl &D) const {
  if (!D.getDeclName().isIdentifier())
    return false;
  if (RankVariables.matches(D))
    return true;
  llvm::SmallVector<std::string, 4> Words = identifierWords(D.getName());
  if (Words.empty())
    return false;
  QualType Type;
  if (const auto *FD = dyn_cast<FunctionDecl>(&D))
    Type = FD->getReturnType();
  else if (const auto *VD = dyn_cast<ValueDecl>(&D))
    Type = VD->getType();
  auto Has = [&](llvm::StringRef W) { return llvm::is_contained(Words, W); };

  // `is_main`, `isMaster`, `is_root_process`, `master_process`,
  // `is_rank_zero`: a flag set on one rank only.
  if (isBoolType(Type) && (Words.front() == "is" || Words.back() == "process"))
    return Has("main") || Has("master") || Has("root") || Has("leader") ||
           Has("chief") || Has("primary") || Has("rank0") ||
           (Has("rank") && Has("zero"));

  // `rank`, `rank_`, `m_rank`, `local_rank`, `myRank`, `getRank`, `myrank`.
  llvm::StringRef Last = Words.back();
  if (Last != "rank" && Last != "myrank" && Last != "localrank" &&
      Last != "worldrank" && Last != "globalrank")
    return false;
  // Another process's rank, or a count: `root_rank`, `src_rank`,
  // `num_rank`, `master_rank`, `samples_per_rank`.
  static constexpr llvm::StringLiteral Others[] = {
      "root",  "src",   "source", "dst",    "dest",   "destination",
      "target", "peer", "num",    "n",      "max",    "min",
      "total", "other", "remote", "master", "leader", "main",
      "head",  "owner", "next",   "prev",   "last",   "first",
      "per",   "each",  "every"};
  for (const std::string &W : Words)
    if (llvm::is_contained(Others, W))
      return false;
  return true;
}

bool Vocabulary::readsRankEnvironment(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() ||
      !llvm::StringRef(FD->getName().lower()).contains("env"))
    return false;
  for (const Expr *Arg : Call.arguments())
    if (const auto *Lit =
            dyn_cast<StringLiteral>(Arg->IgnoreParenImpCasts()))
      if (llvm::is_contained(RankEnvironmentVariables, Lit->getString()))
        return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

bool Vocabulary::isTensorClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "at::TensorBase");
}

bool Vocabulary::isTensorShapeQuery(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() ||
      !llvm::StringSwitch<bool>(MD->getName())
           .Cases("numel", "size", "sizes", "dim", "ndimension", true)
           .Default(false))
    return false;
  return isTensorClass(*MD->getParent());
}

bool Vocabulary::mentionsRank(const Stmt *S) const {
  if (!S)
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (returnsRank(*Call) || readsRankEnvironment(*Call))
      return true;
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (isRankName(*FD))
        return true;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
    const ValueDecl *D = DRE->getDecl();
    if (isRankName(*D))
      return true;
    // One step through a local: `const bool leader = pg->getRank() == 0;`
    if (const auto *V = dyn_cast<VarDecl>(D))
      if (V->isLocalVarDecl() && V->getInit() && V->getInit() != S &&
          mentionsRank(V->getInit()))
        return true;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(S))
    if (isRankName(*ME->getMemberDecl()))
      return true;
  for (const Stmt *Child : S->children())
    if (mentionsRank(Child))
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Steps, pending work and gradient hooks
//===----------------------------------------------------------------------===//

std::optional<bool> Vocabulary::coalescingBracket(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    if (!isProcessGroupClass(*MD->getParent()))
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

bool Vocabulary::isTensorType(QualType T) {
  if (T.isNull())
    return false;
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (isSameOrDerivedFrom(*RD, "at::TensorBase"))
    return true;
  // std::vector<at::Tensor> and other containers of tensors, nested ones
  // too (c10d's std::vector<std::vector<at::Tensor>> outputs).
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type)
      return isTensorType(Args[0].getAsType());
  }
  return false;
}

const Expr *Vocabulary::waitedObject(const CallExpr &Call) {
  if (!isWaitCall(Call))
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return Member->getImplicitObjectArgument();
  llvm::StringRef Name = Call.getDirectCallee()->getName();
  unsigned Index = (Name == "MPI_Waitall" || Name == "MPI_Waitany") ? 1 : 0;
  return Index < Call.getNumArgs() ? Call.getArg(Index) : nullptr;
}

const Expr *Vocabulary::requestArgument(const CallExpr &Call) const {
  std::optional<CollectiveInfo> C = classifyCollective(Call);
  if (!C || C->Api != CollectiveApi::Mpi || !C->Asynchronous ||
      Call.getNumArgs() == 0)
    return nullptr;
  return Call.getArg(Call.getNumArgs() - 1);
}

//===----------------------------------------------------------------------===//
// Wrappers
//===----------------------------------------------------------------------===//

bool Vocabulary::isWrapperClass(const CXXRecordDecl &RD) const {
  if (WrapperTypes.matches(RD))
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(&RD))
    return WrapperTypes.matches(*Spec->getSpecializedTemplate());
  return false;
}

const CXXRecordDecl *Vocabulary::wrapperClassOfHandle(QualType T) const {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return nullptr;
  if (isWrapperClass(*RD))
    return RD;
  if (const auto *Holder = findSpecialization(RD, "torch::nn::ModuleHolder"))
    if (const CXXRecordDecl *Inner = templateArgumentRecord(*Holder, 0))
      if (isWrapperClass(*Inner))
        return Inner;
  return nullptr;
}

const Expr *Vocabulary::innerModuleAccessBase(const Expr *E) const {
  E = peelHandle(E);
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    const Expr *Object = Member->getImplicitObjectArgument();
    if (MD && InnerModuleAccessors.matches(*MD) && Object &&
        wrapperClassOfHandle(Object->getType()))
      return Object;
    return nullptr;
  }
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(E)) {
    const Expr *Base = ME->getBase();
    if (isa<FieldDecl>(ME->getMemberDecl()) &&
        InnerModuleAccessors.matches(*ME->getMemberDecl()) &&
        wrapperClassOfHandle(Base->getType()))
      return Base;
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Samplers and data loaders
//===----------------------------------------------------------------------===//

bool Vocabulary::isDistributedSampler(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "torch::data::samplers::DistributedSampler");
}

bool Vocabulary::isShufflingSampler(const CXXRecordDecl &RD) const {
  return matchesSelfOrBase(ShufflingSamplers, RD);
}

bool Vocabulary::isDataLoaderClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "torch::data::DataLoaderBase");
}

const CXXRecordDecl *Vocabulary::dataLoaderOfHandle(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  return RD && isDataLoaderClass(*RD) ? RD : nullptr;
}

bool Vocabulary::isLoaderRange(const Expr &Range) {
  if (dataLoaderOfHandle(Range.getType()))
    return true;
  // In a template nothing instantiates (`template <class Loader> void
  // train(Loader &loader)`) the type says nothing: the name does.
  if (!Range.isTypeDependent())
    return false;
  const Expr *E = peelHandle(&Range);
  const ValueDecl *D = referencedDecl(E);
  if (const auto *Call = dyn_cast_or_null<CallExpr>(stripObjectWrappers(E)))
    if (const auto *Member = dyn_cast<CXXDependentScopeMemberExpr>(
            Call->getCallee()->IgnoreParenImpCasts()))
      return Member->getMember().isIdentifier() &&
             nameContainsAny(Member->getMember().getAsString(), {"loader"});
  return D && nameContainsAny(identifierName(D), {"loader"});
}

bool Vocabulary::isDataLoaderFactory(const FunctionDecl &FD) {
  return FD.getDeclName().isIdentifier() && FD.getName() == "make_data_loader" &&
         qualifiedName(FD) == "torch::data::make_data_loader";
}

namespace {
/// The number of parameters of the factory overload a call selected, as
/// written in the template (the sampler-taking overload has three).
unsigned factoryArity(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !Vocabulary::isDataLoaderFactory(*FD))
    return 0;
  if (const FunctionTemplateDecl *Primary = FD->getPrimaryTemplate())
    return Primary->getTemplatedDecl()->getNumParams();
  return FD->getNumParams();
}
} // namespace

const Expr *Vocabulary::copiedSamplerArgument(const CallExpr &Call) {
  if (factoryArity(Call) != 3 || Call.getNumArgs() < 2)
    return nullptr;
  return Call.getArg(1);
}

const CXXRecordDecl *Vocabulary::defaultConstructedSampler(const CallExpr &Call) {
  if (factoryArity(Call) != 2)
    return nullptr;
  const TemplateArgumentList *Args =
      Call.getDirectCallee()->getTemplateSpecializationArgs();
  if (!Args || Args->size() == 0 || (*Args)[0].getKind() != TemplateArgument::Type)
    return nullptr;
  const CXXRecordDecl *Sampler = (*Args)[0].getAsType()->getAsCXXRecordDecl();
  return Sampler && isSameOrDerivedFrom(*Sampler, "torch::data::samplers::Sampler")
             ? Sampler
             : nullptr;
}

const CXXRecordDecl *Vocabulary::samplerOfLoaderType(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  const auto *Loader =
      findSpecialization(RD, "torch::data::StatelessDataLoader");
  return Loader ? templateArgumentRecord(*Loader, 1) : nullptr;
}

} // namespace clang::tidy::ddp
