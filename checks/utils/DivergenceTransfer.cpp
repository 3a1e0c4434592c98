//===--- DivergenceTransfer.cpp - what a statement does to the flow -------===//
//
// FunctionDivergence's transfer function: the definitions one statement of
// the CFG makes (declarations, assignments, in-place and output-argument
// updates, what a function returns) and what a collective makes the same
// on every rank. Part of FunctionDivergence (utils/Divergence.h).
//
//===----------------------------------------------------------------------===//

#include "utils/ASTUtils.h"
#include "utils/Divergence.h"
#include "utils/DivergenceInternal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>

namespace clang::tidy::ddp {

namespace {

/// A tensor, or a container of tensors: passing one hands over storage
/// that a collective can overwrite in place.
bool sharesTensorStorage(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return false;
  if (Vocabulary::isTensorClass(*RD))
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type)
      if (const CXXRecordDecl *Elem = Args[0].getAsType()->getAsCXXRecordDecl())
        return Vocabulary::isTensorClass(*Elem);
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

} // namespace

void FunctionDivergence::sanitize(const CollectiveSite &Site,
                                  const CallExpr &Call) {
  auto Clear = [&](const Expr *Arg) {
    llvm::SmallVector<const VarDecl *, 4> Roots;
    storageRoots(Arg, Roots);
    for (const VarDecl *V : Roots)
      clear(V);
  };
  if (Site.How == CollectiveSite::Via::Api) {
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
  // given, and what it may write, come back reduced.
  const FunctionDecl *FD = Call.getDirectCallee();
  for (unsigned I = 0; I < Call.getNumArgs(); ++I) {
    const Expr *Arg = Call.getArg(I);
    bool Writable = false;
    if (FD && I < FD->getNumParams()) {
      QualType P = FD->getParamDecl(I)->getType();
      Writable = P->isLValueReferenceType() &&
                 !P.getNonReferenceType().isConstQualified();
    }
    if (Writable || sharesTensorStorage(Arg->getType()))
      Clear(Arg);
  }
}

void FunctionDivergence::transfer(const Stmt *S, const CFGBlock &B) {
  auto ValueOf = [&](const Expr *E) {
    auto It = Values.find(E);
    return It != Values.end() ? It->second : evaluate(E);
  };
  if (const auto *E = dyn_cast<Expr>(S)) {
    Divergence D = evaluate(E);
    if (Values[E].merge(D))
      Changed = true;
  }

  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        continue;
      auto Batch = BatchVariables.find(V);
      Slot Whole{V, nullptr};
      if (Batch != BatchVariables.end())
        define(Whole,
               Divergence::seed(DivergenceSource::LocalData,
                                Batch->second->getRangeInit()),
               true, B);
      else if (V->getInit())
        define(Whole, ValueOf(V->getInit()), true, B);
      else
        define(Whole, {}, true, B);
    }
    return;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (!BO->isAssignmentOp())
      return;
    bool Exact = false;
    define(rootLocal(BO->getLHS(), Exact), ValueOf(BO->getRHS()),
           Exact && BO->getOpcode() == BO_Assign, B);
    return;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    bool Exact = false;
    if (UO->isIncrementDecrementOp())
      define(rootLocal(UO->getSubExpr(), Exact), {}, false, B);
    return;
  }
  if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
    Divergence D = implicitIn(B);
    if (const Expr *Value = Ret->getRetValue())
      D.merge(ValueOf(Value));
    if (Returned.merge(D))
      Changed = true;
    return;
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return;

  if (std::optional<CollectiveSite> Site = Owner.sites().collective(*Call)) {
    sanitize(*Site, *Call);
    return;
  }
  if (const Expr *Out = Vocab.rankOutputArgument(*Call)) {
    // `MPI_Comm_rank(comm, &rank)`, `&peers.rank`.
    Out = Out->IgnoreParenImpCasts();
    if (const auto *AddrOf = dyn_cast<UnaryOperator>(Out);
        AddrOf && AddrOf->getOpcode() == UO_AddrOf)
      Out = AddrOf->getSubExpr();
    bool Exact = false;
    define(rootLocal(Out, Exact),
           Divergence::seed(DivergenceSource::Rank, Call), Exact, B);
    return;
  }
  if (Vocab.optimizerStepClosure(*Call)) {
    closureAssignments(*Call, B);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Op->getNumArgs() < 1)
      return;
    bool Exact = false;
    Slot V = rootLocal(Op->getArg(0), Exact);
    if (!V.first)
      return;
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      define(V, ValueOf(Op->getArg(1)), Exact, B);
    } else if (Op->isAssignmentOp() || Op->getOperator() == OO_PlusPlus ||
               Op->getOperator() == OO_MinusMinus) {
      Divergence D;
      for (unsigned I = 1; I < Op->getNumArgs(); ++I)
        D.merge(ValueOf(Op->getArg(I)));
      define(V, D, false, B);
    }
    return;
  }
  const FunctionDecl *FD = Call->getDirectCallee();
  Divergence Arguments;
  for (const Expr *Arg : Call->arguments())
    Arguments.merge(ValueOf(Arg));
  // In-place tensor operations and container insertions update the object.
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    llvm::StringRef Name = identifierName(MD);
    bool Mutates = isContainerMutator(Name) ||
                   (Name.endswith("_") && MD &&
                    Vocabulary::isTensorClass(*MD->getParent()));
    bool Exact = false;
    if (Mutates)
      define(rootLocal(Member->getImplicitObjectArgument(), Exact), Arguments,
             false, B);
  }
  // Output arguments: `f(&x)`, `f(x)` binding a non-const reference.
  if (!FD)
    return;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    if (isForwardingParameter(*FD, I))
      continue; // `make_intrusive<T>(store, rank, size)` passes, not writes
    QualType P = FD->getParamDecl(I)->getType();
    const Expr *Arg = Call->getArg(I)->IgnoreParenImpCasts();
    bool Written = false;
    if (P->isLValueReferenceType())
      Written = !P.getNonReferenceType().isConstQualified();
    else if (P->isPointerType() && !P->getPointeeType().isConstQualified())
      if (const auto *UO = dyn_cast<UnaryOperator>(Arg))
        if (UO->getOpcode() == UO_AddrOf) {
          Arg = UO->getSubExpr();
          Written = true;
        }
    // A callee whose body is here and only reads it leaves it alone.
    if (Written)
      if (const FunctionDecl *Def = userDefinition(*FD))
        Written = Owner.writes().mayWrite(*Def, I);
    bool Exact = false;
    if (Written)
      define(rootLocal(Arg, Exact), Arguments, false, B);
  }
}

} // namespace clang::tidy::ddp
