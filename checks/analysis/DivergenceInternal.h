//===--- DivergenceInternal.h - helpers of the divergence analysis --------===//
//
// Small helpers that more than one of the divergence analysis's files
// (Divergence.cpp, DivergenceEvaluation.cpp, DivergenceTransfer.cpp, ...)
// uses. Only those files include this header; checks ask
// analysis/Divergence.h instead.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_DIVERGENCEINTERNAL_H
#define DDPLINT_CHECKS_ANALYSIS_DIVERGENCEINTERNAL_H

#include "analysis/Divergence.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::ddp {

/// Names of things that have a parameter's shape.
bool hasParameterName(const NamedDecl *D);

/// Methods that add to, remove from or replace a container's elements.
bool isContainerMutator(llvm::StringRef Name);

/// Each assignment of \p Def to a field of its own object (`this->f = v`,
/// `f += v`, `++f`, a constructor's initialiser): the field, the statement,
/// the value assigned (null for ++ / --).
void forEachOwnFieldAssignment(
    const FunctionDecl &Def,
    llvm::function_ref<void(const FieldDecl &, const Stmt *, const Expr *)>
        Visit);

/// `&x` handed to parameter \p I of \p FD, which points to something
/// writable: an output argument.
bool isOutputPointer(const FunctionDecl &FD, unsigned I, const Expr *Arg);

/// A summary of the callee (sources, and dependences on its parameters) in
/// the caller's terms at \p Call: the sources, entering at the call, and
/// what \p ArgumentValue says of each argument the summary depends on (an
/// operator method's object argument skipped).
Divergence atCall(const Divergence &Summary, const CallExpr &Call,
                  llvm::function_ref<Divergence(const Expr *)> ArgumentValue);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_DIVERGENCEINTERNAL_H
