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

#include "GradientCheckBase.h"

namespace clang::tidy::ddp {

class Averaging;

class UnaveragedAllreduceCheck : public GradientCheckBase {
public:
  using GradientCheckBase::GradientCheckBase;

private:
  void analyze(const GradientModel &Model) override;
  /// Whether the sum that a reduction (or a call of the function holding
  /// it) leaves at \p Anchor is averaged before any step: before it in the
  /// same step, after it on every path, or by every caller. Sets \p SteppedAt
  /// to a step reached with the plain sum.
  bool averaged(const GradientModel &Model, const Averaging &Average,
                const CodeUnit &U, const CallExpr &Anchor, bool IsReduction,
                unsigned Depth, const CallExpr *&SteppedAt) const;
  /// A reduction in a helper whose operation the caller picks
  /// (`distributed::allreduce(t, Op::Sum)`): checked at each call of the
  /// helper that passes a sum of gradients.
  void checkCallers(const GradientModel &Model, const Averaging &Average,
                    const CodeUnit &Helper, const CallExpr &Reduction);
  /// \p Helper: where the reduction sits when \p Reduction is not
  /// itself the collective but a call of the helper issuing it.
  void report(const CallExpr &Reduction, const CallExpr *SteppedAt,
              const CallExpr *Inside = nullptr);
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNAVERAGEDALLREDUCECHECK_H
