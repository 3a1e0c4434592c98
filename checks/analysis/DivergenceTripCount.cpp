//===--- DivergenceTripCount.cpp - How often a counted loop runs ----------===//
//
// A counted loop `for (i = lo; i < hi; i += step)` runs about
// (hi - lo) / step times, whatever lo and hi are one by one. A rank's slice
// `[n / size * rank, n / size * (rank + 1))` has bounds that depend on the
// rank and a length that does not. The bounds are written as sums of
// products of atoms (a variable, a division, anything else), expanding the
// locals that are only ever initialised; what decides the trip count is
// what is left of hi - lo, and the step.
//
// Only what cannot change between the reads of the two bounds cancels: an
// integer local (or by-value parameter) whose writes all come before and
// outside any loop around the read, whose address is handed only to a call
// at that point and never kept, and that no lambda writes; an expression of
// such locals without calls or memory reads. Casts that may change a value
// (from floating point, narrowing, changing the sign) end a term, and a
// subtraction in unsigned arithmetic, which may wrap on some ranks only,
// gives no answer.
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/FoldingSet.h"

#include <map>
#include <vector>

namespace clang::tidy::ddp {

namespace {

/// A sum of products of atoms with integer coefficients.
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
    Sum.Overflow |= Other.Overflow;
    for (const auto &[M, C] : Other.Terms)
      Sum.add(M, Sign * C);
    return Sum;
  }
  Polynomial times(const Polynomial &Other) const {
    Polynomial Product;
    Product.Overflow = Overflow || Other.Overflow;
    for (const auto &[MA, CA] : Terms)
      for (const auto &[MB, CB] : Other.Terms) {
        Monomial M = MA;
        M.insert(M.end(), MB.begin(), MB.end());
        llvm::sort(M);
        int64_t C = 0;
        Product.Overflow |= __builtin_mul_overflow(CA, CB, &C);
        Product.add(M, C);
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
  bool overflowed() const { return Overflow; }

private:
  void add(const Monomial &M, int64_t C) {
    int64_t &Slot = Terms[M];
    Overflow |= __builtin_add_overflow(Slot, C, &Slot);
    if (!Slot)
      Terms.erase(M);
  }
  std::map<Monomial, int64_t> Terms;
  bool Overflow = false;
};

/// How a function writes one variable: where (assignments, increments, its
/// address or reference handed to a call), and whether it may be written
/// where this cannot see (an address kept, a reference bound, a lambda).
struct VariableWrites {
  llvm::SmallVector<const Expr *, 4> At;
  bool Escapes = false;
};

/// Writes bounds as polynomials, and remembers one expression per atom.
class Bounds {
public:
  Bounds(const FunctionDecl &Function, ASTContext &Context)
      : Function(Function), Context(Context) {}

  Polynomial of(const Expr *E, unsigned Depth = 0);
  const VariableWrites &writesOf(const VarDecl &V);
  /// A subtraction in unsigned arithmetic was met: the difference may wrap.
  bool mayWrap() const { return Subtracts && Unsigned; }

  llvm::DenseMap<uintptr_t, const Expr *> Atoms;

private:
  Polynomial atomOf(const Expr *E);
  Polynomial uniqueAtom(const Expr *E);
  bool settledBefore(const VarDecl &V, const Expr &Read);
  bool isPure(const Expr *E);
  bool keepsValue(const CastExpr &Cast) const;

  llvm::DenseMap<const VarDecl *, VariableWrites> Writes;
  std::vector<std::pair<llvm::FoldingSetNodeID, uintptr_t>> Shapes;
  bool Subtracts = false, Unsigned = false;
  const FunctionDecl &Function;
  ASTContext &Context;
};

/// An integral cast that keeps every value: to a type at least as wide and
/// of the same sign, or wider and signed.
bool Bounds::keepsValue(const CastExpr &Cast) const {
  QualType To = Cast.getType(), From = Cast.getSubExpr()->getType();
  if (Cast.getCastKind() == CK_LValueToRValue || Cast.getCastKind() == CK_NoOp)
    return true;
  if (Cast.getCastKind() != CK_IntegralCast || !To->isIntegerType() ||
      !From->isIntegerType())
    return false;
  uint64_t ToBits = Context.getTypeSize(To), FromBits = Context.getTypeSize(From);
  bool SameSign = To->isSignedIntegerType() == From->isSignedIntegerType();
  return (SameSign && ToBits >= FromBits) ||
         (To->isSignedIntegerType() && ToBits > FromBits);
}

Polynomial Bounds::of(const Expr *E, unsigned Depth) {
  E = E->IgnoreParens();
  if (!E->getType()->isIntegerType() || Depth > 8)
    return uniqueAtom(E);
  Unsigned |= E->getType()->isUnsignedIntegerType();
  if (const auto *Literal = dyn_cast<IntegerLiteral>(E))
    return Literal->getValue().getActiveBits() < 62
               ? Polynomial::constant(Literal->getValue().getZExtValue())
               : uniqueAtom(E);
  if (const auto *Cast = dyn_cast<CastExpr>(E))
    return keepsValue(*Cast) ? of(Cast->getSubExpr(), Depth + 1) : atomOf(E);
  if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
    if (Unary->getOpcode() == UO_Minus) {
      Subtracts = true;
      return Polynomial().plus(of(Unary->getSubExpr(), Depth + 1), -1);
    }
    if (Unary->getOpcode() == UO_Plus)
      return of(Unary->getSubExpr(), Depth + 1);
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    BinaryOperatorKind Op = Binary->getOpcode();
    if (Op == BO_Add || Op == BO_Sub || Op == BO_Mul) {
      Polynomial L = of(Binary->getLHS(), Depth + 1);
      Polynomial R = of(Binary->getRHS(), Depth + 1);
      Subtracts |= Op == BO_Sub;
      return Op == BO_Mul ? L.times(R) : L.plus(R, Op == BO_Sub ? -1 : 1);
    }
  }
  // A local that is only ever initialised stands for its initialiser.
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
        !V->getType()->isReferenceType()) {
      const VariableWrites &W = writesOf(*V);
      if (W.At.empty() && !W.Escapes)
        return of(V->getInit(), Depth + 1);
    }
  return atomOf(E);
}

Polynomial Bounds::uniqueAtom(const Expr *E) {
  auto Key = reinterpret_cast<uintptr_t>(E);
  Atoms.try_emplace(Key, E);
  return Polynomial::atom(Key);
}

/// Two mentions are one atom when they cannot differ: a variable no write
/// can change between them, or the same pure expression of such variables.
/// Anything else is an atom of its own, which cancels with nothing.
Polynomial Bounds::atomOf(const Expr *E) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (Var && settledBefore(*Var, *E)) {
    auto Key = reinterpret_cast<uintptr_t>(Var);
    Atoms.try_emplace(Key, E);
    return Polynomial::atom(Key);
  }
  if (Ref || !isPure(E))
    return uniqueAtom(E);
  llvm::FoldingSetNodeID ID;
  E->Profile(ID, Context, /*Canonical=*/true);
  for (const auto &[Seen, Key] : Shapes)
    if (Seen == ID)
      return Polynomial::atom(Key);
  auto Key = reinterpret_cast<uintptr_t>(E);
  Shapes.emplace_back(ID, Key);
  Atoms.try_emplace(Key, E);
  return Polynomial::atom(Key);
}

/// Arithmetic of literals and settled variables: no call, no memory read,
/// nothing that writes.
bool Bounds::isPure(const Expr *E) {
  return !containsWhere(E, [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
      const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
      return !V || !settledBefore(*V, *E);
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(S))
      return Unary->getOpcode() == UO_Deref || Unary->getOpcode() == UO_AddrOf ||
             Unary->isIncrementDecrementOp();
    if (const auto *Binary = dyn_cast<BinaryOperator>(S))
      return Binary->isAssignmentOp();
    return !isa<IntegerLiteral, ParenExpr, ImplicitCastExpr, CStyleCastExpr,
                UnaryOperator, BinaryOperator>(S);
  });
}

/// Whether \p S lies in a lambda's body inside the function.
bool inLambda(const Stmt &S, ASTContext &Context) {
  return enclosingWhere(S, Context, [](const DynTypedNode &Node,
                                       const DynTypedNode &) {
           return Node.get<LambdaExpr>() != nullptr;
         }).has_value();
}

const VariableWrites &Bounds::writesOf(const VarDecl &V) {
  auto [It, New] = Writes.try_emplace(&V);
  if (!New)
    return It->second;
  VariableWrites &W = It->second;
  containsWhere(Function.getBody(), [&](const Stmt *S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    if (!Ref || Ref->getDecl() != &V)
      return false;
    DynTypedNodeList Parents = Context.getParents(*Ref);
    while (!Parents.empty() && Parents[0].get<ParenExpr>())
      Parents = Context.getParents(Parents[0]);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent);
    if (Cast && Cast->getCastKind() == CK_LValueToRValue)
      return false; // a read
    const auto *Assign = dyn_cast_or_null<BinaryOperator>(Parent);
    const auto *Unary = dyn_cast_or_null<UnaryOperator>(Parent);
    const Stmt *Above = Unary && Unary->getOpcode() == UO_AddrOf
                            ? parentPastImplicitCasts(*Unary, Context)
                            : Parent;
    bool Positional =
        (Assign && Assign->isAssignmentOp() &&
         Assign->getLHS()->IgnoreParens() == Ref) ||
        (Unary && Unary->isIncrementDecrementOp()) ||
        (Above && isa<CallExpr, CXXConstructExpr>(Above) &&
         (!Unary || Unary->getOpcode() == UO_AddrOf));
    if (Positional && !inLambda(*Ref, Context))
      W.At.push_back(Ref);
    else
      W.Escapes = true;
    return false;
  });
  return W;
}

/// Whether no write of \p V can run after \p Read is evaluated and before
/// another settled read of it: a local (not a reference) whose writes all
/// come earlier in the function, outside any loop around \p Read, and
/// whose address is kept nowhere (`MPI_Comm_rank(comm, &rank)` at the
/// start).
bool Bounds::settledBefore(const VarDecl &V, const Expr &Read) {
  if (!V.hasLocalStorage() || V.getType()->isReferenceType() ||
      !V.getType()->isIntegerType())
    return false;
  const VariableWrites &W = writesOf(V);
  if (W.Escapes)
    return false;
  const SourceManager &SM = Context.getSourceManager();
  return llvm::all_of(W.At, [&](const Expr *Write) {
    if (!SM.isBeforeInTranslationUnit(Write->getBeginLoc(), Read.getBeginLoc()))
      return false;
    return !enclosingWhere(*Write, Context, [&](const DynTypedNode &Node,
                                                const DynTypedNode &) {
      const Stmt *Loop = Node.get<Stmt>();
      return Loop && isLoopStmt(Loop) &&
             SM.isBeforeInTranslationUnit(Loop->getBeginLoc(),
                                          Read.getBeginLoc()) &&
             SM.isBeforeInTranslationUnit(Read.getBeginLoc(), Loop->getEndLoc());
    });
  });
}

} // namespace

std::optional<CountedLoop> countedLoop(const ForStmt &For) {
  CountedLoop Loop;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(For.getInit());
      DS && DS->isSingleDecl()) {
    Loop.Counter = dyn_cast<VarDecl>(DS->getSingleDecl());
    Loop.Low = Loop.Counter ? Loop.Counter->getInit() : nullptr;
  } else if (const auto *Set = dyn_cast_or_null<BinaryOperator>(For.getInit());
             Set && Set->getOpcode() == BO_Assign) {
    Loop.Counter = dyn_cast_or_null<VarDecl>(referencedDecl(Set->getLHS()));
    Loop.Low = Set->getRHS();
  }
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      For.getCond() ? For.getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Loop.Counter || !Loop.Low || !Cond ||
      !Loop.Counter->getType()->isIntegerType() ||
      referencedDecl(Cond->getLHS()) != Loop.Counter ||
      !llvm::is_contained({BO_LT, BO_LE, BO_NE}, Cond->getOpcode()))
    return std::nullopt;
  Loop.High = Cond->getRHS();
  Loop.Compare = Cond->getOpcode();
  const Expr *Inc = For.getInc() ? For.getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *Step = dyn_cast_or_null<UnaryOperator>(Inc);
      Step && Step->isIncrementOp() &&
      referencedDecl(Step->getSubExpr()) == Loop.Counter)
    return Loop;
  if (const auto *Step = dyn_cast_or_null<CompoundAssignOperator>(Inc);
      Step && Step->getOpcode() == BO_AddAssign &&
      referencedDecl(Step->getLHS()) == Loop.Counter &&
      Step->getRHS()->getType()->isIntegerType()) {
    Loop.Step = Step->getRHS();
    return Loop;
  }
  return std::nullopt;
}

std::optional<Divergence>
FunctionDivergence::tripCountValue(const ForStmt &For) const {
  auto [It, New] = TripCounts.try_emplace(&For);
  if (New) {
    std::optional<CountedLoop> Loop = countedLoop(For);
    Bounds Writer(Function, Owner.context());
    // Inside the loop, only its increment changes the counter.
    bool Counted =
        Loop && !Writer.writesOf(*Loop->Counter).Escapes &&
        llvm::none_of(Writer.writesOf(*Loop->Counter).At, [&](const Expr *W) {
          return contains(For.getBody(), W) || contains(For.getCond(), W);
        });
    if (Counted) {
      Polynomial Length =
          Writer.of(Loop->High).plus(Writer.of(Loop->Low), -1);
      if (!Length.overflowed() && !Writer.mayWrap()) {
        llvm::SmallVector<const Expr *, 8> Terms;
        for (uintptr_t Key : Length.atoms())
          Terms.push_back(Writer.Atoms.lookup(Key));
        if (Loop->Step)
          Terms.push_back(Loop->Step);
        It->second = std::move(Terms);
      }
    }
  }
  if (!It->second)
    return std::nullopt;
  Divergence D;
  for (const Expr *Term : *It->second) {
    if (!Values.count(Term) && !Values.count(Term->IgnoreParenImpCasts()))
      return std::nullopt; // not evaluated here: no claim
    D.merge(value(Term));
  }
  return D;
}

} // namespace clang::tidy::ddp
