//===--- MissingInitialBroadcastCheck.cpp - ddp-missing-initial-broadcast -===//

#include "ddp/MissingInitialBroadcastCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/ParameterLoops.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {
constexpr llvm::StringLiteral ModelId = "model";
constexpr llvm::StringLiteral DeclId = "decl";
constexpr llvm::StringLiteral FunctionId = "function";
constexpr llvm::StringLiteral HomegrownId = "homegrown";

/// Whether an expression clones a module (`encoder->clone()`, also under a
/// cast): the clone starts from the original's parameters.
bool clonesModule(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S))
    if (modules::moduleCopySource(*Member))
      return true;
  return llvm::any_of(S->children(), clonesModule);
}

/// Whether an initialiser copies (or moves) a handle that lives elsewhere:
/// `auto model = registry[name].model;`, `Net m = std::move(pack.net);`.
bool copiesHandle(const Expr *Init) {
  const auto *Construct = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
  return Construct && Construct->getNumArgs() >= 1 &&
         Construct->getConstructor()->isCopyOrMoveConstructor() &&
         Construct->getArg(0)->IgnoreImplicit()->isGLValue();
}

/// A local that owns a newly built module: `Net model(opts);`,
/// `auto model = std::make_shared<NetImpl>();`, not a reference, a pointer,
/// a copy or a clone of another module.
AST_MATCHER(VarDecl, ownsNewModule) {
  QualType T = Node.getType();
  const CXXRecordDecl *Module = modules::moduleClassOfHandle(T);
  if (T->isReferenceType() || T->isPointerType() || !Module ||
      modules::holdsNoParameters(*Module) || !Node.hasLocalStorage() ||
      isa<ParmVarDecl>(&Node))
    return false;
  return !Node.getInit() ||
         (handleDecl(Node.getInit()) == nullptr && !clonesModule(Node.getInit()) &&
          !copiesHandle(Node.getInit()));
}

bool underRankCondition(const Stmt &S, ASTContext &Context,
                        const Vocabulary &Vocab) {
  return enclosingWhere(S, Context, [&](const DynTypedNode &Node,
                                        const DynTypedNode &) {
           const auto *If = Node.get<IfStmt>();
           return If && Vocab.mentionsRank(If->getCond());
         }).has_value();
}
/// Whether \p S refers to one of \p Decls.
bool mentionsAny(const Stmt &S, const llvm::SmallPtrSetImpl<const ValueDecl *> &Decls) {
  return mentionsWhere(&S, [&](const ValueDecl *D) { return Decls.contains(D); });
}

/// The locals of \p Body built from \p Model, transitively: the optimizer
/// over its parameters, a training-loop object handed the model or that
/// optimizer. \p Model is one of them.
llvm::SmallPtrSet<const ValueDecl *, 8>
builtFrom(const VarDecl &Model, const Stmt &Body, ASTContext &Context) {
  llvm::SmallPtrSet<const ValueDecl *, 8> Related{&Model};
  llvm::SmallVector<const VarDecl *, 16> Vars;
  for (const BoundNodes &N : match(findAll(declStmt().bind("s")), Body, Context))
    for (const Decl *D : N.getNodeAs<DeclStmt>("s")->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D); Var && Var->getInit())
        Vars.push_back(Var);
  // A loop's variable over what the model holds (`for (auto &p :
  // model->parameters())`) comes from the loop's range.
  llvm::DenseMap<const VarDecl *, const Expr *> Ranges;
  for (const BoundNodes &N :
       match(findAll(cxxForRangeStmt().bind("f")), Body, Context)) {
    const auto *For = N.getNodeAs<CXXForRangeStmt>("f");
    if (For->getLoopVariable() && For->getRangeInit())
      Ranges[For->getLoopVariable()] = For->getRangeInit();
  }
  auto Source = [&](const VarDecl *Var) {
    const Expr *Range = Ranges.lookup(Var);
    return Range ? Range : Var->getInit();
  };
  for (const auto &[Var, Range] : Ranges)
    Vars.push_back(Var);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const VarDecl *Var : Vars)
      if (!Related.contains(Var) && mentionsAny(*Source(Var), Related))
        Changed |= Related.insert(Var).second;
  }
  return Related;
}
/// Whether \p Optimizer is provably another model's: a local built from a
/// module other than \p Model that this function builds too (a buffer
/// model of parameter-shaped tensors beside the trained one steps nothing).
bool optimizerOfAnotherModel(const ValueDecl *Optimizer, const VarDecl &Model,
                             const Stmt &Body, ASTContext &Context) {
  if (!Optimizer)
    return false;
  for (const BoundNodes &N : match(
           findAll(declStmt(has(varDecl(ownsNewModule()).bind("other")))),
           Body, Context)) {
    const auto *Other = N.getNodeAs<VarDecl>("other");
    if (Other != &Model && builtFrom(*Other, Body, Context).contains(Optimizer))
      return true;
  }
  return false;
}
} // namespace

void MissingInitialBroadcastCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      declStmt(has(varDecl(ownsNewModule()).bind(ModelId)),
               unless(isExpansionInSystemHeader()),
               hasAncestor(functionDecl(isDefinition()).bind(FunctionId)))
          .bind(DeclId),
      this);
  Finder->addMatcher(functionDecl(isDefinition(),
                                  unless(isExpansionInSystemHeader()))
                         .bind(HomegrownId),
                     this);
}

struct MissingInitialBroadcastCheck::ModelEvents {
  std::vector<const CallExpr *> Steps;
  std::vector<const CallExpr *> Seeds;
  /// What gives every replica the same start after construction.
  std::vector<const Stmt *> Starts;
  /// A broadcast in a loop over the model's parameters that skips some.
  const CallExpr *PartialBroadcast = nullptr;
  /// A seed before the model that differs between ranks, and how.
  const CallExpr *RankSeed = nullptr;
  SeedValue RankSeedValue = SeedValue::None;
  FunctionSummaries *Summaries = nullptr;
};

void MissingInitialBroadcastCheck::check(
    const MatchFinder::MatchResult &Result) {
  if (const auto *F = Result.Nodes.getNodeAs<FunctionDecl>(HomegrownId)) {
    checkHomegrown(*F, *Result.Context);
    return;
  }
  const auto *Model = Result.Nodes.getNodeAs<VarDecl>(ModelId);
  const auto *Decl = Result.Nodes.getNodeAs<DeclStmt>(DeclId);
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  ASTContext &Context = *Result.Context;
  const Stmt *Body = Function->getBody();
  if (!Body)
    return;
  // A wrapper broadcasts its module's parameters when it is built; the
  // wrapper itself holds a module built elsewhere.
  const WrapperLife &Life = lifeOf(*Function, Context);
  if (Life.isWrapped(Model) || Vocab.wrapperClassOfHandle(Model->getType()))
    return;
  const Reachability &Flow = Life.flow();
  ModelEvents Events;
  Events.Summaries = &summaries(Context);
  collectEvents(*Model, *Decl, *Body, Flow, Context, Events);
  // Hand-synced, distributed training of this model: steps and ranks.
  if (Events.Steps.empty() || !Events.Summaries->distributed(*Function))
    return;
  if (seededAlike(*Decl, Flow, Events))
    return;
  for (const CallExpr *Step : Events.Steps)
    if (Flow.reachable(Decl, Step, Events.Starts)) {
      report(*Model, *Step, Events);
      return;
    }
}

void MissingInitialBroadcastCheck::collectEvents(
    const VarDecl &Model, const DeclStmt &Decl, const Stmt &Body,
    const Reachability &Flow, ASTContext &Context, ModelEvents &Events) const {
  // A call into this translation unit that steps an optimizer counts as a
  // step when it is handed the model, or something built from it (its
  // optimizer, a training-loop object): `loop.run_epoch(loader)`.
  llvm::SmallPtrSet<const ValueDecl *, 8> Related =
      builtFrom(Model, Body, Context);
  FunctionSummaries &Summaries = *Events.Summaries;
  auto HandedTheModel = [&](const CallExpr &C) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&C))
      if (Related.contains(handleDecl(Member->getImplicitObjectArgument())))
        return true;
    return llvm::any_of(C.arguments(), [&](const Expr *Arg) {
      return Related.contains(handleDecl(Arg));
    });
  };
  for (const BoundNodes &N : match(findAll(callExpr().bind("c")), Body, Context)) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    bool Broadcasts = Summaries.broadcasts(*C);
    if (Vocab.isOptimizerStep(*C) && Flow.reachable(&Decl, C)) {
      const auto *Member = dyn_cast<CXXMemberCallExpr>(C);
      const ValueDecl *Stepped =
          Member ? handleDecl(Member->getImplicitObjectArgument()) : nullptr;
      if (Related.contains(Stepped) ||
          !optimizerOfAnotherModel(Stepped, Model, Body, Context))
        Events.Steps.push_back(C);
    }
    else if (Summaries.seeds(*C) != SeedValue::None)
      Events.Seeds.push_back(C);
    else if (!Vocab.classifyCollective(*C) && !Broadcasts &&
             HandedTheModel(*C) && Summaries.ofCall(*C).StepsParameters &&
             Flow.reachable(&Decl, C))
      Events.Steps.push_back(C);
    addStart(*C, Broadcasts, Model, Related, Context, Events);
  }
  for (const BoundNodes &N :
       match(findAll(cxxConstructExpr().bind("c")), Body, Context)) {
    const auto *C = N.getNodeAs<CXXConstructExpr>("c");
    if (Summaries.broadcasts(*C))
      Events.Starts.push_back(C);
  }
}

void MissingInitialBroadcastCheck::addStart(
    const CallExpr &C, bool Broadcasts, const VarDecl &Model,
    const llvm::SmallPtrSetImpl<const ValueDecl *> &Related,
    ASTContext &Context, ModelEvents &Events) const {
  // A broadcast: a loop over the model's parameters that broadcasts each
  // one counts as a whole, unless it skips some.
  if (Broadcasts) {
    ParameterLoop Loop = enclosingParameterLoop(C, Context);
    bool OverModel =
        Loop.Loop && mentionsAny(*Loop.Collection, Related);
    bool Skips =
        OverModel && skipsSomeParameters(Loop, C, [&](const Stmt &Other) {
          return isa<CallExpr>(Other) &&
                 Events.Summaries->broadcasts(*cast<CallExpr>(&Other));
        });
    Events.Starts.push_back(OverModel && !Skips ? Loop.Loop : &C);
    if (Skips && !Events.PartialBroadcast)
      Events.PartialBroadcast = &C;
    return;
  }
  // A checkpoint loaded on every rank.
  if (const Expr *Loaded = modules::moduleLoadTarget(C))
    if (handleDecl(Loaded) == &Model && !underRankCondition(C, Context, Vocab))
      Events.Starts.push_back(&C);
}

bool MissingInitialBroadcastCheck::seededAlike(const DeclStmt &Decl,
                                               const Reachability &Flow,
                                               ModelEvents &Events) const {
  for (const CallExpr *Seed : Events.Seeds) {
    if (!Flow.reachable(Seed, &Decl))
      continue;
    SeedValue Value = Events.Summaries->seeds(*Seed);
    if (Value == SeedValue::Common)
      return true; // the same seed on every rank: the same initial parameters
    Events.RankSeed = Seed;
    Events.RankSeedValue = Value;
  }
  return false;
}

void MissingInitialBroadcastCheck::report(const VarDecl &Model,
                                          const CallExpr &FirstStep,
                                          const ModelEvents &Events) {
  diag(Model.getLocation(),
       "%0 starts from different random parameters on each rank: it is built "
       "without a common torch::manual_seed and nothing broadcasts "
       "%select{its|all of its}1 parameters before the optimizer steps, so "
       "the replicas start apart and stay apart although their gradients are "
       "averaged; seed every rank with the same value before building it, or "
       "broadcast rank 0's parameters before training")
      << &Model << (Events.PartialBroadcast != nullptr);
  if (const CallExpr *RankSeed = Events.RankSeed)
    diag(RankSeed->getBeginLoc(),
         Events.RankSeedValue == SeedValue::Rank
             ? "the seed depends on the rank here"
             : "the seed differs from process to process here",
         DiagnosticIDs::Note);
  if (Events.PartialBroadcast)
    diag(Events.PartialBroadcast->getBeginLoc(),
         "this broadcast is skipped for some parameters, which keep each "
         "rank's own random values",
         DiagnosticIDs::Note);
  if (Vocab.isOptimizerStep(FirstStep))
    diag(FirstStep.getExprLoc(), "optimizer step here", DiagnosticIDs::Note);
  else
    diag(FirstStep.getExprLoc(), "%0 steps the parameters", DiagnosticIDs::Note)
        << FirstStep.getDirectCallee();
}

} // namespace clang::tidy::ddp
