//===--- UnwaitedWorkReports.cpp - ddp-unwaited-work ----------------------===//
//
// The findings of ddp-unwaited-work on locals: pending work read or stepped
// past before its wait, work never waited for, a request replaced before
// its wait, and NCCL work on a stream nothing orders.
//
//===----------------------------------------------------------------------===//

#include "ddp/UnwaitedWorkCheck.h"
#include "model/UnwaitedWorkStreams.h"

namespace clang::tidy::ddp {

void UnwaitedWorkCheck::reportRace(const CallExpr &Collective,
                                   const VarDecl &Holder,
                                   const PendingUse &Use) {
  const VarDecl *Tensor = Use.Tensor;
  const Stmt &Where = *Use.Where;
  if (Tensor)
    diag(Collective.getExprLoc(),
         "%0 may still be running when %1 is %select{read|written}3: the "
         "work kept in %2 is not waited for on this path, so the "
         "%select{read|write}3 races with the %select{collective|transfer}4; "
         "wait on %2 first")
        << Collective.getDirectCallee() << Tensor << &Holder << Use.Writes
        << !Vocab.classifyCollective(Collective);
  else
    diag(Collective.getExprLoc(),
         "%0 may still be running when the optimizer steps: the work kept "
         "in %1 is not waited for on this path, so the step races with "
         "the collective; wait on %1 before the step")
        << Collective.getDirectCallee() << &Holder;
  diag(Where.getBeginLoc(),
       !Tensor ? "optimizer step here" : Use.Writes ? "written here" : "read here",
       DiagnosticIDs::Note);
}

void UnwaitedWorkCheck::reportNeverWaited(const CallExpr &Collective,
                                          const VarDecl &Holder) {
  // A send or receive has a buffer, not tensors; an MPI request that is
  // never completed also leaks.
  bool Transfer = !Vocab.classifyCollective(Collective);
  bool Leaks = Vocab.requestArgument(Collective) != nullptr;
  diag(Collective.getExprLoc(),
       "the work of %0 kept in %1 is never waited for: nothing orders the "
       "%select{collective before later reads of its tensors|transfer before "
       "later uses of its buffer}2 or the optimizer step%select{|, and the "
       "request leaks}3; wait on %1 before the %select{tensors are|buffer "
       "is}2 used")
      << Collective.getDirectCallee() << &Holder << Transfer << Leaks;
}

void UnwaitedWorkCheck::reportReplaced(const CallExpr &Post,
                                       const VarDecl &Holder,
                                       const CallExpr &Later) {
  diag(Post.getExprLoc(),
       "the request of %0 kept in %1 is replaced by another before it is "
       "waited for: this transfer is never completed and its request leaks; "
       "wait on %1 before posting again, or keep one request per transfer")
      << Post.getDirectCallee() << &Holder;
  diag(Later.getExprLoc(), "%0 posts into %1 again here", DiagnosticIDs::Note)
      << Later.getDirectCallee() << &Holder;
}

void UnwaitedWorkCheck::reportStreamRace(const StreamRace &Race) {
  const FunctionDecl *Collective = Race.Collective->getDirectCallee();
  if (!Race.Wait) {
    const auto *Reader = dyn_cast<CallExpr>(Race.Use);
    const FunctionDecl *ReaderFn = Reader ? Reader->getDirectCallee() : nullptr;
    diag(Race.Collective->getExprLoc(),
         "%0 writes %1 on stream %2, and %3 reads it on stream %4 with "
         "nothing ordering the two streams: the read can run before the "
         "collective has written the buffer, on each rank its own mix; "
         "record a CUDA event on %2 after the collective and make %4 wait on "
         "it (cudaStreamWaitEvent), or synchronize %2 first")
        << Collective << Race.Buffer << Race.CollectiveStream
        << (ReaderFn ? ReaderFn->getName() : llvm::StringRef("a call"))
        << Race.UseStream;
    diag(Race.Use->getBeginLoc(), "read on stream %0 here", DiagnosticIDs::Note)
        << Race.UseStream;
    return;
  }
  std::string Stream = Race.CollectiveStream
                           ? "'" + Race.CollectiveStream->getName().str() + "'"
                           : "the guard's stream";
  if (Race.Buffer)
    diag(Race.Wait->getExprLoc(),
         "the work of %0 is waited on with %1 current: wait() makes only "
         "that stream wait for the collective, so %2, read after the guard's "
         "scope on another stream, can be read before the reduction has "
         "written it; wait with the reading stream current, or record a CUDA "
         "event on %1 after the wait and block the reading stream on it")
        << Collective << Stream << Race.Buffer;
  else
    diag(Race.Wait->getExprLoc(),
         "the work of %0 is waited on with %1 current: wait() makes only "
         "that stream wait for the collective, so the optimizer step, on "
         "another stream after the guard's scope, can read the gradients "
         "before the reduction has written them; wait with the stepping "
         "stream current, or record a CUDA event on %1 after the wait and "
         "block the stepping stream on it")
        << Collective << Stream;
  diag(Race.Use->getBeginLoc(),
       Race.Buffer ? "read here" : "optimizer step here", DiagnosticIDs::Note);
}

} // namespace clang::tidy::ddp
