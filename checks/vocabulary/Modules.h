//===--- Modules.h - modules, their handles and lifecycle -----------------===//
//
// What LibTorch's modules are and what is done to them: module classes and
// their handles, moves, structural changes, seeding, loading, copies, and the
// member calls left dependent in templates. Free functions: none depends on
// an option.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_MODULES_H
#define DDPLINT_CHECKS_VOCABULARY_MODULES_H

#include "vocabulary/VocabularyTypes.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::ddp {

namespace modules {

/// `torch::nn::Module` or a class derived from it.
bool isModuleClass(const CXXRecordDecl &RD);

/// The module class a handle refers to: `XImpl` for a `TORCH_MODULE`
/// holder `X` (a `ModuleHolder<XImpl>`), `std::shared_ptr<XImpl>`,
/// `XImpl&`, `XImpl*`; null if the type is no module handle.
const CXXRecordDecl *moduleClassOfHandle(QualType T);

/// LibTorch's own modules without parameters (losses, activations,
/// pooling, dropout): building one per rank starts nothing apart.
bool holdsNoParameters(const CXXRecordDecl &ModuleClass);

/// Names for gradients where `grad()` is not spelled (`grad_weight`,
/// `nabla_w`, `dw_`; no bucket); namesSyncedTensor adds parameters.
bool namesGradients(llvm::StringRef Name);
bool namesSyncedTensor(llvm::StringRef Name);

/// The name of the method a module's (or a wrapper's) call runs:
/// `forward`.
bool isForwardMethodName(llvm::StringRef Name);

/// `m->to(device)`, `m->to(dtype)`, `m->to(device, dtype)` on a module:
/// the module expression, or null. \p Method receives the `to` called (a
/// wrapper may override it).
const Expr *moduleMoveReceiver(const CallExpr &Call,
                               const CXXMethodDecl **Method = nullptr);

/// `register_module`, `register_parameter`, `register_buffer`,
/// `replace_module` on a module: the module expression, or null.
const Expr *structuralChangeReceiver(const CallExpr &Call);

/// `loss.backward()`, `torch::autograd::backward(...)`.
bool isBackwardCall(const CallExpr &Call);

/// The callee of a member call left dependent in a template nothing
/// instantiates (`loss.backward()` on an `auto loss` computed from a
/// `Model`), or null. The classifiers below accept such calls by the
/// member's name where the name alone is LibTorch's: `backward`,
/// `parameters`, `named_parameters`, `grad`, `mutable_grad`, and `step` on
/// an object named like an optimizer.
const CXXDependentScopeMemberExpr *
dependentMemberCall(const CallExpr &Call);

/// The object of a member call, resolved or left dependent; null for
/// other calls.
const Expr *memberCallObject(const CallExpr &Call);

/// A tensor changed in place: `t.add_(...)`, `copy_`, `fill_`, `mul_`,
/// `set_data`, `normal_`, ..., `torch::nn::init::*(t, ...)`, and
/// `t.data() = ...`. Returns the tensor expression, or null.
const Expr *inPlaceChangeTarget(const Expr &E);

/// `torch::manual_seed(s)` and its CUDA relatives: the seed argument, or
/// null.
const Expr *seedArgument(const CallExpr &Call);

/// `torch::load(module, path)`: the module loaded into, or null.
const Expr *moduleLoadTarget(const CallExpr &Call);

/// A value that differs between ranks by construction: `torch::rand*`,
/// `randn*`, `randint`, `randperm`, `bernoulli`, in-place `normal_`,
/// `uniform_`, and the random `torch::nn::init` functions.
bool isRandomSource(const CallExpr &Call);

/// A handle used with `->`: a pointer, `std::shared_ptr`,
/// `std::unique_ptr`, `c10::intrusive_ptr` or a `TORCH_MODULE` holder.
bool isPointerLikeHandle(QualType T);

/// `m->clone()` on a module: a deep copy with parameters of its own. The
/// module expression copied, or null. Left dependent, by the member's
/// name alone (tensors have a `clone()` too: callers check that the
/// object is a module they know).
const Expr *moduleCopySource(const CallExpr &Call);

} // namespace modules

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_MODULES_H
