//===--- DistributedContext.h - which units run in a distributed program --===//
//
// A unit runs in a distributed program when it shows so itself
// (Vocabulary::isDistributedFunction: a communicator, wrapper or distributed
// sampler in scope, a collective, a rank or world-size query, the rank), or
// when it is a lambda written in, or a function called from, such a unit.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_DISTRIBUTEDCONTEXT_H
#define DDPLINT_CHECKS_DISTRIBUTEDCONTEXT_H

#include "model/CodeUnits.h"
#include "vocabulary/Vocabulary.h"

#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::ddp {

class DistributedContext {
public:
  DistributedContext(const Vocabulary &Vocab, const CodeUnitGraph &Graph)
      : Vocab(Vocab), Graph(Graph) {}

  /// Finds the distributed units; call once the graph is linked.
  void build();
  bool isDistributed(const CodeUnit &U) const { return Units.contains(&U); }

private:
  const Vocabulary &Vocab;
  const CodeUnitGraph &Graph;
  llvm::DenseSet<const CodeUnit *> Units;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_DISTRIBUTEDCONTEXT_H
