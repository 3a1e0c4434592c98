//===--- VocabularyTraining.cpp - parameters, gradients and steps ---------===//
//
// A module's parameters and their gradients, loops over them, the
// backward pass, optimizer steps and their closures, optimizer options and
// their learning rate, and the hooks autograd runs during backward().
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

namespace clang::tidy::ddp {

//===----------------------------------------------------------------------===//
// Parameters and gradients
//===----------------------------------------------------------------------===//

std::optional<ParameterCollection>
training::parameterCollection(const CallExpr &Call) {
  // In a template, on a module of dependent type (`model_->parameters()` in
  // `Trainer<Model>`): the name alone.
  llvm::StringRef Dependent = dependentMemberName(Call);
  if (Dependent == "parameters" && Call.getNumArgs() <= 1)
    return ParameterCollection::Parameters;
  if (Dependent == "named_parameters" && Call.getNumArgs() <= 1)
    return ParameterCollection::NamedParameters;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return std::nullopt;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() ||
      !modules::isModuleClass(*MD->getParent()))
    return std::nullopt;
  if (MD->getName() == "parameters")
    return ParameterCollection::Parameters;
  if (MD->getName() == "named_parameters")
    return ParameterCollection::NamedParameters;
  return std::nullopt;
}

std::optional<ModuleState>
training::moduleStateAccess(const CXXMemberCallExpr &Call) {
  const CXXMethodDecl *MD = Call.getMethodDecl();
  if (!MD || !modules::isModuleClass(*MD->getParent()))
    return std::nullopt;
  llvm::StringRef Name = identifierName(MD);
  if (Name == "buffers" || Name == "named_buffers")
    return ModuleState::Buffers;
  if (training::parameterCollection(Call) || Name == "state_dict")
    return ModuleState::Parameters;
  return std::nullopt;
}

namespace {

/// A homegrown tensor's gradient accessor: `getGrad()`, `get_grad()`,
/// `gradient()`, as well as LibTorch's spellings.
bool isGradAccessorName(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("grad", "mutable_grad", "getGrad", "get_grad", "gradient",
             "getGradient", true)
      .Default(false);
}

} // namespace

bool training::isGradAccess(const CallExpr &Call) {
  if (Call.getNumArgs() == 0 && isGradAccessorName(dependentMemberName(Call)))
    return true;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = MD->getName();
  if (Name == "grad" || Name == "mutable_grad")
    if (isSameOrDerivedFrom(*MD->getParent(), "at::TensorBase") ||
        isSameOrDerivedFrom(*MD->getParent(), "at::Tensor"))
      return true;
  // A framework of the project's own: a tensor or variable class of user
  // code with a gradient accessor (`node->getGrad()`).
  const CXXRecordDecl *Class = MD->getParent();
  return Call.getNumArgs() == 0 && isGradAccessorName(Name) &&
         !inSystemHeader(*Class) &&
         nameContainsAny(identifierName(Class), {"tensor", "variable", "var"});
}

const VarDecl *training::parameterLoopVariable(const CXXForRangeStmt &Loop) {
  const Expr *Range = stripObjectWrappers(Loop.getRangeInit());
  const auto *Call = dyn_cast_or_null<CallExpr>(Range);
  if (!Call || !training::parameterCollection(*Call))
    return nullptr;
  return Loop.getLoopVariable();
}

const VarDecl *training::parameterTensorVariable(const Expr *E) {
  E = stripObjectWrappers(E);
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "value")
      E = stripObjectWrappers(Member->getImplicitObjectArgument());
  } else if (const auto *Call = dyn_cast_or_null<CallExpr>(E)) {
    // `item.value()` in a template, on an item of dependent type.
    if (dependentMemberName(*Call) == "value" && Call->getNumArgs() == 0)
      E = stripObjectWrappers(modules::memberCallObject(*Call));
  }
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Training steps
//===----------------------------------------------------------------------===//

const Expr *training::backwardRoot(const CallExpr &Call) {
  if (const Expr *Root = dependentStaticBackward(Call))
    return Root;
  if (dependentMemberName(Call) == "backward")
    return modules::memberCallObject(Call);
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || FD->getName() != "backward")
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXRecordDecl *Class = Member->getMethodDecl()->getParent();
    if (isSameOrDerivedFrom(*Class, "at::TensorBase") ||
        isSameOrDerivedFrom(*Class, "at::Tensor"))
      return Member->getImplicitObjectArgument();
    return nullptr;
  }
  if (qualifiedName(*FD) == "torch::autograd::backward" && Call.getNumArgs() >= 1)
    return Call.getArg(0);
  return nullptr;
}

bool TrainingVocabulary::isOptimizerClass(const CXXRecordDecl &RD) const {
  return matchesSelfOrBase(OptimizerTypes, RD);
}

bool TrainingVocabulary::isOptimizerParameterList(
    const CXXMemberCallExpr &Call) const {
  const CXXMethodDecl *MD = Call.getMethodDecl();
  llvm::StringRef Name = identifierName(MD);
  return (Name == "parameters" || Name == "params") &&
         isOptimizerClass(*MD->getParent());
}

bool TrainingVocabulary::isOptimizerStep(const CallExpr &Call) const {
  // `opt_.step()` on an optimizer whose class is a template parameter: the
  // object's name says it is one (`optimizer->update(params)` too).
  if (llvm::StringRef Name = dependentMemberName(Call);
      Name == "step" || Name == "update") {
    const ValueDecl *Object = handleDecl(modules::memberCallObject(Call));
    return isOptimizerName(identifierName(Object));
  }
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  return MD && MD->getDeclName().isIdentifier() && MD->getName() == "step" &&
         isOptimizerClass(*MD->getParent());
}

const Expr *
TrainingVocabulary::optimizerStepClosure(const CallExpr &Call) const {
  if (!isOptimizerStep(Call) || Call.getNumArgs() < 1 ||
      isa<CXXDefaultArgExpr>(Call.getArg(0)))
    return nullptr;
  const Expr *E = Call.getArg(0);
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E))
      return nullptr;
    // std::function's converting constructor, from a lambda or a variable.
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      if (Ctor->getNumArgs() != 1)
        return E;
      E = Ctor->getArg(0);
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (VD->hasLocalStorage() && VD->getInit()) {
          E = VD->getInit();
          continue;
        }
    return E;
  }
  return E;
}

bool training::isOptimizerOptionsClass(const CXXRecordDecl &RD) {
  if (!RD.hasDefinition())
    return false;
  std::string Name = RD.getQualifiedNameAsString();
  if (llvm::StringRef(Name).starts_with("torch::optim::") &&
      llvm::StringRef(Name).ends_with("Options"))
    return true;
  return llvm::any_of(RD.bases(), [](const CXXBaseSpecifier &Base) {
    const CXXRecordDecl *BaseRD = Base.getType()->getAsCXXRecordDecl();
    return BaseRD && training::isOptimizerOptionsClass(*BaseRD);
  });
}

bool training::isLearningRateSetter(const CXXMethodDecl &MD) {
  llvm::StringRef Name = identifierName(&MD);
  return (Name == "lr" || Name == "set_lr") && MD.getNumParams() > 0 &&
         training::isOptimizerOptionsClass(*MD.getParent());
}

//===----------------------------------------------------------------------===//
// Gradient hooks
//===----------------------------------------------------------------------===//

const Expr *training::gradientHookCallback(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (Call.getNumArgs() < 1)
    return nullptr;
  // In a template nothing instantiates: `p.register_hook(...)` on a
  // parameter of dependent type.
  if (const CXXDependentScopeMemberExpr *Dependent =
          modules::dependentMemberCall(Call))
    return Dependent->getMember().isIdentifier() &&
                   Dependent->getMember().getAsIdentifierInfo()->isStr(
                       "register_hook")
               ? stripObjectWrappers(Call.getArg(0))
               : nullptr;
  if (!Member)
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return nullptr;
  llvm::StringRef Name = MD->getName();
  const CXXRecordDecl &Class = *MD->getParent();
  bool TensorHook = Name == "register_hook" &&
                    (isSameOrDerivedFrom(Class, "at::TensorBase") ||
                     isSameOrDerivedFrom(Class, "at::Tensor"));
  bool NodeHook = (Name == "add_post_hook" || Name == "add_pre_hook") &&
                  isSameOrDerivedFrom(Class, "torch::autograd::Node");
  return TensorHook || NodeHook ? stripObjectWrappers(Call.getArg(0)) : nullptr;
}

bool training::isCustomFunctionBackward(const FunctionDecl &FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  return MD && MD->isStatic() && MD->getDeclName().isIdentifier() &&
         MD->getName() == "backward" &&
         findSpecialization(MD->getParent(), "torch::autograd::Function");
}

} // namespace clang::tidy::ddp
