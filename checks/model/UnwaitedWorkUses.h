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
  bool Writes = false;   // writes a buffer a pending send reads
};

/// The uses in \p Body of what \p Collective reduces: every read of its
/// tensors other than metadata queries, appends and other collectives, and
/// the optimizer calls \p Steps when the tensors can be the model's
/// gradients or parameters (a metric's all-reduce may run across steps).
std::vector<PendingUse> pendingUses(const CallExpr &Collective,
                                    llvm::ArrayRef<const CallExpr *> Steps,
                                    const Stmt &Body, const Vocabulary &Vocab,
                                    ASTContext &Context);

/// The uses in \p Body of the buffers a nonblocking MPI call \p Post lends
/// MPI (collectives::requestBuffers), where a buffer is one variable whole
/// (`buf`, `&x`, `v.data()`, `&v[0]`): every use of the buffer MPI writes
/// (a read sees a partial message, a write is overwritten), and every write
/// into the one it reads (MPI 3.0 lets a pending send's buffer be read, not
/// changed; nor is the buffer of an in-place gather, where this rank's
/// slot is its input). Other posts into the same buffer, and uses that read no
/// element (`v.size()`), are not counted; a buffer named by an offset or an
/// element (`buf + k * n`, `&bufs[i][0]`) is not followed.
std::vector<PendingUse> bufferUses(const CallExpr &Post, const Stmt &Body,
                                   ASTContext &Context);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNWAITEDWORKUSES_H
