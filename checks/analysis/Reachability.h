//===--- Reachability.h - "can this run after that" on a function's CFG ---===//
//
// The ddp checks ask order questions: is a set_epoch call followed by a use of
// a loader that copied the sampler before it; is a forward pass reachable
// after the wrap without the wrapper being rebuilt. This answers them on the
// function's CFG, path-sensitively enough for loops and early exits, the way
// clang-tidy's use-after-move check works.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_REACHABILITY_H
#define DDPLINT_CHECKS_ANALYSIS_REACHABILITY_H

#include "clang/AST/ASTContext.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>
#include <optional>
#include <utility>

namespace clang::tidy::ddp {

class Reachability {
public:
  /// Builds the CFG of a function's body (with its constructor
  /// initializers when \p Function is a constructor), or of any statement
  /// when \p Function is null.
  Reachability(const Decl *Function, const Stmt *Body, ASTContext &Context);

  /// Whether the CFG could be built; if not, every query answers false.
  bool valid() const { return Cfg != nullptr; }

  /// Whether \p To can execute after \p From on some path that executes none
  /// of \p Avoid in between. When \p From and \p To are the same statement,
  /// this asks whether it can execute again (it lies on a cycle).
  ///
  /// A statement of \p Avoid that the CFG does not evaluate as one element
  /// (an `if`, a loop, a block) is executed when any part of it is: a path
  /// that enters it is blocked. So a loop over the parameters that averages
  /// each gradient can be avoided as a whole, although its body may run zero
  /// times.
  bool reachable(const Stmt *From, const Stmt *To,
                 llvm::ArrayRef<const Stmt *> Avoid = {}) const;

  /// Whether the function can return after \p From without executing any of
  /// \p Avoid in between.
  bool reachesExit(const Stmt *From,
                   llvm::ArrayRef<const Stmt *> Avoid = {}) const;

  /// Whether the function can return on a path that enters \p S (from the
  /// first element the CFG evaluates in it: a block's first statement, an
  /// `if`'s or loop's condition, \p S itself when it is one element, which
  /// counts) and executes none of \p Avoid.
  bool exitsFromEntering(const Stmt *S,
                         llvm::ArrayRef<const Stmt *> Avoid = {}) const;

  /// Whether \p To can execute on some path from the function's entry that
  /// executes none of \p Avoid before it.
  bool reachableFromEntry(const Stmt *To,
                          llvm::ArrayRef<const Stmt *> Avoid = {}) const;

  /// Whether the function can return from its entry without executing any
  /// of \p Avoid.
  bool entryReachesExit(llvm::ArrayRef<const Stmt *> Avoid = {}) const {
    return Cfg && search(std::nullopt, std::nullopt, Avoid);
  }

  /// Whether \p S lies on a cycle of the CFG that avoids \p Avoid.
  bool repeats(const Stmt *S, llvm::ArrayRef<const Stmt *> Avoid = {}) const {
    return reachable(S, S, Avoid);
  }

private:
  using Position = std::pair<const CFGBlock *, unsigned>;
  /// The CFG element that evaluates \p S, or the closest enclosing one.
  std::optional<Position> locate(const Stmt *S) const;
  /// The element evaluated first on entering \p S (see exitsFromEntering).
  std::optional<Position> entering(const Stmt *S) const;
  /// The elements that execute \p S: its own, else those of its parts, else
  /// the closest enclosing one.
  void executing(const Stmt *S, llvm::DenseSet<Position> &Out) const;
  /// The search behind the public queries: from \p Start (the entry when
  /// absent) to \p Target (the exit when absent).
  /// \p FromStart: the start element itself is executed on the path.
  bool search(std::optional<Position> Start, std::optional<Position> Target,
              llvm::ArrayRef<const Stmt *> Avoid,
              bool FromStart = false) const;

  ASTContext &Context;
  std::unique_ptr<CFG> Cfg;
  llvm::DenseMap<const Stmt *, Position> Index;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_REACHABILITY_H
