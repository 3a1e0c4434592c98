//===--- DivergenceInternal.h - helpers of the divergence analysis --------===//
//
// Small helpers that more than one of the divergence analysis's files
// (Divergence.cpp, DivergenceEvaluation.cpp, DivergenceTransfer.cpp, ...)
// uses. Only those files include this header; checks ask
// utils/Divergence.h instead.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UTILS_DIVERGENCEINTERNAL_H
#define DDPLINT_CHECKS_UTILS_DIVERGENCEINTERNAL_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::ddp {

/// Names of things that have a parameter's shape.
bool hasParameterName(const NamedDecl *D);

/// Methods that add to, remove from or replace a container's elements.
bool isContainerMutator(llvm::StringRef Name);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UTILS_DIVERGENCEINTERNAL_H
