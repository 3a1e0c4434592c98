//===--- Vocabulary.cpp - the vocabulary's options and shared helpers -----===//
//
// Every concern's options and how they are read, and the small AST helpers
// every vocabulary file and check uses. The classifiers live by concern in
// Vocabulary<Concern>.cpp.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
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
constexpr llvm::StringLiteral DefaultDistributedInitFunctions = "MPI_Init*";

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

} // namespace

//===----------------------------------------------------------------------===//
// Helpers shared by the vocabulary files (VocabularyInternal.h)
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

WrapperVocabulary::WrapperVocabulary(ClangTidyCheck::OptionsView &Options)
    : WrapperTypes(Options.getLocalOrGlobal("WrapperTypes",
                                            DefaultWrapperTypes)),
      InnerModuleAccessors(Options.getLocalOrGlobal(
          "InnerModuleAccessors", DefaultInnerModuleAccessors)) {}

void WrapperVocabulary::storeOptions(ClangTidyCheck::OptionsView &Options,
                                     ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "WrapperTypes", WrapperTypes.spec());
  Options.store(Opts, "InnerModuleAccessors", InnerModuleAccessors.spec());
}

CollectiveVocabulary::CollectiveVocabulary(
    ClangTidyCheck::OptionsView &Options)
    : CollectiveFunctionsSpec(
          Options.getLocalOrGlobal("CollectiveFunctions", "").str()) {
  // `name[=kind]`: kind defaults to allreduce (a framework's `sum`).
  for (llvm::StringRef Entry : splitList(CollectiveFunctionsSpec)) {
    auto [Name, KindName] = Entry.split('=');
    std::optional<CollectiveKind> Kind = KindName.empty()
                                             ? CollectiveKind::AllReduce
                                             : parseKind(KindName.trim());
    if (Kind)
      ConfiguredCollectives.push_back({NameList(Name.trim()), *Kind});
  }
}

void CollectiveVocabulary::storeOptions(
    ClangTidyCheck::OptionsView &Options,
    ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "CollectiveFunctions", CollectiveFunctionsSpec);
}

RankVocabulary::RankVocabulary(ClangTidyCheck::OptionsView &Options)
    : RankFunctionsSpec(
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
              .str()) {
  RankFunctions = parseQueryFunctions<QueryFunction>(RankFunctionsSpec);
  RankEnvironmentVariables = parseStrings(RankEnvironmentVariablesSpec);
  WorldSizeFunctions = parseQueryFunctions<QueryFunction>(WorldSizeFunctionsSpec);
  WorldSizeEnvironmentVariables =
      parseStrings(WorldSizeEnvironmentVariablesSpec);
}

void RankVocabulary::storeOptions(ClangTidyCheck::OptionsView &Options,
                                  ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "RankFunctions", RankFunctionsSpec);
  Options.store(Opts, "RankEnvironmentVariables",
                RankEnvironmentVariablesSpec);
  Options.store(Opts, "RankVariables", RankVariables.spec());
  Options.store(Opts, "WorldSizeFunctions", WorldSizeFunctionsSpec);
  Options.store(Opts, "WorldSizeEnvironmentVariables",
                WorldSizeEnvironmentVariablesSpec);
}

TrainingVocabulary::TrainingVocabulary(ClangTidyCheck::OptionsView &Options)
    : OptimizerTypes(
          Options.getLocalOrGlobal("OptimizerTypes", DefaultOptimizerTypes)),
      GradientSyncFunctions(Options.getLocalOrGlobal(
          "GradientSyncFunctions", DefaultGradientSyncFunctions)) {}

void TrainingVocabulary::storeOptions(ClangTidyCheck::OptionsView &Options,
                                      ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "OptimizerTypes", OptimizerTypes.spec());
  Options.store(Opts, "GradientSyncFunctions", GradientSyncFunctions.spec());
}

LoaderVocabulary::LoaderVocabulary(ClangTidyCheck::OptionsView &Options)
    : ShufflingSamplers(Options.getLocalOrGlobal("ShufflingSamplers",
                                                 DefaultShufflingSamplers)) {}

void LoaderVocabulary::storeOptions(ClangTidyCheck::OptionsView &Options,
                                    ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "ShufflingSamplers", ShufflingSamplers.spec());
}

DistributedVocabulary::DistributedVocabulary(
    ClangTidyCheck::OptionsView &Options)
    : DistributedInitFunctions(Options.getLocalOrGlobal(
          "DistributedInitFunctions", DefaultDistributedInitFunctions)) {}

void DistributedVocabulary::storeOptions(
    ClangTidyCheck::OptionsView &Options,
    ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "DistributedInitFunctions",
                DistributedInitFunctions.spec());
}

Vocabulary::Vocabulary(ClangTidyCheck::OptionsView &Options)
    : WrapperVocabulary(Options), CollectiveVocabulary(Options),
      RankVocabulary(Options), TrainingVocabulary(Options),
      LoaderVocabulary(Options), DistributedVocabulary(Options) {}

void Vocabulary::storeOptions(ClangTidyCheck::OptionsView &Options,
                              ClangTidyOptions::OptionMap &Opts) const {
  WrapperVocabulary::storeOptions(Options, Opts);
  CollectiveVocabulary::storeOptions(Options, Opts);
  RankVocabulary::storeOptions(Options, Opts);
  TrainingVocabulary::storeOptions(Options, Opts);
  LoaderVocabulary::storeOptions(Options, Opts);
  DistributedVocabulary::storeOptions(Options, Opts);
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

const StringLiteral *spelledStringLiteral(const Expr *E) {
  E = stripObjectWrappers(E);
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() >= 1)
    E = stripObjectWrappers(Construct->getArg(0));
  return dyn_cast_or_null<StringLiteral>(E);
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

} // namespace clang::tidy::ddp
