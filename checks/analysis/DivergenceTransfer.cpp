//===--- DivergenceTransfer.cpp - what a statement does to the flow -------===//
//
// FunctionDivergence's transfer function: the definitions one statement of
// the CFG makes (declarations, assignments, in-place and output-argument
// updates, what a function returns) and what a collective makes the same
// on every rank. Part of FunctionDivergence (analysis/Divergence.h).
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"
#include "analysis/DivergenceInternal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtVisitor.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

namespace clang::tidy::ddp {

namespace {

/// A tensor, or a container of tensors: passing one hands over storage
/// that a collective can overwrite in place.
bool sharesTensorStorage(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return false;
  if (tensors::isTensorClass(*RD))
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type)
      if (const CXXRecordDecl *Elem = Args[0].getAsType()->getAsCXXRecordDecl())
        return tensors::isTensorClass(*Elem);
  }
  return false;
}

/// Whether parameter \p I of \p FD is a forwarding reference (`Args&&...`)
/// in the template it was instantiated from: it binds a non-const lvalue
/// reference to pass the argument on, not to write it.
bool isForwardingParameter(const FunctionDecl &FD, unsigned I) {
  const FunctionDecl *Pattern = FD.getTemplateInstantiationPattern();
  if (!Pattern || Pattern->getNumParams() == 0)
    return false;
  const ParmVarDecl *P =
      Pattern->getParamDecl(std::min(I, Pattern->getNumParams() - 1));
  if (I >= Pattern->getNumParams() && !P->isParameterPack())
    return false;
  QualType T = P->getType();
  if (const auto *Pack = T->getAs<PackExpansionType>())
    T = Pack->getPattern();
  return T->isRValueReferenceType();
}

/// Whether argument \p I of \p FD hands the callee a buffer it may fill: a
/// non-const pointer parameter given an array or a pointer variable
/// (`reduce(buffer, n)`, `reduce(values, n)` with `double *values`), or the
/// address of a variable.
bool isBufferArgument(const FunctionDecl &FD, unsigned I, const Expr *Arg) {
  if (isOutputPointer(FD, I, Arg))
    return true;
  if (I >= FD.getNumParams())
    return false;
  QualType P = FD.getParamDecl(I)->getType();
  if (!P->isPointerType() || P->getPointeeType().isConstQualified())
    return false;
  const Expr *Inner = Arg->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Inner);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && (Var->getType()->isArrayType() ||
                 Var->getType()->isPointerType());
}

} // namespace

void FunctionDivergence::sanitize(const CollectiveSite &Site,
                                  const CallExpr &Call) {
  auto Clear = [&](const Expr *Arg) {
    llvm::SmallVector<const VarDecl *, 4> Roots;
    storageRoots(Arg, Roots);
    for (const VarDecl *V : Roots)
      clear(V);
    if (const FieldDecl *F = ownFieldRoot(Arg))
      Current[{objectSlot(), F}] = Divergence();
  };
  std::optional<CollectiveInfo> Info = Vocab.classifyCollective(Call);
  // A function named for a collective is a helper out of sight: what it
  // gets by value stays as it was.
  if (Site.How == CollectiveSite::Via::Api &&
      !(Info && Info->Api == CollectiveApi::Named)) {
    if (!Site.Kind)
      return;
    switch (*Site.Kind) {
    case CollectiveKind::AllReduce:
    case CollectiveKind::Broadcast:
      for (const Expr *Arg : Call.arguments())
        Clear(Arg);
      return;
    case CollectiveKind::AllGather:
      // c10d's allgather(outputs, inputs): only the outputs agree.
      if (isa<CXXMemberCallExpr>(Call) && Call.getNumArgs() > 0)
        Clear(Call.getArg(0));
      else
        for (const Expr *Arg : Call.arguments())
          Clear(Arg);
      return;
    default:
      return; // gather, scatter, reduce, ...: results differ by rank
    }
  }
  // A helper or an outside function handed the communicator: tensors it is
  // given, and what it may write (`bcast(&flag, 1, root)` too), come back
  // reduced, unless what it issues first leaves each rank its own part.
  bool RankPartResult =
      Site.Kind && (*Site.Kind == CollectiveKind::Gather ||
                    *Site.Kind == CollectiveKind::Scatter ||
                    *Site.Kind == CollectiveKind::Reduce ||
                    *Site.Kind == CollectiveKind::ReduceScatter ||
                    *Site.Kind == CollectiveKind::AllToAll);
  const FunctionDecl *FD = Call.getDirectCallee();
  for (unsigned I = 0; I < Call.getNumArgs(); ++I) {
    const Expr *Arg = Call.getArg(I);
    bool Writable = false;
    if (FD && I < FD->getNumParams()) {
      QualType P = FD->getParamDecl(I)->getType();
      Writable = (P->isLValueReferenceType() &&
                  !P.getNonReferenceType().isConstQualified()) ||
                 (!RankPartResult && isBufferArgument(*FD, I, Arg));
    }
    if (Writable || sharesTensorStorage(Arg->getType()))
      Clear(Arg);
  }
}

//===----------------------------------------------------------------------===//
// The transfer function
//===----------------------------------------------------------------------===//

/// What one statement of the CFG does to the flow state: one Visit method
/// per kind of statement that defines a slot, returns, or issues a call.
/// The value of an expression statement is recorded before (transfer()).
class FunctionDivergence::Transfer
    : public ConstStmtVisitor<FunctionDivergence::Transfer> {
public:
  Transfer(FunctionDivergence &Flow, const CFGBlock &Block)
      : Flow(Flow), Block(Block) {}

  void VisitDeclStmt(const DeclStmt *DS);
  void VisitBinaryOperator(const BinaryOperator *BO);
  void VisitUnaryOperator(const UnaryOperator *UO);
  void VisitReturnStmt(const ReturnStmt *Ret);
  void VisitCallExpr(const CallExpr *Call);
  void VisitCXXMemberCallExpr(const CXXMemberCallExpr *Member);
  void VisitCXXOperatorCallExpr(const CXXOperatorCallExpr *Op);

private:
  /// Calls the flow treats apart from their arguments: a collective, a rank
  /// written through an output argument, an optimizer step with a closure.
  /// Returns whether \p Call was one of them.
  bool transferSpecialCall(const CallExpr &Call);
  /// What the arguments of \p Call hold together.
  Divergence argumentsValue(const CallExpr &Call);
  /// Output arguments: `f(&x)`, `f(x)` binding a non-const reference.
  void writeOutputArguments(const CallExpr &Call, const Divergence &Arguments);
  /// A helper that fills the struct \p Where through its parameter
  /// \p Index: only the fields it writes change, each with what it writes
  /// there. False when the helper's writes are not summarised.
  bool writeFields(const CallExpr &Call, const FunctionDecl &FD,
                   unsigned Index, Slot Where, bool Exact);
  /// What \p FD leaves in its output parameter \p Index at this call, from
  /// its summary; \p Arguments (everything the call is passed) where no
  /// summary says.
  Divergence outputValue(const CallExpr &Call, const FunctionDecl &FD,
                         unsigned Index, const Divergence &Arguments);
  void define(Slot Where, Divergence D, bool Overwrite) {
    Flow.define(Where, D, Overwrite, Block);
  }

  FunctionDivergence &Flow;
  const CFGBlock &Block;
};

void FunctionDivergence::transfer(const Stmt *S, const CFGBlock &B) {
  if (const auto *E = dyn_cast<Expr>(S)) {
    Divergence D = evaluate(E);
    if (Values[E].merge(D))
      Changed = true;
  }
  Transfer(*this, B).Visit(S);
}

void FunctionDivergence::Transfer::VisitDeclStmt(const DeclStmt *DS) {
  for (const Decl *D : DS->decls()) {
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      continue;
    auto Batch = Flow.BatchVariables.find(V);
    Slot Whole{V, nullptr};
    if (Batch != Flow.BatchVariables.end())
      define(Whole,
             Divergence::seed(DivergenceSource::LocalData,
                              Batch->second->getRangeInit()),
             true);
    else if (V->getInit())
      define(Whole, Flow.valueOf(V->getInit()), true);
    else
      define(Whole, {}, true);
  }
}

void FunctionDivergence::Transfer::VisitBinaryOperator(
    const BinaryOperator *BO) {
  if (!BO->isAssignmentOp())
    return;
  bool Exact = false;
  Divergence Value = Flow.valueOf(BO->getRHS());
  if (auto It = Flow.Rewritten.find(BO); It != Flow.Rewritten.end())
    It->second = Value;
  define(Flow.rootLocal(BO->getLHS(), Exact), Value,
         Exact && BO->getOpcode() == BO_Assign);
}

void FunctionDivergence::Transfer::VisitUnaryOperator(const UnaryOperator *UO) {
  bool Exact = false;
  if (UO->isIncrementDecrementOp())
    define(Flow.rootLocal(UO->getSubExpr(), Exact), {}, false);
}

void FunctionDivergence::Transfer::VisitReturnStmt(const ReturnStmt *Ret) {
  Divergence D = Flow.implicitIn(Block);
  if (const Expr *Value = Ret->getRetValue())
    D.merge(Flow.valueOf(Value));
  if (Flow.Returned.merge(D))
    Flow.Changed = true;
}

void FunctionDivergence::Transfer::VisitCallExpr(const CallExpr *Call) {
  if (transferSpecialCall(*Call))
    return;
  writeOutputArguments(*Call, argumentsValue(*Call));
}

namespace {
/// Whether \p Method adds exactly one element to a standard sequence
/// (`push_back`, `emplace_back`, a queue's `push`): the container's size
/// then depends on how often it runs, not on the value added. A set's or a
/// map's insertion drops duplicates, so its size depends on the values.
bool addsOneElement(const CXXMethodDecl *Method) {
  const CXXRecordDecl *Class = Method ? Method->getParent() : nullptr;
  if (!Class || !Class->isInStdNamespace())
    return false;
  bool Sequence = llvm::StringSwitch<bool>(identifierName(Class))
                      .Cases("vector", "deque", "list", "forward_list", true)
                      .Cases("queue", "stack", "priority_queue", true)
                      .Default(false);
  return Sequence && llvm::StringSwitch<bool>(identifierName(Method))
                         .Cases("push_back", "emplace_back", "push_front",
                                "emplace_front", "push", "emplace", true)
                         .Default(false);
}
} // namespace

void FunctionDivergence::Transfer::VisitCXXMemberCallExpr(
    const CXXMemberCallExpr *Member) {
  if (transferSpecialCall(*Member))
    return;
  Divergence Arguments = argumentsValue(*Member);
  // In-place tensor operations and container insertions update the object.
  const CXXMethodDecl *MD = Member->getMethodDecl();
  llvm::StringRef Name = identifierName(MD);
  bool Mutates =
      isContainerMutator(Name) ||
      (flow::isInPlaceMethodName(Name) && MD &&
       tensors::isTensorClass(*MD->getParent()));
  bool Exact = false;
  Slot Object =
      Mutates ? Flow.rootLocal(Member->getImplicitObjectArgument(), Exact)
              : Slot{};
  if (Object.first && !Object.second && addsOneElement(MD)) {
    // One more element: what it holds goes to the elements, and how many
    // there are changes only with the control that reaches the insertion.
    define({Object.first, elementsSlot()}, Arguments, false);
    define(Object, {}, false);
  } else if (Mutates) {
    define(Object, Arguments, false);
  }
  writeOutputArguments(*Member, Arguments);
}

void FunctionDivergence::Transfer::VisitCXXOperatorCallExpr(
    const CXXOperatorCallExpr *Op) {
  if (transferSpecialCall(*Op) || Op->getNumArgs() < 1)
    return;
  bool Exact = false;
  Slot V = Flow.rootLocal(Op->getArg(0), Exact);
  if (!V.first)
    return;
  if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
    define(V, Flow.valueOf(Op->getArg(1)), Exact);
  } else if (Op->isAssignmentOp() || Op->getOperator() == OO_PlusPlus ||
             Op->getOperator() == OO_MinusMinus) {
    Divergence D;
    for (unsigned I = 1; I < Op->getNumArgs(); ++I)
      D.merge(Flow.valueOf(Op->getArg(I)));
    define(V, D, false);
  }
}

bool FunctionDivergence::Transfer::transferSpecialCall(const CallExpr &Call) {
  if (std::optional<CollectiveSite> Site =
          Flow.Owner.sites().collective(Call)) {
    Flow.sanitize(*Site, Call);
    return true;
  }
  if (const Expr *Out = Flow.Vocab.rankOutputArgument(Call)) {
    // `MPI_Comm_rank(comm, &rank)`, `&peers.rank`.
    Out = Out->IgnoreParenImpCasts();
    if (const auto *AddrOf = dyn_cast<UnaryOperator>(Out);
        AddrOf && AddrOf->getOpcode() == UO_AddrOf)
      Out = AddrOf->getSubExpr();
    bool Exact = false;
    define(Flow.rootLocal(Out, Exact),
           Divergence::seed(DivergenceSource::Rank, &Call), Exact);
    return true;
  }
  if (Flow.Vocab.optimizerStepClosure(Call)) {
    Flow.closureAssignments(Call, Block);
    return true;
  }
  return false;
}

Divergence FunctionDivergence::Transfer::argumentsValue(const CallExpr &Call) {
  Divergence Arguments;
  for (const Expr *Arg : Call.arguments())
    Arguments.merge(Flow.valueOf(Arg));
  return Arguments;
}

void FunctionDivergence::Transfer::writeOutputArguments(
    const CallExpr &Call, const Divergence &Arguments) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD)
    return;
  for (unsigned I = 0; I < Call.getNumArgs() && I < FD->getNumParams(); ++I) {
    if (isForwardingParameter(*FD, I))
      continue; // `make_intrusive<T>(store, rank, size)` passes, not writes
    QualType P = FD->getParamDecl(I)->getType();
    const Expr *Arg = Call.getArg(I)->IgnoreParenImpCasts();
    bool Written = false;
    if (P->isLValueReferenceType())
      Written = !P.getNonReferenceType().isConstQualified();
    else if (isOutputPointer(*FD, I, Arg)) {
      Arg = cast<UnaryOperator>(Arg)->getSubExpr();
      Written = true;
    }
    // A callee whose body is here and only reads it leaves it alone.
    const FunctionDecl *Def = userDefinition(*FD);
    if (Written && Def)
      Written = Flow.Owner.writes().mayWrite(*Def, I);
    if (!Written)
      continue;
    bool Exact = false;
    Slot Where = Flow.rootLocal(Arg, Exact);
    if (writeFields(Call, *FD, I, Where, Exact))
      continue;
    define(Where, outputValue(Call, *FD, I, Arguments), false);
  }
}

Divergence FunctionDivergence::Transfer::outputValue(
    const CallExpr &Call, const FunctionDecl &FD, unsigned Index,
    const Divergence &Arguments) {
  // What the callee leaves there, from its summary: `init(rank, world)`
  // fills `world` from the world size alone, whatever the other arguments
  // hold.
  if (const FunctionDecl *Def = userDefinition(FD)) {
    if (std::optional<Divergence> Left = Flow.Owner.written(*Def, Index))
      return atCall(*Left, Call,
                    [&](const Expr *A) { return Flow.valueOf(A); });
    return Arguments;
  }
  // Defined in another unit of the project: what its summary says.
  if (std::optional<FunctionEffects> Effects =
          ProjectFunctions::instance().lookup(FD)) {
    auto It = Effects->Outputs.find(Index);
    if (It != Effects->Outputs.end() && (It->second & FunctionEffects::FromRank))
      return Divergence::seed(DivergenceSource::Rank, &Call);
    return {};
  }
  return Arguments;
}

bool FunctionDivergence::Transfer::writeFields(const CallExpr &Call,
                                               const FunctionDecl &FD,
                                               unsigned Index, Slot Where,
                                               bool Exact) {
  const FunctionDecl *Def = userDefinition(FD);
  if (!Def || !Where.first || Where.second || !Exact ||
      isa<CXXOperatorCallExpr>(Call))
    return false;
  const DivergenceAnalysis::FieldWrites *Fields =
      Flow.Owner.fieldWrites(*Def, Index);
  if (!Fields)
    return false;
  for (const auto &[Field, D] : *Fields)
    define({Where.first, Field},
           atCall(D, Call, [&](const Expr *A) { return Flow.valueOf(A); }),
           false);
  return true;
}

} // namespace clang::tidy::ddp
