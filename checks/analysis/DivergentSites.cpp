//===--- DivergentSites.cpp - collectives that only some ranks issue ------===//

#include "analysis/DivergentSites.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "analysis/ASTUtils.h"

namespace clang::tidy::ddp {

namespace {

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
bool liesWithin(const Stmt *Inner, const Stmt *Outer,
                const ParentMap &Parents) {
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
    return S && liesWithin(Inner, S, Parents);
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

DivergentSites::DivergentSites(DivergenceAnalysis &Analysis,
                               const FunctionDecl &Function,
                               FunctionDivergence &Flow)
    : Analysis(Analysis), Function(Function), Flow(Flow),
      SM(Analysis.context().getSourceManager()),
      Parents(Analysis.parents(Function)) {}

bool DivergentSites::precedes(const Stmt *A, const Stmt *B) const {
  return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
}

bool DivergentSites::isWithin(const Stmt *Inner, const Stmt *Outer) const {
  return liesWithin(Inner, Outer, Parents);
}

std::optional<CollectiveSite> DivergentSites::siteOf(const Expr &E) const {
  if (!isa<CallExpr, CXXConstructExpr, RecoveryExpr>(E))
    return std::nullopt;
  if (std::optional<CollectiveSite> What = Analysis.sites().collective(E))
    return What;
  if (const auto *Call = dyn_cast<CallExpr>(&E))
    return Analysis.sites().backward(Function, *Call);
  return std::nullopt;
}

bool DivergentSites::collect() {
  for (const CFGBlock *Block : Flow.cfg())
    for (const CFGElement &Element : *Block)
      if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
        if (const auto *E = dyn_cast<Expr>(S->getStmt()))
          if (std::optional<CollectiveSite> What = siteOf(*E))
            Sites.push_back({E, Block, *What});
  llvm::sort(Sites, [&](const Site &A, const Site &B) {
    return precedes(A.Call, B.Call);
  });
  return !Sites.empty();
}

std::vector<const DivergentSites::Site *>
DivergentSites::region(const CFGBlock *Start, const CFGBlock *Branch,
                       const CFGBlock *Join) const {
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
}

bool DivergentSites::matched(const CFGBlock &Branch, const Site &Collective,
                             const Stmt *Controlling, bool Guarded) const {
  const CFGBlock *Join = Flow.continuingJoinOf(Branch);
  std::vector<std::vector<const Site *>> Sides;
  llvm::SmallVector<const CFGBlock *, 2> Starts;
  for (const CFGBlock::AdjacentBlock &Succ : Branch.succs())
    if (const CFGBlock *Start = Succ.getReachableBlock()) {
      Sides.push_back(region(Start, &Branch, Join));
      Starts.push_back(Start);
    }
  // A collective the branch's statement guards that both sides reach
  // before they meet is reached on neither through every path (else it
  // would be where they meet): ranks that took one side may still skip it
  // (`if (late || first) allreduce(...)`).
  if (Guarded && Join &&
      llvm::count_if(Sides, [&](const std::vector<const Site *> &Side) {
        return llvm::is_contained(Side, &Collective);
      }) > 1)
    return false;
  // A side that reaches the collective after the branch on some paths
  // only: ranks that take it and leave early on another (`if (rank == 0)
  // { if (help) return 0; }` before a broadcast) skip it, unless every side
  // may leave so. Leaving on an error (a throw, a check macro's return)
  // ends the process instead, and a process that is alone skips nobody.
  unsigned Leaving = 0;
  for (size_t I = 0; I < Sides.size() && !Guarded && Controlling; ++I)
    Leaving += llvm::is_contained(Sides[I], &Collective) &&
               leavesWithout(*Starts[I], Collective, *Controlling);
  if (Leaving > 0 && Leaving < Sides.size())
    return false;
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
}

namespace {

/// Whether \p B leaves the function on an error: it throws, or returns
/// from within a macro (an error-checking macro's `return`). A rank that
/// fails so ends its process, as one that calls `abort()` does.
bool leavesOnError(const CFGBlock &B) {
  for (const CFGElement &Element : B)
    if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>()) {
      const Stmt *Statement = S->getStmt();
      if (isa<CXXThrowExpr>(Statement) ||
          (isa<ReturnStmt>(Statement) && Statement->getBeginLoc().isMacroID()))
        return true;
    }
  return false;
}

/// How \p B leaves early, if it does: `return`, `goto`, `break`, `continue`.
const Stmt *earlyExitOf(const CFGBlock &B) {
  const Stmt *Exit = B.getTerminatorStmt();
  if (!Exit || !(isa<BreakStmt>(Exit) || isa<ContinueStmt>(Exit) ||
                 isa<GotoStmt>(Exit)))
    Exit = nullptr;
  for (const CFGElement &Element : B)
    if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
      if (isa<ReturnStmt>(S->getStmt()))
        Exit = S->getStmt();
  return Exit && !Exit->getBeginLoc().isMacroID() ? Exit : nullptr;
}

} // namespace

bool DivergentSites::leavesWithout(const CFGBlock &Start,
                                   const Site &Collective,
                                   const Stmt &Controlling) const {
  llvm::DenseSet<const CFGBlock *> Issuing;
  for (const Site &S : Sites)
    if (S.What.key() == Collective.What.key())
      Issuing.insert(S.Block);
  // An exit inside the branch that leaves it (not one of a loop inside).
  auto Leaves = [&](const CFGBlock &B) {
    const Stmt *Exit = earlyExitOf(B);
    if (!Exit || !isWithin(Exit, &Controlling))
      return false;
    if (isa<ReturnStmt>(Exit))
      return true;
    if (const auto *Goto = dyn_cast<GotoStmt>(Exit))
      return !isWithin(Goto->getLabel()->getStmt(), &Controlling);
    for (const Stmt *Up = Parents.getParent(Exit); Up; Up = Parents.getParent(Up)) {
      if (Up == &Controlling)
        return true;
      if (isa<ForStmt>(Up) || isa<WhileStmt>(Up) || isa<DoStmt>(Up) ||
          isa<CXXForRangeStmt>(Up) ||
          (isa<SwitchStmt>(Up) && isa<BreakStmt>(Exit)))
        return false;
    }
    return false;
  };
  return Flow.reachesAvoiding(
      Start, Leaves,
      [&](const CFGBlock &B) {
        return Issuing.contains(&B) || leavesOnError(B);
      },
      /*Together=*/true);
}

namespace {

/// The variables and fields \p E names, and those a local it names was
/// initialised from (`const auto &ranks = groups.at(tag)`: ranks, groups,
/// tag).
void namedDecls(const Expr *E, llvm::DenseSet<const ValueDecl *> &Out,
                unsigned Depth = 0) {
  forEachStmt(E, [&](const Stmt *S) {
    const ValueDecl *D = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      D = Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(S))
      D = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!D || isa<FunctionDecl>(D) || !Out.insert(D).second)
      return;
    if (const auto *Var = dyn_cast<VarDecl>(D))
      if (Depth < 2 && Var->hasLocalStorage() && Var->getInit())
        namedDecls(Var->getInit(), Out, Depth + 1);
  });
}

/// A query whether a container holds an element: `contains(c, x)`,
/// `c.count(x)`, `c.contains(x)`, `std::find(c.begin(), c.end(), x)`.
bool isMembershipName(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name.lower())
      .Cases("contains", "count", "find", "includes", "has", true)
      .Cases("ismember", "is_member", "member", "in", true)
      .Default(false);
}

} // namespace

bool DivergentSites::testsGroupMembership(const CFGBlock &Branch,
                                          const Site &Collective) const {
  const Expr *Condition = Flow.condition(Branch);
  const auto *Call = dyn_cast_or_null<CallExpr>(Collective.Call);
  if (!Condition || !Call)
    return false;
  const Vocabulary &Vocab = Analysis.vocabulary();
  llvm::DenseSet<const ValueDecl *> Group;
  forEachStmt(Condition, [&](const Stmt *S) {
    const auto *Query = dyn_cast<CallExpr>(S);
    if (!Query || !isMembershipName(spelledCalleeName(*Query)))
      return;
    llvm::SmallVector<const Expr *, 4> Operands(Query->arguments());
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Query))
      Operands.push_back(Member->getImplicitObjectArgument());
    // One operand is the rank; the others name the group.
    if (llvm::none_of(Operands,
                      [&](const Expr *E) { return Vocab.mentionsRank(E); }))
      return;
    for (const Expr *E : Operands)
      if (!Vocab.mentionsRank(E))
        namedDecls(E, Group);
  });
  if (Group.empty())
    return false;
  llvm::DenseSet<const ValueDecl *> Used;
  for (const Expr *Arg : Call->arguments())
    namedDecls(Arg, Used, /*Depth=*/1); // and what a local was made from
  return llvm::any_of(Used, [&](const ValueDecl *D) {
    return isa<VarDecl, BindingDecl>(D) && Group.contains(D);
  });
}

bool DivergentSites::withinSubgroup(const CFGBlock &Branch,
                                    const Site &Collective,
                                    const Divergence &Value) const {
  const Expr *Condition = Flow.condition(Branch);
  const auto *Call = dyn_cast_or_null<CallExpr>(Collective.Call);
  if (!Condition || !Call || !Value.onlyFrom(DivergenceSource::Rank))
    return false;
  llvm::SmallVector<const ValueDecl *, 2> Communicators;
  for (const Expr *Arg : Call->arguments())
    if (collectives::isCommunicatorType(Arg->getType()))
      if (const ValueDecl *D = referencedDecl(Arg))
        Communicators.push_back(D);
  if (Communicators.empty() ||
      !llvm::all_of(Communicators, [&](const ValueDecl *D) {
        return Analysis.isSubgroupCommunicator(*D);
      }))
    return false;
  // The condition tests ranks themselves, each of another communicator: a
  // rank within one of those splits its members, and a value computed from
  // a rank (a step count, a shard's size) may differ between them.
  bool TestsRank = false, Other = false;
  forEachStmt(Condition, [&](const Stmt *S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *Member = dyn_cast<MemberExpr>(S);
    const ValueDecl *D = Ref ? Ref->getDecl()
                             : Member ? Member->getMemberDecl() : nullptr;
    if (!D || isa<FunctionDecl>(D))
      return;
    std::optional<const ValueDecl *> Of = Analysis.rankCommunicator(*D);
    if (Of && *Of && llvm::is_contained(Communicators, *Of))
      Other = true;
    else if (Of)
      TestsRank = true;
    else if (Flow.value(cast<Expr>(S)).diverges())
      Other = true;
  });
  return TestsRank && !Other;
}

std::vector<DivergentSites::Finding> DivergentSites::decide() {
  std::vector<Finding> Findings;
  for (const Site &S : Sites)
    if (std::optional<Finding> F = decide(S))
      Findings.push_back(*F);
  return Findings;
}

std::optional<DivergentSites::Finding>
DivergentSites::decide(const Site &S) {
  for (const CFGBlock *Branch : Flow.controllingBranches(*S.Block)) {
    // A condition on a parameter diverges when a caller passes a value
    // that does.
    Divergence Condition =
        Analysis.fromCallers(Function, Flow.conditionValue(*Branch));

    const Stmt *Controlling =
        controllingStatement(Branch->getTerminatorStmt(), Parents);
    bool Guarded = Controlling && isGuardedBy(S.Call, Controlling, Parents);
    if (!Condition.diverges() || Flow.isLoaderLoop(*Branch) ||
        matched(*Branch, S, Controlling, Guarded) || testsGroupMembership(*Branch, S) ||
        withinSubgroup(*Branch, S, Condition))
      continue;
    const Stmt *Exit = nullptr;
    if (!Guarded) {
      Exit = exitOf(Controlling);
      if (!Exit)
        continue;
    }
    // Explain with the whole condition: in `rank == 0 && step % n == 0`
    // the CFG's nearest branch tests the step, but the rank matters more.
    if (const Expr *Whole = conditionOf(Controlling))
      Condition.merge(
          Analysis.fromCallers(Function, operandsValue(Flow, Whole)));
    return Finding{&S, Branch, Condition, Exit, Controlling};
  }
  return std::nullopt;
}

std::vector<const DivergentSites::Finding *>
DivergentSites::toReport(const std::vector<Finding> &Findings) const {
  llvm::DenseMap<const CFGBlock *, const Finding *> FirstSkipped;
  for (const Finding &F : Findings) {
    if (!F.Exit)
      continue;
    const Finding *&Chosen = FirstSkipped[F.Branch];
    bool After = precedes(F.Exit, F.Collective->Call);
    bool ChosenAfter = Chosen && precedes(F.Exit, Chosen->Collective->Call);
    // Findings are in source order: keep the first after the exit, else the
    // first of all.
    if (!Chosen || (After && !ChosenAfter))
      Chosen = &F;
  }
  std::vector<const Finding *> Reported;
  for (const Finding &F : Findings)
    if (!F.Exit || FirstSkipped.lookup(F.Branch) == &F)
      Reported.push_back(&F);
  return Reported;
}

const Expr *DivergentSites::condition(const Finding &F) const {
  const Expr *Condition = conditionOf(F.Controlling);
  if (!Condition || isa<CXXForRangeStmt>(F.Controlling))
    Condition = Flow.condition(*F.Branch);
  return Condition;
}

} // namespace clang::tidy::ddp
