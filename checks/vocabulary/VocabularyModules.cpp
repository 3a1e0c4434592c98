//===--- VocabularyModules.cpp - modules, wrappers and tensors ------------===//
//
// Module handles and forward passes, what changes a module after it is
// built (moves, registrations, in-place writes, seeds, loads, random
// values), tensors, and the data-parallel wrappers around modules.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

namespace {

const CXXRecordDecl *objectRecord(const Expr *Object) {
  return Object ? pointeeRecord(Object->getType()) : nullptr;
}

/// A module of a framework of the project's own, known by its shape: a
/// class of user code with a `forward` method and a method that returns
/// its parameters as a container (`parameters()`, `named_parameters()`,
/// `namedParameters()`), or a class derived from one.
bool isHomegrownModuleClass(const CXXRecordDecl &RD) {
  const CXXRecordDecl *Def = RD.getDefinition();
  if (!Def || inSystemHeader(*Def))
    return false;
  bool Forward = false, Parameters = false;
  for (const CXXMethodDecl *MD : Def->methods()) {
    llvm::StringRef Name = identifierName(MD);
    Forward |= Name == "forward";
    Parameters |= (Name == "parameters" || Name == "named_parameters" ||
                   Name == "namedParameters") &&
                  isa_and_nonnull<ClassTemplateSpecializationDecl>(
                      MD->getReturnType()
                          .getNonReferenceType()
                          ->getAsCXXRecordDecl());
  }
  if (Forward && Parameters)
    return true;
  for (const CXXBaseSpecifier &Base : Def->bases())
    if (const CXXRecordDecl *BaseClass = Base.getType()->getAsCXXRecordDecl())
      if (isHomegrownModuleClass(*BaseClass))
        return true;
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

bool modules::isModuleClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "torch::nn::Module") ||
         isHomegrownModuleClass(RD);
}

bool modules::holdsNoParameters(const CXXRecordDecl &ModuleClass) {
  if (!ModuleClass.getDeclName().isIdentifier() ||
      !llvm::StringRef(ModuleClass.getQualifiedNameAsString())
           .starts_with("torch::nn::"))
    return false;
  llvm::StringRef Name = ModuleClass.getName();
  Name.consume_back("Impl");
  if (Name.ends_with("Loss") || Name.contains("Pool") ||
      Name.contains("Dropout") || Name.ends_with("Pad1d") ||
      Name.ends_with("Pad2d") || Name.ends_with("Pad3d"))
    return true;
  return llvm::StringSwitch<bool>(Name)
      .Cases("ReLU", "ReLU6", "LeakyReLU", "RReLU", "GELU", "SiLU", true)
      .Cases("ELU", "SELU", "CELU", "Mish", "Sigmoid", "LogSigmoid", true)
      .Cases("Tanh", "Tanhshrink", "Hardtanh", "Hardshrink", true)
      .Cases("Softshrink", "Softsign", "Softplus", "Threshold", true)
      .Cases("Softmax", "Softmin", "LogSoftmax", "Softmax2d", true)
      .Cases("Flatten", "Unflatten", "Identity", "Upsample", true)
      .Cases("PixelShuffle", "PixelUnshuffle", "Fold", "Unfold", true)
      .Cases("CosineSimilarity", "PairwiseDistance", true)
      .Default(false);
}

namespace {
/// A name for tensors gathered into one buffer: coalesced already.
bool namesCoalesced(llvm::StringRef Lower) {
  return Lower.contains("bucket") || Lower.contains("chunk") ||
         Lower.contains("flat") || Lower.contains("shard");
}
} // namespace

bool modules::namesGradients(llvm::StringRef Name) {
  std::string Lower = Name.lower();
  llvm::StringRef N(Lower);
  if (namesCoalesced(N))
    return false;
  if (N.contains("grad") || N.contains("nabla"))
    return true;
  // Backpropagation's d-prefixed names: dw, dW, d_weight, db_.
  N = N.trim('_');
  N.consume_front("m_");
  return llvm::StringSwitch<bool>(N)
      .Cases("dw", "db", "d_w", "d_b", "dweight", "dweights", true)
      .Cases("d_weight", "d_weights", "dbias", "d_bias", true)
      .Default(false);
}

bool modules::namesSyncedTensor(llvm::StringRef Name) {
  if (modules::namesGradients(Name))
    return true;
  std::string Lower = Name.lower();
  llvm::StringRef N(Lower);
  return !namesCoalesced(N) && (N.contains("param") || N.contains("weight") || N.contains("bias"));
}

const CXXRecordDecl *modules::moduleClassOfHandle(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return nullptr;
  if (const auto *Holder = findSpecialization(RD, "torch::nn::ModuleHolder"))
    RD = templateArgumentRecord(*Holder, 0);
  return RD && modules::isModuleClass(*RD) ? RD : nullptr;
}

const Expr *WrapperVocabulary::forwardReceiver(const CallExpr &Call) const {
  auto IsModuleOrWrapper = [&](const Expr *Object) {
    if (!Object)
      return false;
    if (modules::moduleClassOfHandle(Object->getType()) ||
        wrapperClassOfHandle(Object->getType()))
      return true;
    const CXXRecordDecl *RD = objectRecord(Object);
    return RD && findSpecialization(RD, "torch::nn::ModuleHolder");
  };
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    const Expr *Object = Member->getImplicitObjectArgument();
    if (MD && modules::isForwardMethodName(identifierName(MD)) &&
        IsModuleOrWrapper(Object))
      return Object;
    return nullptr;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
    if (Op->getOperator() == OO_Call && Op->getNumArgs() >= 1 &&
        IsModuleOrWrapper(Op->getArg(0)))
      return Op->getArg(0);
  return nullptr;
}

bool modules::isForwardMethodName(llvm::StringRef Name) {
  return Name == "forward";
}

//===----------------------------------------------------------------------===//
// Module lifecycle
//===----------------------------------------------------------------------===//

namespace {
/// A call of a module method named one of \p Names: its object, or null.
const Expr *moduleMethodReceiver(const CallExpr &Call,
                                 llvm::ArrayRef<llvm::StringRef> Names,
                                 const CXXMethodDecl **Method = nullptr) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() ||
      !llvm::is_contained(Names, MD->getName()) ||
      !modules::isModuleClass(*MD->getParent()))
    return nullptr;
  if (Method)
    *Method = MD;
  return Member->getImplicitObjectArgument();
}
} // namespace

const Expr *modules::moduleMoveReceiver(const CallExpr &Call,
                                           const CXXMethodDecl **Method) {
  return moduleMethodReceiver(Call, {"to"}, Method);
}

const Expr *modules::structuralChangeReceiver(const CallExpr &Call) {
  return moduleMethodReceiver(Call, {"register_module", "register_parameter",
                                     "register_buffer", "replace_module"});
}

const CXXDependentScopeMemberExpr *
modules::dependentMemberCall(const CallExpr &Call) {
  return dyn_cast<CXXDependentScopeMemberExpr>(
      Call.getCallee()->IgnoreParenImpCasts());
}

const Expr *modules::memberCallObject(const CallExpr &Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return Member->getImplicitObjectArgument();
  if (const CXXDependentScopeMemberExpr *Dependent =
          modules::dependentMemberCall(Call))
    return Dependent->isImplicitAccess() ? nullptr : Dependent->getBase();
  // A known object with dependent arguments: `grads.push_back(p.grad())`.
  if (const auto *Unresolved = dyn_cast<UnresolvedMemberExpr>(
          Call.getCallee()->IgnoreParenImpCasts()))
    return Unresolved->isImplicitAccess() ? nullptr : Unresolved->getBase();
  return nullptr;
}

/// The member a call left dependent in a template names (`x.backward()` on
/// an `auto x` computed from a `Model`), or "".
llvm::StringRef dependentMemberName(const CallExpr &Call) {
  return modules::dependentMemberCall(Call) ? spelledCalleeName(Call) : "";
}

const Expr *dependentStaticBackward(const CallExpr &Call) {
  const Expr *Callee = Call.getCallee()->IgnoreImpCasts();
  const NestedNameSpecifier *Qualifier = nullptr;
  DeclarationName Name;
  if (const auto *Dependent = dyn_cast<DependentScopeDeclRefExpr>(Callee))
    Qualifier = Dependent->getQualifier(), Name = Dependent->getDeclName();
  // In a member of a class template, clang keeps the qualified call as an
  // implicit member access until it knows the class is no base.
  else if (const auto *Member = dyn_cast<CXXDependentScopeMemberExpr>(Callee);
           Member && Member->isImplicitAccess())
    Qualifier = Member->getQualifier(), Name = Member->getMember();
  else if (const auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Callee))
    Qualifier = Lookup->getQualifier(), Name = Lookup->getName();
  if (!Qualifier || !Name.isIdentifier() || Name.getAsString() != "backward" ||
      Call.getNumArgs() < 1)
    return nullptr;
  const Type *Class = Qualifier->getAsType();
  if (!Class)
    return nullptr;
  std::string Spelled = QualType(Class, 0).getAsString();
  return llvm::StringRef(Spelled).contains("Tensor") ? Call.getArg(0) : nullptr;
}

bool modules::isBackwardCall(const CallExpr &Call) {
  return training::backwardRoot(Call) != nullptr;
}

const Expr *modules::inPlaceChangeTarget(const Expr &E) {
  // `t.data() = value`, `t.data() += x`, `t += x`: assignments that write
  // into the tensor (a plain `t = x` rebinds the handle instead).
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&E)) {
    OverloadedOperatorKind K = Op->getOperator();
    bool Compound = K == OO_PlusEqual || K == OO_MinusEqual ||
                    K == OO_StarEqual || K == OO_SlashEqual;
    if ((K != OO_Equal && !Compound) || Op->getNumArgs() != 2)
      return nullptr;
    const Expr *Lhs = stripObjectWrappers(Op->getArg(0));
    if (const auto *Data = dyn_cast<CXXMemberCallExpr>(Lhs))
      if (Data->getMethodDecl() &&
          Data->getMethodDecl()->getDeclName().isIdentifier() &&
          Data->getMethodDecl()->getName() == "data" &&
          tensors::isTensor(Data->getImplicitObjectArgument()->getType()))
        return Data->getImplicitObjectArgument();
    return Compound && tensors::isTensor(Lhs->getType()) ? Lhs : nullptr;
  }
  const auto *Call = dyn_cast<CallExpr>(&E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getDeclName().isIdentifier())
    return nullptr;
  llvm::StringRef Name = FD->getName();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXRecordDecl *RD = Member->getMethodDecl()->getParent();
    bool OnTensor = isSameOrDerivedFrom(*RD, "at::Tensor") ||
                    isSameOrDerivedFrom(*RD, "at::TensorBase");
    bool InPlace = llvm::StringSwitch<bool>(Name)
                       .Cases("add_", "sub_", "mul_", "div_", "copy_", true)
                       .Cases("fill_", "zero_", "set_data", "set_", true)
                       .Cases("normal_", "uniform_", "bernoulli_", "random_",
                              true)
                       .Cases("clamp_", "mul_", "addcmul_", "lerp_", true)
                       .Default(false);
    return OnTensor && InPlace ? Member->getImplicitObjectArgument() : nullptr;
  }
  if (llvm::StringRef(qualifiedName(*FD)).starts_with("torch::nn::init::") &&
      Call->getNumArgs() >= 1)
    return Call->getArg(0);
  return nullptr;
}

const Expr *modules::seedArgument(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || Call.getNumArgs() != 1)
    return nullptr;
  std::string Name = qualifiedName(*FD);
  bool Seed = Name == "torch::manual_seed" || Name == "at::manual_seed" ||
              Name == "torch::cuda::manual_seed" ||
              Name == "torch::cuda::manual_seed_all";
  return Seed ? Call.getArg(0) : nullptr;
}

const Expr *modules::moduleLoadTarget(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || qualifiedName(*FD) != "torch::load" || Call.getNumArgs() < 1)
    return nullptr;
  const Expr *Target = Call.getArg(0);
  return modules::moduleClassOfHandle(Target->getType()) ? Target : nullptr;
}

bool modules::isRandomSource(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  std::string Qualified = qualifiedName(*FD);
  if (llvm::StringRef(Qualified).starts_with("torch::nn::init::"))
    return Name != "constant_" && Name != "zeros_" && Name != "ones_" &&
           Name != "eye_" && Name != "dirac_";
  if (isa<CXXMethodDecl>(FD))
    return llvm::StringSwitch<bool>(Name)
        .Cases("normal_", "uniform_", "bernoulli_", "random_",
               "exponential_", true)
        .Default(false);
  bool InTorch = llvm::StringRef(Qualified).starts_with("torch::") ||
                 llvm::StringRef(Qualified).starts_with("at::");
  return InTorch && llvm::StringSwitch<bool>(Name)
                        .Cases("rand", "randn", "randint", "randperm", true)
                        .Cases("rand_like", "randn_like", "randint_like",
                               true)
                        .Cases("bernoulli", "normal", "multinomial", true)
                        .Default(false);
}

bool tensors::isTensor(QualType T) {
  const CXXRecordDecl *RD = T.isNull() ? nullptr
                                       : T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && qualifiedName(*RD) == "at::Tensor";
}

bool modules::isPointerLikeHandle(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  std::string Name = qualifiedName(*RD);
  return Name == "std::shared_ptr" || Name == "std::unique_ptr" ||
         Name == "c10::intrusive_ptr" ||
         findSpecialization(RD, "torch::nn::ModuleHolder") != nullptr;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

bool tensors::isTensorClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "at::TensorBase");
}

bool tensors::isTensorShapeQuery(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() ||
      !llvm::StringSwitch<bool>(MD->getName())
           .Cases("numel", "size", "sizes", "dim", "ndimension", true)
           .Default(false))
    return false;
  return tensors::isTensorClass(*MD->getParent());
}

bool tensors::isTensorType(QualType T) {
  if (T.isNull())
    return false;
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (isSameOrDerivedFrom(*RD, "at::TensorBase"))
    return true;
  // std::vector<at::Tensor> and other containers of tensors, nested ones
  // too (c10d's std::vector<std::vector<at::Tensor>> outputs).
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type)
      return tensors::isTensorType(Args[0].getAsType());
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Wrappers
//===----------------------------------------------------------------------===//

bool WrapperVocabulary::isWrapperClass(const CXXRecordDecl &RD) const {
  if (WrapperTypes.matches(RD))
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(&RD))
    return WrapperTypes.matches(*Spec->getSpecializedTemplate());
  return false;
}

const CXXRecordDecl *WrapperVocabulary::wrapperClassOfHandle(QualType T) const {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return nullptr;
  if (isWrapperClass(*RD))
    return RD;
  if (const auto *Holder = findSpecialization(RD, "torch::nn::ModuleHolder"))
    if (const CXXRecordDecl *Inner = templateArgumentRecord(*Holder, 0))
      if (isWrapperClass(*Inner))
        return Inner;
  return nullptr;
}

const Expr *WrapperVocabulary::innerModuleAccessBase(const Expr *E) const {
  E = peelHandle(E);
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    const Expr *Object = Member->getImplicitObjectArgument();
    if (MD && InnerModuleAccessors.matches(*MD) && Object &&
        wrapperClassOfHandle(Object->getType()))
      return Object;
    return nullptr;
  }
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(E)) {
    const Expr *Base = ME->getBase();
    if (isa<FieldDecl>(ME->getMemberDecl()) &&
        InnerModuleAccessors.matches(*ME->getMemberDecl()) &&
        wrapperClassOfHandle(Base->getType()))
      return Base;
  }
  return nullptr;
}

} // namespace clang::tidy::ddp
