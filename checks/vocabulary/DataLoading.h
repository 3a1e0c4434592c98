//===--- DataLoading.h - data loaders and samplers by name and shape ------===//
//
// What the data-loading checks read by name from the code that builds a
// loader (LibTorch's DataLoaderOptions), and the loaders and samplers of a
// framework of the project's own, recognised by shape: a sampler that
// shards by rank and has an epoch setter, a loader that can be iterated.
// LibTorch's own loader and sampler types are the Vocabulary's.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_DATALOADING_H
#define DDPLINT_CHECKS_VOCABULARY_DATALOADING_H

#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/StringRef.h"

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

} // namespace clang::tidy::ddp::loaders

#endif // DDPLINT_CHECKS_VOCABULARY_DATALOADING_H
