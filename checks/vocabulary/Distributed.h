//===--- Distributed.h - what starts the distributed runtime --------------===//
//
// The functions that start the distributed runtime
// (`DistributedInitFunctions`). Whether code runs in a distributed program
// asks every concern at once: Vocabulary::isDistributedFunction.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_DISTRIBUTED_H
#define DDPLINT_CHECKS_VOCABULARY_DISTRIBUTED_H

#include "vocabulary/NameList.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/Decl.h"

namespace clang::tidy::ddp {

/// The runtime's start: `DistributedInitFunctions`.
class DistributedVocabulary {
public:
  explicit DistributedVocabulary(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  /// A function that starts the distributed runtime
  /// (`DistributedInitFunctions`, by default `MPI_Init*`).
  bool isDistributedRuntimeInit(const FunctionDecl &FD) const;

private:
  NameList DistributedInitFunctions;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_DISTRIBUTED_H
