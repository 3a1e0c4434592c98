//===--- Averaging.h - world sizes, and the ways code averages gradients --===//
//
// ddp-unaveraged-allreduce asks whether summed gradients are divided by the
// world size before the optimizer uses them. This recognises the values that
// are the world size and the operations that average with them:
//
// - world-size values: the vocabulary's sources (`pg->getSize()`,
//   `comm.size()`, `MPI_Comm_size(c, &n)`, `ncclCommCount`, `WORLD_SIZE`),
//   variables, fields and parameters given one (`world`, `ws`, `num_ranks`
//   by name too), functions returning one, and products and casts of those;
// - averaging: `g.div_(ws)`, `g / ws`, `g /= ws`, `g.mul_(1.0 / ws)`,
//   `g * (1.0 / ws)`, `at::_foreach_div_(grads, ws)`,
//   `at::_foreach_mul_(grads, 1.0 / ws)`, `buffer[i] /= ws`, and assignments
//   through `.data()` or `mutable_grad()` of such a quotient;
// - a loss scaled by 1 / world size before backward(), and a learning rate
//   divided by the world size in the options of the optimizer that steps
//   (`SGDOptions(lr / ws)`, `options.lr(lr / ws)`), followed to the
//   variables, fields and parameters that hold that optimizer
//   (LearningRateScaling.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_AVERAGING_H
#define DDPLINT_CHECKS_AVERAGING_H

#include "model/GradientModel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace clang::tidy::ddp {

namespace averaging {
/// Rounds of the fixpoints over the units, and how deep an expression is
/// followed (Averaging.cpp and LearningRateScaling.cpp alike).
constexpr unsigned MaxRounds = 6;
constexpr unsigned MaxExprDepth = 12;
} // namespace averaging

class Averaging {
public:
  explicit Averaging(const GradientModel &Model);

  /// Whether E's value is the world size (or a multiple of it).
  bool isWorldSize(const Expr *E) const;
  /// Whether E's value is a quotient by the world size (`1.0 / ws`).
  bool isPerRank(const Expr *E) const;
  /// A count summed over every rank, which averages as the world size does
  /// (`grad.div_(total_tokens)`): the number a helper of this unit returns
  /// from an all-reduce, a const local initialised with it, or an integer
  /// a scalar all-reduce writes (`MPI_Allreduce(&n, &total, ...)`).
  bool isReducedCount(const Expr *E) const;
  /// The branches of unit U that run only when the world size is 1: the
  /// body of `if (ws <= 1)` (`ws == 1`, `ws < 2`), the else of
  /// `if (ws > 1)`. The sum over one rank is its mean, so a path through
  /// one needs no average (`if (size <= 1) return;` between the SUM and
  /// its division).
  llvm::SmallVector<const Stmt *, 2> singleProcessBranches(const CodeUnit &U) const;
  /// When E divides a tensor by the world size (or multiplies it by
  /// 1 / world size), the tensor expression scaled; null otherwise.
  const Expr *averagedTensor(const Expr *E) const;
  /// The operations in a unit that average gradients, and its calls of
  /// functions that do.
  llvm::SmallVector<const Stmt *, 4> gradientAverages(const CodeUnit &U) const;
  /// Whether a backward() call back-propagates a loss scaled by
  /// 1 / world size, which averages every gradient it produces.
  bool backpropagatesAveragedLoss(const CodeUnit &U,
                                  const CallExpr &Backward) const;
  /// Whether \p Optimizer, an optimizer expression of unit U (the object of
  /// a step), holds an optimizer built with a learning rate divided by the
  /// world size, which averages its updates instead: a variable or field
  /// given one, or a parameter every caller (up to a few levels) hands one.
  bool isScaledOptimizer(const CodeUnit &U, const Expr *Optimizer,
                         unsigned Depth = 0) const;
  /// Whether unit U builds optimizer options with a learning rate divided by
  /// the world size for an optimizer this cannot name (a temporary, an
  /// element of a container).
  bool scalesLearningRate(const CodeUnit &U) const {
    return ScalingUnits.contains(&U);
  }

private:
  void findWorldSizeDecls();
  /// One step of findWorldSizeDecls: what \p D takes from \p Value, a
  /// statement of \p U, a call; each says whether it learnt something new.
  bool recordValue(const ValueDecl *D, const Expr *Value);
  bool recordStatement(const CodeUnit &U, const Stmt *S);
  bool recordCall(const CallExpr &Call);
  /// The integer a scalar all-reduce writes (a count summed over the
  /// ranks), or null.
  const VarDecl *reducedCountOutput(const CallExpr &Call) const;
  void findScaledLearningRates();
  /// Records who holds the scaled options built by \p S in unit U: the
  /// variable or field it initialises or is assigned to, else the unit.
  void recordScaledOwner(const CodeUnit &U, const Stmt *S);
  /// Variables and fields initialised or assigned from a scaled one
  /// (`SGD opt(params, options)`, `opt_ = std::make_unique<SGD>(...)`).
  void propagateScaledOptimizers();
  bool isScalingOptions(const Stmt *S) const;
  bool mentionsScaled(const Stmt *S) const;
  void findAveragingUnits();
  bool containsAverage(const Stmt *S) const;

  const GradientModel &Model;
  /// Variables, fields, parameters and functions whose value is the world
  /// size; and those whose value is a quotient by it.
  llvm::DenseSet<const ValueDecl *> WorldSizeDecls;
  llvm::DenseSet<const ValueDecl *> PerRankDecls;
  /// Units that average gradients, themselves or through a call.
  llvm::DenseSet<const CodeUnit *> AveragingUnits;
  /// Optimizers (and optimizer options) built with a learning rate divided
  /// by the world size; units that build such options for an optimizer
  /// they do not name.
  llvm::DenseSet<const ValueDecl *> ScaledOptimizers;
  llvm::DenseSet<const CodeUnit *> ScalingUnits;
};

/// Whether \p Anchor, a reduction to one root (`MPI_Reduce`,
/// `MPI_Ireduce`, `ncclReduce`), is averaged by the root: the branch of
/// `if (rank == root)` (or the else of `rank != root`) nearest around one
/// of \p Averages leaves unit U on no path that skips \p Avoid (the
/// averages, widened). The other ranks hold no sum to average.
/// (RootedReductions.cpp)
bool rootAveragesSum(const GradientModel &Model, const CodeUnit &U,
                     const Expr &Anchor, llvm::ArrayRef<const Stmt *> Averages,
                     llvm::ArrayRef<const Stmt *> Avoid);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_AVERAGING_H
