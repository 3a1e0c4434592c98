//===--- FunctionSummaries.cpp - what each function does, once ------------===//

#include "summary/FunctionSummaries.h"
#include "summary/GradientValues.h"

#include "analysis/ASTUtils.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

const Expr *argumentFor(const CallExpr &Call, int Index) {
  if (Index < 0)
    return nullptr;
  unsigned Shift = 0;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
    if (isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()))
      Shift = 1;
  unsigned I = unsigned(Index) + Shift;
  return I < Call.getNumArgs() ? Call.getArg(I) : nullptr;
}

namespace {

/// The index of the argument \p Arg among \p Call's, as a parameter
/// index of the callee; -1 when it is none of them.
int parameterOfArgument(const CallExpr &Call, const Expr *Arg) {
  for (int I = 0; I < 64; ++I) {
    const Expr *A = argumentFor(Call, I);
    if (!A)
      return -1;
    if (A == Arg)
      return I;
  }
  return -1;
}

} // namespace

SeedValue seedOf(FunctionEffects::Seeding S) {
  switch (S) {
  case FunctionEffects::Seeding::None:
    return SeedValue::None;
  case FunctionEffects::Seeding::Rank:
    return SeedValue::Rank;
  case FunctionEffects::Seeding::PerProcess:
    return SeedValue::PerProcess;
  case FunctionEffects::Seeding::Common:
  case FunctionEffects::Seeding::Parameter:
  case FunctionEffects::Seeding::Generator:
    break;
  }
  return SeedValue::Common;
}

int parameterIndexOf(const FunctionDecl &FD, const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 6; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl());
      if (!P)
        return -1;
      for (unsigned I = 0; I < FD.getNumParams(); ++I)
        if (FD.getParamDecl(I) == P)
          return int(I);
      return -1;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      E = Construct->getNumArgs() == 1 ? Construct->getArg(0) : nullptr;
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr();
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
      E = Member->getNumArgs() == 0 ? Member->getImplicitObjectArgument()
                                    : nullptr; // `path.c_str()`
    else if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else
      return -1;
  }
  return -1;
}

FunctionSummaries::FunctionSummaries(const Vocabulary &Vocab,
                                     ASTContext &Context)
    : Vocab(Vocab), Context(Context),
      Analysis(std::make_unique<DivergenceAnalysis>(Vocab, Context)) {}

FunctionSummaries::~FunctionSummaries() = default;

bool FunctionSummaries::known(const FunctionDecl &FD) {
  if (definitionOrPattern(FD))
    return true;
  const FunctionDecl *Canonical = FD.getCanonicalDecl();
  auto It = External.find(Canonical);
  if (It == External.end())
    It = External
             .try_emplace(Canonical,
                          ProjectFunctions::instance().lookup(*Canonical))
             .first;
  return It->second.has_value();
}

bool FunctionSummaries::outOfSight(const FunctionDecl &FD) {
  return !inSystemHeader(FD) && !known(FD);
}

const FunctionEffects &FunctionSummaries::of(const FunctionDecl &FD) {
  static const FunctionEffects Nothing;
  const FunctionDecl *Def = definitionOrPattern(FD);
  if (!Def) {
    if (!known(FD))
      return Nothing;
    return *External.find(FD.getCanonicalDecl())->second;
  }
  auto It = Done.find(Def);
  if (It != Done.end())
    return It->second;
  if (!InProgress.insert(Def).second)
    return Nothing; // recursion: this path adds nothing more
  FunctionEffects E = summarise(*Def);
  InProgress.erase(Def);
  return Done[Def] = std::move(E);
}

FunctionEffects FunctionSummaries::summarise(const FunctionDecl &Def) {
  FunctionEffects E;
  addCollective(Def, E);
  addOrigins(Def, E);
  addCallEffects(Def, E);
  addFileAccesses(Def, E);
  addBroadcasts(Def, E);
  addUpdates(Def, E);
  addDraws(Def, E);
  return E;
}

void FunctionSummaries::addCollective(const FunctionDecl &Def,
                                      FunctionEffects &E) {
  std::optional<CollectiveSite> Site = Analysis->sites().issues(Def);
  if (!Site)
    return;
  E.Communicates = true;
  E.Collective = Site->Kind;
  const auto *First =
      dyn_cast_or_null<CallExpr>(Analysis->sites().firstIssued(Def));
  if (!First)
    return;
  if (Site->How == CollectiveSite::Via::Api) {
    if (std::optional<ReduceOpKind> Op =
            Vocab.reduceOp(*First, Def.getBody(), Context))
      E.Op = *Op;
  } else if (Site->Callee) {
    E.Op = of(*Site->Callee).Op;
  }
}

void FunctionSummaries::addOrigins(const FunctionDecl &Def,
                                   FunctionEffects &E) {
  if (Analysis->returned(Def).sourcesOnly().has(DivergenceSource::Rank))
    E.Returned |= FunctionEffects::FromRank;
  for (unsigned I = 0; I < Def.getNumParams(); ++I)
    if (isOutputType(Def.getParamDecl(I)->getType()) &&
        Analysis->written(Def, I).value_or(Divergence()).has(
            DivergenceSource::Rank))
      E.Outputs[I] |= FunctionEffects::FromRank;
}

void FunctionSummaries::addCallEffects(const FunctionDecl &Def,
                                       FunctionEffects &E) {
  // Brackets opened and not closed: a helper that opens and closes its own
  // group leaves none open for its caller.
  int GroupBalance = 0;
  forEachCall(Def.getBody(), [&](const Expr *Node) {
    const auto *Call = dyn_cast<CallExpr>(Node);
    if (!Call)
      return;
    FunctionEffects Callee = ofCall(*Call);
    E.StepsParameters |= Callee.StepsParameters;
    GroupBalance += Callee.Groups == FunctionEffects::Group::Opens    ? 1
                    : Callee.Groups == FunctionEffects::Group::Closes ? -1
                                                                      : 0;
    if (Callee.Seeds != FunctionEffects::Seeding::None) {
      // The last seed before the function returns decides.
      const Expr *Value = Callee.Seeds == FunctionEffects::Seeding::Parameter
                              ? argumentFor(*Call, Callee.SeedParameter)
                              : nullptr;
      int Parameter = -1;
      SeedValue S = Value ? classifySeed(Def, *Value, Parameter)
                          : seedOf(Callee.Seeds);
      E.SeedParameter = Parameter;
      E.Seeds = Parameter >= 0 ? FunctionEffects::Seeding::Parameter
                : S == SeedValue::Rank ? FunctionEffects::Seeding::Rank
                : S == SeedValue::PerProcess
                    ? FunctionEffects::Seeding::PerProcess
                    : FunctionEffects::Seeding::Common;
    }
    for (bool Saves : {true, false}) {
      int &Slot = Saves ? E.SavesPath : E.LoadsPath;
      if (Slot >= 0)
        continue;
      Slot = parameterIndexOf(
          Def, argumentFor(*Call, Saves ? Callee.SavesPath : Callee.LoadsPath));
      (Saves ? E.SavesPlainFile : E.LoadsPlainFile) =
          Saves ? Callee.SavesPlainFile : Callee.LoadsPlainFile;
      if (Saves && Slot >= 0)
        E.SavesOnSomeRanks =
            Callee.SavesOnSomeRanks || underRankCondition(Def, *Call);
    }
  });
  E.Groups = GroupBalance > 0   ? FunctionEffects::Group::Opens
             : GroupBalance < 0 ? FunctionEffects::Group::Closes
                                : FunctionEffects::Group::None;
}

void FunctionSummaries::addFileAccesses(const FunctionDecl &Def,
                                        FunctionEffects &E) {
  forEachStmt(Def.getBody(), [&](const Stmt *S) {
    const auto *Node = dyn_cast<Expr>(S);
    std::optional<FileAccess> File =
        Node ? checkpoints::fileAccess(*Node) : std::nullopt;
    if (!File)
      return;
    int &Slot = File->Write ? E.SavesPath : E.LoadsPath;
    if (Slot >= 0)
      return;
    Slot = parameterIndexOf(Def, File->Path);
    (File->Write ? E.SavesPlainFile : E.LoadsPlainFile) = true;
    if (File->Write && Slot >= 0)
      E.SavesOnSomeRanks = underRankCondition(Def, *S);
  });
}

bool FunctionSummaries::underRankCondition(const FunctionDecl &Def,
                                           const Stmt &S) {
  FunctionDivergence *Flow = Analysis->function(Def);
  const CFGBlock *Block = Flow ? Flow->blockOf(&S) : nullptr;
  if (!Block)
    return false;
  for (const CFGBlock *Branch : Flow->controllingBranches(*Block))
    if (Flow->conditionValue(*Branch).has(DivergenceSource::Rank))
      return true;
  return false;
}

namespace {

/// Whether \p Body copies data into tensors (`p.copy_(...)`, `set_data`):
/// an all-gather there assembles the same parameters on every rank (a
/// sharded optimizer's).
bool copiesIntoTensors(const Stmt *Body) {
  bool Copies = false;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S))
      Copies |= flow::copiesIntoTensor(*Member);
  });
  return Copies;
}

/// Whether \p Body touches a module's buffers (`buffers()`,
/// `named_buffers()`) and never its parameters: a broadcast there
/// broadcasts the running statistics only.
bool touchesOnlyBuffers(const Stmt *Body) {
  bool Buffers = false, Parameters = false;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
      std::optional<ModuleState> State = training::moduleStateAccess(*Member);
      Buffers |= State == ModuleState::Buffers;
      Parameters |= State == ModuleState::Parameters;
    }
  });
  return Buffers && !Parameters;
}

} // namespace

void FunctionSummaries::addBroadcasts(const FunctionDecl &Def,
                                      FunctionEffects &E) {
  if (touchesOnlyBuffers(Def.getBody()))
    return;
  bool CopiesOut = copiesIntoTensors(Def.getBody());
  // A root's averaged gradients sent to every rank are no parameters.
  GradientValues Gradients(*Def.getBody());
  auto OfGradients = [&](const CallExpr &Call) {
    return llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
      return Gradients.mentions(Arg);
    });
  };
  auto Visit = [&](const Expr *Node) {
    if (E.BroadcastsParameters)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(Node)) {
      if (std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Call))
        E.BroadcastsParameters =
            (Info->Kind == CollectiveKind::Broadcast && !OfGradients(*Call)) ||
            (Info->Kind == CollectiveKind::AllGather && CopiesOut);
      else
        E.BroadcastsParameters = broadcasts(*Call);
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Node)) {
      E.BroadcastsParameters = broadcasts(*Construct);
    }
  };
  // A wrapper or training-loop object that broadcasts when it is built.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Def))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten())
        forEachCall(Init->getInit(), Visit);
  forEachCall(Def.getBody(), Visit);
}

bool FunctionSummaries::distributed(const FunctionDecl &FD) {
  if (Vocab.isDistributedFunction(FD))
    return true;
  bool Communicates = false;
  forEachCall(FD.getBody(), [&](const Expr *Node) {
    if (const auto *Call = dyn_cast<CallExpr>(Node); Call && !Communicates)
      Communicates = ofCall(*Call).Communicates;
  });
  return Communicates;
}

bool FunctionSummaries::broadcasts(const Expr &E) {
  if (const auto *Call = dyn_cast<CallExpr>(&E)) {
    if (std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Call))
      return Info->Kind == CollectiveKind::Broadcast;
    const FunctionDecl *Callee = Call->getDirectCallee();
    return Callee && of(*Callee).BroadcastsParameters;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&E))
    return of(*Construct->getConstructor()).BroadcastsParameters;
  return false;
}

SeedValue FunctionSummaries::classifySeed(const FunctionDecl &Def,
                                          const Expr &Value, int &Parameter) {
  Parameter = parameterIndexOf(Def, &Value);
  if (Parameter >= 0)
    return SeedValue::Common;
  if (Vocab.mentionsRank(&Value))
    return SeedValue::Rank;
  if (FunctionDivergence *Flow = Analysis->function(Def))
    if (Flow->value(&Value).has(DivergenceSource::Rank))
      return SeedValue::Rank;
  if (ranks::differsPerProcess(&Value))
    return SeedValue::PerProcess;
  return SeedValue::Common;
}

FunctionEffects FunctionSummaries::ofCall(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return {};
  if (definitionOrPattern(*Callee) || known(*Callee))
    return of(*Callee);
  // What the vocabulary knows of an SDK's or LibTorch's function.
  FunctionEffects E;
  if (std::optional<CollectiveInfo> Info = Vocab.classifyCollective(Call)) {
    E.Communicates = true;
    E.Collective = Info->Kind;
    E.Op = Vocab.reduceOp(Call, nullptr, Context).value_or(ReduceOpKind::Unknown);
  }
  if (const Expr *Seed = modules::seedArgument(Call)) {
    E.Seeds = FunctionEffects::Seeding::Parameter;
    E.SeedParameter = parameterOfArgument(Call, Seed);
  }
  E.SavesPath =
      parameterOfArgument(Call, checkpoints::checkpointSavePath(Call));
  E.LoadsPath =
      parameterOfArgument(Call, checkpoints::checkpointLoadPath(Call));
  E.StepsParameters = Vocab.isOptimizerStep(Call);
  if (std::optional<bool> Open = collectives::coalescingBracket(Call))
    E.Groups =
        *Open ? FunctionEffects::Group::Opens : FunctionEffects::Group::Closes;
  if (Vocab.returnsRank(Call))
    E.Returned |= FunctionEffects::FromRank;
  if (Vocab.returnsWorldSize(Call))
    E.Returned |= FunctionEffects::FromWorldSize;
  for (bool Rank : {true, false}) {
    const Expr *Out = Rank ? Vocab.rankOutputArgument(Call)
                           : Vocab.worldSizeOutputArgument(Call);
    int I = parameterOfArgument(Call, Out);
    if (I >= 0)
      E.Outputs[unsigned(I)] |=
          Rank ? FunctionEffects::FromRank : FunctionEffects::FromWorldSize;
  }
  return E;
}

SeedValue FunctionSummaries::seeds(const CallExpr &Call, const Expr **Value) {
  FunctionEffects E = ofCall(Call);
  const Expr *Arg = E.Seeds == FunctionEffects::Seeding::Parameter
                        ? argumentFor(Call, E.SeedParameter)
                        : nullptr;
  if (Value)
    *Value = Arg;
  if (!Arg)
    return seedOf(E.Seeds);
  if (Vocab.mentionsRank(Arg))
    return SeedValue::Rank;
  if (ranks::differsPerProcess(Arg))
    return SeedValue::PerProcess;
  return SeedValue::Common;
}

const Expr *FunctionSummaries::filePath(const CallExpr &Call, bool Saves,
                                        bool *PlainFile, bool *SomeRanks) {
  FunctionEffects E = ofCall(Call);
  if (PlainFile)
    *PlainFile = Saves ? E.SavesPlainFile : E.LoadsPlainFile;
  if (SomeRanks)
    *SomeRanks = Saves && E.SavesOnSomeRanks;
  return argumentFor(Call, Saves ? E.SavesPath : E.LoadsPath);
}

void collectDefinitions(const DeclContext &DC, const SourceManager &SM,
                        bool ExternalOnly,
                        std::vector<const FunctionDecl *> &Out) {
  for (const Decl *D : DC.decls()) {
    if (D->getLocation().isValid() && SM.isInSystemHeader(D->getLocation()))
      continue;
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (FD->doesThisDeclarationHaveABody() && !FD->isDependentContext() &&
          (!ExternalOnly || FD->isExternallyVisible()))
        Out.push_back(FD);
      continue;
    }
    if (isa<FunctionTemplateDecl>(D))
      continue; // a template's instantiations live with their callers
    if (isa<NamespaceDecl, LinkageSpecDecl, ExternCContextDecl>(D) ||
        (isa<CXXRecordDecl>(D) &&
         !cast<CXXRecordDecl>(D)->getDescribedClassTemplate()))
      collectDefinitions(*cast<DeclContext>(D), SM, ExternalOnly, Out);
  }
}

std::vector<std::pair<std::string, FunctionEffects>>
FunctionSummaries::exported() {
  std::vector<const FunctionDecl *> Functions;
  collectDefinitions(*Context.getTranslationUnitDecl(),
                     Context.getSourceManager(), /*ExternalOnly=*/true,
                     Functions);
  std::vector<std::pair<std::string, FunctionEffects>> Out;
  for (const FunctionDecl *FD : Functions) {
    std::string USR = functionUSR(*FD);
    if (!USR.empty())
      Out.emplace_back(std::move(USR), of(*FD));
  }
  return Out;
}

} // namespace clang::tidy::ddp
