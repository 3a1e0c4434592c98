//===--- DivergenceTripCount.cpp - How often a counted loop runs ----------===//
//
// A counted loop `for (i = lo; i < hi; i += step)` runs about
// (hi - lo) / step times, whatever lo and hi are one by one. A rank's slice
// `[n / size * rank, n / size * (rank + 1))` has bounds that depend on the
// rank and a length that does not. The bounds are written as sums of
// products of atoms (a variable, a call, a division), expanding the locals
// that are only ever initialised; what decides the trip count is what is
// left of hi - lo and the step.
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/FoldingSet.h"

#include <map>
#include <vector>

namespace clang::tidy::ddp {

namespace {

/// A sum of products of atoms with integer coefficients; each atom is named
/// by its declaration or by its shape, and keeps one expression of it.
class Polynomial {
public:
  using Monomial = std::vector<uintptr_t>;

  static Polynomial constant(int64_t C) {
    Polynomial P;
    if (C)
      P.Terms[{}] = C;
    return P;
  }
  static Polynomial atom(uintptr_t Key) {
    Polynomial P;
    P.Terms[{Key}] = 1;
    return P;
  }
  Polynomial plus(const Polynomial &Other, int64_t Sign) const {
    Polynomial Sum = *this;
    for (const auto &[M, C] : Other.Terms)
      Sum.add(M, Sign * C);
    return Sum;
  }
  Polynomial times(const Polynomial &Other) const {
    Polynomial Product;
    for (const auto &[MA, CA] : Terms)
      for (const auto &[MB, CB] : Other.Terms) {
        Monomial M = MA;
        M.insert(M.end(), MB.begin(), MB.end());
        llvm::sort(M);
        Product.add(M, CA * CB);
      }
    return Product;
  }
  /// The atoms of the terms that do not cancel.
  llvm::SmallVector<uintptr_t, 8> atoms() const {
    llvm::SmallVector<uintptr_t, 8> Out;
    for (const auto &[M, C] : Terms)
      Out.append(M.begin(), M.end());
    return Out;
  }

private:
  void add(const Monomial &M, int64_t C) {
    int64_t &Slot = Terms[M];
    Slot += C;
    if (!Slot)
      Terms.erase(M);
  }
  std::map<Monomial, int64_t> Terms;
};

/// Writes bounds as polynomials, and remembers one expression per atom.
class Bounds {
public:
  Bounds(const FunctionDecl &Function, ASTContext &Context)
      : Function(Function), Context(Context) {}

  Polynomial of(const Expr *E, unsigned Depth = 0);
  llvm::DenseMap<uintptr_t, const Expr *> Atoms;

private:
  Polynomial atomOf(const Expr *E);
  llvm::ArrayRef<const DeclRefExpr *> writesOf(const VarDecl &V);
  bool onlyInitialised(const VarDecl &V) { return writesOf(V).empty(); }
  bool settledBefore(const VarDecl &V, const Expr &Read);

  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const DeclRefExpr *, 4>>
      Writes;

  const FunctionDecl &Function;
  ASTContext &Context;
};

Polynomial Bounds::of(const Expr *E, unsigned Depth) {
  E = E->IgnoreParenImpCasts();
  if (Depth > 8)
    return atomOf(E);
  if (const auto *Literal = dyn_cast<IntegerLiteral>(E))
    return Polynomial::constant(Literal->getValue().getSExtValue());
  if (const auto *Cast = dyn_cast<CastExpr>(E))
    return of(Cast->getSubExpr(), Depth + 1);
  if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
    if (Unary->getOpcode() == UO_Minus)
      return Polynomial().plus(of(Unary->getSubExpr(), Depth + 1), -1);
    if (Unary->getOpcode() == UO_Plus)
      return of(Unary->getSubExpr(), Depth + 1);
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    Polynomial L = of(Binary->getLHS(), Depth + 1);
    switch (Binary->getOpcode()) {
    case BO_Add:
      return L.plus(of(Binary->getRHS(), Depth + 1), 1);
    case BO_Sub:
      return L.plus(of(Binary->getRHS(), Depth + 1), -1);
    case BO_Mul:
      return L.times(of(Binary->getRHS(), Depth + 1));
    default:
      break;
    }
  }
  // A local that is only ever initialised stands for its initialiser.
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
        V->getType()->isIntegerType() && onlyInitialised(*V))
      return of(V->getInit(), Depth + 1);
  return atomOf(E);
}

Polynomial Bounds::atomOf(const Expr *E) {
  // Two mentions are one atom when they cannot differ: a variable no write
  // can change between them, or the same expression of such variables
  // without calls. Anything else is an atom of its own, which cancels with
  // nothing.
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  bool Unsettled = containsWhere(E, [&](const Stmt *S) {
    const auto *Inner = dyn_cast<DeclRefExpr>(S);
    const auto *InnerVar = Inner ? dyn_cast<VarDecl>(Inner->getDecl()) : nullptr;
    return isa<CallExpr, CXXConstructExpr>(S) ||
           (InnerVar && !settledBefore(*InnerVar, *E));
  });
  uintptr_t Key = reinterpret_cast<uintptr_t>(E);
  if (Var && settledBefore(*Var, *E)) {
    Key = reinterpret_cast<uintptr_t>(Var);
  } else if (!Ref && !Unsettled) {
    llvm::FoldingSetNodeID ID;
    E->Profile(ID, Context, /*Canonical=*/true);
    Key = static_cast<uintptr_t>(ID.ComputeHash()) | 1;
  }
  Atoms.try_emplace(Key, E);
  return Polynomial::atom(Key);
}

/// The mentions of \p V that may write it (every use but a plain read).
llvm::ArrayRef<const DeclRefExpr *> Bounds::writesOf(const VarDecl &V) {
  auto [It, New] = Writes.try_emplace(&V);
  if (New)
    forEachStmt(Function.getBody(), [&](const Stmt *S) {
      const auto *Ref = dyn_cast<DeclRefExpr>(S);
      if (!Ref || Ref->getDecl() != &V)
        return;
      DynTypedNodeList Parents = Context.getParents(*Ref);
      while (!Parents.empty() && Parents[0].get<ParenExpr>())
        Parents = Context.getParents(Parents[0]);
      const auto *Cast =
          Parents.empty() ? nullptr : Parents[0].get<ImplicitCastExpr>();
      if (!Cast || Cast->getCastKind() != CK_LValueToRValue)
        It->second.push_back(Ref);
    });
  return It->second;
}

/// Whether no write of \p V can run after \p Read is evaluated and before
/// another read of it that is settled too: every write comes earlier in
/// the function and outside any loop around \p Read (`MPI_Comm_rank(comm,
/// &rank)` at the start).
bool Bounds::settledBefore(const VarDecl &V, const Expr &Read) {
  const SourceManager &SM = Context.getSourceManager();
  return llvm::all_of(writesOf(V), [&](const DeclRefExpr *Write) {
    if (!SM.isBeforeInTranslationUnit(Write->getBeginLoc(), Read.getBeginLoc()))
      return false;
    DynTypedNode Node = DynTypedNode::create(*Write);
    for (unsigned Depth = 0; Depth < 64; ++Depth) {
      DynTypedNodeList Parents = Context.getParents(Node);
      if (Parents.empty() || Parents[0].get<FunctionDecl>())
        return true;
      Node = Parents[0];
      const Stmt *Loop = Node.get<Stmt>();
      if (Loop && isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Loop) &&
          SM.isBeforeInTranslationUnit(Loop->getBeginLoc(), Read.getBeginLoc()) &&
          SM.isBeforeInTranslationUnit(Read.getBeginLoc(), Loop->getEndLoc()))
        return false;
    }
    return true;
  });
}

/// The counter of `for (i = lo; i < hi; ...)`, with lo and hi, when the
/// loop steps it by `++`, `--`-free `+= step` and nothing else writes it.
struct CountedLoop {
  const VarDecl *Counter = nullptr;
  const Expr *Low = nullptr, *High = nullptr, *Step = nullptr;
};

std::optional<CountedLoop> countedLoop(const ForStmt &For) {
  CountedLoop Loop;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(For.getInit());
      DS && DS->isSingleDecl()) {
    Loop.Counter = dyn_cast<VarDecl>(DS->getSingleDecl());
    Loop.Low = Loop.Counter ? Loop.Counter->getInit() : nullptr;
  } else if (const auto *Set = dyn_cast_or_null<BinaryOperator>(For.getInit());
             Set && Set->getOpcode() == BO_Assign) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Set->getLHS()->IgnoreParenImpCasts()))
      Loop.Counter = dyn_cast<VarDecl>(Ref->getDecl());
    Loop.Low = Set->getRHS();
  }
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      For.getCond() ? For.getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Loop.Counter || !Loop.Low || !Cond || referencedDecl(Cond->getLHS()) != Loop.Counter ||
      !llvm::is_contained({BO_LT, BO_LE, BO_NE}, Cond->getOpcode()))
    return std::nullopt;
  Loop.High = Cond->getRHS();
  const Expr *Inc = For.getInc() ? For.getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *Step = dyn_cast_or_null<UnaryOperator>(Inc);
      Step && Step->isIncrementOp() && referencedDecl(Step->getSubExpr()) == Loop.Counter)
    ;
  else if (const auto *Step = dyn_cast_or_null<CompoundAssignOperator>(Inc);
           Step && Step->getOpcode() == BO_AddAssign &&
           referencedDecl(Step->getLHS()) == Loop.Counter)
    Loop.Step = Step->getRHS();
  else
    return std::nullopt;
  bool Written = false;
  forEachStmt(For.getBody(), [&](const Stmt *S) {
    if (const auto *Unary = dyn_cast<UnaryOperator>(S))
      Written |= (Unary->isIncrementDecrementOp() || Unary->getOpcode() == UO_AddrOf) &&
                 referencedDecl(Unary->getSubExpr()) == Loop.Counter;
    else if (const auto *Binary = dyn_cast<BinaryOperator>(S))
      Written |= Binary->isAssignmentOp() && referencedDecl(Binary->getLHS()) == Loop.Counter;
  });
  if (Written)
    return std::nullopt;
  return Loop;
}

} // namespace

std::optional<Divergence>
FunctionDivergence::tripCountValue(const ForStmt &For) const {
  std::optional<CountedLoop> Loop = countedLoop(For);
  if (!Loop)
    return std::nullopt;
  Bounds Writer(Function, Owner.context());
  Polynomial Length = Writer.of(Loop->High).plus(Writer.of(Loop->Low), -1);
  Divergence D;
  for (uintptr_t Key : Length.atoms()) {
    const Expr *Atom = Writer.Atoms.lookup(Key);
    if (!Values.count(Atom) && !Values.count(Atom->IgnoreParenImpCasts()))
      return std::nullopt; // not evaluated here: no claim
    D.merge(value(Atom));
  }
  if (Loop->Step)
    D.merge(value(Loop->Step));
  return D;
}

} // namespace clang::tidy::ddp
