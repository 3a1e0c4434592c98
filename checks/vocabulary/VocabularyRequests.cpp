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
