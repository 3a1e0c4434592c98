//===--- LoaderFacts.cpp --------------------------------------------------===//

#include "model/LoaderFacts.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/DataLoading.h"
#include "vocabulary/VocabularyMatchers.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

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

const VarDecl *homegrownLoaderSampler(const VarDecl &Loader) {
  const CXXRecordDecl *Class = pointeeRecord(Loader.getType());
  if (!Class || !loaders::isIterableClass(*Class) || !Loader.getInit())
    return nullptr;
  const VarDecl *Sampler = nullptr;
  containsWhere(Loader.getInit(), [&](const Stmt *S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    const CXXRecordDecl *Record = Var ? pointeeRecord(Var->getType()) : nullptr;
    if (Record && loaders::isHomegrownDistributedSampler(*Record))
      Sampler = Var;
    return Sampler != nullptr;
  });
  return Sampler;
}

namespace {

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
  // A count, also one kept in a floating-point local (`double n = ...`).
  return Options->getType()->isArithmeticType() ? Options : nullptr;
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
                  const ValueDecl *Replicas, const Stmt *Body,
                  unsigned Depth = 0) {
  Batch = Batch ? Batch->IgnoreParenImpCasts() : nullptr;
  if (!Batch || Depth > 4)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Batch)) {
    const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
    return Local && Local->hasLocalStorage() &&
           isWholeShard(Local->getInit(), Dataset, Replicas, Body, Depth + 1);
  }
  // A field (`batch_size_`) every assignment of this function sets to the
  // whole shard.
  if (const auto *Member = dyn_cast<MemberExpr>(Batch);
      Member && isa<FieldDecl>(Member->getMemberDecl())) {
    bool Assigned = false, Whole = true;
    forEachStmt(Body, [&](const Stmt *S) {
      const auto *Assign = dyn_cast<BinaryOperator>(S);
      const auto *Target = Assign && Assign->getOpcode() == BO_Assign
                               ? dyn_cast<MemberExpr>(
                                     Assign->getLHS()->IgnoreParenImpCasts())
                               : nullptr;
      if (!Target || Target->getMemberDecl() != Member->getMemberDecl())
        return;
      Assigned = true;
      Whole = Whole && isWholeShard(Assign->getRHS(), Dataset, Replicas, Body,
                                    Depth + 1);
    });
    return Assigned && Whole;
  }
  if (const auto *Divide = dyn_cast<BinaryOperator>(Batch);
      Divide && Divide->getOpcode() == BO_Div)
    return Replicas && referencedDecl(Divide->getRHS()) == Replicas &&
           isWholeShard(Divide->getLHS(), Dataset, Replicas, Body, Depth + 1);
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

} // namespace

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
  return Dataset && isWholeShard(batchSizeArgument(*D.Factory), *Dataset,
                                 Replicas, D.Body);
}

void LoaderFacts::addDefinition(const Stmt *Where, const ValueDecl *Loader,
                                const Expr *Init, bool InThisFunction) {
  const auto *Factory = dyn_cast_or_null<CallExpr>(stripObjectWrappers(Init));
  if (Factory && (!Factory->getDirectCallee() ||
                  !loaders::isDataLoaderFactory(*Factory->getDirectCallee())))
    Factory = nullptr;
  const ValueDecl *Sampler = nullptr;
  if (Factory)
    if (const Expr *Arg = loaders::copiedSamplerArgument(*Factory))
      Sampler = handleDecl(Arg);
  Definitions.push_back({Where, Loader, Factory, Sampler, InThisFunction});
  Definitions.back().Body = CurrentBody;
  addLoader(Loader);
}

void LoaderFacts::collect(const FunctionDecl &Function,
                          ASTContext &Context) {
  const Stmt *Body = Function.getBody();
  CurrentBody = Body;
  collectDefinitions(*Body, Context);
  collectDeclaredDefinitions(*Body, Context);
  collectPasses(*Body, Context);
  collectSamplerCalls(*Body, Context);
  collectFieldDefinitions(Function);
}

void LoaderFacts::collectDefinitions(const Stmt &Body, ASTContext &Context) {
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

void LoaderFacts::collectDeclaredDefinitions(const Stmt &Body,
                                             ASTContext &Context) {
  for (const BoundNodes &N :
       match(findAll(declStmt(has(varDecl(hasInitializer(expr())).bind("var")))
                         .bind("decl")),
             Body, Context)) {
    const auto *Var = N.getNodeAs<VarDecl>("var");
    const auto *Decl = N.getNodeAs<DeclStmt>("decl");
    if (const VarDecl *Sampler = homegrownLoaderSampler(*Var)) {
      // A loader class of the project's own, built from its own sampler.
      HomegrownLoaders.push_back(Var);
      Definitions.push_back({Decl, Var, nullptr, Sampler, true,
                             /*Homegrown=*/true, CurrentBody});
      addLoader(Var);
      continue;
    }
    if (!Var->getType()->isDependentType())
      continue;
    // `auto loader = make_data_loader(*dataset_, sampler, options)` in a
    // template: known by its factory call.
    const auto *Factory =
        dyn_cast_or_null<CallExpr>(stripObjectWrappers(Var->getInit()));
    const Expr *SamplerArg =
        Factory ? loaders::copiedSamplerArgument(*Factory) : nullptr;
    const CXXRecordDecl *SamplerClass =
        SamplerArg ? pointeeRecord(SamplerArg->getType()) : nullptr;
    if (!SamplerClass || !Vocab.isShufflingSampler(*SamplerClass))
      continue;
    DependentLoaders.push_back(Var);
    Definitions.push_back({Decl, Var, Factory, handleDecl(SamplerArg), true});
    addLoader(Var);
  }
}

void LoaderFacts::collectPasses(const Stmt &Body, ASTContext &Context) {
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
      if (loaders::startsLoaderPass(*Member))
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

void LoaderFacts::collectSamplerCalls(const Stmt &Body,
                                      ASTContext &Context) {
  for (const BoundNodes &N :
       match(findAll(cxxMemberCallExpr().bind("call")), Body, Context)) {
    const auto *Call = N.getNodeAs<CXXMemberCallExpr>("call");
    std::optional<bool> SetsEpoch = loaders::samplerEpochCall(*Call);
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (!SetsEpoch && Method && loaders::isEpochSetter(*Method) &&
        loaders::isHomegrownDistributedSampler(*Method->getParent()))
      SetsEpoch = true;
    if (!SetsEpoch)
      continue;
    if (const ValueDecl *Sampler = handleDecl(Call->getImplicitObjectArgument()))
      SamplerCalls.push_back({Call, Sampler, *SetsEpoch});
  }
}

void LoaderFacts::collectFieldDefinitions(const FunctionDecl &Function) {
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

} // namespace clang::tidy::ddp
