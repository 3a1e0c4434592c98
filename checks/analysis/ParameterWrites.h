//===--- ParameterWrites.h - which reference parameters a body writes -----===//
//
// A call that binds a local to a non-const reference (or hands its address)
// may change it: `read_rank(comm, rank)`. When the callee's body is in this
// translation unit, whether it does is known: `report(rank, epoch, totals)`
// only reads `totals`. One summary per function, computed on first use;
// calls into other functions of the unit are followed, with cycles cut
// (a function in progress is taken to write).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_PARAMETERWRITES_H
#define DDPLINT_CHECKS_ANALYSIS_PARAMETERWRITES_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>

namespace clang::tidy::ddp {

class ParameterWrites {
public:
  /// Whether the body of \p Def (a definition in user code) may change what
  /// its parameter \p Index refers to: assigns it or through it, changes it
  /// in place (`t.add_(x)`, `v.push_back(x)`), calls a non-const method on
  /// it, takes its address, or hands it to a call that may.
  bool mayWrite(const FunctionDecl &Def, unsigned Index);

private:
  /// Bit I set: parameter I may be written (the first 64 parameters).
  uint64_t summary(const FunctionDecl &Def);

  llvm::DenseMap<const FunctionDecl *, uint64_t> Summaries;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_PARAMETERWRITES_H
