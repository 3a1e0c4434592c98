//===--- ParameterLoops.h - statements issued once per parameter ----------===//
//
// A collective in the body of a loop over a module's parameters runs once
// per parameter, on every rank alike, whenever the module has parameters:
// flow questions take the loop as its site, unless some iterations end
// without it. Vocabulary::enclosingParameterLoop and
// Vocabulary::skipsSomeParameters answer through these functions.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UTILS_PARAMETERLOOPS_H
#define DDPLINT_CHECKS_UTILS_PARAMETERLOOPS_H

#include "Vocabulary.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang::tidy::ddp {

/// The innermost loop over a module's parameters whose body holds \p S: a
/// `parameters()` / `named_parameters()` range loop, or an index loop
/// bounded by the size of such a collection or of a local taken from one.
ParameterLoop enclosingParameterLoop(const Stmt &S, ASTContext &Context);

/// Whether \p S, in the body of \p Loop, works on the iteration's parameter
/// and an iteration can end without it (or a statement \p AlsoCovers
/// accepts) on a condition that reads the loop's variable. The walk over
/// the body is CoverageWalk in ParameterLoops.cpp.
bool skipsSomeParameters(
    const ParameterLoop &Loop, const Stmt &S,
    llvm::function_ref<bool(const Stmt &)> AlsoCovers = nullptr);

/// Whether \p E, in the body of \p Loop (a `for` or a range-for), carries
/// the iteration's own gradient or parameter in code that spells neither
/// `parameters()` nor `grad()`: an expression named for gradients or
/// parameters that depends on the loop's variable (`l.dw_`,
/// `network[i]->params_gradients`, `nabla_w[i]`, `layers[i]->params[j]`, a
/// local computed from one), or the element of a range named for gradients
/// (`for (auto &g : gradients)`). A bucket, a chunk of one flat buffer
/// (`grads + offset`) or a loop that only counts does not.
bool carriesIterationTensor(const Stmt &Loop, const Expr &E);

/// carriesIterationTensor, counting only what is named for gradients
/// (`l.dw_`, `nabla_w[i]`, `param[i].grad()`): the parameters' values
/// themselves (`param[i].data_ptr()`, `layers[i]->weights`) do not.
bool carriesIterationGradient(const Stmt &Loop, const Expr &E);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UTILS_PARAMETERLOOPS_H
