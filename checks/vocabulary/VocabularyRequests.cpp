//===--- VocabularyRequests.cpp - what MPI does with requests and roots ---===//

#include "vocabulary/Collectives.h"
#include "vocabulary/VocabularyInternal.h"

#include "llvm/ADT/StringSwitch.h"

#include <tuple>

namespace clang::tidy::ddp {

collectives::RequestUse collectives::mpiRequestUse(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || !isGlobalCFunction(*FD))
    return RequestUse::Other;
  llvm::StringRef Name = FD->getName();
  // The nonblocking calls, collectives and point-to-point alike, write the
  // request through their last parameter (`MPI_Intercomm_create` and
  // `MPI_Iprobe` start with the same letters and write none).
  if (Name.starts_with("MPI_I") && FD->getNumParams() > 0) {
    QualType Last = FD->getParamDecl(FD->getNumParams() - 1)->getType();
    if (Last->isPointerType() && isWorkType(Last->getPointeeType()))
      return RequestUse::Starts;
  }
  return llvm::StringSwitch<RequestUse>(Name)
      .Cases("MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
             RequestUse::Completes)
      .Cases("MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
             RequestUse::Tests)
      .Case("MPI_Request_get_status", RequestUse::Completes)
      .Case("MPI_Request_free", RequestUse::Frees)
      .Default(RequestUse::Other);
}

std::optional<collectives::RequestTest>
collectives::mpiRequestTest(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || !isGlobalCFunction(*FD))
    return std::nullopt;
  // The requests' position, then the answers' (the last when there is one).
  auto [Requests, First, Last] =
      llvm::StringSwitch<std::tuple<unsigned, unsigned, unsigned>>(FD->getName())
          .Case("MPI_Test", {0, 1, 1})
          .Cases("MPI_Testall", "MPI_Testsome", {1, 2, 2})
          .Case("MPI_Testany", {1, 2, 3})
          .Default({0, 0, 0});
  if (First == 0 || Last >= Call.getNumArgs())
    return std::nullopt;
  RequestTest Test{Call.getArg(Requests), {}};
  for (unsigned I = First; I <= Last; ++I)
    Test.Outcomes.push_back(Call.getArg(I));
  return Test;
}

collectives::RequestBuffers
collectives::requestBuffers(const CallExpr &Call) {
  if (mpiRequestUse(Call) != RequestUse::Starts)
    return {};
  // The positions of the buffer MPI writes and of the one it reads (-1:
  // none), by the MPI standard's signatures.
  auto [Written, Read] =
      llvm::StringSwitch<std::pair<int, int>>(Call.getDirectCallee()->getName())
          .Cases("MPI_Irecv", "MPI_Imrecv", {0, -1})
          // The root's buffer is sent: counted as read, written nowhere.
          .Case("MPI_Ibcast", {-1, 0})
          .Cases("MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend",
                 {-1, 0})
          .Cases("MPI_Iallreduce", "MPI_Ireduce", "MPI_Iscan", "MPI_Iexscan",
                 {1, 0})
          .Cases("MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block", {1, 0})
          .Cases("MPI_Iallgather", "MPI_Igather", "MPI_Iscatter",
                 "MPI_Ialltoall", {3, 0})
          .Cases("MPI_Iallgatherv", "MPI_Igatherv", {3, 0})
          .Cases("MPI_Iscatterv", "MPI_Ialltoallv", {4, 0})
          .Default({-1, -1});
  auto Arg = [&](int I) -> const Expr * {
    return I >= 0 && unsigned(I) < Call.getNumArgs() ? Call.getArg(I)
                                                     : nullptr;
  };
  // `MPI_IN_PLACE` is a constant cast to a pointer (`(void *)1` in Open
  // MPI, `(void *)-1` in MPICH), no buffer of the caller's.
  RequestBuffers Buffers{Arg(Written), Arg(Read)};
  const Expr *Send = Buffers.Read ? Buffers.Read->IgnoreParenCasts() : nullptr;
  if (const auto *Minus = dyn_cast_or_null<UnaryOperator>(Send))
    Send = Minus->getSubExpr()->IgnoreParenCasts();
  bool InPlace = Send && isa<IntegerLiteral>(Send);
  Buffers.OwnSlotKept =
      InPlace && Call.getDirectCallee()->getName().contains("gather");
  return Buffers;
}

const Expr *collectives::reduceRoot(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || !isGlobalCFunction(*FD) ||
      Call.getNumArgs() < 7)
    return nullptr;
  // (send, receive, count, type, op, root, ...) alike.
  return llvm::StringSwitch<bool>(FD->getName())
                 .Cases("MPI_Reduce", "MPI_Ireduce", "ncclReduce", true)
                 .Default(false)
             ? Call.getArg(5)
             : nullptr;
}

} // namespace clang::tidy::ddp
