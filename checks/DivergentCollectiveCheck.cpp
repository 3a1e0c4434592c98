//===--- DivergentCollectiveCheck.cpp - ddp-divergent-collective ----------===//

#include "DivergentCollectiveCheck.h"
#include "utils/ASTUtils.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <string>
#include <vector>

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

// Bound-node ids.
constexpr llvm::StringLiteral FunctionId = "function";

/// A collective issued in the function under analysis.
struct Site {
  const Expr *Call;
  const CFGBlock *Block;
  CollectiveSite What;
};

/// A collective that some ranks skip, and the branch that decides it.
struct Finding {
  const Site *Collective;
  const CFGBlock *Branch;
  Divergence Condition;
  /// The early exit taken on the condition; null when the collective sits
  /// inside the conditional statement itself.
  const Stmt *Exit;
  /// The if, loop, ?: or switch whose condition the branch tests.
  const Stmt *Controlling;
};

SourceLocation locationOf(const Stmt *S) { return S->getBeginLoc(); }

bool before(const SourceManager &SM, SourceLocation A, SourceLocation B) {
  return SM.isBeforeInTranslationUnit(A, B);
}

//--- What a diagnostic says about each source ------------------------------

const char *dependsOn(DivergenceSource S) {
  switch (S) {
  case DivergenceSource::Rank:
    return "depends on the rank";
  case DivergenceSource::GradientPresence:
    return "depends on whether this rank has a gradient";
  case DivergenceSource::LocalData:
    return "depends on this rank's own data (a loss or metric that was not "
           "reduced across ranks)";
  case DivergenceSource::GradientValue:
    return "depends on this rank's gradients before they are reduced";
  case DivergenceSource::TensorShape:
    return "depends on the shape of a tensor local to this rank";
  case DivergenceSource::LoaderExhaustion:
    return "depends on whether this rank's data loader is exhausted";
  case DivergenceSource::BatchCount:
    return "depends on how many batches this rank processed";
  }
  return "differs between ranks";
}

const char *howToFix(DivergenceSource S) {
  switch (S) {
  case DivergenceSource::Rank:
    return "issue it on every rank (a root/non-root split must call the "
           "matching collective on both sides)";
  case DivergenceSource::GradientPresence:
    return "materialise a zero gradient (torch::zeros_like) instead of "
           "skipping, and reduce on every rank";
  default:
    return "reduce the value across ranks before testing it, so that every "
           "rank takes the same branch";
  }
}

const char *originNote(DivergenceSource S) {
  switch (S) {
  case DivergenceSource::Rank:
    return "the rank comes from here";
  case DivergenceSource::GradientPresence:
    return "whether the gradient exists is read here";
  case DivergenceSource::LocalData:
    return "this rank's own data comes from here";
  case DivergenceSource::GradientValue:
    return "an unreduced gradient is read here";
  case DivergenceSource::TensorShape:
    return "the shape of a rank-local tensor is read here";
  case DivergenceSource::LoaderExhaustion:
    return "this rank's data loader position is read here";
  case DivergenceSource::BatchCount:
    return "this loop counts this rank's batches";
  }
  return "";
}

std::string subjectOf(const CollectiveSite &S, const Expr &Call) {
  std::string Callee = S.Callee->getNameAsString();
  // A lambda is called through the variable that holds it.
  if (const auto *Method = dyn_cast<CXXMethodDecl>(S.Callee);
      Method && Method->getParent()->isLambda()) {
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
    const ValueDecl *Holder =
        Op && Op->getNumArgs() > 0 ? referencedDecl(Op->getArg(0)) : nullptr;
    Callee = Holder ? Holder->getNameAsString() : "lambda";
  }
  switch (S.How) {
  case CollectiveSite::Via::Api:
    return "collective '" + Callee + "'";
  case CollectiveSite::Via::Helper:
    if (S.Api)
      return "'" + Callee + "', which issues collective '" +
             S.Api->getNameAsString() + "',";
    return "'" + Callee + "', which issues collectives,";
  case CollectiveSite::Via::Communicator:
    return "'" + Callee +
           "', which is handed the communicator and so issues collectives,";
  case CollectiveSite::Via::Backward:
    return "'backward', which runs the all-reducing gradient hooks of "
           "wrapper '" +
           (S.Wrapper ? S.Wrapper->getNameAsString() : std::string("?")) +
           "',";
  }
  return "'" + Callee + "'";
}

const char *exitName(const Stmt *Exit) {
  if (isa<ReturnStmt>(Exit))
    return "return";
  if (isa<BreakStmt>(Exit))
    return "break";
  if (isa<ContinueStmt>(Exit))
    return "continue";
  if (isa<CXXThrowExpr>(Exit))
    return "throw";
  return "goto";
}

//--- Structure around a branch ---------------------------------------------

/// The statement whose condition a branch block tests: the if / loop / ?:
/// itself, or, for one operand of `&&` / `||`, the statement whose
/// condition holds the whole chain.
const Stmt *controllingStatement(const Stmt *Terminator,
                                 const ParentMap &Parents) {
  const auto *Logical = dyn_cast_or_null<BinaryOperator>(Terminator);
  if (!Logical || !Logical->isLogicalOp())
    return Terminator;
  const Stmt *Top = Terminator;
  const Stmt *S = Terminator;
  for (unsigned Depth = 0; Depth < 32; ++Depth) {
    S = Parents.getParent(S);
    if (!S)
      break;
    if (isa<IfStmt>(S) || isa<WhileStmt>(S) || isa<ForStmt>(S) ||
        isa<DoStmt>(S) || isa<ConditionalOperator>(S))
      return S;
    const auto *E = dyn_cast<Expr>(S);
    const auto *BO = dyn_cast_or_null<BinaryOperator>(E);
    const auto *UO = dyn_cast_or_null<UnaryOperator>(E);
    if ((BO && BO->isLogicalOp()) || (UO && UO->getOpcode() == UO_LNot))
      Top = S;
    else if (!E || !(isa<ParenExpr>(E) || isa<ImplicitCastExpr>(E) ||
                     isa<ExprWithCleanups>(E)))
      break;
  }
  return Top;
}

/// Whether \p Inner lies in \p Outer (not counting lambdas defined there).
bool isWithin(const Stmt *Inner, const Stmt *Outer, const ParentMap &Parents) {
  for (unsigned Depth = 0; Inner && Depth < 256; ++Depth) {
    if (Inner == Outer)
      return true;
    if (isa<LambdaExpr>(Inner))
      return false;
    Inner = Parents.getParent(Inner);
  }
  return false;
}

/// The condition of an if, loop, switch or ?:; the operator itself for a
/// chain of && / || outside one.
const Expr *conditionOf(const Stmt *Controlling) {
  if (const auto *If = dyn_cast_or_null<IfStmt>(Controlling))
    return If->getCond();
  if (const auto *While = dyn_cast_or_null<WhileStmt>(Controlling))
    return While->getCond();
  if (const auto *For = dyn_cast_or_null<ForStmt>(Controlling))
    return For->getCond();
  if (const auto *Do = dyn_cast_or_null<DoStmt>(Controlling))
    return Do->getCond();
  if (const auto *Switch = dyn_cast_or_null<SwitchStmt>(Controlling))
    return Switch->getCond();
  if (const auto *Cond = dyn_cast_or_null<ConditionalOperator>(Controlling))
    return Cond->getCond();
  return dyn_cast_or_null<BinaryOperator>(Controlling);
}

/// What the operands of a condition's && / || / ! chain hold together (the
/// CFG evaluates each operand in a block of its own, the chain in none).
Divergence operandsValue(const FunctionDivergence &Flow, const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
    return operandsValue(Flow, Cleanups->getSubExpr());
  if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->isLogicalOp()) {
    Divergence D = operandsValue(Flow, BO->getLHS());
    D.merge(operandsValue(Flow, BO->getRHS()));
    return D;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_LNot)
    return operandsValue(Flow, UO->getSubExpr());
  return Flow.value(E);
}

/// Whether \p Inner runs under \p Controlling's condition: in an arm of an
/// if, ?: or switch, a loop's body (or a for loop's increment), or the
/// right operand of && / ||; not in the condition itself.
bool isGuardedBy(const Stmt *Inner, const Stmt *Controlling,
                 const ParentMap &Parents) {
  llvm::SmallVector<const Stmt *, 2> Guarded;
  if (const auto *If = dyn_cast<IfStmt>(Controlling))
    Guarded = {If->getThen(), If->getElse()};
  else if (const auto *While = dyn_cast<WhileStmt>(Controlling))
    Guarded = {While->getBody()};
  else if (const auto *For = dyn_cast<ForStmt>(Controlling))
    Guarded = {For->getBody(), For->getInc()};
  else if (const auto *Do = dyn_cast<DoStmt>(Controlling))
    Guarded = {Do->getBody()};
  else if (const auto *Range = dyn_cast<CXXForRangeStmt>(Controlling))
    Guarded = {Range->getBody()};
  else if (const auto *Switch = dyn_cast<SwitchStmt>(Controlling))
    Guarded = {Switch->getBody()};
  else if (const auto *Cond = dyn_cast<ConditionalOperator>(Controlling))
    Guarded = {Cond->getTrueExpr(), Cond->getFalseExpr()};
  else if (const auto *Logical = dyn_cast<BinaryOperator>(Controlling))
    Guarded = {Logical->getRHS()};
  else
    Guarded = {Controlling};
  return llvm::any_of(Guarded, [&](const Stmt *S) {
    return S && isWithin(Inner, S, Parents);
  });
}

/// The first statement in S that leaves it early: a return, throw or goto,
/// or a break / continue that is not inside a nested loop (or, for break,
/// switch).
const Stmt *firstExit(const Stmt *S, bool InLoop = false,
                      bool InSwitch = false) {
  if (!S || isa<LambdaExpr>(S))
    return nullptr;
  if (isa<ReturnStmt>(S) || isa<CXXThrowExpr>(S) || isa<GotoStmt>(S))
    return S;
  if (isa<BreakStmt>(S) && !InLoop && !InSwitch)
    return S;
  if (isa<ContinueStmt>(S) && !InLoop)
    return S;
  bool Loop = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
              isa<CXXForRangeStmt>(S);
  bool Switch = isa<SwitchStmt>(S);
  for (const Stmt *Child : S->children())
    if (const Stmt *Found =
            firstExit(Child, InLoop || Loop, InSwitch || Switch))
      return Found;
  return nullptr;
}

/// The early exit a divergent branch takes, for a collective that is not
/// inside the branch's statement.
const Stmt *exitOf(const Stmt *Controlling) {
  if (const auto *If = dyn_cast_or_null<IfStmt>(Controlling)) {
    if (const Stmt *Exit = firstExit(If->getThen()))
      return Exit;
    return firstExit(If->getElse());
  }
  return nullptr;
}

} // namespace

void DivergentCollectiveCheck::registerMatchers(MatchFinder *Finder) {
  // Cheapest test first: the plugin meets every function of LibTorch's
  // headers here.
  Finder->addMatcher(functionDecl(unless(isExpansionInSystemHeader()),
                                  isDefinition(), unless(isImplicit()),
                                  hasBody(compoundStmt()))
                         .bind(FunctionId),
                     this);
}

void DivergentCollectiveCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  // Templates are analysed in their instantiations, where calls resolve,
  // and as written when nothing instantiates them.
  if (!Function || isInstantiatedPattern(*Function))
    return;
  if (!Analysis || &Analysis->context() != Result.Context)
    Analysis = std::make_unique<DivergenceAnalysis>(Vocab, *Result.Context);
  checkFunction(*Function);
}

void DivergentCollectiveCheck::checkFunction(const FunctionDecl &Function) {
  if (!Analysis->sites().issues(Function))
    return;
  FunctionDivergence *Flow = Analysis->function(Function);
  if (!Flow)
    return;
  const SourceManager &SM = Analysis->context().getSourceManager();
  const ParentMap &Parents = Analysis->parents(Function);

  // The collectives this body issues, in source order.
  std::vector<Site> Sites;
  auto SiteOf = [&](const Expr &E) -> std::optional<CollectiveSite> {
    if (!isa<CallExpr>(E) && !isa<CXXConstructExpr>(E))
      return std::nullopt;
    if (std::optional<CollectiveSite> What = Analysis->sites().collective(E))
      return What;
    if (const auto *Call = dyn_cast<CallExpr>(&E))
      return Analysis->sites().backward(Function, *Call);
    return std::nullopt;
  };
  for (const CFGBlock *Block : Flow->cfg())
    for (const CFGElement &Element : *Block)
      if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
        if (const auto *E = dyn_cast<Expr>(S->getStmt()))
          if (std::optional<CollectiveSite> What = SiteOf(*E))
            Sites.push_back({E, Block, *What});
  if (Sites.empty())
    return;
  llvm::sort(Sites, [&](const Site &A, const Site &B) {
    return before(SM, locationOf(A.Call), locationOf(B.Call));
  });

  // The collectives met on one side of a branch before the sides join, in
  // source order.
  auto Region = [&](const CFGBlock *Start, const CFGBlock *Branch,
                    const CFGBlock *Join) {
    llvm::DenseSet<const CFGBlock *> Seen;
    llvm::SmallVector<const CFGBlock *, 16> Work{Start};
    while (!Work.empty()) {
      const CFGBlock *B = Work.pop_back_val();
      if (!B || B == Join || B == Branch || !Seen.insert(B).second)
        continue;
      for (const CFGBlock::AdjacentBlock &Succ : B->succs())
        Work.push_back(Succ.getReachableBlock());
    }
    std::vector<const Site *> Found;
    for (const Site &S : Sites)
      if (Seen.count(S.Block))
        Found.push_back(&S);
    return Found;
  };
  // Both sides issue the matching collective at the same position: root
  // `gather(outputs, inputs)` against the others' `gather(inputs)`.
  auto Matched = [&](const CFGBlock &Branch, const Site &Collective) {
    const CFGBlock *Join = Flow->joinOf(Branch);
    std::vector<std::vector<const Site *>> Sides;
    for (const CFGBlock::AdjacentBlock &Succ : Branch.succs())
      if (const CFGBlock *Start = Succ.getReachableBlock())
        Sides.push_back(Region(Start, &Branch, Join));
    bool Found = false;
    for (const auto &Side : Sides) {
      auto Pos = llvm::find(Side, &Collective);
      if (Pos == Side.end())
        continue;
      Found = true;
      size_t Index = Pos - Side.begin();
      for (const auto &Other : Sides) {
        if (llvm::is_contained(Other, &Collective))
          continue;
        if (Index >= Other.size() ||
            Other[Index]->What.key() != Collective.What.key())
          return false;
      }
    }
    return Found;
  };

  // For each collective, the nearest diverging branch that decides whether
  // it runs.
  std::vector<Finding> Findings;
  for (const Site &S : Sites) {
    for (const CFGBlock *Branch : Flow->controllingBranches(*S.Block)) {
      // A condition on a parameter diverges when a caller passes a value
      // that does.
      Divergence Condition =
          Analysis->fromCallers(Function, Flow->conditionValue(*Branch));

      if (!Condition.diverges() || Flow->isLoaderLoop(*Branch) ||
          Matched(*Branch, S))
        continue;
      const Stmt *Controlling =
          controllingStatement(Branch->getTerminatorStmt(), Parents);
      const Stmt *Exit = nullptr;
      if (!Controlling || !isGuardedBy(S.Call, Controlling, Parents)) {
        Exit = exitOf(Controlling);
        if (!Exit)
          continue;
      }
      // Explain with the whole condition: in `rank == 0 && step % n == 0`
      // the CFG's nearest branch tests the step, but the rank matters more.
      if (const Expr *Whole = conditionOf(Controlling))
        Condition.merge(
            Analysis->fromCallers(Function, operandsValue(*Flow, Whole)));
      Findings.push_back({&S, Branch, Condition, Exit, Controlling});
      break;
    }
  }

  // An early exit skips every later collective: report the first one it
  // skips (the next in source order, or the first of the next iteration).
  llvm::DenseMap<const CFGBlock *, const Finding *> FirstSkipped;
  for (const Finding &F : Findings) {
    if (!F.Exit)
      continue;
    const Finding *&Chosen = FirstSkipped[F.Branch];
    bool After = before(SM, locationOf(F.Exit), locationOf(F.Collective->Call));
    bool ChosenAfter =
        Chosen &&
        before(SM, locationOf(F.Exit), locationOf(Chosen->Collective->Call));
    // Findings are in source order: keep the first after the exit, else the
    // first of all.
    if (!Chosen || (After && !ChosenAfter))
      Chosen = &F;
  }
  for (const Finding &F : Findings) {
    if (F.Exit && FirstSkipped.lookup(F.Branch) != &F)
      continue;

    DivergenceSource Why = F.Condition.primary();
    const Expr *Condition = conditionOf(F.Controlling);
    if (!Condition || isa<CXXForRangeStmt>(F.Controlling))
      Condition = Flow->condition(*F.Branch);
    std::string Subject = subjectOf(F.Collective->What, *F.Collective->Call);
    if (F.Exit)
      diag(locationOf(F.Collective->Call),
           "%0 is skipped %select{|from the next iteration on }4by ranks "
           "that leave early through '%1' on a condition that %2; the ranks "
           "that stay wait forever in it (the job hangs); %3")
          << Subject << exitName(F.Exit) << dependsOn(Why) << howToFix(Why)
          << before(SM, locationOf(F.Collective->Call), locationOf(F.Exit));
    else
      diag(locationOf(F.Collective->Call),
           "%0 runs only on ranks where a condition that %1 holds; ranks "
           "that skip it wait forever in their next collective (the job "
           "hangs); %2")
          << Subject << dependsOn(Why) << howToFix(Why);
    if (Condition)
      diag(locationOf(Condition), "this condition %0", DiagnosticIDs::Note)
          << dependsOn(Why);
    if (F.Exit)
      diag(locationOf(F.Exit), "ranks where it holds leave through this '%0'",
           DiagnosticIDs::Note)
          << exitName(F.Exit);
    if (const Stmt *Origin = F.Condition.origin(Why))
      if (!Condition || !isWithin(Origin, Condition, Parents))
        diag(locationOf(Origin), originNote(Why), DiagnosticIDs::Note);
    // The chain into the helper: where its body issues the collective.
    const CollectiveSite &What = F.Collective->What;
    if (What.How == CollectiveSite::Via::Helper && What.Callee)
      if (const Expr *Inside = Analysis->sites().firstIssued(*What.Callee))
        diag(locationOf(Inside), "the collective is issued here, inside %0",
             DiagnosticIDs::Note)
            << What.Callee;
  }
}

} // namespace clang::tidy::ddp

