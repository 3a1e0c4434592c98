//===--- PerParameterAllreduceCoalescing.cpp - fused collectives ---------===//
//
// The part of ddp-per-parameter-allreduce that asks whether the collectives
// of a parameter loop are fused into one launch: issued between the
// brackets of a coalescing group (`ncclGroupStart()` / `ncclGroupEnd()`,
// c10d's `startCoalescing()` / `endCoalescing()`, or helpers that wrap
// them, as their summaries say), unless the group only holds one
// parameter's calls on the devices of one process. Calls out of sight on
// the collective's own object may be such brackets: the check then stays
// silent.
//
//===----------------------------------------------------------------------===//

#include "ddp/PerParameterAllreduceCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/Reachability.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

/// The object a member call is made on (`handler->start()`: the variable
/// or field `handler`, also a smart pointer); null for any other call.
const ValueDecl *receiverOf(const Expr &E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(&E);
  const Expr *Object =
      Call ? Call->getImplicitObjectArgument()->IgnoreParenImpCasts() : nullptr;
  // Through a smart pointer: `handler_->start()`.
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Object);
      Op && Op->getOperator() == OO_Arrow && Op->getNumArgs() == 1)
    Object = Op->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Object))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(Object))
    return Member->getMemberDecl();
  return nullptr;
}

/// Whether \p Call opens (true) or closes (false) a coalescing group, as
/// the summary of what it runs says (`ncclGroupStart()`, a helper that
/// wraps it, here or in another unit). A call out of sight on the object
/// the collective is made on may open one (`comm->start()` before
/// `comm->all_reduce(g)`, with the handler's methods defined elsewhere):
/// true, since the check cannot show that it does not. Only a call made
/// for its effect (returning nothing) that the vocabulary knows nothing of
/// is such a bracket: a barrier or a `comm.rank()` is none.
std::optional<bool> bracketOf(const CallExpr &Call, const Expr &Collective,
                              FunctionSummaries &Summaries) {
  FunctionEffects Effects = Summaries.ofCall(Call);
  switch (Effects.Groups) {
  case FunctionEffects::Group::Opens:
    return true;
  case FunctionEffects::Group::Closes:
    return false;
  case FunctionEffects::Group::None:
    break;
  }
  const FunctionDecl *Callee = Call.getDirectCallee();
  const ValueDecl *Object = receiverOf(Call);
  if (Callee && Callee->getReturnType()->isVoidType() && Object &&
      Effects.empty() && Object == receiverOf(Collective) &&
      Summaries.outOfSight(*Callee))
    return true;
  return std::nullopt;
}

/// Whether \p S lies inside \p Outer.
bool liesWithin(const Stmt &S, const Stmt &Outer, ASTContext &Context) {
  const Stmt *Node = &S;
  for (unsigned Depth = 0; Node && Depth < 128; ++Depth) {
    if (Node == &Outer)
      return true;
    Node = parentStmtAcrossDecls(*Node, Context);
  }
  return false;
}

/// Whether \p Collective, inside the code run once per parameter, is one
/// call per device: its communicator is picked by a loop nested there
/// (`comms[d]` in `for (int d = 0; d < devices; ++d)`), as one process
/// driving several GPUs must group them.
bool perDeviceCall(const Expr &Collective, const Stmt &Iteration,
                   ASTContext &Context) {
  llvm::SmallPtrSet<const Decl *, 4> Counters;
  for (const Stmt *P = parentStmtAcrossDecls(Collective, Context);
       P && P != &Iteration; P = parentStmtAcrossDecls(*P, Context))
    if (const auto *For = dyn_cast<ForStmt>(P))
      if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
        Counters.insert(Init->decl_begin(), Init->decl_end());
  // The communicator as the callee declares it: an element of a
  // `std::vector<ncclComm_t>` has lost the typedef's name.
  const auto *Call = dyn_cast<CallExpr>(&Collective);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  bool PickedByCounter = false;
  for (unsigned I = 0; Callee && I < Call->getNumArgs() &&
                       I < Callee->getNumParams();
       ++I)
    if (collectives::isCommunicatorType(Callee->getParamDecl(I)->getType()))
      forEachStmt(Call->getArg(I), [&](const Stmt *S) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
          PickedByCounter |= Counters.count(Ref->getDecl()) > 0;
      });
  return PickedByCounter;
}

} // namespace

bool PerParameterAllreduceCheck::isCoalesced(const Expr &Collective,
                                             const Stmt &Iteration,
                                             ASTContext &Context) {
  // The function around the collective (not a lambda inside it).
  const FunctionDecl *Function = nullptr;
  DynTypedNode Node = DynTypedNode::create(Collective);
  for (unsigned Depth = 0; Depth < 128 && !Function; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty())
      return false;
    Node = Parents[0];
    if (Node.get<LambdaExpr>())
      return false;
    Function = Node.get<FunctionDecl>();
  }
  if (!Function || !Function->getBody())
    return false;
  llvm::SmallVector<const Stmt *, 4> Opens, Closes;
  bool PerDevice = perDeviceCall(Collective, Iteration, Context);
  for (const BoundNodes &N : match(findAll(callExpr().bind("call")),
                                   *Function->getBody(), Context)) {
    const auto *Call = N.getNodeAs<CallExpr>("call");
    // A group opened and closed once per parameter around the devices of
    // one process fuses nothing across parameters.
    std::optional<bool> Open = bracketOf(*Call, Collective, summaries(Context));
    if (Open && !(*Open && PerDevice && liesWithin(*Call, Iteration, Context)))
      (*Open ? Opens : Closes).push_back(Call);
  }
  if (Opens.empty())
    return false;
  Reachability Flow(Function, Function->getBody(), Context);
  return llvm::any_of(Opens, [&](const Stmt *Open) {
    return Flow.reachable(Open, &Collective, Closes);
  });
}

} // namespace clang::tidy::ddp
