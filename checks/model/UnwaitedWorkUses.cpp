//===--- UnwaitedWorkUses.cpp - What must wait for a collective -----------===//
//
// ddp-unwaited-work: the tensors a collective works on (those named in its
// arguments, the tensors a local list was built from, gradients reached
// through a module) and the statements that must come after it completes:
// reads of those tensors and, where they can be the model's, optimizer steps.
//
//===----------------------------------------------------------------------===//

#include "model/UnwaitedWorkUses.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/Collectives.h"
#include "vocabulary/TensorMethods.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy::ddp;

namespace {

/// The tensors a collective works on, as variables: tensors named in its
/// arguments, the tensors a local list of them was built from, and the
/// tensors whose gradient it reduces (`p.grad().data_ptr()`).
struct ReducedTensors {
  llvm::SmallPtrSet<const VarDecl *, 4> Variables;
  llvm::SmallPtrSet<const VarDecl *, 4> GradientsOf;
  /// A gradient is among them, whatever holds its tensor (a local, or a
  /// module's field: `net->weight.mutable_grad()`).
  bool Gradients = false;
};

void collectTensors(const Stmt *S, ReducedTensors &Out, unsigned Depth) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (training::isGradAccess(*Call)) {
      Out.Gradients = true;
      if (const ValueDecl *Of = handleDecl(
              modules::memberCallObject(*Call)))
        if (const auto *Var = dyn_cast<VarDecl>(Of))
          Out.GradientsOf.insert(Var);
      return;
    }
    // A helper of this unit that hands back tensors it took from the
    // gradients (`auto grads = gradients(model);`).
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = Callee ? userDefinition(*Callee) : nullptr;
    if (Def && tensors::isTensorType(Def->getReturnType()) &&
        containsWhere(Def->getBody(), [](const Stmt *Inner) {
          const auto *Access = dyn_cast<CallExpr>(Inner);
          return Access && training::isGradAccess(*Access);
        }))
      Out.Gradients = true;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (Var && tensors::isTensorType(Var->getType()) &&
        Out.Variables.insert(Var).second && Depth < 2 &&
        Var->hasLocalStorage() && Var->hasInit())
      collectTensors(Var->getInit(), Out, Depth + 1);
    return;
  }
  if (isa<LambdaExpr>(S))
    return;
  for (const Stmt *Child : S->children())
    collectTensors(Child, Out, Depth);
}

/// Whether the collective's tensors can be the model's gradients or
/// parameters: only then does an optimizer step race with it (a metric's
/// all-reduce may run across steps). Tensors the caller passed in may be
/// anything, a flattened gradient buffer included.
bool touchesModel(const ReducedTensors &Tensors, const Stmt &Body,
                  ASTContext &Context) {
  if (Tensors.Gradients ||
      llvm::any_of(Tensors.Variables,
                   [](const VarDecl *V) { return isa<ParmVarDecl>(V); }))
    return true;
  auto IsModelValue = [&](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S))
      return training::isGradAccess(*Call) ||
             training::parameterCollection(*Call).has_value();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        for (const DynTypedNode &Parent : Context.getParents(*Var))
          if (const auto *For = Parent.get<CXXForRangeStmt>())
            return training::parameterLoopVariable(*For) == Var;
    return false;
  };
  std::function<bool(const Stmt *)> HasModelValue = [&](const Stmt *S) {
    if (!S)
      return false;
    if (IsModelValue(S))
      return true;
    for (const Stmt *Child : S->children())
      if (HasModelValue(Child))
        return true;
    return false;
  };
  // A statement that puts model values into one of the tensors:
  // `bucket.push_back(p.grad())`, `flat = torch::cat(grads)`.
  for (const BoundNodes &N : match(
           findAll(declRefExpr(to(varDecl())).bind("ref")), Body, Context)) {
    const auto *Var =
        cast<VarDecl>(N.getNodeAs<DeclRefExpr>("ref")->getDecl());
    if (!Tensors.Variables.contains(Var))
      continue;
    const Stmt *Up = N.getNodeAs<DeclRefExpr>("ref");
    while (const Stmt *Parent = parentStmt(*Up, Context)) {
      if (!isa<Expr>(Parent))
        break;
      Up = Parent;
    }
    if (HasModelValue(Up))
      return true;
  }
  return false;
}

/// `v.size()`, `t.numel()`, `t.sizes()`, `v.push_back(t)`: reads no element
/// being reduced (appending to a container leaves the pending ones alone).
bool isMetadataQuery(const DeclRefExpr &Ref, ASTContext &Context) {
  const Stmt *Parent = parentPastImplicitCasts(Ref, Context);
  DeclarationName Member;
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Parent))
    Member = ME->getMemberDecl()->getDeclName();
  else if (const auto *Unresolved = dyn_cast_or_null<UnresolvedMemberExpr>(Parent))
    Member = Unresolved->getMemberName(); // `v.push_back(t)` in a template
  else if (const auto *Dependent =
               dyn_cast_or_null<CXXDependentScopeMemberExpr>(Parent))
    Member = Dependent->getMember();
  // An empty name counts as an identifier: ask for the identifier itself.
  const IdentifierInfo *Name = Member.getAsIdentifierInfo();
  return Name && tensors::readsNoElements(Name->getName());
}

/// The variable a buffer argument names whole: `buf`, `&x`, `(void *)buf`,
/// `v.data()`, `&v[0]`; null for an offset, an element or anything else.
const VarDecl *wholeBuffer(const Expr *E, ASTContext &Context) {
  E = E->IgnoreParenCasts();
  if (const auto *Addr = dyn_cast<UnaryOperator>(E);
      Addr && Addr->getOpcode() == UO_AddrOf) {
    E = Addr->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *Element = dyn_cast<ArraySubscriptExpr>(E)) {
      std::optional<llvm::APSInt> Index;
      if (!Element->getIdx()->isValueDependent())
        Index = Element->getIdx()->getIntegerConstantExpr(Context);
      if (!Index || *Index != 0)
        return nullptr;
      E = Element->getBase()->IgnoreParenImpCasts();
    }
  } else if (const auto *Data = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *Method = Data->getMethodDecl();
    if (!Method || !Method->getDeclName().isIdentifier() ||
        Method->getName() != "data" || Data->getNumArgs() != 0)
      return nullptr;
    E = Data->getImplicitObjectArgument()->IgnoreParenImpCasts();
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// Whether \p Ref (a pointer or array) is written through: the target of
/// an assignment, or of `++`/`--`, as `buf[i]` or `*buf`.
bool writtenThrough(const DeclRefExpr &Ref, ASTContext &Context) {
  const Stmt *Element = parentPastImplicitCasts(Ref, Context);
  const auto *Subscript = dyn_cast_or_null<ArraySubscriptExpr>(Element);
  const auto *Deref = dyn_cast_or_null<UnaryOperator>(Element);
  if (!(Subscript && Subscript->getBase()->IgnoreParenImpCasts() == &Ref) &&
      !(Deref && Deref->getOpcode() == UO_Deref))
    return false;
  const Stmt *Target = parentStmt(*Element, Context);
  if (const auto *Assign = dyn_cast_or_null<BinaryOperator>(Target))
    return Assign->isAssignmentOp() &&
           Assign->getLHS()->IgnoreParenImpCasts() == Element;
  const auto *Step = dyn_cast_or_null<UnaryOperator>(Target);
  return Step && Step->isIncrementDecrementOp();
}

/// The call that posts, waits on or tests requests \p Ref lies in, if any.
const CallExpr *requestCallOf(const DeclRefExpr &Ref, ASTContext &Context) {
  for (const Stmt *Up = parentStmt(Ref, Context); Up && isa<Expr>(Up);
       Up = parentStmt(*Up, Context))
    if (const auto *Call = dyn_cast<CallExpr>(Up))
      if (collectives::mpiRequestUse(*Call) != collectives::RequestUse::Other)
        return Call;
  return nullptr;
}

/// Whether \p Ref lies in a lambda: it runs where the lambda is called,
/// which the path from the post does not say.
bool inLambda(const DeclRefExpr &Ref, ASTContext &Context) {
  for (const Stmt *Up = parentStmtAcrossDecls(Ref, Context); Up;
       Up = parentStmtAcrossDecls(*Up, Context))
    if (isa<LambdaExpr>(Up))
      return true;
  return false;
}

/// The optimizer steps (when the collective's tensors can be the model's)
/// and the reads of the collective's tensors.
} // namespace

std::vector<PendingUse> clang::tidy::ddp::pendingUses(
    const CallExpr &Collective, llvm::ArrayRef<const CallExpr *> Steps,
    const Stmt &Body, const Vocabulary &Vocab, ASTContext &Context) {
  ReducedTensors Tensors;
  for (const Expr *Arg : Collective.arguments())
    collectTensors(Arg, Tensors, 0);
  std::vector<PendingUse> Uses;
  if (touchesModel(Tensors, Body, Context))
    for (const CallExpr *Step : Steps)
      Uses.push_back({Step, nullptr});
  for (const BoundNodes &N :
       match(findAll(declRefExpr().bind("ref")), Body, Context)) {
    const auto *Ref = N.getNodeAs<DeclRefExpr>("ref");
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !Tensors.Variables.contains(Var) || contains(&Collective, Ref))
      continue;
    // Handing the tensors to another collective is no read.
    bool InCollective = false;
    for (const Stmt *Up = parentStmt(*Ref, Context); Up && isa<Expr>(Up);
         Up = parentStmt(*Up, Context))
      if (const auto *Call = dyn_cast<CallExpr>(Up))
        if (Vocab.classifyCollective(*Call)) {
          InCollective = true;
          break;
        }
    if (!InCollective && !isMetadataQuery(*Ref, Context))
      Uses.push_back({Ref, Var});
  }
  return Uses;
}

std::vector<PendingUse> clang::tidy::ddp::bufferUses(const CallExpr &Post,
                                                     const Stmt &Body,
                                                     ASTContext &Context) {
  collectives::RequestBuffers Buffers = collectives::requestBuffers(Post);
  const VarDecl *Written = Buffers.Written ? wholeBuffer(Buffers.Written, Context) : nullptr;
  const VarDecl *Read = Buffers.Read ? wholeBuffer(Buffers.Read, Context) : nullptr;
  std::vector<PendingUse> Uses;
  if (!Written && !Read)
    return Uses;
  for (const BoundNodes &N :
       match(findAll(declRefExpr().bind("ref")), Body, Context)) {
    const auto *Ref = N.getNodeAs<DeclRefExpr>("ref");
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || (Var != Written && Var != Read) || contains(&Post, Ref) ||
        isMetadataQuery(*Ref, Context) || inLambda(*Ref, Context))
      continue;
    // Another post into a slice of the buffer: the buffer is split between
    // transfers, which this does not follow.
    if (const CallExpr *Other = requestCallOf(*Ref, Context)) {
      collectives::RequestBuffers Its = collectives::requestBuffers(*Other);
      for (const Expr *Buffer : {Its.Written, Its.Read})
        if (Buffer && contains(Buffer, Ref) && wholeBuffer(Buffer, Context) != Var)
          return {};
      continue;
    }
    if (Var == Written && !Buffers.OwnSlotKept)
      Uses.push_back({Ref, Var});
    else if (writtenThrough(*Ref, Context))
      Uses.push_back({Ref, Var, /*Writes=*/true});
  }
  return Uses;
}
