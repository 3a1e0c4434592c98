//===--- VocabularyRandomness.cpp - random generators and seeds -----------===//

#include "vocabulary/Randomness.h"
#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp::randomness {

namespace {

/// A function of C's library or cuRAND's, declared at global scope.
bool isGlobalFunction(const FunctionDecl &FD) {
  return FD.getDeclName().isIdentifier() &&
         (FD.isExternC() ||
          FD.getDeclContext()->getRedeclContext()->isTranslationUnit());
}

bool isStdEngineName(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("mersenne_twister_engine", "linear_congruential_engine",
             "subtract_with_carry_engine", "discard_block_engine", true)
      .Cases("independent_bits_engine", "shuffle_order_engine", true)
      .Default(false);
}

const CXXRecordDecl *stdRecord(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() ? RD : nullptr;
}

bool isStdEngine(const CXXRecordDecl *RD) {
  return RD && (isStdEngineName(identifierName(RD)) ||
                identifierName(RD) == "random_device");
}

/// `&state` -> `state`, `*gen` -> `gen`, `&states[i]` -> `states[i]`.
const Expr *withoutAddress(const Expr *E) {
  return peelHandle(E)->IgnoreParenImpCasts();
}

std::optional<Generator> libraryDraw(const CallExpr &Call, const FunctionDecl &FD,
                                     bool InFloatingContext) {
  if (!isGlobalFunction(FD))
    return std::nullopt;
  llvm::StringRef Name = FD.getName();
  bool CLibrary = llvm::StringSwitch<bool>(Name)
                      .Cases("rand", "random", "lrand48", "mrand48", true)
                      .Default(false);
  if (CLibrary || Name == "drand48")
    return (CLibrary && !InFloatingContext) ? std::nullopt
                                            : std::optional<Generator>({nullptr, true});
  bool Values = Name.starts_with("curandGenerate") &&
                (Name.contains("Uniform") || Name.contains("Normal"));
  bool DeviceValues = Name.starts_with("curand_") &&
                      (Name.contains("uniform") || Name.contains("normal"));
  bool DeviceInteger = Name == "curand";
  if ((Values || DeviceValues || (DeviceInteger && InFloatingContext)) &&
      Call.getNumArgs() >= 1)
    return Generator{withoutAddress(Call.getArg(0)), false};
  return std::nullopt;
}

} // namespace

std::optional<Generator> drawnValue(const CallExpr &Call,
                                    bool InFloatingContext) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (Op->getOperator() != OO_Call || Op->getNumArgs() < 1)
      return std::nullopt;
    const CXXRecordDecl *RD = stdRecord(Op->getArg(0)->getType());
    if (!RD)
      return std::nullopt;
    bool Floating = Call.getType()->isRealFloatingType() || InFloatingContext;
    if (identifierName(RD).ends_with("_distribution") && Op->getNumArgs() >= 2)
      return Floating ? std::optional<Generator>(
                            {withoutAddress(Op->getArg(1)), false})
                      : std::nullopt;
    if (isStdEngine(RD) && Floating)
      return Generator{withoutAddress(Op->getArg(0)), false};
    return std::nullopt;
  }
  const FunctionDecl *FD = Call.getDirectCallee();
  return FD ? libraryDraw(Call, *FD, InFloatingContext) : std::nullopt;
}

std::optional<Seeding> seedsGenerator(const CallExpr &Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (!MD || identifierName(MD) != "seed" ||
        !isStdEngine(stdRecord(Member->getImplicitObjectArgument()->getType())))
      return std::nullopt;
    return Seeding{{withoutAddress(Member->getImplicitObjectArgument()), false},
                   Call.getNumArgs() ? Call.getArg(0) : nullptr};
  }
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !isGlobalFunction(*FD) || Call.getNumArgs() < 1)
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  if (Name == "srand" || Name == "srandom" || Name == "srand48")
    return Seeding{{nullptr, true}, Call.getArg(0)};
  if (Name == "curandSetPseudoRandomGeneratorSeed" && Call.getNumArgs() >= 2)
    return Seeding{{withoutAddress(Call.getArg(0)), false}, Call.getArg(1)};
  if (Name == "curand_init" && Call.getNumArgs() >= 4)
    return Seeding{{withoutAddress(Call.getArg(3)), false}, Call.getArg(0)};
  return std::nullopt;
}

std::optional<const Expr *> engineSeed(const Expr &E, bool &PerProcess) {
  PerProcess = false;
  const auto *Construct = dyn_cast<CXXConstructExpr>(E.IgnoreImplicit());
  if (!Construct)
    return std::nullopt;
  const CXXRecordDecl *RD = Construct->getConstructor()->getParent();
  if (!isStdEngine(RD) || !RD->isInStdNamespace())
    return std::nullopt;
  if (identifierName(RD) == "random_device") {
    PerProcess = true;
    return nullptr;
  }
  if (Construct->getConstructor()->isCopyOrMoveConstructor())
    return std::nullopt;
  return Construct->getNumArgs() ? Construct->getArg(0) : nullptr;
}

bool isDistributionType(QualType T) {
  const CXXRecordDecl *RD = stdRecord(T);
  return RD && identifierName(RD).ends_with("_distribution");
}

bool isGeneratorType(QualType T) {
  if (isStdEngine(stdRecord(T)))
    return true;
  QualType Base = T.getNonReferenceType();
  if (Base->isPointerType())
    Base = Base->getPointeeType();
  std::string Name = Base.getUnqualifiedType().getAsString();
  return llvm::StringRef(Name).starts_with("curandState") ||
         llvm::StringRef(Name).contains("curandGenerator");
}

} // namespace clang::tidy::ddp::randomness
