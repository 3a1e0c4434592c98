//===--- Training.h - parameters, gradients, optimizers -------------------===//
//
// Parameter collections and loops, gradient accesses and hooks, backward
// passes, optimizer options (free functions in `training`), and the
// optimizers and gradient-sync helpers the options name (TrainingVocabulary:
// `OptimizerTypes`, `GradientSyncFunctions`).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_TRAINING_H
#define DDPLINT_CHECKS_VOCABULARY_TRAINING_H

#include "vocabulary/NameList.h"
#include "vocabulary/VocabularyTypes.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace clang::tidy::ddp {

namespace training {

std::optional<ParameterCollection>
parameterCollection(const CallExpr &Call);

/// What a member call on a module reads of its state: `buffers()` and
/// `named_buffers()` its buffers; `parameters()`, `named_parameters()`
/// and `state_dict()` (which holds them) its parameters; nullopt for
/// other calls.
std::optional<ModuleState>
moduleStateAccess(const CXXMemberCallExpr &Call);

/// `t.grad()` or `t.mutable_grad()` on a tensor.
bool isGradAccess(const CallExpr &Call);

/// The loop variable of `for (auto &p : m->parameters())` or of a
/// `named_parameters()` loop; null for other loops.
const VarDecl *parameterLoopVariable(const CXXForRangeStmt &Loop);

/// The parameter tensor an expression denotes inside such a loop:
/// `p` or `p.value()` (named_parameters items).
const VarDecl *parameterTensorVariable(const Expr *E);

/// For `loss.backward()` (Tensor::backward) and
/// `torch::autograd::backward({loss})`: the tensor (or tensor list)
/// back-propagated. Null for other calls.
const Expr *backwardRoot(const CallExpr &Call);

/// The options of a `torch::optim` optimizer (`SGDOptions`,
/// `AdamOptions`, `OptimizerOptions`, ...) or a class derived from one.
bool isOptimizerOptionsClass(const CXXRecordDecl &RD);

/// A method of optimizer options that sets the learning rate:
/// `options.lr(x)`, `options.set_lr(x)` (not the getter `lr()`).
bool isLearningRateSetter(const CXXMethodDecl &MD);

/// For `t.register_hook(fn)` and `grad_accumulator(p)->add_post_hook(h)`
/// (or add_pre_hook): the callable registered, which autograd runs during
/// backward(). Null for other calls.
const Expr *gradientHookCallback(const CallExpr &Call);

/// The static `backward` of a custom autograd function
/// (`struct F : torch::autograd::Function<F>`): autograd runs it during
/// backward(), with the gradients flowing back.
bool isCustomFunctionBackward(const FunctionDecl &FD);

} // namespace training

/// The training concern's options: `OptimizerTypes`, `GradientSyncFunctions`.
class TrainingVocabulary {
public:
  explicit TrainingVocabulary(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  /// A class named in `OptimizerTypes` (by default torch::optim::Optimizer)
  /// or derived from one.
  bool isOptimizerClass(const CXXRecordDecl &RD) const;

  /// `opt.parameters()`, `opt.params()` on an optimizer: what it updates.
  bool isOptimizerParameterList(const CXXMemberCallExpr &Call) const;

  /// `optimizer.step()` / `optimizer->step(closure)` on an optimizer.
  bool isOptimizerStep(const CallExpr &Call) const;

  /// The closure handed to an optimizer step (`step([&] { ...; return loss;
  /// })`, or a variable holding one), null when it is absent or nullptr.
  const Expr *optimizerStepClosure(const CallExpr &Call) const;

  /// A function named in `GradientSyncFunctions`: it synchronises the
  /// gradients (all-reduces and averages them), wherever its body is.
  bool isGradientSyncFunction(const FunctionDecl &FD) const {
    return GradientSyncFunctions.matches(FD);
  }

  /// The same test on a name alone, for calls left unresolved in templates.
  bool isGradientSyncName(llvm::StringRef Name) const {
    return GradientSyncFunctions.matchesName(Name, Name);
  }

  /// Whether \p D holds an optimizer: an object, reference, pointer or
  /// smart pointer of an `OptimizerTypes` class, or, where its type is
  /// still dependent (`auto opt = std::make_shared<Optim>(...)` in a
  /// template nothing instantiates), a variable named like one (`opt`,
  /// `optimizer_`, `*optim*`).
  bool holdsOptimizer(const ValueDecl &D) const;

  /// `opt.add_param_group(group)`, `opt->add_parameters(params)`: the
  /// optimizer expression the parameters are added to, or null. Left
  /// dependent, by the member's name on an object named like an optimizer.
  const Expr *optimizerParameterAddition(const CallExpr &Call) const;

private:
  NameList OptimizerTypes;
  NameList GradientSyncFunctions;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_TRAINING_H
