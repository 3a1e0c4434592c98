//===--- VocabularyDataLoading.cpp - data loaders and samplers ------------===//
//
// LibTorch's data loaders, the distributed samplers they draw from, and
// what make_data_loader does with a sampler.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/DataLoading.h"
#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

//===----------------------------------------------------------------------===//
// Samplers and data loaders
//===----------------------------------------------------------------------===//

bool loaders::isDistributedSampler(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "torch::data::samplers::DistributedSampler");
}

bool LoaderVocabulary::isShufflingSampler(const CXXRecordDecl &RD) const {
  return matchesSelfOrBase(ShufflingSamplers, RD);
}

bool loaders::isDataLoaderClass(const CXXRecordDecl &RD) {
  return isSameOrDerivedFrom(RD, "torch::data::DataLoaderBase");
}

const CXXRecordDecl *loaders::dataLoaderOfHandle(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  return RD && loaders::isDataLoaderClass(*RD) ? RD : nullptr;
}

bool loaders::isLoaderRange(const Expr &Range) {
  if (loaders::dataLoaderOfHandle(Range.getType()))
    return true;
  // In a template nothing instantiates (`template <class Loader> void
  // train(Loader &loader)`) the type says nothing: the name does.
  if (!Range.isTypeDependent())
    return false;
  const Expr *E = peelHandle(&Range);
  const ValueDecl *D = referencedDecl(E);
  if (const auto *Call = dyn_cast_or_null<CallExpr>(stripObjectWrappers(E)))
    if (const auto *Member = dyn_cast<CXXDependentScopeMemberExpr>(
            Call->getCallee()->IgnoreParenImpCasts()))
      return Member->getMember().isIdentifier() &&
             nameContainsAny(Member->getMember().getAsString(), {"loader"});
  return D && nameContainsAny(identifierName(D), {"loader"});
}

bool loaders::isDataLoaderFactory(const FunctionDecl &FD) {
  return FD.getDeclName().isIdentifier() && FD.getName() == "make_data_loader" &&
         qualifiedName(FD) == "torch::data::make_data_loader";
}

namespace {
/// The number of parameters of the factory overload a call selected, as
/// written in the template (the sampler-taking overload has three).
unsigned factoryArity(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !loaders::isDataLoaderFactory(*FD))
    return 0;
  if (const FunctionTemplateDecl *Primary = FD->getPrimaryTemplate())
    return Primary->getTemplatedDecl()->getNumParams();
  return FD->getNumParams();
}
} // namespace

bool loaders::isUnresolvedDataLoaderFactory(const CallExpr &Call) {
  const auto *Lookup =
      dyn_cast<UnresolvedLookupExpr>(Call.getCallee()->IgnoreImpCasts());
  return Lookup && !Lookup->decls().empty() &&
         llvm::all_of(Lookup->decls(), [](const NamedDecl *D) {
           const auto *Template =
               dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl());
           return Template &&
                  loaders::isDataLoaderFactory(*Template->getTemplatedDecl());
         });
}

const Expr *loaders::copiedSamplerArgument(const CallExpr &Call) {
  if (factoryArity(Call) == 3 && Call.getNumArgs() >= 2)
    return Call.getArg(1);
  // Left unresolved by a dependent dataset: the overload that takes a
  // sampler object, when the second argument is one.
  if (!loaders::isUnresolvedDataLoaderFactory(Call) || Call.getNumArgs() < 2)
    return nullptr;
  const CXXRecordDecl *Second = pointeeRecord(Call.getArg(1)->getType());
  return Second && isSameOrDerivedFrom(*Second, "torch::data::samplers::Sampler")
             ? Call.getArg(1)
             : nullptr;
}

const CXXRecordDecl *loaders::defaultConstructedSampler(const CallExpr &Call) {
  if (factoryArity(Call) != 2)
    return nullptr;
  const TemplateArgumentList *Args =
      Call.getDirectCallee()->getTemplateSpecializationArgs();
  if (!Args || Args->size() == 0 || (*Args)[0].getKind() != TemplateArgument::Type)
    return nullptr;
  const CXXRecordDecl *Sampler = (*Args)[0].getAsType()->getAsCXXRecordDecl();
  return Sampler && isSameOrDerivedFrom(*Sampler, "torch::data::samplers::Sampler")
             ? Sampler
             : nullptr;
}

const CXXRecordDecl *loaders::samplerOfLoaderType(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  const auto *Loader =
      findSpecialization(RD, "torch::data::StatelessDataLoader");
  return Loader ? templateArgumentRecord(*Loader, 1) : nullptr;
}

bool loaders::startsLoaderPass(const CXXMemberCallExpr &Call) {
  return identifierName(Call.getMethodDecl()) == "begin";
}

std::optional<bool> loaders::samplerEpochCall(const CXXMemberCallExpr &Call) {
  const CXXMethodDecl *MD = Call.getMethodDecl();
  llvm::StringRef Name = identifierName(MD);
  if ((Name != "set_epoch" && Name != "reset") ||
      !loaders::isDistributedSampler(*MD->getParent()))
    return std::nullopt;
  return Name == "set_epoch";
}

namespace loaders {

bool isBatchSizeSetter(llvm::StringRef Method) { return Method == "batch_size"; }

bool isEpochSetter(const FunctionDecl &FD) {
  llvm::SmallVector<std::string, 4> Words = identifierWords(identifierName(&FD));
  return Words.size() == 2 && Words[0] == "set" && Words[1] == "epoch";
}

namespace {
bool hasMethod(const CXXRecordDecl &RD,
               llvm::function_ref<bool(const CXXMethodDecl &)> Is) {
  if (llvm::any_of(RD.methods(), [&](const CXXMethodDecl *M) { return Is(*M); }))
    return true;
  for (const CXXBaseSpecifier &Base : RD.bases())
    if (const CXXRecordDecl *B = Base.getType()->getAsCXXRecordDecl())
      if (B->hasDefinition() && hasMethod(*B->getDefinition(), Is))
        return true;
  return false;
}
} // namespace

bool isHomegrownDistributedSampler(const CXXRecordDecl &RD) {
  if (!RD.hasDefinition() ||
      inSystemHeader(RD) ||
      !llvm::is_contained(identifierWords(identifierName(&RD)), "distributed"))
    return false;
  return hasMethod(*RD.getDefinition(), [](const CXXMethodDecl &M) {
    return isEpochSetter(M);
  });
}

bool isIterableClass(const CXXRecordDecl &RD) {
  if (!RD.hasDefinition() ||
      inSystemHeader(RD))
    return false;
  auto Named = [](llvm::StringRef Name) {
    return [Name](const CXXMethodDecl &M) { return identifierName(&M) == Name; };
  };
  return hasMethod(*RD.getDefinition(), Named("begin")) &&
         hasMethod(*RD.getDefinition(), Named("end"));
}

} // namespace loaders

} // namespace clang::tidy::ddp
