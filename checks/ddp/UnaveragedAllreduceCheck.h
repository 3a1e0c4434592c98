//===--- UnaveragedAllreduceCheck.h - ddp-unaveraged-allreduce ------------===//
//
// Finds gradients all-reduced with SUM (the default of every API) and never
// divided by the world size before the optimizer steps: the effective
// learning rate grows with the number of ranks.
//
// docs/checks/ddp-unaveraged-allreduce.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UNAVERAGEDALLREDUCECHECK_H
#define DDPLINT_CHECKS_UNAVERAGEDALLREDUCECHECK_H

#include "ddp/GradientCheckBase.h"

namespace clang::tidy::ddp {

class Averaging;
/// The statements of a unit that decide whether a sum in it is averaged.
struct AveragingParts;

class UnaveragedAllreduceCheck : public GradientCheckBase {
public:
  using GradientCheckBase::GradientCheckBase;

private:
  void analyze(const GradientModel &Model) override;
  /// Whether the sum that a reduction (or a call of the function holding
  /// it) leaves at \p Anchor is averaged before any step: before it in the
  /// same step, after it on every path, or by every caller; or stepped by
  /// an optimizer with a learning rate divided by the world size, or left
  /// where one is built or steps. Sets \p SteppedAt to a step reached with
  /// the plain sum.
  bool averaged(const GradientModel &Model, const Averaging &Average,
                const CodeUnit &U, const Expr &Anchor, bool IsReduction,
                unsigned Depth, const CallExpr *&SteppedAt) const;
  /// Whether the sum left at \p Anchor is averaged after it on every path
  /// to the next step and to the return, or stepped at a scaled rate; none
  /// when it leaves the function undecided. Sets \p SteppedAt to a step
  /// reached with the plain sum.
  std::optional<bool> averagedAfter(const GradientModel &Model,
                                    const Averaging &Average,
                                    const CodeUnit &U, const Expr &Anchor,
                                    const AveragingParts &Parts,
                                    const CallExpr *&SteppedAt) const;
  /// Whether \p Step, a call of unit U, steps an optimizer built with a
  /// learning rate divided by the world size: that averages its updates
  /// instead of the gradients.
  bool stepsAtScaledRate(const Averaging &Average, const CodeUnit &U,
                         const CallExpr &Step) const;
  /// A reduction in a helper whose operation the caller picks
  /// (`distributed::allreduce(t, Op::Sum)`): checked at each call of the
  /// helper that passes a sum of gradients.
  void checkCallers(const GradientModel &Model, const Averaging &Average,
                    const CodeUnit &Helper, const CallExpr &Reduction);
  /// A call that does not type-check (`all_reduce(p.grad(), pg, SUM)` with
  /// a `Tensor &` parameter), kept by clang as a recovery expression: a
  /// call of its first candidate of that arity defined here.
  void checkRecovered(const GradientModel &Model, const Averaging &Average,
                      const CodeUnit &U, const RecoveryExpr &Recovered);
  /// A gather of gradient steps whose pieces are added up one by one
  /// (`for (k < comm.size()) param -= gathered[k];`) and never divided:
  /// a reduction by hand, with the same N-fold update.
  void checkSummedGather(const GradientModel &Model, const Averaging &Average,
                         const CodeUnit &U, const CallExpr &Gather);
  /// \p Name: the quoted name of what \p Reduction calls; \p Api: the API
  /// of the sum, for the fix suggested; \p Inside: the collective in the
  /// helper \p Reduction calls, when it is not itself the collective.
  void report(const Expr &Reduction, const std::string &Name,
              CollectiveApi Api, const CallExpr *SteppedAt,
              const CallExpr *Inside = nullptr);
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNAVERAGEDALLREDUCECHECK_H
