//===--- VocabularySdk.h - the C APIs of MPI, NCCL and CUDA ---------------===//
//
// What the SDKs' own C functions are, by name, wherever their headers come
// from: a build that passes `-I/usr/include/mpi` makes `mpi.h` user code,
// and any function handed a communicator would then look like a helper that
// communicates. Defined in VocabularyCollectives.cpp; included by
// Vocabulary.h.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARYSDK_H
#define DDPLINT_CHECKS_VOCABULARYSDK_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::ddp::sdk {

/// A C function of MPI, NCCL, the CUDA runtime and driver, cuBLAS or cuDNN:
/// a collective only where the vocabulary's tables say so.
bool isSdkFunction(const FunctionDecl &FD);
/// An SDK function whose value is a status code (`MPI_*` returning int,
/// `ncclResult_t`, `cudaError_t`, ...): its results come back through its
/// pointer arguments; its value says only whether it failed.
bool returnsStatusOnly(const FunctionDecl &FD);
/// A call after which no code of this process runs: a function declared not
/// to return, and `MPI_Abort` (declared as returning, yet it ends every rank
/// of the communicator).
bool neverReturns(const CallExpr &Call);

} // namespace clang::tidy::ddp::sdk

#endif // DDPLINT_CHECKS_VOCABULARYSDK_H
