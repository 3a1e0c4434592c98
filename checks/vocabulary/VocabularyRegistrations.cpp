//===--- VocabularyRegistrations.cpp - registrations and requires_grad ----===//
//
// What a module registers (submodules, parameters, buffers), which method
// a module's call runs, and what switches a tensor's gradient off or asks
// whether a gradient exists.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

/// The method a member call runs, and its object; null when \p Call is no
/// member call of a named method.
const CXXMethodDecl *memberMethod(const CallExpr &Call, const Expr **Object) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return nullptr;
  *Object = Member->getImplicitObjectArgument();
  return MD;
}

} // namespace

std::optional<Registration>
registrations::registration(const CallExpr &Call, const ASTContext &Context) {
  const Expr *Object = nullptr;
  const CXXMethodDecl *MD = memberMethod(Call, &Object);
  if (!MD || !modules::isModuleClass(*MD->getParent()) || Call.getNumArgs() < 2)
    return std::nullopt;
  llvm::StringRef Name = MD->getName();
  Registration R;
  R.Registered = Call.getArg(1);
  if (Name == "register_module" || Name == "replace_module") {
    R.Kind = RegistrationKind::Module;
  } else if (Name == "register_parameter") {
    R.Kind = RegistrationKind::Parameter;
    if (Call.getNumArgs() >= 3 && !isa<CXXDefaultArgExpr>(Call.getArg(2)))
      R.RequiresGrad = !isConstantFalse(Call.getArg(2), Context);
  } else if (Name == "register_buffer") {
    R.Kind = RegistrationKind::Buffer;
  } else {
    return std::nullopt;
  }
  return R;
}

bool registrations::isForwardMethod(const CXXMethodDecl &MD) {
  return MD.getDeclName().isIdentifier() && MD.getName() == "forward" &&
         modules::isModuleClass(*MD.getParent());
}

const Expr *registrations::gradientDisabledTarget(const CallExpr &Call,
                                               const ASTContext &Context) {
  const Expr *Object = nullptr;
  const CXXMethodDecl *MD = memberMethod(Call, &Object);
  if (!MD || !tensors::isTensorClass(*MD->getParent()) ||
      Call.getNumArgs() != 1 ||
      (MD->getName() != "requires_grad_" &&
       MD->getName() != "set_requires_grad"))
    return nullptr;
  return isConstantFalse(Call.getArg(0), Context) ? Object : nullptr;
}

const Expr *registrations::definedQueryObject(const CallExpr &Call) {
  if (Call.getNumArgs() != 0)
    return nullptr;
  if (const CXXDependentScopeMemberExpr *Dependent =
          modules::dependentMemberCall(Call))
    return Dependent->getMember().getAsString() == "defined" &&
                   !Dependent->isImplicitAccess()
               ? Dependent->getBase()
               : nullptr;
  const Expr *Object = nullptr;
  const CXXMethodDecl *MD = memberMethod(Call, &Object);
  if (!MD || MD->getName() != "defined" ||
      !tensors::isTensorClass(*MD->getParent()))
    return nullptr;
  return Object;
}

const Expr *registrations::memberWalkReceiver(const CallExpr &Call) {
  const Expr *Object = nullptr;
  const CXXMethodDecl *MD = memberMethod(Call, &Object);
  if (!MD || !modules::isModuleClass(*MD->getParent()))
    return nullptr;
  static constexpr llvm::StringLiteral Walks[] = {
      "children",   "named_children",   "modules",         "named_modules",
      "apply",      "parameters",       "named_parameters"};
  return llvm::is_contained(Walks, MD->getName()) ? Object : nullptr;
}

} // namespace clang::tidy::ddp
