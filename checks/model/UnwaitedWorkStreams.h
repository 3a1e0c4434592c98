//===--- UnwaitedWorkStreams.h - Collectives racing across CUDA streams ---===//
//
// ddp-unwaited-work on a GPU: work is ordered on its CUDA stream, and only
// there. Two races follow:
//   - an NCCL collective writes its buffer on one stream and a call on
//     another stream reads the buffer, with no synchronize or event wait
//     between them;
//   - a c10d Work waited on with a side stream current (inside a
//     CUDAStreamGuard): wait() orders only that stream after the
//     collective, and the optimizer step or a read after the guard's scope
//     runs on another stream.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UNWAITEDWORKSTREAMS_H
#define DDPLINT_CHECKS_UNWAITEDWORKSTREAMS_H

#include "vocabulary/Vocabulary.h"
#include "analysis/Reachability.h"

#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace clang::tidy::ddp {

struct StreamRace {
  /// The NCCL call, or the c10d collective whose Work is waited on.
  const CallExpr *Collective;
  /// The wait under a stream guard; null for an NCCL race.
  const CallExpr *Wait = nullptr;
  /// The read (a call, or a reference to the tensor) or optimizer step.
  const Stmt *Use;
  /// The buffer or tensor read; null for an optimizer step.
  const ValueDecl *Buffer = nullptr;
  /// The collective's stream (NCCL), or the guard's stream.
  const ValueDecl *CollectiveStream = nullptr;
  /// The stream the NCCL buffer is read on; null for a guard.
  const ValueDecl *UseStream = nullptr;
};

/// NCCL collectives in \p Body whose output buffer a call on another stream
/// reads on a path with no ordering call (vocabulary: streams) between.
std::vector<StreamRace> ncclStreamRaces(const Stmt &Body,
                                        const Vocabulary &Vocab,
                                        const Reachability &Flow,
                                        ASTContext &Context);

/// Works waited on inside a stream guard's scope whose collective's
/// tensors are read, or the optimizer \p Steps, after the scope on a path
/// with no ordering call and no wait outside a guard between.
std::vector<StreamRace> sideStreamWaits(const Stmt &Body,
                                        llvm::ArrayRef<const CallExpr *> Steps,
                                        const Vocabulary &Vocab,
                                        const Reachability &Flow,
                                        ASTContext &Context);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNWAITEDWORKSTREAMS_H
