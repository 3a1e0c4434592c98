//===--- SamplerEpochCheck.cpp - ddp-sampler-epoch ------------------------===//

#include "ddp/SamplerEpochCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/Reachability.h"

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

/// A variable holding a loader class of the project's own built from a
/// homegrown distributed sampler.
AST_MATCHER(VarDecl, holdsHomegrownLoader) {
  return homegrownLoaderSampler(Node) != nullptr;
}

} // namespace

void SamplerEpochCheck::registerMatchers(MatchFinder *Finder) {
  auto Factory = callee(functionDecl(matchers::isDataLoaderFactory()));
  Finder->addMatcher(
      callExpr(Factory, unless(isExpansionInSystemHeader())).bind(FactoryId),
      this);

  // Functions that touch a loader over an epoch-shuffled sampler, build one
  // that a dependent dataset leaves unresolved, or build a homegrown one.
  auto ShuffledLoader = qualType(matchers::isDataLoaderOver(
      cxxRecordDecl(matchers::isShufflingSampler(&Vocab))));
  auto UnresolvedFactory = callExpr(matchers::isUnresolvedDataLoaderFactory());
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                   hasBody(stmt(anyOf(
                       hasDescendant(expr(
                           anyOf(expr(anyOf(declRefExpr(), memberExpr()),
                                      hasType(ShuffledLoader)),
                                 UnresolvedFactory))),
                       hasDescendant(varDecl(holdsHomegrownLoader()))))))
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
  const CXXRecordDecl *Sampler = loaders::defaultConstructedSampler(Factory);
  if (!Sampler || !loaders::isDistributedSampler(*Sampler))
    return;
  diag(Factory.getBeginLoc(),
       "make_data_loader default-constructs %0 from the dataset size alone, "
       "with num_replicas=1 and rank=0: every rank iterates the whole dataset "
       "instead of its shard; construct the sampler with the world size and "
       "this rank and pass it to make_data_loader")
      << Sampler;
}

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
      if (!D->Homegrown && D->Sampler == SC.Sampler &&
          H.precedes(*D, SC.Call))
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
    if (Def->Homegrown)
      return reportUnsetEpoch(Facts, *Def, U);
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

bool SamplerEpochCheck::reportUnsetEpoch(const LoaderFacts &Facts,
                                         const LoaderDefinition &Def,
                                         const LoaderUse &Pass) {
  // Whether such a loader copies the sampler's order when built or asks
  // the sampler each pass is not known: a loader whose sampler's epoch is
  // set somewhere in the function is left alone.
  if (llvm::any_of(Facts.SamplerCalls, [&](const SamplerCall &SC) {
        return SC.SetsEpoch && SC.Sampler == Def.Sampler;
      }))
    return false;
  diag(Def.Where->getBeginLoc(),
       "data loader %0 is iterated again each epoch and nothing sets the "
       "epoch of its distributed sampler %1: the sampler shuffles with the "
       "same seed every epoch, so every epoch replays the same sample "
       "order; set the sampler's epoch at the start of each epoch (and "
       "rebuild the loader after it if the loader copies the sampler's "
       "indices when built)")
      << Def.Loader << Def.Sampler;
  diag(Pass.Where->getBeginLoc(), "%0 is iterated again each epoch here",
       DiagnosticIDs::Note)
      << Def.Loader;
  return true;
}

void SamplerEpochCheck::checkRebuiltLoader(const LoaderFacts &Facts,
                                           const LoaderHistory &H,
                                           const Reachability &Flow,
                                           ASTContext &Context) {
  // A loader rebuilt every epoch from a sampler whose epoch never changes
  // in between, over the same dataset.
  for (const LoaderDefinition *D : H.Defs) {
    if (!D->InThisFunction || !D->Factory ||
        !loaders::copiedSamplerArgument(*D->Factory))
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
