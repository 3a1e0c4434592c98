//===--- DataLoading.h - data loaders and samplers by name and shape ------===//
//
// What the data-loading checks read by name from the code that builds a
// loader (LibTorch's DataLoaderOptions), and the loaders and samplers of a
// framework of the project's own, recognised by shape: a sampler that
// shards by rank and has an epoch setter, a loader that can be iterated;
// LibTorch's own loaders, samplers and `make_data_loader` (free functions
// in `loaders`), and the samplers whose order depends on their epoch
// (LoaderVocabulary: `ShufflingSamplers`).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_DATALOADING_H
#define DDPLINT_CHECKS_VOCABULARY_DATALOADING_H

#include "vocabulary/NameList.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace clang::tidy::ddp::loaders {

/// `batch_size(n)` of DataLoaderOptions: how many samples one batch holds.
bool isBatchSizeSetter(llvm::StringRef Method);

/// A method that sets a sampler's epoch: `set_epoch`, `setEpoch`,
/// `SetEpoch`.
bool isEpochSetter(const FunctionDecl &FD);

/// A sampler class of the project's own (outside system headers) that
/// shards by rank: "distributed" among the words of its name, and an epoch
/// setter of its own or inherited (`class DistributedSampler : public
/// data::Sampler { void setEpoch(size_t) override; }`).
bool isHomegrownDistributedSampler(const CXXRecordDecl &RD);

/// A class of the project's own whose objects can be iterated (`begin()`
/// and `end()`): a loader, when built from a sampler.
bool isIterableClass(const CXXRecordDecl &RD);

/// `torch::data::DataLoaderBase` and the loaders derived from it
/// (`StatelessDataLoader`, `StatefulDataLoader`).
bool isDataLoaderClass(const CXXRecordDecl &RD);

/// The data-loader class behind a handle (object, reference, pointer,
/// `std::unique_ptr`), or null.
const CXXRecordDecl *dataLoaderOfHandle(QualType T);

/// A range that yields batches: a data loader handle, or in a template
/// nothing instantiates, an expression of dependent type named like one
/// (`loader`, `*train_loader_`, `data_loader()`).
bool isLoaderRange(const Expr &Range);

/// `DistributedSampler<>` or a class derived from it.
bool isDistributedSampler(const CXXRecordDecl &RD);

/// `torch::data::make_data_loader`.
bool isDataLoaderFactory(const FunctionDecl &FD);

/// For `make_data_loader(dataset, sampler, options)`: the sampler argument
/// (copied into the loader). Null for other calls.
const Expr *copiedSamplerArgument(const CallExpr &Call);

/// `make_data_loader(*dataset_, sampler, options)` left unresolved in a
/// template by a dependent dataset.
bool isUnresolvedDataLoaderFactory(const CallExpr &Call);

/// For `make_data_loader<S>(dataset, options)`: the sampler class `S` the
/// factory default-constructs from the dataset size. Null otherwise.
const CXXRecordDecl *
defaultConstructedSampler(const CallExpr &Call);

/// The sampler class of a data-loader type: `S` in
/// `StatelessDataLoader<D, S>` (also through `std::unique_ptr`,
/// references and pointers); null for other types.
const CXXRecordDecl *samplerOfLoaderType(QualType T);

/// `loader->begin()`: a call that starts a pass over its object (when the
/// object is a loader).
bool startsLoaderPass(const CXXMemberCallExpr &Call);

/// On a distributed sampler, `set_epoch(e)` (true) or `reset()` (false);
/// nullopt for other calls.
std::optional<bool> samplerEpochCall(const CXXMemberCallExpr &Call);

} // namespace clang::tidy::ddp::loaders

namespace clang::tidy::ddp {

/// The samplers `ShufflingSamplers` names.
class LoaderVocabulary {
public:
  explicit LoaderVocabulary(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  /// A distributed sampler whose order depends on its epoch
  /// (`ShufflingSamplers`, by default `DistributedRandomSampler`).
  bool isShufflingSampler(const CXXRecordDecl &RD) const;

private:
  NameList ShufflingSamplers;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_DATALOADING_H
