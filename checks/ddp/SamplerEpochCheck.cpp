//===--- SamplerEpochCheck.cpp - ddp-sampler-epoch ------------------------===//

#include "ddp/SamplerEpochCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/Reachability.h"
#include "vocabulary/LoaderOptions.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <vector>

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

// Bound-node ids.
constexpr llvm::StringLiteral FactoryId = "factory";
constexpr llvm::StringLiteral FunctionId = "function";

/// A place where a loader variable or field gets its value.
struct LoaderDefinition {
  const Stmt *Where;       // DeclStmt, assignment, or constructor initializer
  const ValueDecl *Loader; // the loader variable or field
  const CallExpr *Factory; // make_data_loader(...), when visible
  const ValueDecl *Sampler; // the sampler variable copied, if one was
  bool InThisFunction;
};

/// A statement that starts a pass over a loader: a range-for over it, a call
/// of its begin(), or handing it to a function (which iterates it).
struct LoaderUse {
  const Stmt *Where;
  const ValueDecl *Loader;
};

/// `sampler.set_epoch(e)` or `sampler.reset()` on a distributed sampler.
struct SamplerCall {
  const CXXMemberCallExpr *Call;
  const ValueDecl *Sampler;
  bool SetsEpoch;
};

/// The variable at the root of a dataset expression: `ds` in
/// `ds.map(Stack<>())`. Null for temporaries.
const VarDecl *rootVariable(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      E = Member->getImplicitObjectArgument();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(DRE->getDecl());
    return nullptr;
  }
  return nullptr;
}

/// The batch size a loader factory is given: a count, or the value of
/// `batch_size(n)` in the options built there.
const Expr *batchSizeArgument(const CallExpr &Factory) {
  if (Factory.getNumArgs() < 3)
    return nullptr;
  const Expr *Options = Factory.getArg(2);
  const Expr *Found = nullptr;
  containsWhere(Options, [&](const Stmt *S) {
    const auto *Setter = dyn_cast<CXXMemberCallExpr>(S);
    if (Setter && Setter->getNumArgs() == 1 &&
        loaders::isBatchSizeSetter(identifierName(Setter->getMethodDecl())))
      Found = Setter->getArg(0);
    return Found != nullptr;
  });
  if (Found)
    return Found;
  // `make_data_loader(ds, sampler, batch_size)`: options converted from it.
  Options = Options->IgnoreImplicit();
  if (const auto *Convert = dyn_cast<CXXConstructExpr>(Options);
      Convert && Convert->getNumArgs() == 1)
    Options = Convert->getArg(0)->IgnoreImplicit();
  return Options->getType()->isIntegerType() ? Options : nullptr;
}

/// Whether \p E reads the size of \p Dataset (`ds.size().value()`).
bool readsDatasetSize(const Expr *E, const VarDecl &Dataset) {
  return containsWhere(E, [&](const Stmt *S) {
    const auto *Size = dyn_cast<CXXMemberCallExpr>(S);
    return Size && identifierName(Size->getMethodDecl()) == "size" &&
           rootVariable(Size->getImplicitObjectArgument()) == &Dataset;
  });
}

/// Whether \p Batch is each rank's whole shard: the dataset's size divided
/// by the sampler's number of replicas (\p Replicas), or the whole size,
/// directly or through locals. Training on full batches, the order within
/// the one batch does not matter.
bool isWholeShard(const Expr *Batch, const VarDecl &Dataset,
                  const ValueDecl *Replicas, unsigned Depth = 0) {
  Batch = Batch ? Batch->IgnoreParenImpCasts() : nullptr;
  if (!Batch || Depth > 4)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Batch)) {
    const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
    return Local && Local->hasLocalStorage() &&
           isWholeShard(Local->getInit(), Dataset, Replicas, Depth + 1);
  }
  if (const auto *Divide = dyn_cast<BinaryOperator>(Batch);
      Divide && Divide->getOpcode() == BO_Div)
    return Replicas && referencedDecl(Divide->getRHS()) == Replicas &&
           isWholeShard(Divide->getLHS(), Dataset, Replicas, Depth + 1);
  const auto *Size = dyn_cast<CallExpr>(Batch);
  return Size && readsDatasetSize(Size, Dataset);
}

/// The number of replicas a sampler variable was constructed with
/// (`DistributedRandomSampler s(size, world, rank)`: `world`).
const ValueDecl *replicasOf(const ValueDecl *Sampler) {
  const auto *Var = dyn_cast_or_null<VarDecl>(Sampler);
  const Expr *Init = Var ? Var->getInit() : nullptr;
  const CXXConstructExpr *Construct = nullptr;
  containsWhere(Init, [&](const Stmt *S) {
    Construct = dyn_cast<CXXConstructExpr>(S);
    return Construct && Construct->getNumArgs() >= 2;
  });
  return Construct && Construct->getNumArgs() >= 2
             ? referencedDecl(Construct->getArg(1))
             : nullptr;
}

/// Whether a loader definition builds a full-batch loader: each batch its
/// rank's whole shard of the dataset.
bool buildsFullBatches(const LoaderDefinition &D) {
  if (!D.Factory || D.Factory->getNumArgs() < 3)
    return false;
  const VarDecl *Dataset = rootVariable(D.Factory->getArg(0));
  const ValueDecl *Replicas = replicasOf(D.Sampler);
  if (!Replicas)
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(
            D.Factory->getArg(1)->IgnoreImplicit());
        Construct && Construct->getNumArgs() >= 2)
      Replicas = referencedDecl(Construct->getArg(1));
  return Dataset &&
         isWholeShard(batchSizeArgument(*D.Factory), *Dataset, Replicas);
}

/// Everything about loaders and samplers in one function body.
class FunctionLoaders {
public:
  FunctionLoaders(const Vocabulary &Vocab) : Vocab(Vocab) {}

  void collect(const FunctionDecl &Function, ASTContext &Context);

  std::vector<LoaderDefinition> Definitions;
  std::vector<LoaderUse> Uses;
  std::vector<SamplerCall> SamplerCalls;
  llvm::SmallVector<const ValueDecl *, 4> Loaders;

private:
  void collectDefinitions(const Stmt &Body, ASTContext &Context);
  void collectPasses(const Stmt &Body, ASTContext &Context);
  void collectSamplerCalls(const Stmt &Body, ASTContext &Context);
  void collectFieldDefinitions(const FunctionDecl &Function);
  void addUse(const Stmt *Where, const ValueDecl *Loader) {
    Uses.push_back({Where, Loader});
    addLoader(Loader);
  }
  /// The loader over an epoch-shuffled sampler that E denotes, or null.
  const ValueDecl *loaderOf(const Expr *E) const {
    const ValueDecl *D = handleDecl(E);
    if (!D)
      return nullptr;
    if (llvm::is_contained(DependentLoaders, D))
      return D;
    const CXXRecordDecl *Sampler = Vocabulary::samplerOfLoaderType(D->getType());
    return Sampler && Vocab.isShufflingSampler(*Sampler) ? D : nullptr;
  }
  /// Loaders of dependent type (`auto loader = make_data_loader(*dataset_,
  /// sampler, options)` in a template), known by their factory call.
  llvm::SmallVector<const ValueDecl *, 2> DependentLoaders;
  void collectDependentDefinitions(const Stmt &Body, ASTContext &Context);
  void addDefinition(const Stmt *Where, const ValueDecl *Loader,
                     const Expr *Init, bool InThisFunction);
  void addLoader(const ValueDecl *D) {
    if (!llvm::is_contained(Loaders, D))
      Loaders.push_back(D);
  }

  const Vocabulary &Vocab;
};

void FunctionLoaders::addDefinition(const Stmt *Where, const ValueDecl *Loader,
                                const Expr *Init, bool InThisFunction) {
  const auto *Factory = dyn_cast_or_null<CallExpr>(stripObjectWrappers(Init));
  if (Factory && (!Factory->getDirectCallee() ||
                  !Vocabulary::isDataLoaderFactory(*Factory->getDirectCallee())))
    Factory = nullptr;
  const ValueDecl *Sampler = nullptr;
  if (Factory)
    if (const Expr *Arg = Vocabulary::copiedSamplerArgument(*Factory))
      Sampler = handleDecl(Arg);
  Definitions.push_back({Where, Loader, Factory, Sampler, InThisFunction});
  addLoader(Loader);
}

void FunctionLoaders::collect(const FunctionDecl &Function,
                              ASTContext &Context) {
  const Stmt *Body = Function.getBody();
  collectDefinitions(*Body, Context);
  collectDependentDefinitions(*Body, Context);
  collectPasses(*Body, Context);
  collectSamplerCalls(*Body, Context);
  collectFieldDefinitions(Function);
}

void FunctionLoaders::collectDefinitions(const Stmt &Body,
                                         ASTContext &Context) {
  auto LoaderType = qualType(matchers::isDataLoaderOver(
      cxxRecordDecl(matchers::isShufflingSampler(&Vocab))));
  // Declarations with an initializer, and assignments.
  for (const BoundNodes &N : match(
           findAll(declStmt(has(varDecl(hasType(LoaderType), hasInitializer(expr()))
                                    .bind("var")))
                       .bind("decl")),
           Body, Context)) {
    const auto *Var = N.getNodeAs<VarDecl>("var");
    addDefinition(N.getNodeAs<DeclStmt>("decl"), Var, Var->getInit(), true);
  }
  for (const BoundNodes &N :
       match(findAll(cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                                         argumentCountIs(2))
                         .bind("assign")),
             Body, Context)) {
    const auto *Assign = N.getNodeAs<CXXOperatorCallExpr>("assign");
    if (const ValueDecl *Loader = loaderOf(Assign->getArg(0)))
      addDefinition(Assign, Loader, Assign->getArg(1), true);
  }
}

void FunctionLoaders::collectDependentDefinitions(const Stmt &Body,
                                                  ASTContext &Context) {
  for (const BoundNodes &N :
       match(findAll(declStmt(has(varDecl(hasInitializer(expr())).bind("var")))
                         .bind("decl")),
             Body, Context)) {
    const auto *Var = N.getNodeAs<VarDecl>("var");
    if (!Var->getType()->isDependentType())
      continue;
    const auto *Factory =
        dyn_cast_or_null<CallExpr>(stripObjectWrappers(Var->getInit()));
    const Expr *SamplerArg =
        Factory ? Vocabulary::copiedSamplerArgument(*Factory) : nullptr;
    const CXXRecordDecl *SamplerClass =
        SamplerArg ? pointeeRecord(SamplerArg->getType()) : nullptr;
    if (!SamplerClass || !Vocab.isShufflingSampler(*SamplerClass))
      continue;
    DependentLoaders.push_back(Var);
    Definitions.push_back({N.getNodeAs<DeclStmt>("decl"), Var, Factory,
                           handleDecl(SamplerArg), true});
    addLoader(Var);
  }
}

void FunctionLoaders::collectPasses(const Stmt &Body, ASTContext &Context) {
  for (const BoundNodes &N :
       match(findAll(cxxForRangeStmt().bind("for")), Body, Context)) {
    const auto *For = N.getNodeAs<CXXForRangeStmt>("for");
    if (const ValueDecl *Loader = loaderOf(For->getRangeInit()))
      addUse(For->getRangeInit(), Loader);
  }
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("call")), Body, Context)) {
    const auto *Call = N.getNodeAs<CallExpr>("call");
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (Vocabulary::startsLoaderPass(*Member))
        if (const ValueDecl *Loader =
                loaderOf(Member->getImplicitObjectArgument()))
          addUse(Call, Loader);
      continue;
    }
    if (isa<CXXOperatorCallExpr>(Call))
      continue; // `*loader`, `loader->`, `loader = ...`: not a pass
    for (const Expr *Arg : Call->arguments())
      if (const ValueDecl *Loader = loaderOf(Arg))
        addUse(Call, Loader);
  }
}

void FunctionLoaders::collectSamplerCalls(const Stmt &Body,
                                          ASTContext &Context) {
  for (const BoundNodes &N :
       match(findAll(cxxMemberCallExpr().bind("call")), Body, Context)) {
    const auto *Call = N.getNodeAs<CXXMemberCallExpr>("call");
    std::optional<bool> SetsEpoch = Vocabulary::samplerEpochCall(*Call);
    if (!SetsEpoch)
      continue;
    if (const ValueDecl *Sampler = handleDecl(Call->getImplicitObjectArgument()))
      SamplerCalls.push_back({Call, Sampler, *SetsEpoch});
  }
}

void FunctionLoaders::collectFieldDefinitions(const FunctionDecl &Function) {
  // Loaders kept in fields were built elsewhere: in the constructors.
  const auto *Method = dyn_cast<CXXMethodDecl>(&Function);
  if (!Method)
    return;
  for (const ValueDecl *Loader : llvm::SmallVector<const ValueDecl *, 4>(Loaders)) {
    if (!isa<FieldDecl>(Loader))
      continue;
    for (const CXXConstructorDecl *Ctor : Method->getParent()->ctors())
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getMember() == Loader)
          addDefinition(Init->getInit(), Loader, Init->getInit(),
                        Ctor == &Function);
  }
}

} // namespace

void SamplerEpochCheck::registerMatchers(MatchFinder *Finder) {
  auto Factory = callee(functionDecl(matchers::isDataLoaderFactory()));
  Finder->addMatcher(
      callExpr(Factory, unless(isExpansionInSystemHeader())).bind(FactoryId),
      this);

  // Functions that touch a loader over an epoch-shuffled sampler, or build
  // one that a dependent dataset leaves unresolved.
  auto ShuffledLoader = qualType(matchers::isDataLoaderOver(
      cxxRecordDecl(matchers::isShufflingSampler(&Vocab))));
  auto UnresolvedFactory = callExpr(matchers::isUnresolvedDataLoaderFactory());
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                   hasBody(stmt(hasDescendant(
                       expr(anyOf(expr(anyOf(declRefExpr(), memberExpr()),
                                       hasType(ShuffledLoader)),
                                  UnresolvedFactory))))))
          .bind(FunctionId),
      this);
}

void SamplerEpochCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *Factory = Result.Nodes.getNodeAs<CallExpr>(FactoryId))
    checkDefaultConstructedSampler(*Factory);
  if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId))
    checkLoaders(*Function, *Result.Context);
}

void SamplerEpochCheck::checkDefaultConstructedSampler(const CallExpr &Factory) {
  const CXXRecordDecl *Sampler = Vocabulary::defaultConstructedSampler(Factory);
  if (!Sampler || !Vocabulary::isDistributedSampler(*Sampler))
    return;
  diag(Factory.getBeginLoc(),
       "make_data_loader default-constructs %0 from the dataset size alone, "
       "with num_replicas=1 and rank=0: every rank iterates the whole dataset "
       "instead of its shard; construct the sampler with the world size and "
       "this rank and pass it to make_data_loader")
      << Sampler;
}

struct SamplerEpochCheck::LoaderFacts : FunctionLoaders {
  using FunctionLoaders::FunctionLoaders;
};

struct SamplerEpochCheck::LoaderHistory {
  const ValueDecl *Loader;
  llvm::SmallVector<const LoaderDefinition *, 4> Defs;
  llvm::SmallVector<const Stmt *, 4> Redefinitions; // in this function
  const Reachability &Flow;

  /// Whether the value \p D stores can be the one seen at \p S.
  bool precedes(const LoaderDefinition &D, const Stmt *S) const {
    return !D.InThisFunction || Flow.reachable(D.Where, S);
  }
};

void SamplerEpochCheck::checkLoaders(const FunctionDecl &Function,
                                     ASTContext &Context) {
  LoaderFacts Facts(Vocab);
  Facts.collect(Function, Context);
  if (Facts.Loaders.empty())
    return;
  Reachability Flow(&Function, Function.getBody(), Context);
  if (!Flow.valid())
    return;
  for (const ValueDecl *Loader : Facts.Loaders) {
    LoaderHistory H{Loader, {}, {}, Flow};
    for (const LoaderDefinition &D : Facts.Definitions)
      if (D.Loader == Loader) {
        H.Defs.push_back(&D);
        if (D.InThisFunction)
          H.Redefinitions.push_back(D.Where);
      }
    if (H.Defs.empty())
      continue; // a parameter: built by the caller
    if (llvm::all_of(H.Defs, [](const LoaderDefinition *D) {
          return buildsFullBatches(*D);
        }))
      continue; // one batch per rank: its order does not matter
    if (!checkEpochAfterCopy(Facts, H, Flow) &&
        !checkReplayedLoader(Facts, H, Flow))
      checkRebuiltLoader(Facts, H, Flow, Context);
  }
}

bool SamplerEpochCheck::checkEpochAfterCopy(const LoaderFacts &Facts,
                                            const LoaderHistory &H,
                                            const Reachability &Flow) {
  // set_epoch / reset on the local sampler after the loader copied it,
  // followed by a pass over that very copy.
  bool Reported = false;
  for (const SamplerCall &SC : Facts.SamplerCalls) {
    const LoaderDefinition *Copy = nullptr;
    for (const LoaderDefinition *D : H.Defs)
      if (D->Sampler == SC.Sampler && H.precedes(*D, SC.Call))
        Copy = D;
    if (!Copy)
      continue;
    bool UsedAfter = llvm::any_of(Facts.Uses, [&](const LoaderUse &U) {
      return U.Loader == H.Loader &&
             Flow.reachable(SC.Call, U.Where, H.Redefinitions);
    });
    if (!UsedAfter)
      continue;
    diag(SC.Call->getExprLoc(),
         "%0 on %1 does not reach data loader %2: make_data_loader took "
         "the sampler by value, so the loader keeps its own copy and "
         "replays the same sample order every epoch; build the sampler and "
         "the loader inside the epoch loop, calling set_epoch(epoch) before "
         "make_data_loader")
        << SC.Call->getMethodDecl() << SC.Sampler << H.Loader;
    diag(Copy->Where->getBeginLoc(), "%0 copies %1 here", DiagnosticIDs::Note)
        << H.Loader << SC.Sampler;
    Reported = true;
  }
  return Reported;
}

bool SamplerEpochCheck::checkReplayedLoader(const LoaderFacts &Facts,
                                            const LoaderHistory &H,
                                            const Reachability &Flow) {
  // One loader iterated again and again: its copy of the sampler is never
  // told about a new epoch.
  for (const LoaderUse &U : Facts.Uses) {
    if (U.Loader != H.Loader || !Flow.repeats(U.Where, H.Redefinitions))
      continue;
    const LoaderDefinition *Def = nullptr;
    for (const LoaderDefinition *D : H.Defs)
      if (H.precedes(*D, U.Where))
        Def = D;
    if (!Def)
      continue;
    diag(Def->Where->getBeginLoc(),
         "data loader %0 replays the same sample order every epoch: its "
         "distributed random sampler is seeded with its epoch, which stays "
         "0 in the loader's own copy of the sampler; build the sampler and "
         "the loader inside the epoch loop, calling set_epoch(epoch) before "
         "make_data_loader")
        << H.Loader;
    diag(U.Where->getBeginLoc(), "%0 is iterated again each epoch here",
         DiagnosticIDs::Note)
        << H.Loader;
    return true;
  }
  return false;
}

void SamplerEpochCheck::checkRebuiltLoader(const LoaderFacts &Facts,
                                           const LoaderHistory &H,
                                           const Reachability &Flow,
                                           ASTContext &Context) {
  // A loader rebuilt every epoch from a sampler whose epoch never changes
  // in between, over the same dataset.
  for (const LoaderDefinition *D : H.Defs) {
    if (!D->InThisFunction || !D->Factory ||
        !Vocabulary::copiedSamplerArgument(*D->Factory))
      continue;
    llvm::SmallVector<const Stmt *, 4> Renewals;
    for (const SamplerCall &SC : Facts.SamplerCalls)
      if (SC.SetsEpoch && SC.Sampler == D->Sampler && D->Sampler)
        Renewals.push_back(SC.Call);
    // A loader over a dataset declared inside the loop reads new data each
    // time: that is not an epoch loop.
    if (const VarDecl *Dataset = rootVariable(D->Factory->getArg(0)))
      if (const Stmt *DS = declStmtOf(*Dataset, Context))
        Renewals.push_back(DS);
    if (!Flow.repeats(D->Where, Renewals))
      continue;
    if (D->Sampler)
      diag(D->Factory->getBeginLoc(),
           "data loader %0 is rebuilt every epoch from %1, whose epoch "
           "never changes, so every epoch replays the same sample order; "
           "call set_epoch(epoch) on %1 before make_data_loader")
          << H.Loader << D->Sampler;
    else
      diag(D->Factory->getBeginLoc(),
           "data loader %0 is rebuilt every epoch from a new distributed "
           "random sampler, whose epoch is always 0, so every epoch replays "
           "the same sample order; construct the sampler before the call, "
           "call set_epoch(epoch) on it, then pass it to make_data_loader")
          << H.Loader;
    return;
  }
}

} // namespace clang::tidy::ddp
