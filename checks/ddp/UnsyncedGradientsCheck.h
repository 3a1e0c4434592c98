//===--- UnsyncedGradientsCheck.h - ddp-unsynced-gradients ----------------===//
//
// Finds training steps of a distributed program where backward() is followed
// by the optimizer's step() with no gradient sync in between (each rank then
// steps with its own gradients and the replicas diverge), and syncs issued
// before the backward() of their step, which reduce the previous step's
// gradients.
//
// docs/checks/ddp-unsynced-gradients.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UNSYNCEDGRADIENTSCHECK_H
#define DDPLINT_CHECKS_UNSYNCEDGRADIENTSCHECK_H

#include "ddp/GradientCheckBase.h"
#include "model/RankConfinement.h"
#include "model/WrapperLife.h"

#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace clang::tidy::ddp {

class UnsyncedGradientsCheck : public GradientCheckBase {
public:
  using GradientCheckBase::GradientCheckBase;

private:
  /// The calls of one unit that matter to a training step.
  struct StepEvents {
    llvm::SmallVector<const CallExpr *, 4> Backwards; // or helpers that run one
    llvm::SmallVector<const CallExpr *, 4> Steps; // updates, helpers that step
    llvm::SmallVector<const CallExpr *, 4> Syncs;
    // Forwards through a wrapper, and forwards on a live wrapper's inner
    // module (ddp-unwrapped-forward reports those, with the fix).
    llvm::SmallVector<const CallExpr *, 2> Arms;
    llvm::SmallVector<const CallExpr *, 2> ParameterSyncs;
  };

  /// One unit's steps, as the per-step decisions below see them.
  struct UnitSteps {
    const CodeUnit &U;
    StepEvents E;
    const Reachability &Flow;
    llvm::SmallVector<const Stmt *, 8> Backwards, Steps;
  };

  void analyze(const GradientModel &Model) override;
  /// Fills LeavesUnsynced and StepsUnsynced from each helper's own events.
  void summariseHelpers(const GradientModel &Model);
  void checkUnit(const GradientModel &Model, const CodeUnit &U);
  /// optimizer.step(closure): backward() runs inside the closure.
  void checkClosureStep(const GradientModel &Model, const UnitSteps &S,
                        const CallExpr &Step, const CallExpr &Backward);
  void checkStep(const GradientModel &Model, const UnitSteps &S,
                 const CallExpr &Step);
  /// A sync earlier in the same step as \p Before: nothing but the
  /// \p Boundaries between them; null when there is none.
  const CallExpr *earlySync(const GradientModel &Model, const UnitSteps &S,
                            const CallExpr &Before,
                            llvm::ArrayRef<const Stmt *> Boundaries) const;
  /// Model averaging: the parameters themselves all-reduced after the step.
  bool averagesParameters(const UnitSteps &S, const CallExpr &Step) const;
  /// Fills Hooked: the units that run where syncing hooks can be installed
  /// first, that is those called (transitively) from a unit that installs
  /// them (GradientModel::syncingHookInstallers), or from one of its
  /// callers. A hook installer nothing calls syncs
  /// nothing.
  void findHookedUnits(const GradientModel &Model);
  StepEvents events(const GradientModel &Model, const CodeUnit &U) const;
  /// A backward() of unit U (or a call of a helper running one) that can
  /// reach \p To (a step; the return when null) with no sync on the way and
  /// no wrapper forward arming it; null when none can.
  const CallExpr *unsyncedBackward(const GradientModel &Model,
                                   const CodeUnit &U, const StepEvents &E,
                                   const CallExpr *To) const;
  /// A backward() of the closure handed to an optimizer step whose gradients
  /// reach the closure's return unsynced; null when there is none.
  const CallExpr *unsyncedClosureBackward(const GradientModel &Model,
                                          const CallExpr &Step) const;
  /// What a step is, for the diagnostic (in this order: %select).
  enum class StepKind { Helper, Optimizer, Update };
  StepKind stepKind(const GradientModel &Model, const CodeUnit &U,
                    const CallExpr &Step) const;
  /// A collective between \p Backward and \p Step that reduces only a copy
  /// of the gradients, whose result goes nowhere; null when there is none.
  const CallExpr *copyReduced(const GradientModel &Model, const CodeUnit &U,
                              const CallExpr &Backward,
                              const CallExpr &Step) const;
  /// \p E without the syncs that reduce only a copy of the gradients and
  /// reach \p Step before the copy is written back, which happens only after
  /// the step; \p LateWriteBack receives such a write-back (else null).
  StepEvents withoutLateCopies(const GradientModel &Model, const CodeUnit &U,
                               const StepEvents &E, const CallExpr &Step,
                               const Stmt *&LateWriteBack) const;
  /// \p CopyReduced: a collective between the backward and the step that
  /// reduces only a copy of the gradients (GradientModel::gradientBuffers),
  /// or null; \p LateWriteBack: where such a copy is written back, after
  /// the step, or null.
  void reportUnsynced(const CallExpr &Step, StepKind Kind,
                      const CallExpr &Backward, bool InClosure,
                      const CallExpr *CopyReduced = nullptr,
                      const Stmt *LateWriteBack = nullptr);
  void reportEarlySync(const CallExpr &Sync, const CallExpr &Backward,
                       const CallExpr &Step, bool InClosure);

  /// Whether a step runs on some ranks only (a single learner's, reached
  /// from `if (rank == 0)`): no replica of it steps elsewhere.
  bool someRanksOnly(const CodeUnit &U, const CallExpr &Step) const {
    return Confinement && Confinement->someRanksOnly(U, Step);
  }
  std::optional<RankConfinement> Confinement;
  /// Units whose backward() leaves unsynced gradients to their caller, and
  /// units that step on gradients their caller produced.
  llvm::DenseSet<const CodeUnit *> LeavesUnsynced, StepsUnsynced;
  llvm::DenseSet<const CallExpr *> ReportedSyncs;
  /// Units whose backward() runs syncing hooks (see findHookedUnits).
  llvm::DenseSet<const CodeUnit *> Hooked;
  /// Whether \p Call runs the forward of a module that a wrapper of \p U's
  /// function wraps, where it runs.
  bool forwardsWrappedModule(const GradientModel &Model, const CodeUnit &U,
                             const CallExpr &Call) const;
  /// The wrappers of each function asked about, for this translation unit.
  mutable llvm::DenseMap<const FunctionDecl *, std::unique_ptr<WrapperLife>>
      Lives;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNSYNCEDGRADIENTSCHECK_H
