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
#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

/// The object a member call is made on, as the variable or field that
/// holds it and, for a field of another object, that object's variable
/// (`handler->start()`, also through a smart pointer; `a.comm->start()`
/// and `b.comm->start()` are two objects); none for any other call.
using Receiver = std::pair<const ValueDecl *, const ValueDecl *>;
std::optional<Receiver> receiverOf(const Expr &E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(&E);
  const Expr *Object =
      Call ? stripObjectWrappers(peelHandle(Call->getImplicitObjectArgument()))
           : nullptr;
  // A field of another object: `first.handler_`.
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(Object))
    if (const ValueDecl *Owner = handleDecl(Member->getBase()))
      return Receiver{Member->getMemberDecl(), Owner};
  if (const ValueDecl *Held = referencedDecl(Object))
    return Receiver{Held, nullptr};
  return std::nullopt;
}

/// What a call does to a coalescing group.
enum class Bracket { Opens, Closes, Unknown };

/// What \p Call does to a coalescing group, as the summary of what it runs
/// says (`ncclGroupStart()`, a helper that wraps it, here or in another
/// unit). Unknown: a call out of sight on the object the collective is made
/// on (`comm->start()` before `comm->all_reduce(g)`, the handler's methods
/// pure virtual or defined elsewhere) may open or close one. Only a call
/// made for its effect (returning nothing) that the vocabulary knows
/// nothing of is such a bracket: a barrier or a `comm.rank()` is none.
std::optional<Bracket> bracketOf(const CallExpr &Call, const Expr &Collective,
                                 FunctionSummaries &Summaries) {
  FunctionEffects Effects = Summaries.ofCall(Call);
  switch (Effects.Groups) {
  case FunctionEffects::Group::Opens:
    return Bracket::Opens;
  case FunctionEffects::Group::Closes:
    return Bracket::Closes;
  case FunctionEffects::Group::None:
    break;
  }
  const FunctionDecl *Callee = Call.getDirectCallee();
  std::optional<Receiver> Object = receiverOf(Call);
  if (Callee && Callee->getReturnType()->isVoidType() && Object &&
      Effects.empty() && Object == receiverOf(Collective) &&
      Summaries.outOfSight(*Callee))
    return Bracket::Unknown;
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
  llvm::SmallVector<const Stmt *, 4> Opens, Closes, Unknown;
  bool PerDevice = perDeviceCall(Collective, Iteration, Context);
  for (const BoundNodes &N : match(findAll(callExpr().bind("call")),
                                   *Function->getBody(), Context)) {
    const auto *Call = N.getNodeAs<CallExpr>("call");
    std::optional<Bracket> B = bracketOf(*Call, Collective, summaries(Context));
    bool Within = B && liesWithin(*Call, Iteration, Context);
    // A group opened and closed once per parameter around the devices of
    // one process fuses nothing across parameters; a call out of sight
    // inside the loop (`comm->synchronize()`) brackets no group around it.
    if (!B || (*B == Bracket::Opens && PerDevice && Within) ||
        (*B == Bracket::Unknown && Within))
      continue;
    (*B == Bracket::Opens    ? Opens
     : *B == Bracket::Closes ? Closes
                             : Unknown)
        .push_back(Call);
  }
  if (Opens.empty() && Unknown.empty())
    return false;
  Reachability Flow(Function, Function->getBody(), Context);
  auto Reaches = [&](const Stmt *Open) {
    return Flow.reachable(Open, &Collective, Closes);
  };
  // Out of sight: one call before the collective and one after it.
  return llvm::any_of(Opens, Reaches) ||
         (llvm::any_of(Unknown, Reaches) &&
          llvm::any_of(Unknown, [&](const Stmt *After) {
            return Flow.reachable(&Collective, After, {});
          }));
}

} // namespace clang::tidy::ddp
