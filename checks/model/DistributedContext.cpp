//===--- DistributedContext.cpp -------------------------------------------===//

#include "model/DistributedContext.h"

namespace clang::tidy::ddp {

namespace {
// Inheritance converges in a few rounds on real code; the cap only bounds
// pathological inputs.
constexpr unsigned MaxRounds = 8;
} // namespace

void DistributedContext::build() {
  for (const auto &U : Graph.units())
    if (Vocab.isDistributedFunction(*U->Function, CodeUnitGraph::memberOf(*U),
                                    U->Stmts))
      Units.insert(U.get());
  // Lambdas written in, and functions called from, a distributed unit.
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const auto &U : Graph.units()) {
      if (Units.contains(U.get()))
        continue;
      bool Inherits = U->Enclosing && Units.contains(U->Enclosing);
      for (const CallSite &Site : Graph.callers(*U))
        Inherits |= Units.contains(Site.Caller);
      if (Inherits) {
        Units.insert(U.get());
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
}

} // namespace clang::tidy::ddp
