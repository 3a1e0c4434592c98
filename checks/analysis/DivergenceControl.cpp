//===--- DivergenceControl.cpp - which conditions decide a statement ------===//
//
// FunctionDivergence's view of control: the condition a branch block tests
// and its value, loops over a data loader (uniform), the branches that
// decide whether a block runs (clang's ControlDependencyCalculator, leaving
// out sides that can only abort) and where the paths out of a branch meet
// again. Part of FunctionDivergence (analysis/Divergence.h).
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>

namespace clang::tidy::ddp {

namespace {

/// The expression whose value decides a branch block. For a chain of `&&` /
/// `||` the CFG gives each operand a block of its own; the block that ends
/// the chain names the whole chain as its condition, but decides on the
/// last operand, which is the one it evaluates.
const Expr *decidingExpr(const CFGBlock &Branch) {
  const auto *E = dyn_cast_or_null<Expr>(
      const_cast<CFGBlock &>(Branch).getTerminatorCondition(false));
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    const Expr *Inner = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Inner))
      Inner = Cleanups->getSubExpr()->IgnoreParenImpCasts();
    const auto *Logical = dyn_cast<BinaryOperator>(Inner);
    if (!Logical || !Logical->isLogicalOp())
      return E;
    E = Logical->getRHS();
  }
  return E;
}

/// A block after which this process runs nothing more: a call declared
/// not to return, or one the vocabulary knows ends every rank
/// (`MPI_Abort`).
bool endsProcess(const CFGBlock &B) {
  if (B.hasNoReturnElement())
    return true;
  for (const CFGElement &Element : B)
    if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
      if (const auto *Call = dyn_cast<CallExpr>(S->getStmt()))
        if (sdk::neverReturns(*Call))
          return true;
  return false;
}

} // namespace

const Expr *FunctionDivergence::condition(const CFGBlock &Branch) const {
  const Stmt *T = Branch.getTerminatorStmt();
  if (const auto *For = dyn_cast_or_null<CXXForRangeStmt>(T))
    return For->getRangeInit();
  return decidingExpr(Branch);
}

Divergence FunctionDivergence::conditionValue(const CFGBlock &Branch) const {
  if (Branch.succ_size() < 2)
    return {};
  // A range-for over a data loader asks only whether the loader is
  // exhausted, also where the loader's type is a template parameter and the
  // range's value carries the rank of the sampler it was built with.
  if (const auto *For =
          dyn_cast_or_null<CXXForRangeStmt>(Branch.getTerminatorStmt()))
    if (const Expr *Range = For->getRangeInit();
        Range && loaders::isLoaderRange(*Range))
      return Divergence::seed(DivergenceSource::LoaderExhaustion, Range);
  if (const auto *For = dyn_cast_or_null<ForStmt>(Branch.getTerminatorStmt()))
    if (std::optional<Divergence> Count = tripCountValue(*For))
      return *Count;
  const Expr *E = decidingExpr(Branch);
  return E ? value(E) : Divergence();
}

bool FunctionDivergence::isLoaderLoop(const CFGBlock &Branch) const {
  if (!isLoopStmt(Branch.getTerminatorStmt()))
    return false;
  return conditionValue(Branch).onlyFrom(DivergenceSource::LoaderExhaustion);
}

bool FunctionDivergence::reachesAvoiding(
    const CFGBlock &Start, llvm::function_ref<bool(const CFGBlock &)> Target,
    llvm::function_ref<bool(const CFGBlock &)> Avoid, bool Together) const {
  const CFGBlock *Exit = &Cfg->getExit();
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work{&Start};
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    if (!B || Avoid(*B) || endsProcess(*B) || !Seen.insert(B).second)
      continue;
    if (Target ? Target(*B) : B == Exit)
      return true;
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      if (const CFGBlock *Next = Succ.getReachableBlock();
          Next && !(Together && isAloneEdge(*B, *Next)))
        Work.push_back(Next);
  }
  return false;
}

bool FunctionDivergence::bypasses(const CFGBlock &Branch,
                                  const CFGBlock &Block) {
  auto Key = std::make_pair(&Branch, &Block);
  auto It = Bypasses.find(Key);
  if (It != Bypasses.end())
    return It->second;
  bool Found = llvm::any_of(Branch.succs(), [&](const CFGBlock::AdjacentBlock &Succ) {
    const CFGBlock *Start = Succ.getReachableBlock();
    return Start && reachesAvoiding(*Start, nullptr, [&](const CFGBlock &B) {
             return &B == &Block;
           });
  });
  return Bypasses[Key] = Found;
}

llvm::ArrayRef<const CFGBlock *>
FunctionDivergence::controllingBranches(const CFGBlock &Block) {
  auto It = Controllers.find(&Block);
  if (It != Controllers.end())
    return It->second;
  llvm::SmallVector<const CFGBlock *, 8> Result;
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 8> Queue;
  // A branch decides whether Block runs when one of its sides can finish
  // the function without running Block. A side that can only end in a call
  // that does not return (TORCH_CHECK, abort) does not count: the ranks that
  // take it stop, so it makes no difference among those that go on.
  auto Push = [&](const CFGBlock *B) {
    for (CFGBlock *Dep :
         Control->getControlDependencies(const_cast<CFGBlock *>(B)))
      if (Seen.insert(Dep).second && bypasses(*Dep, Block))
        Queue.push_back(Dep);
  };
  Push(&Block);
  for (size_t I = 0; I < Queue.size(); ++I) {
    Result.push_back(Queue[I]);
    Push(Queue[I]);
  }
  return Controllers[&Block] = std::move(Result);
}

const CFGBlock *FunctionDivergence::joinOf(const CFGBlock &Branch) const {
  auto *Node = PostDom->getBase().getNode(const_cast<CFGBlock *>(&Branch));
  if (!Node || !Node->getIDom())
    return nullptr;
  return Node->getIDom()->getBlock();
}

const CFGBlock *FunctionDivergence::continuingJoinOf(const CFGBlock &Branch) {
  // The post-dominators of a branch lie on every path out of it, so the
  // nearest one is the first found breadth-first; here, on every path that
  // finishes the function normally.
  llvm::DenseSet<const CFGBlock *> Seen{&Branch};
  std::deque<const CFGBlock *> Work;
  for (const CFGBlock::AdjacentBlock &Succ : Branch.succs())
    Work.push_back(Succ.getReachableBlock());
  while (!Work.empty()) {
    const CFGBlock *B = Work.front();
    Work.pop_front();
    if (!B || !Seen.insert(B).second || endsProcess(*B))
      continue;
    if (!bypasses(Branch, *B))
      return B;
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      Work.push_back(Succ.getReachableBlock());
  }
  return nullptr;
}

Divergence FunctionDivergence::implicitIn(const CFGBlock &B) {
  Divergence D;
  for (const CFGBlock *Branch : controllingBranches(B))
    if (!isLoaderLoop(*Branch))
      D.merge(conditionValue(*Branch));
  return D;
}

Divergence FunctionDivergence::implicitAt(const Stmt *S) {
  const CFGBlock *B = blockOf(S);
  return B ? implicitIn(*B) : Divergence();
}

/// Which side of a test of the world size against 1 runs alone
/// (ranks::soleProcessOnThen), the world size known by its query or name.
static std::optional<bool> soleProcessOnThen(const Expr *E, const Vocabulary &Vocab,
                                             const ASTContext &Context) {
  return ranks::soleProcessOnThen(
      E,
      [&](const Expr *Side) {
        Side = Side->IgnoreParenImpCasts();
        if (const auto *Call = dyn_cast<CallExpr>(Side))
          return Vocab.returnsWorldSize(*Call);
        const ValueDecl *D = referencedDecl(Side);
        return D && ranks::isWorldSizeName(identifierName(D));
      },
      Context);
}

namespace {
/// The pointer a condition tests for null: `h`, `!h`, `h == nullptr`,
/// `h != nullptr` (through conversions to bool); \p NullOnThen says whether
/// the condition holds when it is null. Null where it is no such test.
const Expr *nullTestedPointer(const Expr *E, bool &NullOnThen,
                              ASTContext &Context) {
  NullOnThen = false;
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Not = dyn_cast<UnaryOperator>(E);
        Not && Not->getOpcode() == UO_LNot) {
      NullOnThen = !NullOnThen;
      E = Not->getSubExpr();
      continue;
    }
    const Expr *Lhs = nullptr, *Rhs = nullptr;
    BinaryOperatorKind Op = BO_Comma;
    if (const auto *Bin = dyn_cast<BinaryOperator>(E)) {
      Lhs = Bin->getLHS(), Rhs = Bin->getRHS(), Op = Bin->getOpcode();
    } else if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(E);
               Call && Call->getNumArgs() == 2 &&
               (Call->getOperator() == OO_EqualEqual ||
                Call->getOperator() == OO_ExclaimEqual)) {
      Lhs = Call->getArg(0), Rhs = Call->getArg(1);
      Op = Call->getOperator() == OO_EqualEqual ? BO_EQ : BO_NE;
    }
    if (Op == BO_EQ || Op == BO_NE) {
      if (!Rhs->IgnoreParenImpCasts()->isNullPointerConstant(
              Context, Expr::NPC_ValueDependentIsNotNull))
        return nullptr;
      NullOnThen = Op == BO_EQ ? !NullOnThen : NullOnThen;
      E = Lhs;
      continue;
    }
    if (const auto *Conversion = dyn_cast<CXXMemberCallExpr>(E);
        Conversion && isa<CXXConversionDecl>(Conversion->getMethodDecl())) {
      E = Conversion->getImplicitObjectArgument();
      continue;
    }
    break;
  }
  return E;
}
} // namespace

bool FunctionDivergence::isAloneEdge(const CFGBlock &Branch,
                                     const CFGBlock &Succ) const {
  if (Branch.succ_size() != 2)
    return false;
  const CFGBlock *Then = *Branch.succ_begin();
  const CFGBlock *Else = *(Branch.succ_begin() + 1);
  if (Then == Else || (&Succ != Then && &Succ != Else))
    return false;
  const auto *Condition = dyn_cast_or_null<Expr>(
      const_cast<CFGBlock &>(Branch).getTerminatorCondition(false));
  // `if (world_size == 1) total = local;`: one process, no peer to differ
  // from.
  if (std::optional<bool> OnThen =
          soleProcessOnThen(Condition, Vocab, Function.getASTContext()))
    return &Succ == (*OnThen ? Then : Else);
  if (CommunicatorHandles.empty())
    return false;
  // Which side has no communicator handle.
  bool NullOnThen = false;
  const Expr *E =
      nullTestedPointer(Condition, NullOnThen, Function.getASTContext());
  const ValueDecl *Handle = E ? handleDecl(E) : nullptr;
  if (!Handle || !(CommunicatorHandles.contains(Handle)))
    return false;
  return &Succ == (NullOnThen ? Then : Else);
}

bool FunctionDivergence::afterBackward(const Stmt *S) const {
  const CFGBlock *Block = Dom ? blockOf(S) : nullptr;
  if (!Block)
    return false;
  return llvm::any_of(BackwardBlocks, [&](const CFGBlock *Backward) {
    return Backward != Block && Dom->dominates(Backward, Block);
  });
}

} // namespace clang::tidy::ddp
