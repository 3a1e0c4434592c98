//===--- RequestTests.h - Whether an MPI test completes anything ----------===//
//
// `MPI_Test*` completes the requests it is handed only when it says so, and
// it says so through its answer (a flag, an index, a count), not through
// its return code. A test whose answer nobody reads completes nothing.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_REQUESTTESTS_H
#define DDPLINT_CHECKS_REQUESTTESTS_H

#include "clang/AST/Expr.h"

namespace clang::tidy::ddp {

/// Whether \p Test is an `MPI_Test*` call (vocabulary `mpiRequestTest`)
/// whose answer is read somewhere in \p Scope other than by the tests
/// themselves: `while (MPI_Testall(n, reqs, &done, st) != MPI_SUCCESS)`
/// reads a return code that is MPI_SUCCESS whether or not the requests
/// completed, and never `done`. An answer kept anywhere but a plain local
/// of the function (a reference, a field, a caller's flag, an expression)
/// counts as read: someone else may look at it.
bool testAnswerRead(const CallExpr &Test, const Stmt &Scope);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_REQUESTTESTS_H
