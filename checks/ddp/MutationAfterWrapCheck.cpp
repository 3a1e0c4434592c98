//===--- MutationAfterWrapCheck.cpp - ddp-mutation-after-wrap -------------===//

#include "ddp/MutationAfterWrapCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/ParameterLoops.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {
constexpr llvm::StringLiteral CallId = "call";
constexpr llvm::StringLiteral FunctionId = "function";

/// The conditions that decide whether \p S runs, innermost first, up to the
/// function body.
llvm::SmallVector<const Expr *, 4> controllingConditions(const Stmt &S,
                                                        ASTContext &Context) {
  llvm::SmallVector<const Expr *, 4> Conditions;
  DynTypedNode Node = DynTypedNode::create(S);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty())
      break;
    Node = Parents[0];
    if (Node.get<FunctionDecl>() || Node.get<LambdaExpr>())
      break;
    if (const auto *If = Node.get<IfStmt>())
      Conditions.push_back(If->getCond());
    else if (const auto *While = Node.get<WhileStmt>())
      Conditions.push_back(While->getCond());
    else if (const auto *For = Node.get<ForStmt>())
      Conditions.push_back(For->getCond());
    else if (const auto *Cond = Node.get<ConditionalOperator>())
      Conditions.push_back(Cond->getCond());
    else if (const auto *Logic = Node.get<BinaryOperator>())
      if (Logic->isLogicalOp())
        Conditions.push_back(Logic->getLHS());
  }
  return Conditions;
}

} // namespace

void MutationAfterWrapCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()),
               forFunction(functionDecl(isDefinition()).bind(FunctionId)))
          .bind(CallId),
      this);
}

void MutationAfterWrapCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const Expr *Structural = modules::structuralChangeReceiver(*Call);
  const Expr *Target = modules::inPlaceChangeTarget(*Call);
  if (!Target)
    Target = modules::moduleLoadTarget(*Call);
  if (!Structural && !Target)
    return;
  const WrapperLife &Life = lifeOf(*Function, *Result.Context);
  if (Life.empty())
    return;
  if (Structural)
    checkStructural(*Call, *Structural, Life);
  else
    checkValue(*Call, *Target, *Function, Life, *Result.Context);
}

void MutationAfterWrapCheck::checkStructural(const CallExpr &Call,
                                             const Expr &Receiver,
                                             const WrapperLife &Life) {
  const Wrap *W = Life.wrappedModule(&Receiver, &Call);
  if (!W)
    return;
  diag(Call.getExprLoc(),
       "'%0' adds to %1 after %2 wrapped it: the wrapper only syncs the "
       "parameters and buffers it saw when it was built, so the new ones "
       "silently diverge across ranks; register everything before wrapping, "
       "or rebuild the wrapper afterwards")
      << Call.getDirectCallee()->getName() << WrapperLife::moduleName(*W)
      << W->Wrapper;
  noteWrap(*W);
}

const Wrap *MutationAfterWrapCheck::owningWrap(const Expr *Target,
                                               const Stmt *At,
                                               const WrapperLife &Life,
                                               ASTContext &Context) const {
  const Expr *E = Target;
  for (unsigned Depth = 0; E && Depth < 10; ++Depth) {
    if (const Wrap *W = Life.wrappedModule(E, At))
      return W;
    E = stripObjectWrappers(E);
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      E = ME->getBase();
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      E = Member->getImplicitObjectArgument();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      E = Op->getNumArgs() ? Op->getArg(0) : nullptr;
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V)
        return nullptr;
      // The variable of a loop over the module's parameters.
      for (const DynTypedNode &Parent : Context.getParents(*V))
        if (const auto *For = Parent.get<CXXForRangeStmt>())
          if (For->getLoopVariable() == V)
            return owningWrap(For->getRangeInit(), At, Life, Context);
      // A local bound to a parameter: `auto &w = model->fc->weight;`.
      E = V->isLocalVarDecl() ? V->getInit() : nullptr;
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

namespace {
/// Random values, also through a local: `auto noise = torch::randn_like(b);`
bool drawsRandom(const Stmt *Root, unsigned Hops) {
  return containsWhere(Root, [&](const Stmt *S) {
    if (const auto *C = dyn_cast<CallExpr>(S))
      return modules::isRandomSource(*C);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        return Hops < 2 && V->isLocalVarDecl() && V->getInit() &&
               drawsRandom(V->getInit(), Hops + 1);
    return false;
  });
}
} // namespace

const Expr *MutationAfterWrapCheck::rankCondition(const CallExpr &Change,
                                                  ASTContext &Context) const {
  for (const Expr *Cond : controllingConditions(Change, Context))
    if (Vocab.mentionsRank(Cond))
      return Cond;
  return nullptr;
}

bool MutationAfterWrapCheck::reconciledAfter(const CallExpr &Change,
                                             const FunctionDecl &Function,
                                             const WrapperLife &Life,
                                             ASTContext &Context) const {
  llvm::SmallVector<const Stmt *, 8> Collectives;
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("c")), *Function.getBody(), Context)) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    if (C == &Change || !issuesCollective(*C, Context))
      continue;
    // A broadcast of each parameter in a loop over them: the loop as a whole.
    const Stmt *Loop = enclosingParameterLoop(*C, Context).Loop;
    Collectives.push_back(Loop ? Loop : C);
  }
  return !Life.flow().reachesExit(&Change, Collectives);
}

void MutationAfterWrapCheck::checkValue(const CallExpr &Change,
                                        const Expr &Target,
                                        const FunctionDecl &Function,
                                        const WrapperLife &Life,
                                        ASTContext &Context) {
  const Wrap *W = owningWrap(&Target, &Change, Life, Context);
  if (!W)
    return;
  // The same deterministic change on every rank keeps replicas equal; only a
  // change that differs between ranks needs a collective after it.
  const Expr *RankCondition = rankCondition(Change, Context);
  if (!RankCondition && !drawsRandom(&Change, 0))
    return;
  // A collective on every path afterwards (a broadcast from the changed rank,
  // an averaging all-reduce) brings the replicas back together.
  if (reconciledAfter(Change, Function, Life, Context))
    return;
  reportChange(Change, *W, RankCondition);
}

void MutationAfterWrapCheck::reportChange(const CallExpr &Change,
                                          const Wrap &W,
                                          const Expr *RankCondition) {
  std::string What =
      isa<CXXOperatorCallExpr>(Change)
          ? std::string("an assignment through .data()")
          : "'" + Change.getDirectCallee()->getNameAsString() + "'";
  if (RankCondition) {
    diag(Change.getExprLoc(),
         "%0 changes parameters of %1 on some ranks only, after %2 wrapped "
         "it, and no broadcast or all-reduce follows: the wrapper syncs "
         "gradients, not parameters, so the replicas diverge from here on; "
         "broadcast the changed parameters from that rank, or make the change "
         "on every rank")
        << What << WrapperLife::moduleName(W) << W.Wrapper;
    diag(RankCondition->getBeginLoc(), "only ranks where this holds change it",
         DiagnosticIDs::Note);
  } else {
    diag(Change.getExprLoc(),
         "%0 gives parameters of %1 random values after %2 wrapped it, and no "
         "broadcast or all-reduce follows: each rank draws different values, "
         "so the replicas diverge from here on; broadcast the new values from "
         "one rank, or average them")
        << What << WrapperLife::moduleName(W) << W.Wrapper;
  }
  noteWrap(W);
}

} // namespace clang::tidy::ddp
