//===--- Registrations.h - module registrations, gradient requirements ----===//
//
// What a module registers (`register_module`, `register_parameter`, ...),
// its `forward`, walks over its members, and the tensors that stop taking
// gradients (free functions in `registrations`).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_REGISTRATIONS_H
#define DDPLINT_CHECKS_VOCABULARY_REGISTRATIONS_H

#include "vocabulary/VocabularyTypes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

#include <optional>

namespace clang::tidy::ddp {

namespace registrations {

/// `register_module(name, m)`, `replace_module(name, m)`,
/// `register_parameter(name, t[, requires_grad])` and
/// `register_buffer(name, t)` on a module; nullopt for other calls.
std::optional<Registration> registration(const CallExpr &Call,
                                         const ASTContext &Context);

/// `forward` of a module class: what a module's call runs.
bool isForwardMethod(const CXXMethodDecl &MD);

/// `t.requires_grad_(false)`, `t.set_requires_grad(false)`: the tensor
/// that stops taking gradients; null for other calls, and when the value
/// is not a constant false.
const Expr *gradientDisabledTarget(const CallExpr &Call,
                                   const ASTContext &Context);

/// `t.defined()` on a tensor (also left dependent in a template): the
/// tensor; null for other calls.
const Expr *definedQueryObject(const CallExpr &Call);

/// A walk over a module's submodules or parameters that reaches members
/// without naming them: `children()`, `named_children()`, `modules()`,
/// `named_modules()`, `apply(fn)`, `parameters()`, `named_parameters()`.
/// Returns the module expression, or null.
const Expr *memberWalkReceiver(const CallExpr &Call);

} // namespace registrations

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_REGISTRATIONS_H
