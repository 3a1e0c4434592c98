//===--- ParameterLoops.h - statements issued once per parameter ----------===//
//
// A collective in the body of a loop over a module's parameters runs once
// per parameter, on every rank alike, whenever the module has parameters:
// flow questions take the loop as its site, unless some iterations end
// without it. The vocabulary says what a loop over parameters is
// (training::parameterLoopVariable, ParameterLoop); these functions find
// the one around a statement and what its iterations skip.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_PARAMETERLOOPS_H
#define DDPLINT_CHECKS_ANALYSIS_PARAMETERLOOPS_H

#include "vocabulary/Vocabulary.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang::tidy::ddp {

/// The innermost loop over a module's parameters whose body holds \p S: a
/// `parameters()` / `named_parameters()` range loop, or an index loop
/// bounded by the size of such a collection or of a local taken from one.
/// A collective issued for each parameter there runs on every rank
/// whenever the module has parameters, so flow questions treat the loop
/// as one site although its body may run zero times (unless it skips
/// some parameters: skipsSomeParameters).
ParameterLoop enclosingParameterLoop(const Stmt &S, ASTContext &Context);

/// Whether \p S, in the body of \p Loop, works on the iteration's parameter
/// and runs for some parameters only: an iteration can end without it (or
/// a statement \p AlsoCovers accepts: the broadcast in the other arm of an
/// `if`) on a condition that reads the loop's variable (`if (p.dim() == 1)
/// continue;`, `if (i % 2 == 0)`). Conditions that are the same for every
/// parameter (`if (world_size > 1)`), `defined()` checks, and leaving the
/// function do not select. The walk over the body is CoverageWalk in
/// ParameterLoops.cpp.
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

#endif // DDPLINT_CHECKS_ANALYSIS_PARAMETERLOOPS_H
