//===--- MissingInitialBroadcastCheck.cpp - ddp-missing-initial-broadcast -===//

#include "MissingInitialBroadcastCheck.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {
constexpr llvm::StringLiteral ModelId = "model";
constexpr llvm::StringLiteral DeclId = "decl";
constexpr llvm::StringLiteral FunctionId = "function";

/// A local that owns a newly built module: `Net model(opts);`,
/// `auto model = std::make_shared<NetImpl>();`, not a reference, a pointer
/// or a copy of another handle.
AST_MATCHER(VarDecl, ownsNewModule) {
  QualType T = Node.getType();
  if (T->isReferenceType() || T->isPointerType() ||
      !Vocabulary::moduleClassOfHandle(T) || !Node.hasLocalStorage() ||
      isa<ParmVarDecl>(&Node))
    return false;
  return !Node.getInit() || handleDecl(Node.getInit()) == nullptr;
}

bool underRankCondition(const Stmt &S, ASTContext &Context,
                        const Vocabulary &Vocab) {
  DynTypedNode Node = DynTypedNode::create(S);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      return false;
    Node = Parents[0];
    if (const auto *If = Node.get<IfStmt>())
      if (Vocab.mentionsRank(If->getCond()))
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
}

bool MissingInitialBroadcastCheck::issuesBroadcast(const Stmt &S,
                                                   ASTContext &Context,
                                                   unsigned Depth) const {
  if (const auto *Call = dyn_cast<CallExpr>(&S)) {
    if (std::optional<CollectiveInfo> C = Vocab.classifyCollective(*Call))
      return C->Kind == CollectiveKind::Broadcast;
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = nullptr;
    if (Depth < 2 && Callee && Callee->hasBody(Def) && Def->getBody() &&
        !Context.getSourceManager().isInSystemHeader(Def->getLocation()) &&
        issuesBroadcast(*Def->getBody(), Context, Depth + 1))
      return true;
  }
  for (const Stmt *Child : S.children())
    if (Child && issuesBroadcast(*Child, Context, Depth))
      return true;
  return false;
}

void MissingInitialBroadcastCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *Model = Result.Nodes.getNodeAs<VarDecl>(ModelId);
  const auto *Decl = Result.Nodes.getNodeAs<DeclStmt>(DeclId);
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  ASTContext &Context = *Result.Context;
  const Stmt *Body = Function->getBody();
  if (!Body)
    return;
  // A wrapper broadcasts its module's parameters when it is built.
  const WrapperLife &Life = lifeOf(*Function, Context);
  if (Life.isWrapped(Model))
    return;
  const Reachability &Flow = Life.flow();

  std::vector<const CallExpr *> Steps, Seeds;
  std::vector<const Stmt *> Starts;
  bool Distributed = Vocab.mentionsRank(Body);
  for (const BoundNodes &N : match(findAll(callExpr().bind("c")), *Body, Context)) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    if (Vocab.isOptimizerStep(*C) && Flow.reachable(Decl, C))
      Steps.push_back(C);
    else if (Vocabulary::seedArgument(*C))
      Seeds.push_back(C);
    else if (Vocab.classifyCollective(*C))
      Distributed = true;
    // What gives every replica the same start after construction: a
    // broadcast, or a checkpoint loaded on every rank.
    if (issuesBroadcast(*C, Context, 0))
      Starts.push_back(C);
    else if (const Expr *Loaded = Vocabulary::moduleLoadTarget(*C))
      if (handleDecl(Loaded) == Model && !underRankCondition(*C, Context, Vocab))
        Starts.push_back(C);
  }
  // Hand-synced, distributed training of this model: steps and ranks.
  if (Steps.empty() || !Distributed)
    return;

  const CallExpr *RankSeed = nullptr;
  for (const CallExpr *Seed : Seeds) {
    if (!Flow.reachable(Seed, Decl))
      continue;
    if (!Vocab.mentionsRank(Vocabulary::seedArgument(*Seed)))
      return; // the same seed on every rank: the same initial parameters
    RankSeed = Seed;
  }
  const CallExpr *FirstStep = nullptr;
  for (const CallExpr *Step : Steps)
    if (Flow.reachable(Decl, Step, Starts)) {
      FirstStep = Step;
      break;
    }
  if (!FirstStep)
    return;

  diag(Model->getLocation(),
       "%0 starts from different random parameters on each rank: it is built "
       "without a common torch::manual_seed and nothing broadcasts its "
       "parameters before the optimizer steps, so the replicas start apart "
       "and stay apart although their gradients are averaged; seed every rank "
       "with the same value before building it, or broadcast rank 0's "
       "parameters before training")
      << Model;
  if (RankSeed)
    diag(RankSeed->getBeginLoc(), "the seed depends on the rank here",
         DiagnosticIDs::Note);
  diag(FirstStep->getExprLoc(), "optimizer step here", DiagnosticIDs::Note);
}

} // namespace clang::tidy::ddp
