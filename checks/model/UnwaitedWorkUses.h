//===--- UnwaitedWorkUses.h - What must wait for a collective -------------===//
//
// ddp-unwaited-work: the reads of a collective's tensors, and the optimizer
// steps when those tensors can be the model's, that must come after the
// collective completes.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UNWAITEDWORKUSES_H
#define DDPLINT_CHECKS_UNWAITEDWORKUSES_H

#include "vocabulary/Vocabulary.h"

#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace clang::tidy::ddp {

/// A statement that must come after the collective completes.
struct PendingUse {
  const Stmt *Where;
  const VarDecl *Tensor; // null for an optimizer step
};

/// The uses in \p Body of what \p Collective reduces: every read of its
/// tensors other than metadata queries, appends and other collectives, and
/// the optimizer calls \p Steps when the tensors can be the model's
/// gradients or parameters (a metric's all-reduce may run across steps).
std::vector<PendingUse> pendingUses(const CallExpr &Collective,
                                    llvm::ArrayRef<const CallExpr *> Steps,
                                    const Stmt &Body, const Vocabulary &Vocab,
                                    ASTContext &Context);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNWAITEDWORKUSES_H
