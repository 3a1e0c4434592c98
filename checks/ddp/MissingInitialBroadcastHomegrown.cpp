//===--- MissingInitialBroadcastHomegrown.cpp - models written from scratch ===//
//
// A model written from scratch (a struct of weight arrays, a network class
// of the project's own) gets its initial weights from a generator of C's
// library, the standard library or cuRAND, not from LibTorch's. When that
// generator is seeded with the rank or with something each process has of
// its own, every rank draws other weights; averaging the gradients later
// keeps the replicas apart. The function summaries say which calls draw
// values and how their generators are seeded; this part of the check finds
// the local those values go into and whether its replicas are combined
// before anything gives every rank the same values.
//
//===----------------------------------------------------------------------===//

#include "ddp/MissingInitialBroadcastCheck.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/Randomness.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

/// A local that can hold a model: an object, a pointer or smart pointer to
/// one, an array; not a number, a generator or a LibTorch module (those
/// are the other part of the check's).
bool isModelLocal(const VarDecl *Var) {
  if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var))
    return false;
  QualType T = Var->getType().getNonReferenceType();
  if (T->isArithmeticType() || randomness::isGeneratorType(T) ||
      randomness::isDistributionType(T) ||
      modules::moduleClassOfHandle(T) || tensors::isTensorType(T))
    return false;
  return pointeeRecord(T) || T->isRecordType() || T->isArrayType() ||
         T->isPointerType();
}

/// The local an expression reaches into: `m` in `&m`, `m.w`, `m->w[i]`,
/// `*net`, `net.get()`.
const VarDecl *modelLocal(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = peelHandle(E)->IgnoreParenImpCasts();
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      E = Member->getBase();
    else if (const Expr *Base = subscriptBase(E))
      E = Base;
    else
      break;
  }
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return isModelLocal(Var) ? Var : nullptr;
}

/// Whether \p Call can change what \p D holds: \p D is the object of a
/// method (also an operator) that is not const, or goes in an argument
/// whose parameter is a pointer or reference to something not const and,
/// when the callee's body is here, that body may write (a callee out of
/// sight, or a variadic one, is taken to).
bool mayWrite(const CallExpr &Call, const ValueDecl *D, ParameterWrites &Writes) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Callee);
  bool OperatorMethod = isa<CXXOperatorCallExpr>(Call) && Method;
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    Object = Member->getImplicitObjectArgument();
  else if (OperatorMethod && Call.getNumArgs())
    Object = Call.getArg(0);
  if (Object && mentions(Object, D) && (!Method || !Method->isConst()))
    return true;
  for (unsigned I = OperatorMethod ? 1 : 0; I < Call.getNumArgs(); ++I) {
    if (!mentions(Call.getArg(I), D))
      continue;
    unsigned P = I - (OperatorMethod ? 1 : 0);
    if (!Callee || P >= Callee->getNumParams())
      return true;
    if (!isOutputType(Callee->getParamDecl(P)->getType()))
      continue;
    const FunctionDecl *Def = userDefinition(*Callee);
    if (!Def || Writes.mayWrite(*Def, P))
      return true;
  }
  return false;
}

/// The local a call or construction fills: the variable it initialises or
/// is assigned to, the object of a member call, or the one local handed
/// over by address or reference (none when several are).
const VarDecl *filledBy(const Expr &Node,
                        const llvm::DenseMap<const Expr *, const VarDecl *> &Sink,
                        ParameterWrites &Writes) {
  if (const VarDecl *Var = Sink.lookup(&Node))
    return Var;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Node))
    return modelLocal(Member->getImplicitObjectArgument());
  const auto *Call = dyn_cast<CallExpr>(&Node);
  if (!Call)
    return nullptr;
  const VarDecl *Only = nullptr;
  for (const Expr *Arg : Call->arguments()) {
    const VarDecl *Var = modelLocal(Arg);
    if (Var && !mayWrite(*Call, Var, Writes))
      continue;
    if (Var && Only && Var != Only)
      return nullptr;
    if (Var)
      Only = Var;
  }
  return Only;
}

/// Each call or construction inside a local's initialiser, or inside what
/// is assigned to it, with that local.
llvm::DenseMap<const Expr *, const VarDecl *> initialisers(const Stmt &Body) {
  llvm::DenseMap<const Expr *, const VarDecl *> Sink;
  auto Fill = [&](const Expr *Init, const VarDecl *Var) {
    if (Init && Var)
      forEachCall(Init, [&](const Expr *Node) { Sink.try_emplace(Node, Var); });
  };
  // `for (float &v : m.w) v = dist(gen);` fills m.
  llvm::DenseMap<const VarDecl *, const VarDecl *> Elements;
  forEachStmt(&Body, [&](const Stmt *S) {
    if (const auto *For = dyn_cast<CXXForRangeStmt>(S);
        For && For->getLoopVariable()->getType()->isReferenceType())
      if (const VarDecl *Owner = modelLocal(For->getRangeInit()))
        Elements[For->getLoopVariable()] = Owner;
  });
  auto Target = [&](const Expr *LHS) -> const VarDecl * {
    if (const VarDecl *Var = modelLocal(LHS))
      return Var;
    const auto *Ref = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return Var ? Elements.lookup(Var) : nullptr;
  };
  forEachStmt(&Body, [&](const Stmt *S) {
    if (const auto *Decl = dyn_cast<DeclStmt>(S))
      for (const auto *D : Decl->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D); isModelLocal(Var))
          Fill(Var->getInit(), Var);
    if (const auto *Assign = dyn_cast<BinaryOperator>(S);
        Assign && Assign->getOpcode() == BO_Assign)
      Fill(Assign->getRHS(), Target(Assign->getLHS()));
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      Fill(Op->getArg(1), Target(Op->getArg(0)));
  });
  return Sink;
}

} // namespace

struct MissingInitialBroadcastCheck::HomegrownEvents {
  /// The buffers the function's reducing collectives fill.
  llvm::SmallPtrSet<const ValueDecl *, 8> Reduced;
  /// Of the model being looked at.
  std::vector<const Stmt *> Starts;
  std::vector<const CallExpr *> Combines;
};

namespace {

/// A start inside a loop that holds neither the draw nor a combination
/// counts as the whole loop (a broadcast of each of the model's arrays in
/// turn), although its body could run zero times.
void wholeLoopsOf(std::vector<const Stmt *> &Starts, const Expr &Draw,
                  llvm::ArrayRef<const CallExpr *> Combines,
                  const ParentMap &Parents) {
  for (const Stmt *&Start : Starts) {
    const Stmt *Widest = Start;
    for (const Stmt *S = Parents.getParent(Start); S; S = Parents.getParent(S)) {
      if (contains(S, &Draw) ||
          llvm::any_of(Combines, [&](const CallExpr *C) { return contains(S, C); }))
        break;
      if (isLoopStmt(S))
        Widest = S;
    }
    Start = Widest;
  }
}

/// A collective that sums replicas' values into one: all-reduce, reduce,
/// reduce-scatter.
bool reduces(CollectiveKind K) {
  return K == CollectiveKind::AllReduce || K == CollectiveKind::Reduce ||
         K == CollectiveKind::ReduceScatter;
}

/// The arguments a reducing collective writes its result to: MPI's and
/// NCCL's second buffer (also after `MPI_IN_PLACE`); every argument of
/// the APIs that reduce in place.
llvm::SmallVector<const Expr *, 2> reducedOutputs(const CallExpr &Call,
                                                  const CollectiveInfo &Info) {
  bool Flat = Info.Api == CollectiveApi::Mpi || Info.Api == CollectiveApi::Nccl;
  if (Flat && Call.getNumArgs() > 1)
    return {Call.getArg(1)};
  return {Call.arg_begin(), Call.arg_end()};
}

/// The buffers the reducing collectives of \p Body fill: a call handed
/// both the model and one of them puts the reduced values in it.
llvm::SmallPtrSet<const ValueDecl *, 8>
reducedBuffers(const Stmt &Body, const Vocabulary &Vocab) {
  llvm::SmallPtrSet<const ValueDecl *, 8> Reduced;
  forEachCall(&Body, [&](const Expr *Node) {
    const auto *Call = dyn_cast<CallExpr>(Node);
    std::optional<CollectiveInfo> Info =
        Call ? Vocab.classifyCollective(*Call) : std::nullopt;
    if (Info && reduces(Info->Kind))
      for (const Expr *Out : reducedOutputs(*Call, *Info))
        if (const ValueDecl *D = handleDecl(Out))
          Reduced.insert(D);
  });
  return Reduced;
}

/// The model and the locals that hold parts of it: those a call handed
/// the model (or one of them) may write (`collect_params(&gpt, &list)`,
/// `adam_init(&opt, list.data)`). A broadcast of one of them gives every
/// rank the model's values.
llvm::SmallPtrSet<const VarDecl *, 8>
partsOf(const VarDecl &Model, const Stmt &Body, ParameterWrites &Writes) {
  llvm::SmallPtrSet<const VarDecl *, 8> Parts{&Model};
  for (bool Changed = true; Changed;) {
    Changed = false;
    forEachCall(&Body, [&](const Expr *Node) {
      const auto *Call = dyn_cast<CallExpr>(Node);
      if (!Call || llvm::none_of(Parts, [&](const VarDecl *P) {
            return mentions(Call, P);
          }))
        return;
      for (const Expr *Arg : Call->arguments())
        if (const VarDecl *Var = modelLocal(Arg);
            Var && !Parts.contains(Var) && mayWrite(*Call, Var, Writes))
          Changed |= Parts.insert(Var).second;
    });
  }
  return Parts;
}

} // namespace

void MissingInitialBroadcastCheck::checkHomegrown(const FunctionDecl &Function,
                                                  ASTContext &Context) {
  const Stmt *Body = Function.getBody();
  if (!Body || Function.isDependentContext())
    return;
  FunctionSummaries &Summaries = summaries(Context);
  if (!Summaries.distributed(Function))
    return;
  // The draws: calls and constructions whose values come from a generator
  // seeded apart on each rank, and the local they fill.
  llvm::DenseMap<const Expr *, const VarDecl *> Sink = initialisers(*Body);
  ParameterWrites &Writes = Summaries.analysis().writes();
  struct Draw {
    const Expr *At;
    const VarDecl *Model;
    const Expr *Decisive;
    SeedValue Value;
  };
  std::vector<Draw> Draws;
  Summaries.forEachDraw(Function, [&](const Expr &Node, SeedValue V,
                                       const Expr *Decisive) {
    if (V != SeedValue::Rank && V != SeedValue::PerProcess)
      return;
    // A training step that draws (dropout, noise), or a constructor that
    // broadcasts what it drew, is no start apart.
    const auto *Call = dyn_cast<CallExpr>(&Node);
    const auto *Construct = dyn_cast<CXXConstructExpr>(&Node);
    FunctionEffects E = Call ? Summaries.ofCall(*Call)
                        : Construct ? Summaries.of(*Construct->getConstructor())
                                    : FunctionEffects();
    if (E.Communicates || E.StepsParameters || E.BroadcastsParameters)
      return;
    if (const VarDecl *Model = filledBy(Node, Sink, Writes))
      Draws.push_back({&Node, Model, Decisive, V});
  });
  if (Draws.empty())
    return;
  Reachability Flow(&Function, Body, Context);
  const ParentMap &Parents = Summaries.analysis().parents(Function);
  HomegrownEvents Events;
  Events.Reduced = reducedBuffers(*Body, Vocab);
  for (const Draw &D : Draws) {
    collectHomegrownEvents(*D.Model, *Body, Summaries, Events);
    wholeLoopsOf(Events.Starts, *D.At, Events.Combines, Parents);
    // A draw that runs again after the replicas were combined is part of
    // training, not of the start.
    if (llvm::any_of(Events.Combines, [&](const CallExpr *C) {
          return Flow.reachable(C, D.At);
        }))
      continue;
    for (const CallExpr *Combine : Events.Combines)
      if (Combine != D.At && Flow.reachable(D.At, Combine, Events.Starts)) {
        reportHomegrown(*D.Model, *D.At, D.Decisive, D.Value, *Combine,
                        contains(D.Model->getInit(), D.At));
        return;
      }
  }
}

void MissingInitialBroadcastCheck::collectHomegrownEvents(
    const VarDecl &Model, const Stmt &Body, FunctionSummaries &Summaries,
    HomegrownEvents &Events) const {
  Events.Starts.clear();
  Events.Combines.clear();
  ParameterWrites &Writes = Summaries.analysis().writes();
  llvm::SmallPtrSet<const VarDecl *, 8> Parts = partsOf(Model, Body, Writes);
  auto OnParts = [&](const Stmt *S) {
    return llvm::any_of(Parts, [&](const VarDecl *P) { return mentions(S, P); });
  };
  forEachCall(&Body, [&](const Expr *Node) {
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Node)) {
      if (OnParts(Construct) && Summaries.broadcasts(*Construct))
        Events.Starts.push_back(Construct);
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(Node);
    if (!Call || !OnParts(Call))
      return;
    if (std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Call)) {
      if (reduces(Info->Kind) &&
          llvm::any_of(reducedOutputs(*Call, *Info), [&](const Expr *Out) {
            return mentions(Out, &Model);
          }))
        Events.Combines.push_back(Call);
      else if (Info->Kind == CollectiveKind::Broadcast ||
               Info->Kind == CollectiveKind::Scatter)
        Events.Starts.push_back(Call);
      return;
    }
    FunctionEffects E = Summaries.ofCall(*Call);
    bool HandsOut = E.Collective && (*E.Collective == CollectiveKind::Broadcast ||
                                     *E.Collective == CollectiveKind::Scatter);
    if (Vocab.isPointToPoint(*Call) || HandsOut || Summaries.broadcasts(*Call) ||
        Summaries.filePath(*Call, /*Saves=*/false))
      Events.Starts.push_back(Call);
    // A call that only reads the model combines nothing into it.
    else if (mentions(Call, &Model) && mayWrite(*Call, &Model, Writes) &&
             (E.Communicates || E.StepsParameters ||
              llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
                const ValueDecl *D = handleDecl(Arg);
                return D && D != &Model && Events.Reduced.contains(D);
              })))
      Events.Combines.push_back(Call);
  });
}

void MissingInitialBroadcastCheck::reportHomegrown(
    const VarDecl &Model, const Expr &Draw, const Expr *Decisive,
    SeedValue Value, const CallExpr &Combine, bool AtDeclaration) {
  SourceLocation At = AtDeclaration ? Model.getLocation() : Draw.getExprLoc();
  diag(At, "%0 starts from different random values on each rank: its "
           "weights are drawn from a generator seeded %select{with the "
           "rank|differently in each process}1 and nothing gives every rank "
           "the same values before its replicas are combined, so they stay "
           "apart; seed the generator with the same value on every rank, or "
           "broadcast rank 0's weights before training")
      << &Model << (Value != SeedValue::Rank);
  if (Decisive)
    diag(Decisive->getBeginLoc(),
         Value == SeedValue::Rank ? "the seed depends on the rank here"
                                  : "the seed differs from process to process here",
         DiagnosticIDs::Note);
  diag(Combine.getExprLoc(), "the replicas are combined here",
       DiagnosticIDs::Note);
}

} // namespace clang::tidy::ddp
