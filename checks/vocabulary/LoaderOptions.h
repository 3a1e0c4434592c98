//===--- LoaderOptions.h - LibTorch's data loader options by name ---------===//
//
// The options of a LibTorch data loader that the checks read from the code
// that builds one, by method name (the object is DataLoaderOptions, or a
// template's dependent type).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_LOADEROPTIONS_H
#define DDPLINT_CHECKS_VOCABULARY_LOADEROPTIONS_H

#include "llvm/ADT/StringRef.h"

namespace clang::tidy::ddp::loaders {

/// `batch_size(n)` of DataLoaderOptions: how many samples one batch holds.
bool isBatchSizeSetter(llvm::StringRef Method);

} // namespace clang::tidy::ddp::loaders

#endif // DDPLINT_CHECKS_VOCABULARY_LOADEROPTIONS_H
