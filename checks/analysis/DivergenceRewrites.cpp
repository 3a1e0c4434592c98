//===- DivergenceRewrites.cpp - Arrays rewritten element by element -------===//
//
// `for (i = 0; i < n; ++i) a[i] = b[i] + t * d[i];` replaces what every
// element of `a` held: once the loop is left, after a trip count alike on
// every rank, `a` holds what the assignment wrote. An element written alone
// (`a[k] += x`) only adds to what the array held. Also how the state flows
// along one edge of the CFG (mergeEdge), where that replacement happens.
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"

#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

namespace {
bool isConstant(const Expr *E, int64_t Value, ASTContext &Context) {
  Expr::EvalResult Result;
  return E && !E->isValueDependent() && E->EvaluateAsInt(Result, Context) &&
         Result.Val.getInt() == Value;
}

bool names(const Expr *E, const VarDecl *V) {
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  return Ref && Ref->getDecl() == V;
}

/// The counter of `for (i = 0; i < n; ++i)` (`int i = 0`, `i++`, `i += 1`,
/// `i != n` too), or null.
const VarDecl *countingVariable(const ForStmt &For, ASTContext &Context) {
  std::optional<CountedLoop> Loop = countedLoop(For);
  if (!Loop || !isConstant(Loop->Low, 0, Context) ||
      Loop->Compare == BO_LE || (Loop->Step && !isConstant(Loop->Step, 1, Context)))
    return nullptr;
  return Loop->Counter;
}

/// Whether an iteration of \p Body can end before its last statement.
bool leavesEarly(const Stmt *Body) {
  bool Found = false;
  forEachStmt(Body, [&](const Stmt *S) {
    Found |= isa<BreakStmt, ContinueStmt, ReturnStmt, GotoStmt, CXXThrowExpr>(S);
  });
  return Found;
}
} // namespace

void FunctionDivergence::collectRewriteLoop(const ForStmt &For) {
  const VarDecl *I = countingVariable(For, Owner.context());
  if (!I || !For.getBody() || leavesEarly(For.getBody()))
    return;
  llvm::SmallVector<const Stmt *, 4> Top;
  if (const auto *Block = dyn_cast<CompoundStmt>(For.getBody()))
    Top.append(Block->body_begin(), Block->body_end());
  else
    Top.push_back(For.getBody());
  for (const Stmt *S : Top) {
    const auto *E = dyn_cast<Expr>(S);
    const auto *Set =
        dyn_cast_or_null<BinaryOperator>(E ? E->IgnoreImplicit() : nullptr);
    if (!Set || Set->getOpcode() != BO_Assign)
      continue;
    const auto *Element =
        dyn_cast<ArraySubscriptExpr>(Set->getLHS()->IgnoreParenImpCasts());
    if (!Element || !names(Element->getIdx(), I))
      continue;
    bool Exact = false;
    Slot Where = rootLocal(Set->getLHS(), Exact);
    if (!Where.first)
      continue;
    RewriteLoops[&For].push_back({Where, Set});
    Rewritten.try_emplace(Set);
  }
}

void FunctionDivergence::mergeEdge(const CFGBlock &Pred, const CFGBlock &B) {
  auto Rewrites = rewrittenOnExit(Pred, B);
  auto It = Out.find(&Pred);
  if (It != Out.end())
    for (const auto &[Where, D] : It->second)
      if (llvm::none_of(Rewrites, [&](const auto &R) { return R.first == Where; }))
        Current[Where].merge(D);
  for (const auto &[Where, D] : Rewrites)
    Current[Where].merge(D);
}

llvm::SmallVector<std::pair<FunctionDivergence::Slot, Divergence>, 2>
FunctionDivergence::rewrittenOnExit(const CFGBlock &Loop,
                                    const CFGBlock &Exit) const {
  llvm::SmallVector<std::pair<Slot, Divergence>, 2> Out;
  auto It = RewriteLoops.find(Loop.getTerminatorStmt());
  if (It == RewriteLoops.end() || Loop.succ_size() != 2 ||
      (Loop.succ_begin() + 1)->getReachableBlock() != &Exit)
    return Out;
  // A bound handed in by a caller still gives each rank an array rewritten
  // from what the assignment computes.
  if (conditionValue(Loop).diverges())
    return Out;
  for (const auto &[Where, Set] : It->second)
    Out.push_back({Where, Rewritten.lookup(Set)});
  return Out;
}

} // namespace clang::tidy::ddp
