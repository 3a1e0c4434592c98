//===--- DivergenceCounters.cpp - counters of passes ----------------------===//
//
// `long step = 0; while (...) for (auto i : mine) { if ((step + 1) % k == 0)
// sync(); ++step; }`: the loop over this rank's indices ends at different
// times on different ranks, so after it `step` differs; but at its k-th
// visit of the test every rank holds k - 1. The test pairs the ranks'
// collectives by visit, so it asks the count of visits, not the moment.
//
//===----------------------------------------------------------------------===//

#include "analysis/DivergenceInternal.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

namespace {

/// How a reference to a counter is used: read, incremented by a constant
/// (the increment returned in \p Step), or anything else.
enum class CounterUse { Read, Step, Other };

CounterUse counterUse(const Expr *Ref, const Stmt *Parent,
                      const ASTContext &Context, const Stmt *&Step) {
  if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent))
    return Cast->getCastKind() == CK_LValueToRValue ? CounterUse::Read
                                                     : CounterUse::Other;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Parent);
      UO && UO->isIncrementDecrementOp()) {
    Step = UO;
    return CounterUse::Step;
  }
  if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Parent);
      CA && CA->getLHS()->IgnoreParens() == Ref &&
      (CA->getOpcode() == BO_AddAssign || CA->getOpcode() == BO_SubAssign) &&
      !CA->getRHS()->isValueDependent() &&
      CA->getRHS()->isEvaluatable(Context)) {
    Step = CA;
    return CounterUse::Step;
  }
  return CounterUse::Other;
}

} // namespace

void FunctionDivergence::collectPassCounters() {
  const ASTContext &Context = Owner.context();
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Stmt *, 2>> Steps;
  llvm::DenseSet<const VarDecl *> Disqualified;
  // Parents are followed through parentheses; a lambda's body is out.
  auto Walk = [&](auto &Self, const Stmt *S, const Stmt *Parent) -> void {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
          V && isLocal(V) && V->getType()->isIntegerType()) {
        const Stmt *Step = nullptr;
        switch (counterUse(Ref, Parent, Context, Step)) {
        case CounterUse::Read:
          break;
        case CounterUse::Step:
          Steps[V].push_back(Step);
          break;
        case CounterUse::Other:
          Disqualified.insert(V);
        }
      }
    for (const Stmt *Child : S->children())
      Self(Self, Child, isa<ParenExpr>(S) && Parent ? Parent : S);
  };
  Walk(Walk, Function.getBody(), nullptr);
  for (const auto &[V, Writes] : Steps) {
    const Expr *Init = V->getInit();
    if (Writes.size() != 1 || Disqualified.contains(V) || !Init ||
        V->isStaticLocal() || V->getType()->isReferenceType() ||
        Init->isValueDependent() || !Init->isEvaluatable(Context))
      continue;
    PassCounters[V] = Writes.front();
  }
}

bool FunctionDivergence::countsVisits(const VarDecl *V, const Stmt *At) {
  auto It = PassCounters.find(V);
  if (It == PassCounters.end() || !At)
    return false;
  if (!Paths)
    Paths = std::make_unique<Reachability>(&Function, Function.getBody(),
                                           Owner.context());
  const Stmt *Step = It->second;
  if (!Paths->valid() || Paths->reachable(At, At, {Step}) ||
      Paths->reachable(Step, Step, {At}))
    return false;
  // Before the first visit: no increment on any path, or one on every path.
  return !Paths->reachableFromEntry(Step, {At}) ||
         !Paths->reachableFromEntry(At, {Step});
}

} // namespace clang::tidy::ddp
