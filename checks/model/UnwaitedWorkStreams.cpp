//===--- UnwaitedWorkStreams.cpp - Collectives racing across CUDA streams -===//

#include "model/UnwaitedWorkStreams.h"
#include "model/UnwaitedWorkUses.h"

#include "analysis/ASTUtils.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

std::vector<const CallExpr *> callsIn(const Stmt &Body, ASTContext &Context) {
  std::vector<const CallExpr *> Calls;
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("call")), Body, Context))
    Calls.push_back(N.getNodeAs<CallExpr>("call"));
  return Calls;
}

/// The variable or field a buffer expression is about: `grads` in
/// `grads`, `grads + offset`, `(void *)grads`, `t.data_ptr()`, `v.data()`.
const ValueDecl *bufferDecl(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
    return bufferDecl(Cast->getSubExpr());
  if (const auto *Binary = dyn_cast<BinaryOperator>(E))
    return Binary->isAdditiveOp() ? bufferDecl(Binary->getLHS()) : nullptr;
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    return Unary->getOpcode() == UO_AddrOf ? bufferDecl(Unary->getSubExpr())
                                           : nullptr;
  if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
    return bufferDecl(Subscript->getBase());
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    return bufferDecl(Member->getImplicitObjectArgument());
  return referencedDecl(E);
}

/// Whether one of \p Call's arguments other than its stream mentions
/// \p Buffer.
bool readsBuffer(const CallExpr &Call, const ValueDecl &Buffer,
                 const Expr *Stream) {
  for (const Expr *Arg : Call.arguments())
    if (Arg != Stream && containsWhere(Arg, [&](const Stmt *S) {
          if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
            return Ref->getDecl() == &Buffer;
          if (const auto *Member = dyn_cast<MemberExpr>(S))
            return Member->getMemberDecl() == &Buffer;
          return false;
        }))
      return true;
  return false;
}

std::vector<const Stmt *> orderingCalls(llvm::ArrayRef<const CallExpr *> Calls) {
  std::vector<const Stmt *> Out;
  for (const CallExpr *Call : Calls)
    if (streams::ordersStreams(*Call))
      Out.push_back(Call);
  return Out;
}

/// The guard that makes a side stream current where \p S runs: a stream
/// guard declared earlier in a block around \p S. Its block is \p Scope.
const VarDecl *enclosingStreamGuard(const Stmt &S, ASTContext &Context,
                                    const CompoundStmt *&Scope) {
  const Stmt *Child = &S;
  for (const Stmt *Up = parentStmt(S, Context); Up;
       Child = Up, Up = parentStmt(*Up, Context)) {
    if (isa<LambdaExpr>(Up))
      return nullptr;
    const auto *Block = dyn_cast<CompoundStmt>(Up);
    if (!Block)
      continue;
    for (const Stmt *Before : Block->body()) {
      if (Before == Child)
        break;
      if (const auto *Decl = dyn_cast<DeclStmt>(Before))
        for (const class Decl *D : Decl->decls())
          if (const auto *Var = dyn_cast<VarDecl>(D))
            if (streams::isStreamGuardType(Var->getType())) {
              Scope = Block;
              return Var;
            }
    }
  }
  return nullptr;
}

/// The collective whose Work a wait waits on: the call it is chained on,
/// or the last collective stored into the waited variable before it.
const CallExpr *waitedCollective(const CallExpr &Wait,
                                 llvm::ArrayRef<const CallExpr *> Calls,
                                 const Vocabulary &Vocab, ASTContext &Context) {
  const Expr *Waited = stripObjectWrappers(collectives::waitedObject(Wait));
  // `work->wait()` and `pg.allreduce(ts)->wait()` on an intrusive_ptr.
  if (const auto *Arrow = dyn_cast_or_null<CXXOperatorCallExpr>(Waited))
    if (Arrow->getOperator() == OO_Arrow)
      Waited = stripObjectWrappers(Arrow->getArg(0));
  if (const auto *Chained = dyn_cast_or_null<CallExpr>(Waited))
    return Vocab.classifyCollective(*Chained) ? Chained : nullptr;
  const ValueDecl *Holder = referencedDecl(Waited);
  if (!Holder)
    return nullptr;
  const CallExpr *Found = nullptr;
  for (const CallExpr *Call : Calls) {
    if (Call->getBeginLoc() >= Wait.getBeginLoc() ||
        !Vocab.classifyCollective(*Call) ||
        !collectives::isWorkType(Call->getType()))
      continue;
    const Stmt *Up = parentStmtAcrossDecls(*Call, Context);
    for (unsigned Depth = 0; Up && Depth < 6;
         ++Depth, Up = parentStmtAcrossDecls(*Up, Context)) {
      const auto *Decl = dyn_cast<DeclStmt>(Up);
      const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Up);
      if ((Decl && Decl->isSingleDecl() && Decl->getSingleDecl() == Holder) ||
          (Assign && Assign->getOperator() == OO_Equal &&
           referencedDecl(Assign->getArg(0)) == Holder)) {
        Found = Call;
        break;
      }
    }
  }
  return Found;
}

/// The stream a guard makes current: its constructor's first argument.
const ValueDecl *guardStream(const VarDecl &Guard) {
  const auto *Construct =
      dyn_cast_or_null<CXXConstructExpr>(Guard.getInit()
                                             ? Guard.getInit()->IgnoreImplicit()
                                             : nullptr);
  return Construct && Construct->getNumArgs()
             ? streams::streamDecl(Construct->getArg(0))
             : nullptr;
}

} // namespace

std::vector<StreamRace> ncclStreamRaces(const Stmt &Body,
                                        const Vocabulary &Vocab,
                                        const Reachability &Flow,
                                        ASTContext &Context) {
  std::vector<StreamRace> Races;
  std::vector<const CallExpr *> Calls = callsIn(Body, Context);
  std::vector<const Stmt *> Orderings = orderingCalls(Calls);
  for (const CallExpr *Collective : Calls) {
    std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Collective);
    if (!Info || Info->Api != CollectiveApi::Nccl)
      continue;
    const ValueDecl *Buffer = bufferDecl(streams::ncclOutputBuffer(*Collective));
    const ValueDecl *Stream =
        streams::streamDecl(streams::streamArgument(*Collective));
    if (!Buffer || !Stream)
      continue;
    for (const CallExpr *Use : Calls) {
      const Expr *UseStreamArg = streams::streamArgument(*Use);
      const ValueDecl *UseStream = streams::streamDecl(UseStreamArg);
      if (Use == Collective || !UseStream || UseStream == Stream ||
          !readsBuffer(*Use, *Buffer, UseStreamArg) ||
          !Flow.reachable(Collective, Use, Orderings))
        continue;
      Races.push_back({Collective, nullptr, Use, Buffer, Stream, UseStream});
      break;
    }
  }
  return Races;
}

std::vector<StreamRace> sideStreamWaits(const Stmt &Body,
                                        llvm::ArrayRef<const CallExpr *> Steps,
                                        const Vocabulary &Vocab,
                                        const Reachability &Flow,
                                        ASTContext &Context) {
  std::vector<StreamRace> Races;
  std::vector<const CallExpr *> Calls = callsIn(Body, Context);
  std::vector<const Stmt *> Completions = orderingCalls(Calls);
  struct GuardedWait {
    const CallExpr *Wait;
    const VarDecl *Guard;
    const CompoundStmt *Scope; // the guard's block
  };
  std::vector<GuardedWait> GuardedWaits;
  for (const CallExpr *Call : Calls) {
    if (!collectives::isWaitCall(*Call) || !isa<CXXMemberCallExpr>(Call))
      continue;
    const CompoundStmt *Scope = nullptr;
    if (const VarDecl *Guard = enclosingStreamGuard(*Call, Context, Scope))
      GuardedWaits.push_back({Call, Guard, Scope});
    else
      Completions.push_back(Call); // a wait with the outer stream current
  }
  for (const auto &[Wait, Guard, Scope] : GuardedWaits) {
    const CallExpr *Collective =
        waitedCollective(*Wait, Calls, Vocab, Context);
    if (!Collective)
      continue;
    std::vector<PendingUse> Uses =
        pendingUses(*Collective, Steps, Body, Vocab, Context);
    // The reads first: they come before the step that follows them.
    std::stable_partition(Uses.begin(), Uses.end(),
                          [](const PendingUse &U) { return U.Tensor; });
    for (const PendingUse &U : Uses) {
      std::vector<const Stmt *> Avoid = Completions;
      if (U.Tensor)
        if (const DeclStmt *Decl = declStmtOf(*U.Tensor, Context))
          Avoid.push_back(Decl); // a new tensor on the next iteration
      if (contains(Scope, U.Where) || !Flow.reachable(Wait, U.Where, Avoid))
        continue;
      Races.push_back({Collective, Wait, U.Where, U.Tensor,
                       guardStream(*Guard), nullptr});
      break;
    }
  }
  return Races;
}

} // namespace clang::tidy::ddp
