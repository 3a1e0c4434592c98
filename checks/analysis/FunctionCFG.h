//===--- FunctionCFG.h - one way to build a function's CFG ----------------===//
//
// Every flow question (analysis/Reachability, analysis/Divergence) runs on
// a CFG built with the same options: every statement an element,
// constructor initializers included.
//
// Template patterns that nothing instantiates are analysed as written. In
// such a pattern a range-based `for` over a dependent range keeps only its
// range and loop variable: clang fills in the `__begin`/`__end` statements,
// the condition and the increment at instantiation. clang's CFG builder
// gives up on (or crashes on) a loop without them, so before building,
// those parts are filled in: no-op statements for `__begin`/`__end`, and
// reads of `__range` for the condition and the increment, whose dependent
// type keeps the loop running any number of times.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_FUNCTIONCFG_H
#define DDPLINT_CHECKS_ANALYSIS_FUNCTIONCFG_H

#include "clang/AST/ASTContext.h"
#include "clang/Analysis/CFG.h"

#include <memory>

namespace clang::tidy::ddp {

/// The CFG of \p Body, the body of \p Function (a function, or a lambda's
/// call operator); null when clang cannot build one.
std::unique_ptr<CFG> buildFunctionCFG(const Decl *Function, const Stmt *Body,
                                      ASTContext &Context);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_FUNCTIONCFG_H
