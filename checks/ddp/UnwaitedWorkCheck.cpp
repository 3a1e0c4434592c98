//===--- UnwaitedWorkCheck.cpp - ddp-unwaited-work ------------------------===//

#include "ddp/UnwaitedWorkCheck.h"
#include "model/UnwaitedWorkStreams.h"
#include "model/UnwaitedWorkUses.h"

#include "analysis/ASTUtils.h"
#include "analysis/RequestTests.h"

#include <functional>

#include "analysis/Reachability.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

// Bound-node ids.
constexpr llvm::StringLiteral WorkCallId = "workCall";
constexpr llvm::StringLiteral FunctionId = "function";
constexpr llvm::StringLiteral ClassId = "class";

/// A call that hands out pending work: one returning a c10d Work, or a
/// non-blocking MPI collective writing a request.
bool isOneOf(llvm::StringRef Name, std::initializer_list<llvm::StringRef> Names) {
  return llvm::is_contained(Names, Name);
}

/// A nonblocking send (`MPI_Isend`, `MPI_Issend`, ...): it only reads its
/// buffer.
bool sendsOnly(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() ||
      collectives::mpiRequestUse(Call) != collectives::RequestUse::Starts)
    return false;
  llvm::StringRef Name = FD->getName();
  return Name.ends_with("send") && !Name.contains("recv");
}

bool producesWork(const CallExpr &Call, const Vocabulary &Vocab) {
  if (isa<CXXOperatorCallExpr>(Call) || Call.isCallToStdMove())
    return false;
  if (Vocab.requestArgument(Call))
    return true;
  return collectives::isWorkType(Call.getType()) &&
         !Call.getType()->isReferenceType();
}

/// The variable or field holding pending work that E names: `w`, `works`
/// in `works[i]`, `works.back()`, `&requests[i]`, `requests.data()`.
const ValueDecl *holderDecl(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      if (Unary->getOpcode() == UO_AddrOf || Unary->getOpcode() == UO_Deref) {
        E = Unary->getSubExpr();
        continue;
      }
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
      E = Subscript->getBase();
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      if (Op->getOperator() == OO_Subscript || Op->getOperator() == OO_Arrow ||
          Op->getOperator() == OO_Star) {
        E = Op->getArg(0);
        continue;
      }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = Member->getMethodDecl();
      if (MD && MD->getDeclName().isIdentifier() &&
          isOneOf(MD->getName(), {"back", "front", "data", "at", "get"})) {
        E = Member->getImplicitObjectArgument();
        continue;
      }
    }
    return referencedDecl(E);
  }
  return nullptr;
}

/// Where a call's pending work goes.
struct WorkStore {
  const CallExpr *Call;
  const ValueDecl *Holder; // null: not kept (chained wait, returned, passed on)
  const Stmt *Site = nullptr; // the assignment or push_back that keeps it
};

WorkStore storeOf(const CallExpr &Call, const Vocabulary &Vocab,
                  ASTContext &Context) {
  if (const Expr *Request = Vocab.requestArgument(Call))
    return {&Call, holderDecl(Request)};
  const Stmt *Child = &Call;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(*Child);
    if (Parents.empty())
      return {&Call, nullptr};
    if (const auto *Var = Parents[0].get<VarDecl>())
      return {&Call, Var};
    const auto *Parent = Parents[0].get<Stmt>();
    if (!Parent)
      return {&Call, nullptr};
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent)) {
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
          Op->getArg(1) == Child)
        return {&Call, holderDecl(Op->getArg(0)), Op};
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Parent)) {
      // `works.push_back(pg->allreduce(ts))`.
      const CXXMethodDecl *MD = Member->getMethodDecl();
      if (MD && MD->getDeclName().isIdentifier() &&
          isOneOf(MD->getName(), {"push_back", "emplace_back", "push", "emplace",
                              "insert"}) &&
          Member->getImplicitObjectArgument() != Child)
        return {&Call, holderDecl(Member->getImplicitObjectArgument()),
                Member};
      return {&Call, nullptr};
    } else if (isa<CallExpr>(Parent) || !isa<Expr>(Parent)) {
      return {&Call, nullptr};
    }
    Child = Parent;
  }
  return {&Call, nullptr};
}

/// Whether a call's value is thrown away: it is a statement of its own
/// (possibly cast to void).
bool isDiscarded(const CallExpr &Call, ASTContext &Context) {
  const Stmt *Child = &Call;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    const Stmt *Parent = parentStmt(*Child, Context);
    if (!Parent)
      return false;
    if (isa<ExprWithCleanups, CXXBindTemporaryExpr, MaterializeTemporaryExpr,
            ImplicitCastExpr, ParenExpr>(Parent)) {
      Child = Parent;
      continue;
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Parent))
      return Cast->getType()->isVoidType();
    if (isa<CompoundStmt>(Parent))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      return If->getThen() == Child || If->getElse() == Child;
    if (const auto *For = dyn_cast<ForStmt>(Parent))
      return For->getBody() == Child || For->getInc() == Child;
    if (const auto *While = dyn_cast<WhileStmt>(Parent))
      return While->getBody() == Child;
    if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(Parent))
      return RangeFor->getBody() == Child;
    return false;
  }
  return false;
}

const Expr *enclosingLoopCondition(const Stmt &S, ASTContext &Context) {
  for (const Stmt *Up = parentStmt(S, Context); Up;
       Up = parentStmt(*Up, Context)) {
    if (const auto *For = dyn_cast<ForStmt>(Up))
      return For->getCond();
    if (const auto *While = dyn_cast<WhileStmt>(Up))
      return While->getCond();
    if (isa<LambdaExpr>(Up))
      return nullptr;
  }
  return nullptr;
}

/// The `if` around \p Wait that holds on every iteration of a counted loop
/// but the first (`for (i = 0; ...; ++i) { if (i > 0) MPI_Wait(...); ...
/// post }`, also `i != 0`, `i >= 1`): every path from a post back round the
/// loop passes the wait. Null when there is none.
const IfStmt *laterIterationGuard(const CallExpr &Wait, ASTContext &Context) {
  const IfStmt *If = nullptr;
  for (const Stmt *Up = parentStmt(Wait, Context); Up && !If;
       Up = parentStmt(*Up, Context)) {
    If = dyn_cast<IfStmt>(Up);
    if (isa<LambdaExpr>(Up) || isa<ForStmt>(Up) || isa<WhileStmt>(Up))
      return nullptr;
  }
  const auto *Test = If && !If->getElse() && If->getCond()
                         ? dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts())
                         : nullptr;
  const auto *For = dyn_cast_or_null<ForStmt>(If ? parentStmt(*If, Context) : nullptr);
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(If ? parentStmt(*If, Context) : nullptr))
    For = dyn_cast_or_null<ForStmt>(parentStmt(*Block, Context));
  const auto *Init = For ? dyn_cast_or_null<DeclStmt>(For->getInit()) : nullptr;
  const auto *Counter = Init && Init->isSingleDecl()
                            ? dyn_cast<VarDecl>(Init->getSingleDecl())
                            : nullptr;
  const auto *Step = For ? dyn_cast_or_null<UnaryOperator>(For->getInc()) : nullptr;
  if (!Test || !Counter || !Counter->getInit() || !Step ||
      !Step->isIncrementOp() || Counter->getInit()->isValueDependent() ||
      Test->getRHS()->isValueDependent())
    return nullptr;
  const auto *Ref = dyn_cast<DeclRefExpr>(Test->getLHS()->IgnoreParenImpCasts());
  const auto *Stepped = dyn_cast<DeclRefExpr>(Step->getSubExpr()->IgnoreParenImpCasts());
  std::optional<llvm::APSInt> From = Counter->getInit()->getIntegerConstantExpr(Context);
  std::optional<llvm::APSInt> Bound = Test->getRHS()->getIntegerConstantExpr(Context);
  if (!Ref || Ref->getDecl() != Counter || !Stepped ||
      Stepped->getDecl() != Counter || !From || !Bound)
    return nullptr;
  int64_t First = From->getExtValue(), Than = Bound->getExtValue();
  bool Later = (Test->getOpcode() == BO_GT && Than == First) ||
               (Test->getOpcode() == BO_NE && Than == First) ||
               (Test->getOpcode() == BO_GE && Than == First + 1);
  return Later ? If : nullptr;
}

/// What one function does with pending work: where it keeps it, waits on
/// it and steps the optimizer.
struct WorkEvents {
  std::vector<WorkStore> Stores;
  std::vector<const CallExpr *> Waits, Steps, Tests;
  /// Range-for loops: a wait on the loop variable waits on the container.
  llvm::DenseMap<const VarDecl *, const CXXForRangeStmt *> LoopOver;
  /// Some call names the CUDA stream it runs on.
  bool OnStreams = false;
};

WorkEvents collectEvents(const Stmt &Body, const Vocabulary &Vocab,
                         ASTContext &Context) {
  WorkEvents Events;
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("call")), Body, Context)) {
    const auto *Call = N.getNodeAs<CallExpr>("call");
    if (producesWork(*Call, Vocab)) {
      WorkStore Store = storeOf(*Call, Vocab, Context);
      if (Store.Holder)
        Events.Stores.push_back(Store);
    } else if (collectives::isWaitCall(*Call)) {
      Events.Waits.push_back(Call);
    } else if (collectives::mpiRequestTest(*Call)) {
      Events.Tests.push_back(Call);
    } else if (Vocab.isOptimizerStep(*Call)) {
      Events.Steps.push_back(Call);
    }
    Events.OnStreams |= streams::streamArgument(*Call) != nullptr;
  }
  for (const BoundNodes &N :
       match(findAll(cxxForRangeStmt().bind("for")), Body, Context)) {
    const auto *For = N.getNodeAs<CXXForRangeStmt>("for");
    if (For->getLoopVariable())
      Events.LoopOver[For->getLoopVariable()] = For;
  }
  return Events;
}

/// The statements after which a holder's work is known complete, and the
/// uses of the holder that are fine (its waits and stores).
struct HolderCompletion {
  llvm::SmallVector<const Stmt *, 4> Completions;
  llvm::SmallVector<const Stmt *, 8> Accounted;
};

HolderCompletion completionOf(const VarDecl &Holder, const WorkEvents &Events,
                              const Stmt &Body, ASTContext &Context) {
  HolderCompletion Done;
  // A test whose answer nobody reads completes nothing and hands the
  // request to nobody; one whose answer is read is left to the caller's
  // logic, like a request handed on.
  for (const CallExpr *Test : Events.Tests) {
    std::optional<collectives::RequestTest> T = collectives::mpiRequestTest(*Test);
    if (holderDecl(T->Requests) == &Holder && !testAnswerRead(*Test, Body))
      Done.Accounted.push_back(Test);
  }
  for (const CallExpr *Wait : Events.Waits) {
    const ValueDecl *Waited = holderDecl(collectives::waitedObject(*Wait));
    if (Waited == &Holder) {
      Done.Completions.push_back(Wait);
      Done.Accounted.push_back(Wait);
      // Skipped only on the first iteration: every post into the holder
      // comes later in the same loop body.
      if (const IfStmt *Guard = laterIterationGuard(*Wait, Context);
          Guard && llvm::all_of(Events.Stores, [&](const WorkStore &Post) {
            return Post.Holder != &Holder ||
                   (Context.getSourceManager().isBeforeInTranslationUnit(
                        Guard->getEndLoc(), Post.Call->getBeginLoc()) &&
                    containsWhere(parentStmt(*Guard, Context),
                                  [&](const Stmt *S) { return S == Post.Call; }));
          }))
        Done.Completions.push_back(Guard);
      // `for (i...) works[i]->wait();`: waiting on a container's elements
      // in a loop; every path past the loop evaluates its condition.
      if (!collectives::isWorkType(Holder.getType()))
        if (const Stmt *Condition = enclosingLoopCondition(*Wait, Context))
          Done.Completions.push_back(Condition);
      continue;
    }
    const auto *LoopVar = dyn_cast_or_null<VarDecl>(Waited);
    auto It = LoopVar ? Events.LoopOver.find(LoopVar) : Events.LoopOver.end();
    if (It != Events.LoopOver.end() &&
        holderDecl(It->second->getRangeInit()) == &Holder) {
      // Every path into the loop evaluates its range first.
      Done.Completions.push_back(It->second->getRangeInit());
      Done.Accounted.push_back(It->second->getRangeInit());
    }
  }
  for (const WorkStore &Other : Events.Stores)
    if (Other.Holder == &Holder)
      Done.Accounted.push_back(Other.Site ? Other.Site : Other.Call);
  return Done;
}

/// Whether another use of the holder hands the work on (returned, passed to
/// a function, moved elsewhere): whoever gets it waits.
bool escapes(const VarDecl &Holder, llvm::ArrayRef<const Stmt *> Accounted,
             const Stmt &Body, ASTContext &Context) {
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl(equalsNode(&Holder)))).bind("ref")),
             Body, Context)) {
    const auto *Ref = N.getNodeAs<DeclRefExpr>("ref");
    if (llvm::any_of(Accounted,
                     [&](const Stmt *S) { return contains(S, Ref); }))
      continue;
    // `works.size()`, `works.reserve(n)`, `works.clear()` keep it here;
    // `delete[] reqs` and `free(reqs)` hand the requests to nobody.
    const Stmt *Parent = parentPastImplicitCasts(*Ref, Context);
    if (Parent && flow::releasesStorage(*Parent))
      continue;
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(Parent))
      if (const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl()))
        if (MD->getDeclName().isIdentifier() &&
            isOneOf(MD->getName(), {"size", "empty", "reserve", "clear"}))
          continue;
    return true;
  }
  return false;
}

/// The first use reached from the collective on a path that passes none of
/// the completions.
std::optional<PendingUse> racingUse(const WorkStore &Store,
                                    llvm::ArrayRef<PendingUse> Uses,
                             llvm::ArrayRef<const Stmt *> Completions,
                             const Reachability &Flow, ASTContext &Context) {
  for (const PendingUse &U : Uses) {
    llvm::SmallVector<const Stmt *, 6> Avoid(Completions.begin(),
                                             Completions.end());
    if (U.Tensor)
      if (const DeclStmt *Decl = declStmtOf(*U.Tensor, Context))
        Avoid.push_back(Decl); // a new tensor on the next iteration
    if (Flow.reachable(Store.Call, U.Where, Avoid))
      return U;
  }
  return std::nullopt;
}

/// Whether \p Store keeps an MPI request in the one variable it names
/// (`&request`, not `&requests[i]`, `requests + i` or a reference bound to
/// an element): a later store there replaces it.
bool keepsOneRequest(const WorkStore &Store, const Vocabulary &Vocab) {
  const auto *Var = dyn_cast_or_null<VarDecl>(Store.Holder);
  if (!Var || Var->getType()->isReferenceType())
    return false;
  const Expr *Request = Vocab.requestArgument(*Store.Call);
  const auto *Address =
      Request ? dyn_cast<UnaryOperator>(Request->IgnoreParenImpCasts()) : nullptr;
  return Address && Address->getOpcode() == UO_AddrOf &&
         referencedDecl(Address->getSubExpr()->IgnoreParenImpCasts()) ==
             Store.Holder &&
         isa<DeclRefExpr>(Address->getSubExpr()->IgnoreParenImpCasts());
}

/// The store that replaces \p Store's request before any completion: a
/// later post into the same request variable (the same one again, on the
/// next iteration) reached on a path that waits on none of it, where no
/// wait can run between the two at all (`if (i > 0) MPI_Wait(&req, ...)`
/// before posting again is a wait the analysis cannot rule out).
const CallExpr *replacedBy(const WorkStore &Store,
                           llvm::ArrayRef<WorkStore> Stores,
                           llvm::ArrayRef<const Stmt *> Completions,
                           const Vocabulary &Vocab, const Reachability &Flow) {
  if (!keepsOneRequest(Store, Vocab))
    return nullptr;
  for (const WorkStore &Later : Stores)
    if (Later.Holder == Store.Holder && keepsOneRequest(Later, Vocab) &&
        Flow.reachable(Store.Call, Later.Call, Completions) &&
        llvm::none_of(Completions, [&](const Stmt *Wait) {
          return Flow.reachable(Store.Call, Wait, {}) &&
                 Flow.reachable(Wait, Later.Call, {});
        }))
      return Later.Call;
  return nullptr;
}

} // namespace

void UnwaitedWorkCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()),
               hasType(qualType(hasDeclaration(cxxRecordDecl()))))
          .bind(WorkCallId),
      this);
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                   hasBody(stmt(hasDescendant(callExpr()))))
          .bind(FunctionId),
      this);
  Finder->addMatcher(cxxRecordDecl(isDefinition(),
                                   unless(isExpansionInSystemHeader()))
                         .bind(ClassId),
                     this);
}

void UnwaitedWorkCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(WorkCallId))
    checkDiscarded(*Call, *Result.Context);
  if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId))
    checkFunction(*Function, *Result.Context);
  if (const auto *Class = Result.Nodes.getNodeAs<CXXRecordDecl>(ClassId))
    checkRequestFields(*Class);
}

void UnwaitedWorkCheck::checkDiscarded(const CallExpr &Call,
                                       ASTContext &Context) {
  if (isa<CXXOperatorCallExpr>(Call) || Call.isCallToStdMove() ||
      !collectives::isWorkType(Call.getType()) ||
      Call.getType()->isReferenceType() || !Call.getDirectCallee() ||
      !isDiscarded(Call, Context))
    return;
  diag(Call.getExprLoc(),
       "the Work returned by %0 is discarded: nothing waits for the "
       "collective, so later reads of its tensors and the optimizer step race "
       "with it; call wait() on the result, or keep it and wait before the "
       "tensors are used")
      << Call.getDirectCallee();
  // Waiting right away is correct but serialises a collective the author may
  // have meant to overlap with other work, so the edit is offered on a note:
  // a suggestion that ddplint --fix-unsafe (clang-tidy --fix-notes) applies
  // and --fix leaves alone.
  SourceLocation End = Lexer::getLocForEndOfToken(
      Call.getEndLoc(), 0, Context.getSourceManager(), Context.getLangOpts());
  if (End.isValid() && !Call.getBeginLoc().isMacroID() &&
      modules::isPointerLikeHandle(Call.getType()))
    diag(End, "wait for the collective here", DiagnosticIDs::Note)
        << FixItHint::CreateInsertion(End, "->wait()");
}

void UnwaitedWorkCheck::checkFunction(const FunctionDecl &Function,
                                      ASTContext &Context) {
  // Templates are analysed in their instantiations, where calls resolve,
  // and as written when nothing instantiates them.
  if (isInstantiatedPattern(Function))
    return;
  const Stmt &Body = *Function.getBody();
  WorkEvents Events = collectEvents(Body, Vocab, Context);
  if (Events.Stores.empty() && Events.Waits.empty() && !Events.OnStreams)
    return;
  Reachability Flow(&Function, &Body, Context);
  if (!Flow.valid())
    return;
  for (const StreamRace &Race : ncclStreamRaces(Body, Vocab, Flow, Context))
    reportStreamRace(Race);
  for (const StreamRace &Race :
       sideStreamWaits(Body, Events.Steps, Vocab, Flow, Context))
    reportStreamRace(Race);
  // Each post is its own pending work: every one that is never completed
  // is reported; a race is reported once per holder and use.
  llvm::SmallPtrSet<const ValueDecl *, 4> Raced;
  llvm::DenseSet<std::pair<const ValueDecl *, const Stmt *>> RacingUses;
  for (const WorkStore &Store : Events.Stores) {
    const auto *Local = dyn_cast<VarDecl>(Store.Holder);
    if (!Local || !Local->hasLocalStorage() || isa<ParmVarDecl>(Local))
      continue; // a field or a caller's object: waited elsewhere
    HolderCompletion Done = completionOf(*Local, Events, Body, Context);
    if (escapes(*Local, Done.Accounted, Body, Context))
      continue;
    // A pending send's buffer may be read (MPI 3.0), not written.
    std::vector<PendingUse> Uses =
        sendsOnly(*Store.Call)
            ? std::vector<PendingUse>()
            : pendingUses(*Store.Call, Events.Steps, Body, Vocab, Context);
    llvm::append_range(Uses, bufferUses(*Store.Call, Body, Context));
    if (std::optional<PendingUse> Race =
            racingUse(Store, Uses, Done.Completions, Flow, Context)) {
      if (RacingUses.insert({Local, Race->Where}).second)
        reportRace(*Store.Call, *Local, *Race);
      Raced.insert(Local);
    } else if (Raced.contains(Local)) {
      continue;
    } else if (Done.Completions.empty()) {
      reportNeverWaited(*Store.Call, *Local);
    } else if (const CallExpr *Later = replacedBy(
                   Store, Events.Stores, Done.Completions, Vocab, Flow)) {
      reportReplaced(*Store.Call, *Local, *Later);
    }
  }
}

} // namespace clang::tidy::ddp
