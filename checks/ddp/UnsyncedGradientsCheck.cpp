//===--- UnsyncedGradientsCheck.cpp - ddp-unsynced-gradients --------------===//

#include "ddp/UnsyncedGradientsCheck.h"

#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

llvm::SmallVector<const Stmt *, 8> statements(llvm::ArrayRef<const CallExpr *> A,
                                              llvm::ArrayRef<const CallExpr *> B = {}) {
  llvm::SmallVector<const Stmt *, 8> Out(A.begin(), A.end());
  Out.append(B.begin(), B.end());
  return Out;
}

} // namespace

UnsyncedGradientsCheck::StepEvents
UnsyncedGradientsCheck::events(const GradientModel &Model,
                               const CodeUnit &U) const {
  StepEvents E;
  for (const CallExpr *Call : U.Calls) {
    const CodeUnit *Callee = Model.calleeUnit(*Call);
    if (training::backwardRoot(*Call) ||
        (Callee && LeavesUnsynced.contains(Callee)))
      E.Backwards.push_back(Call);
    if (Model.isStep(U, *Call) || (Callee && StepsUnsynced.contains(Callee)))
      E.Steps.push_back(Call);
    if (Model.isGradientSync(U, *Call))
      E.Syncs.push_back(Call);
    if (Model.armsSync(*Call) || forwardsWrappedModule(Model, U, *Call))
      E.Arms.push_back(Call);
    if (Model.isParameterSync(U, *Call))
      E.ParameterSyncs.push_back(Call);
  }
  return E;
}

bool UnsyncedGradientsCheck::forwardsWrappedModule(const GradientModel &Model,
                                                   const CodeUnit &U,
                                                   const CallExpr &Call) const {
  const Expr *Receiver = Vocab.forwardReceiver(Call);
  if (!Receiver || !U.Function || !U.Function->hasBody())
    return false;
  std::unique_ptr<WrapperLife> &Life = Lives[U.Function];
  if (!Life)
    Life = std::make_unique<WrapperLife>(*U.Function, Model.context(), Vocab);
  return Life->wrappedModule(Receiver, &Call) != nullptr;
}

const CallExpr *UnsyncedGradientsCheck::unsyncedBackward(
    const GradientModel &Model, const CodeUnit &U, const StepEvents &E,
    const CallExpr *To) const {
  const Reachability &Flow = Model.flow(U);
  llvm::SmallVector<const Stmt *, 8> Steps = statements(E.Steps);
  for (const CallExpr *B : E.Backwards) {
    // A helper that runs backward() and then syncs (`replica.backward(loss)`)
    // leaves synced gradients, although it may skip the sync on
    // micro-batches that only accumulate.
    if (B == To || llvm::is_contained(E.Syncs, B))
      continue;
    // A forward through a wrapper earlier in the step arms its sync.
    if (llvm::any_of(E.Arms, [&](const CallExpr *W) {
          return Flow.reachable(W, B, Steps);
        }))
      continue;
    // A sync inside a loop over the parameters, or under a condition, counts
    // as a whole: widen it to the statement that holds it.
    llvm::SmallVector<const Stmt *, 8> Barriers = statements(E.Steps, E.Backwards);
    llvm::SmallVector<const Stmt *, 8> Avoid;
    for (const CallExpr *Sync : E.Syncs)
      Avoid.push_back(Model.widen(U, Sync, Barriers));
    // Code clang could not build may be the sync (a call into a missing MPI
    // header).
    for (const Stmt *Broken : U.Broken)
      Avoid.push_back(Model.widen(U, Broken, Barriers));
    if (To ? Flow.reachable(B, To, Avoid)
           : (Avoid.append(Steps.begin(), Steps.end()),
              Flow.reachesExit(B, Avoid)))
      return B;
  }
  return nullptr;
}

const CallExpr *
UnsyncedGradientsCheck::unsyncedClosureBackward(const GradientModel &Model,
                                                const CallExpr &Step) const {
  const Expr *Closure = Vocab.optimizerStepClosure(Step);
  if (!Closure)
    return nullptr;
  for (const CodeUnit *Body : Model.callableUnits(Closure))
    if (const CallExpr *B =
            unsyncedBackward(Model, *Body, events(Model, *Body), nullptr))
      return B;
  return nullptr;
}

UnsyncedGradientsCheck::StepKind
UnsyncedGradientsCheck::stepKind(const GradientModel &Model, const CodeUnit &U,
                                 const CallExpr &Step) const {
  if (Vocab.isOptimizerStep(Step))
    return StepKind::Optimizer;
  return Model.isStep(U, Step) ? StepKind::Update : StepKind::Helper;
}

void UnsyncedGradientsCheck::findHookedUnits(const GradientModel &Model) {
  Hooked.clear();
  const llvm::DenseSet<const CodeUnit *> &Installers =
      Model.syncingHookInstallers();
  if (Installers.empty())
    return;
  // The call graph, with a lambda run by the unit it is written in and a
  // constructor by the unit that builds the object.
  llvm::DenseMap<const CodeUnit *, llvm::SmallVector<const CodeUnit *, 4>>
      Callees, CallersOf;
  auto Edge = [&](const CodeUnit *From, const CodeUnit *To) {
    if (From && To) {
      Callees[From].push_back(To);
      CallersOf[To].push_back(From);
    }
  };
  for (const auto &U : Model.units()) {
    Edge(U->Enclosing, U.get());
    for (const Stmt *S : U->Stmts)
      if (const auto *Call = dyn_cast<CallExpr>(S))
        Edge(U.get(), Model.calleeUnit(*Call));
      else if (const auto *Construct = dyn_cast<CXXConstructExpr>(S))
        Edge(U.get(), Model.unitOf(Construct->getConstructor()));
  }
  auto Closure = [](llvm::SmallVector<const CodeUnit *, 8> Work,
                    auto &Graph) {
    llvm::DenseSet<const CodeUnit *> Seen;
    while (!Work.empty()) {
      const CodeUnit *U = Work.pop_back_val();
      if (Seen.insert(U).second)
        for (const CodeUnit *Next : Graph.lookup(U))
          Work.push_back(Next);
    }
    return Seen;
  };
  // The installers and every unit that calls one; then what they call.
  llvm::DenseSet<const CodeUnit *> Up = Closure(
      llvm::SmallVector<const CodeUnit *, 8>(Installers.begin(),
                                             Installers.end()),
      CallersOf);
  Hooked = Closure(llvm::SmallVector<const CodeUnit *, 8>(Up.begin(), Up.end()),
                   Callees);
}

void UnsyncedGradientsCheck::analyze(const GradientModel &Model) {
  Lives.clear();
  LeavesUnsynced.clear();
  StepsUnsynced.clear();
  ReportedSyncs.clear();
  Confinement.emplace(Model.graph(), summaries(Model.context()));
  // Gradient hooks that sync make backward() a sync where they were
  // installed first.
  findHookedUnits(Model);
  summariseHelpers(Model);
  for (const auto &U : Model.units())
    if (U->Reported && !Hooked.contains(U.get()))
      checkUnit(Model, *U);
}

void UnsyncedGradientsCheck::summariseHelpers(const GradientModel &Model) {
  // Helpers, from their own events: one that runs backward() and returns the
  // gradients unsynced, one that steps on gradients it did not produce.
  for (const auto &U : Model.units()) {
    if (Hooked.contains(U.get()))
      continue;
    StepEvents E = events(Model, *U);
    if (unsyncedBackward(Model, *U, E, nullptr))
      LeavesUnsynced.insert(U.get());
    llvm::SmallVector<const Stmt *, 8> Avoid = statements(E.Syncs, E.Backwards);
    if (llvm::any_of(E.Steps, [&](const CallExpr *S) {
          return !unsyncedClosureBackward(Model, *S) &&
                 Model.flow(*U).reachableFromEntry(S, Avoid);
        }))
      StepsUnsynced.insert(U.get());
  }
}

void UnsyncedGradientsCheck::checkUnit(const GradientModel &Model,
                                       const CodeUnit &U) {
  UnitSteps S{U, events(Model, U), Model.flow(U), {}, {}};
  S.Backwards = statements(S.E.Backwards);
  S.Steps = statements(S.E.Steps);
  for (const CallExpr *Step : S.E.Steps) {
    if (const CallExpr *B = unsyncedClosureBackward(Model, *Step))
      checkClosureStep(Model, S, *Step, *B);
    else
      checkStep(Model, S, *Step);
  }
}

const CallExpr *UnsyncedGradientsCheck::earlySync(
    const GradientModel &Model, const UnitSteps &S, const CallExpr &Before,
    llvm::ArrayRef<const Stmt *> Boundaries) const {
  // Early: it reaches the backward, and never runs between the backward and
  // the step (a sync skipped on some iterations is not early, it is
  // missing on those).
  for (const CallExpr *Sync : S.E.Syncs)
    if (Model.isGradientSync(S.U, *Sync, /*Guesses=*/false) &&
        S.Flow.reachable(Sync, &Before, Boundaries) &&
        !S.Flow.reachable(&Before, Sync, Boundaries))
      return Sync;
  return nullptr;
}

bool UnsyncedGradientsCheck::averagesParameters(const UnitSteps &S,
                                                const CallExpr &Step) const {
  // After the step, before the next backward (model averaging), or between
  // the backward and the step (an elastic pull toward exchanged
  // parameters): either way the replicas meet through their parameters.
  return llvm::any_of(S.E.ParameterSyncs, [&](const CallExpr *P) {
    return S.Flow.reachable(&Step, P, S.Backwards) ||
           S.Flow.reachable(P, &Step, S.Backwards);
  });
}

void UnsyncedGradientsCheck::checkClosureStep(const GradientModel &Model,
                                              const UnitSteps &S,
                                              const CallExpr &Step,
                                              const CallExpr &Backward) {
  if (Model.hidesCode(S.U, GradientModel::looksLikeSync) ||
      llvm::any_of(Model.callableUnits(Vocab.optimizerStepClosure(Step)),
                   [&](const CodeUnit *Closure) {
                     return Model.hidesCode(*Closure,
                                            GradientModel::looksLikeSync);
                   }))
    return;
  llvm::SmallVector<const Stmt *, 8> Others;
  for (const Stmt *Other : statements(S.E.Steps, S.E.Backwards))
    if (Other != &Step)
      Others.push_back(Other);
  if (const CallExpr *Sync = earlySync(Model, S, Step, Others))
    reportEarlySync(*Sync, Backward, Step, /*InClosure=*/true);
  else if (Model.isDistributed(S.U) && !averagesParameters(S, Step) &&
           !someRanksOnly(S.U, Step))
    reportUnsynced(Step, stepKind(Model, S.U, Step), Backward,
                   /*InClosure=*/true);
}

void UnsyncedGradientsCheck::checkStep(const GradientModel &Model,
                                       const UnitSteps &S,
                                       const CallExpr &Step) {
  const CallExpr *B = unsyncedBackward(Model, S.U, S.E, &Step);
  const Stmt *Late = nullptr;
  if (!B) {
    StepEvents Early = withoutLateCopies(Model, S.U, S.E, Step, Late);
    B = Late ? unsyncedBackward(Model, S.U, Early, &Step) : nullptr;
  }
  // A sync compiled out, or dropped with a missing header, may be the one
  // missing.
  if (!B || averagesParameters(S, Step) ||
      Model.hidesCode(S.U, GradientModel::looksLikeSync,
                      S.U.commonAncestor(B, &Step)))
    return;
  if (const CallExpr *Sync = earlySync(Model, S, *B, S.Steps))
    reportEarlySync(*Sync, *B, Step, /*InClosure=*/false);
  else if (Model.isDistributed(S.U) && !someRanksOnly(S.U, Step))
    reportUnsynced(Step, stepKind(Model, S.U, Step), *B, /*InClosure=*/false,
                   copyReduced(Model, S.U, *B, Step), Late);
}

const CallExpr *UnsyncedGradientsCheck::copyReduced(const GradientModel &Model,
                                                    const CodeUnit &U,
                                                    const CallExpr &Backward,
                                                    const CallExpr &Step) const {
  const Reachability &Flow = Model.flow(U);
  for (const CallExpr *Call : U.Calls) {
    if (Model.gradientBuffers(U, *Call) ==
            GradientModel::GradientBuffers::OnlyCopies &&
        Flow.reachable(&Backward, Call) && Flow.reachable(Call, &Step))
      return Call;
  }
  return nullptr;
}

UnsyncedGradientsCheck::StepEvents UnsyncedGradientsCheck::withoutLateCopies(
    const GradientModel &Model, const CodeUnit &U, const StepEvents &E,
    const CallExpr &Step, const Stmt *&LateWriteBack) const {
  const Reachability &Flow = Model.flow(U);
  llvm::SmallVector<const Stmt *, 8> Barriers = statements(E.Steps, E.Backwards);
  // Collectives of copies that reach the step before any write-back.
  llvm::SmallPtrSet<const CallExpr *, 4> Late;
  LateWriteBack = nullptr;
  for (const CallExpr *Sync : E.Syncs) {
    llvm::SmallVector<const Stmt *, 4> WriteBacks = Model.copyWriteBacks(U, *Sync);
    llvm::SmallVector<const Stmt *, 4> Widened;
    for (const Stmt *W : WriteBacks)
      Widened.push_back(Model.widen(U, W, Barriers));
    if (WriteBacks.empty() || !Flow.reachable(Sync, &Step, Widened))
      continue;
    for (const Stmt *W : WriteBacks)
      if (Flow.reachable(&Step, W)) {
        Late.insert(Sync);
        LateWriteBack = LateWriteBack ? LateWriteBack : W;
        break;
      }
  }
  // A wait completes the collectives before it: it syncs nothing more when
  // each of them is such a copy.
  auto WaitsOnLateOnly = [&](const CallExpr *Wait) {
    bool Any = false;
    for (const CallExpr *C : U.Calls)
      if (Model.isGradientCollective(U, *C) && Flow.reachable(C, Wait)) {
        if (!Late.contains(C))
          return false;
        Any = true;
      }
    return Any;
  };
  StepEvents Early = E;
  Early.Syncs.clear();
  for (const CallExpr *Sync : E.Syncs)
    if (!Late.contains(Sync) &&
        !(collectives::isWaitCall(*Sync) && WaitsOnLateOnly(Sync)))
      Early.Syncs.push_back(Sync);
  return Early;
}

void UnsyncedGradientsCheck::reportUnsynced(const CallExpr &Step,
                                            StepKind Kind,
                                            const CallExpr &Backward,
                                            bool InClosure,
                                            const CallExpr *CopyReduced,
                                            const Stmt *LateWriteBack) {
  diag(Step.getExprLoc(),
       "%select{%1 steps the optimizer with|the optimizer steps with|this "
       "parameter update applies}0 gradients no rank shares: nothing "
       "all-reduces them between backward() and the step in this distributed "
       "program, so each rank steps with its own gradients: replicas diverge; "
       "all-reduce the gradients and divide them by the world size after "
       "backward() and before the step, or run the forward pass through the "
       "data-parallel wrapper")
      << static_cast<int>(Kind) << calleeName(Step);
  if (InClosure)
    diag(Backward.getExprLoc(), "the closure runs backward() here",
         DiagnosticIDs::Note);
  else if (training::backwardRoot(Backward))
    diag(Backward.getExprLoc(), "gradients computed by backward() here",
         DiagnosticIDs::Note);
  else
    diag(Backward.getExprLoc(), "%0 runs backward() here", DiagnosticIDs::Note)
        << calleeName(Backward);
  if (CopyReduced)
    diag(CopyReduced->getExprLoc(),
         "%0 reduces a copy of the gradients that is only read down to "
         "numbers; the gradients the optimizer steps with stay each rank's own",
         DiagnosticIDs::Note)
        << calleeName(*CopyReduced);
  if (LateWriteBack)
    diag(LateWriteBack->getBeginLoc(),
         "the reduced copy of the gradients is written back only here, after "
         "the step; write it back before the optimizer steps",
         DiagnosticIDs::Note);
}

void UnsyncedGradientsCheck::reportEarlySync(const CallExpr &Sync,
                                             const CallExpr &Backward,
                                             const CallExpr &Step,
                                             bool InClosure) {
  if (!ReportedSyncs.insert(&Sync).second)
    return;
  diag(Sync.getExprLoc(),
       "gradient sync %0 runs before the backward() of its step, so it "
       "reduces the previous step's gradients and each rank steps with its "
       "own gradients: replicas diverge; %select{move the sync after "
       "backward() and before the optimizer step|sync inside the closure, "
       "after its backward()}1")
      << calleeName(Sync) << InClosure;
  diag(Backward.getExprLoc(),
       InClosure ? "the closure runs this step's backward() here"
                 : "this step's gradients are computed here",
       DiagnosticIDs::Note);
  diag(Step.getExprLoc(), "the optimizer steps with them here",
       DiagnosticIDs::Note);
}

} // namespace clang::tidy::ddp
