//===--- UnaveragedAllreduceCheck.cpp - ddp-unaveraged-allreduce ----------===//

#include "ddp/UnaveragedAllreduceCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/CollectiveSites.h"
#include "model/Averaging.h"

#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

// How far up the call graph to look for a caller that averages what a
// summing helper hands back.
constexpr unsigned MaxCallerDepth = 3;

/// Whether a reduction's buffers or its pending Work live in fields: the
/// wrapper's bucket reduced in a hook and averaged in another method.
bool completesElsewhere(const GradientModel &Model, const CodeUnit &U,
                        const CallExpr &Reduction) {
  llvm::SmallVector<const Stmt *, 8> Work(Reduction.arg_begin(),
                                         Reduction.arg_end());
  for (unsigned Steps = 0; !Work.empty() && Steps < 256; ++Steps) {
    const Stmt *S = Work.pop_back_val();
    if (!S || isa<LambdaExpr>(S))
      continue;
    if (const auto *ME = dyn_cast<MemberExpr>(S);
        ME && isa<FieldDecl>(ME->getMemberDecl()))
      return true;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
          Var && Var->hasLocalStorage() && Var->getInit())
        Work.push_back(Var->getInit()); // tensors{bucket_}
    Work.append(S->child_begin(), S->child_end());
  }
  // pending_ = process_group_->allreduce(tensors);
  const Stmt *Child = &Reduction;
  for (unsigned Depth = 0; Depth < 6; ++Depth) {
    const Stmt *Parent = U.Parent.lookup(Child);
    if (!Parent)
      break;
    const Expr *Target = nullptr;
    if (const auto *Binary = dyn_cast<BinaryOperator>(Parent);
        Binary && Binary->getOpcode() == BO_Assign)
      Target = Binary->getLHS();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent);
             Op && Op->getOperator() == OO_Equal)
      Target = Op->getArg(0);
    if (Target)
      return isa_and_nonnull<FieldDecl>(Model.rootDecl(Target));
    Child = Parent;
  }
  return false;
}

/// The storage a reduction's buffer argument \p Arg designates: an
/// argument that points to numbers or is an object (a tensor, a vector),
/// not a count, a datatype, an op or a communicator handle (in a template,
/// any argument whose type is not known yet).
const ValueDecl *bufferDecl(const GradientModel &Model, const Expr *Arg) {
  QualType T = Arg->IgnoreParenImpCasts()->getType();
  if (T->isDependentType()) {
    // In a template: whatever it is, it may be the buffer.
  } else if (T->isPointerType()) {
    QualType Pointee = T->getPointeeType();
    if (!Pointee->isArithmeticType() && !Pointee->isVoidType())
      return nullptr;
  } else if (!T->isRecordType()) {
    return nullptr;
  }
  return Model.rootDecl(Arg);
}

/// Whether \p S, in \p U, is (part of) an argument of a collective: a
/// buffer it sends or fills, not a value computed with.
bool collectiveArgument(const GradientModel &Model, const CodeUnit &U,
                        const Stmt *S) {
  for (unsigned Depth = 0; S && Depth < 8; ++Depth) {
    S = U.Parent.lookup(S);
    if (const auto *Call = dyn_cast_or_null<CallExpr>(S))
      return Model.collectiveOf(U, *Call).has_value();
  }
  return false;
}

/// Whether what \p Reduction writes may be applied where this unit sees
/// it: the sum is taken in place, in the gradients themselves, which the
/// next step reads; or it lands in a buffer of its own that is used again,
/// other than by collectives, later in \p U or, when the buffer lives in a
/// field or a global, in any other function of the unit.
bool sumReadAgain(const GradientModel &Model, const CodeUnit &U,
                  const CallExpr &Reduction) {
  llvm::SmallPtrSet<const ValueDecl *, 4> Buffers;
  for (const Expr *Arg : Reduction.arguments())
    if (const ValueDecl *D = bufferDecl(Model, Arg))
      Buffers.insert(D);
  if (Buffers.size() < 2)
    return true;
  auto Uses = [&](const CodeUnit &In, const Stmt *S) {
    const ValueDecl *D = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      D = Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(S))
      D = Member->getMemberDecl();
    return D && Buffers.count(D) && !collectiveArgument(Model, In, S);
  };
  const Reachability &Flow = Model.flow(U);
  for (const Stmt *S : U.Stmts)
    if (Uses(U, S) && Flow.reachable(&Reduction, S, {}))
      return true;
  for (const auto &Other : Model.units())
    if (Other.get() != &U)
      for (const Stmt *S : Other->Stmts)
        if (Uses(*Other, S))
          return true;
  return false;
}

/// The variable a call's value initialises (`auto all = comm.gather(g, 0);`).
const VarDecl *initialisedWith(const CodeUnit &U, const CallExpr &Call) {
  for (const Stmt *S : U.Stmts)
    if (const auto *Decl = dyn_cast<DeclStmt>(S); Decl && Decl->isSingleDecl())
      if (const auto *Var = dyn_cast<VarDecl>(Decl->getSingleDecl());
          Var && Var->getInit() &&
          stripObjectWrappers(Var->getInit()) == &Call)
        return Var;
  return nullptr;
}

/// An element of \p Holder as it is: `h[k]`, `h.at(k)`.
bool isElementOf(const Expr *E, const VarDecl &Holder) {
  E = stripObjectWrappers(E);
  const Expr *Base = subscriptBase(E);
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E);
      Member && identifierName(Member->getMethodDecl()) == "at")
    Base = Member->getImplicitObjectArgument();
  return Base && referencedDecl(Base) == &Holder;
}

/// The target of `t += h[k]` or `t -= h[k]` adding an element of \p Holder
/// unscaled; null otherwise.
const Expr *accumulationTarget(const Stmt *S, const VarDecl &Holder) {
  if (const auto *Compound = dyn_cast<CompoundAssignOperator>(S);
      Compound && (Compound->getOpcode() == BO_AddAssign ||
                   Compound->getOpcode() == BO_SubAssign))
    return isElementOf(Compound->getRHS(), Holder) ? Compound->getLHS()
                                                   : nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      Op && Op->getNumArgs() == 2 &&
      (Op->getOperator() == OO_PlusEqual || Op->getOperator() == OO_MinusEqual))
    return isElementOf(Op->getArg(1), Holder) ? Op->getArg(0) : nullptr;
  return nullptr;
}

/// The API of the reduction \p Call of unit U, for the fix the message
/// suggests.
CollectiveApi apiOf(const GradientModel &Model, const CodeUnit &U,
                    const CallExpr &Call) {
  std::optional<CollectiveInfo> Info = Model.collectiveOf(U, Call);
  return Info ? Info->Api : CollectiveApi::Named;
}

llvm::StringRef fixFor(CollectiveApi Api) {
  switch (Api) {
  case CollectiveApi::C10d:
    return "divide them by the world size after the reduction "
           "(grad.div_(process_group->getSize())), or reduce with "
           "ReduceOp::AVG";
  case CollectiveApi::Nccl:
    return "reduce with ncclAvg, or divide them by the world size after the "
           "reduction";
  case CollectiveApi::Mpi:
    return "divide them by the size MPI_Comm_size reports, after the "
           "reduction";
  case CollectiveApi::BoostMpi:
    return "divide them by comm.size() after the reduction";
  case CollectiveApi::Configured:
  case CollectiveApi::Named:
    break;
  }
  return "divide them by the world size after the reduction";
}

} // namespace

void UnaveragedAllreduceCheck::analyze(const GradientModel &Model) {
  Averaging Average(Model);
  for (const auto &U : Model.units()) {
    if (!U->Reported)
      continue;
    for (const CallExpr *Call : U->Calls) {
      std::optional<ReduceOpKind> Op =
          Vocab.reduceOp(*Call, U->Body, Model.context());
      if (Op == ReduceOpKind::Unknown)
        checkCallers(Model, Average, *U, *Call);
      if (!Op || *Op != ReduceOpKind::Sum ||
          !Model.isGradientCollective(*U, *Call))
        continue;
      const CallExpr *SteppedAt = nullptr;
      if (!averaged(Model, Average, *U, *Call, /*IsReduction=*/true, 0,
                    SteppedAt))
        report(*Call, calleeName(*Call), apiOf(Model, *U, *Call), SteppedAt);
    }
    for (const Stmt *Broken : U->Broken)
      if (const auto *Recovered = dyn_cast<RecoveryExpr>(Broken))
        checkRecovered(Model, Average, *U, *Recovered);
  }
  // Reductions by hand: gathered pieces added up.
  CollectiveSites Sites(Vocab, Model.context());
  for (const auto &U : Model.units()) {
    if (!U->Reported)
      continue;
    for (const CallExpr *Call : U->Calls)
      if (std::optional<CollectiveSite> Site = Sites.collective(*Call);
          Site && (Site->Kind == CollectiveKind::Gather ||
                   Site->Kind == CollectiveKind::AllGather))
        checkSummedGather(Model, Average, *U, *Call);
  }
}

void UnaveragedAllreduceCheck::checkSummedGather(const GradientModel &Model,
                                                 const Averaging &Average,
                                                 const CodeUnit &U,
                                                 const CallExpr &Gather) {
  // What is gathered: a gradient (or a step computed from one), kept in a
  // variable.
  if (llvm::none_of(Gather.arguments(), [&](const Expr *Arg) {
        return (Model.role(U, Arg) & GradientRole) != 0;
      }))
    return;
  const VarDecl *Holder = initialisedWith(U, Gather);
  if (!Holder)
    return;
  // Its pieces added up in a loop, unscaled.
  const Expr *Target = nullptr;
  const Stmt *Accumulation = nullptr;
  for (const Stmt *S : U.Stmts)
    if (const Expr *T = accumulationTarget(S, *Holder);
        T && !Target && llvm::any_of(U.Stmts, [&](const Stmt *Loop) {
          return isLoopStmt(Loop) && U.contains(Loop, S);
        })) {
      Target = T;
      Accumulation = S;
    }
  if (!Target)
    return;
  // Nor is the sum divided afterwards.
  const ValueDecl *Sum = Model.rootDecl(Target);
  for (const Stmt *S : U.Stmts)
    if (const auto *E = dyn_cast<Expr>(S))
      if (const Expr *Scaled = Average.averagedTensor(E);
          Scaled && Sum && Model.rootDecl(Scaled) == Sum)
        return;
  diag(Gather.getExprLoc(),
       "%0 gathers every rank's gradient step and their sum is applied "
       "with nothing dividing it by the world size: each update is N times "
       "one rank's step, so the effective learning rate is N times larger; "
       "divide the gathered pieces (or their sum) by the world size")
      << calleeName(Gather);
  diag(Accumulation->getBeginLoc(), "the gathered pieces are added up here",
       DiagnosticIDs::Note);
}

void UnaveragedAllreduceCheck::checkRecovered(const GradientModel &Model,
                                              const Averaging &Average,
                                              const CodeUnit &U,
                                              const RecoveryExpr &Recovered) {
  std::optional<RecoveredCall> Call = recoveredCall(Recovered);
  if (!Call)
    return;
  // The first candidate defined here: what was meant.
  const CodeUnit *Helper = nullptr;
  for (const FunctionDecl *FD : Call->Candidates)
    if (!Helper)
      Helper = Model.unitOf(FD);
  if (!Helper)
    return;
  ParameterBindings Bindings;
  bool PassesGradients = false;
  for (unsigned I = 0; I < Call->Arguments.size(); ++I) {
    Bindings[Helper->Function->getParamDecl(I)] = Call->Arguments[I];
    PassesGradients |= (Model.role(U, Call->Arguments[I]) & GradientRole) != 0;
  }
  if (!PassesGradients)
    return;
  for (const CallExpr *Reduction : Helper->Calls) {
    if (Vocab.reduceOp(*Reduction, Helper->Body, Model.context(), &Bindings) !=
        ReduceOpKind::Sum)
      continue;
    const CallExpr *SteppedAt = nullptr;
    if (!averaged(Model, Average, U, Recovered, /*IsReduction=*/true, 0,
                  SteppedAt))
      report(Recovered, ("'" + Call->Name + "'").str(),
             apiOf(Model, *Helper, *Reduction), SteppedAt, Reduction);
    return;
  }
}

void UnaveragedAllreduceCheck::checkCallers(const GradientModel &Model,
                                            const Averaging &Average,
                                            const CodeUnit &Helper,
                                            const CallExpr &Reduction) {
  for (const CallSite &Site : Model.callers(Helper)) {
    if (!Site.Caller->Reported)
      continue;
    ParameterBindings Bindings;
    bool PassesGradients = false;
    for (auto [Param, Arg] : GradientModel::boundArguments(*Site.Call, Helper)) {
      Bindings[Param] = Arg;
      PassesGradients |= (Model.role(*Site.Caller, Arg) & GradientRole) != 0;
    }
    std::optional<ReduceOpKind> Op =
        Vocab.reduceOp(Reduction, Helper.Body, Model.context(), &Bindings);
    if (!PassesGradients || Op != ReduceOpKind::Sum)
      continue;
    const CallExpr *SteppedAt = nullptr;
    if (!averaged(Model, Average, *Site.Caller, *Site.Call,
                  /*IsReduction=*/true, 0, SteppedAt))
      report(*Site.Call, calleeName(*Site.Call),
             apiOf(Model, Helper, Reduction), SteppedAt, &Reduction);
  }
}

bool UnaveragedAllreduceCheck::stepsAtScaledRate(const Averaging &Average,
                                                 const CodeUnit &U,
                                                 const CallExpr &Step) const {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Step);
  return Member && Vocab.isOptimizerStep(Step) &&
         Average.isScaledOptimizer(U, Member->getImplicitObjectArgument());
}

void UnaveragedAllreduceCheck::report(const Expr &Reduction,
                                      const std::string &Name,
                                      CollectiveApi Api,
                                      const CallExpr *SteppedAt,
                                      const CallExpr *Inside) {
  diag(Reduction.getExprLoc(),
       "%0 sums the gradients over all ranks and nothing divides them by "
       "the world size before the optimizer step: gradients are summed "
       "over N ranks, so the effective learning rate is N times larger; "
       "%1")
      << Name << fixFor(Api);
  if (Inside)
    diag(Inside->getExprLoc(), "the sum is taken here, inside %0",
         DiagnosticIDs::Note)
        << Name;
  if (SteppedAt)
    diag(SteppedAt->getExprLoc(),
         "%select{the parameters are updated|the optimizer steps}0 with "
         "the summed gradients here",
         DiagnosticIDs::Note)
        << Vocab.isOptimizerStep(*SteppedAt);
}

struct AveragingParts {
  llvm::SmallVector<const Stmt *, 4> Steps, Backwards, Averages;
};

namespace {

AveragingParts averagingParts(const GradientModel &Model,
                              const Averaging &Average, const CodeUnit &U) {
  AveragingParts Parts;
  for (const CallExpr *Call : U.Calls) {
    if (Model.isStep(U, *Call))
      Parts.Steps.push_back(Call);
    else if (training::backwardRoot(*Call))
      Parts.Backwards.push_back(Call);
  }
  Parts.Averages = Average.gradientAverages(U);
  return Parts;
}

/// Averaged before \p Anchor on every path to it: the gradients
/// (`grad.div_(ws)`, then the all-reduce), or the loss they came from. An
/// average later in a loop body does not count for the first iteration.
bool averagedBefore(const GradientModel &Model, const Averaging &Average,
                    const CodeUnit &U, const Expr &Anchor,
                    const AveragingParts &Parts) {
  llvm::SmallVector<const Stmt *, 8> Before(Parts.Averages.begin(),
                                            Parts.Averages.end());
  for (const Stmt *B : Parts.Backwards)
    if (Average.backpropagatesAveragedLoss(U, *cast<CallExpr>(B)))
      Before.push_back(B);
  return !Before.empty() && !Model.flow(U).reachableFromEntry(&Anchor, Before);
}

/// A bucket kept in a field, or a Work kept for later: the wrapper averages
/// in the method that completes the reduction.
bool averagedByClass(const GradientModel &Model, const Averaging &Average,
                     const CodeUnit &U, const CallExpr &Reduction) {
  if (!completesElsewhere(Model, U, Reduction))
    return false;
  const CXXRecordDecl *Class = GradientModel::memberOf(U);
  return Class && llvm::any_of(Model.units(), [&](const auto &Other) {
           return GradientModel::memberOf(*Other) == Class &&
                  !Average.gradientAverages(*Other).empty();
         });
}

} // namespace

std::optional<bool> UnaveragedAllreduceCheck::averagedAfter(
    const GradientModel &Model, const Averaging &Average, const CodeUnit &U,
    const Expr &Anchor, const AveragingParts &Parts,
    const CallExpr *&SteppedAt) const {
  // Averaged after it on every path to the next step and to the return. A
  // backward() on the way starts the next step's gradients.
  const Reachability &Flow = Model.flow(U);
  llvm::SmallVector<const Stmt *, 8> Barriers(Parts.Steps.begin(),
                                              Parts.Steps.end());
  Barriers.push_back(&Anchor);
  // Code clang could not build may be the average.
  llvm::SmallVector<const Stmt *, 8> Avoid(Parts.Backwards.begin(),
                                           Parts.Backwards.end());
  for (const Stmt *A : llvm::concat<const Stmt *const>(Parts.Averages, U.Broken))
    if (A != &Anchor) // a call that does not type-check, checked as the sum
      Avoid.push_back(Model.widen(U, A, Barriers));
  // On one process the sum is the mean.
  llvm::append_range(Avoid, Average.singleProcessBranches(U));
  // An optimizer built with a learning rate divided by the world size
  // averages its updates instead.
  for (const Stmt *S : Parts.Steps)
    if (Flow.reachable(&Anchor, S, Avoid)) {
      if (stepsAtScaledRate(Average, U, *cast<CallExpr>(S)))
        return true;
      SteppedAt = cast<CallExpr>(S);
      return false;
    }
  if (!Flow.reachesExit(&Anchor, Avoid) ||
      rootAveragesSum(Model, U, Anchor, Parts.Averages, Avoid))
    return true;
  // The sum leaves the function where such an optimizer is built (for one
  // this cannot name) or steps: its updates are averaged.
  if (Average.scalesLearningRate(U) ||
      llvm::any_of(U.Calls, [&](const CallExpr *Call) {
        return stepsAtScaledRate(Average, U, *Call);
      }))
    return true;
  return std::nullopt; // it leaves the function
}

bool UnaveragedAllreduceCheck::averaged(const GradientModel &Model,
                                        const Averaging &Average,
                                        const CodeUnit &U,
                                        const Expr &Anchor,
                                        bool IsReduction, unsigned Depth,
                                        const CallExpr *&SteppedAt) const {
  if (Model.hidesCode(U, ranks::looksLikeAveraging))
    return true;
  AveragingParts Parts = averagingParts(Model, Average, U);
  const auto *Reduction = IsReduction ? dyn_cast<CallExpr>(&Anchor) : nullptr;
  if (averagedBefore(Model, Average, U, Anchor, Parts) ||
      (Reduction && averagedByClass(Model, Average, U, *Reduction)))
    return true;
  if (std::optional<bool> Decided =
          averagedAfter(Model, Average, U, Anchor, Parts, SteppedAt))
    return *Decided;

  // The sum leaves the function: every caller must average it.
  llvm::ArrayRef<CallSite> Sites = Model.callers(U);
  // Nobody here calls the function, and nothing here reads the sum again
  // (a communication thread filling a buffer another unit applies): what
  // becomes of it is out of sight.
  if (Sites.empty() && Reduction && !sumReadAgain(Model, U, *Reduction))
    return true;
  if (Sites.empty() || Depth >= MaxCallerDepth)
    return false;
  return llvm::all_of(Sites, [&](const CallSite &Site) {
    return averaged(Model, Average, *Site.Caller, *Site.Call,
                    /*IsReduction=*/false, Depth + 1, SteppedAt);
  });
}

} // namespace clang::tidy::ddp
