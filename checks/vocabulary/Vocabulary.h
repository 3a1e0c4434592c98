//===--- Vocabulary.h - LibTorch and c10d as the ddp checks see them ------===//
//
// The one place that knows LibTorch and its neighbours, split by concern,
// one header each:
//   Modules.h        modules, their handles and lifecycle (`modules`)
//   TensorMethods.h  tensors by name and by type (`tensors`)
//   Training.h       parameters, gradients, optimizers (`training`,
//                    TrainingVocabulary)
//   Collectives.h    collectives, reduce ops, process groups, pending work
//                    (`collectives`, CollectiveVocabulary)
//   Ranks.h          rank and world-size sources (`ranks`, RankVocabulary)
//   DataFlow.h       how library calls move data (`flow`)
//   DataLoading.h    data loaders and samplers (`loaders`, LoaderVocabulary)
//   Checkpoints.h    torch::save, torch::load and files (`checkpoints`)
//   Registrations.h  module registrations (`registrations`)
//   Wrappers.h       data-parallel wrappers, forward passes
//                    (WrapperVocabulary)
//   Distributed.h    what starts the runtime (DistributedVocabulary)
// What depends on no option is a free function in the concern's namespace;
// what an option configures is a member of the concern's class, which reads
// and stores its own options. Every check asks these instead of spelling
// names itself; a file that asks only free functions includes their
// headers, one that holds the options includes this one.
//
// This header is the aggregate: class Vocabulary holds every concern's
// options (it derives from each concern class), and answers what asks all of
// them at once, whether code runs in a distributed program
// (VocabularyDistributed.cpp). It includes every concern header, the value
// types (VocabularyTypes.h), the shared AST helpers (VocabularyHelpers.h) and
// the AST matchers over the classifiers (VocabularyMatchers.h).
//
// The option names are shared by every check and read with
// getLocalOrGlobal: one top-level CheckOptions entry (`WrapperTypes`,
// `CollectiveFunctions`, ...) configures all checks at once.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_H
#define DDPLINT_CHECKS_VOCABULARY_H

#include "vocabulary/Checkpoints.h"
#include "vocabulary/Collectives.h"
#include "vocabulary/DataFlow.h"
#include "vocabulary/DataLoading.h"
#include "vocabulary/Distributed.h"
#include "vocabulary/Modules.h"
#include "vocabulary/NameList.h"
#include "vocabulary/ProjectFunctions.h"
#include "vocabulary/Ranks.h"
#include "vocabulary/Registrations.h"
#include "vocabulary/TensorMethods.h"
#include "vocabulary/Training.h"
#include "vocabulary/VocabularyHelpers.h"
#include "vocabulary/VocabularySdk.h"
#include "vocabulary/VocabularyStreams.h"
#include "vocabulary/VocabularyTypes.h"
#include "vocabulary/Wrappers.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::ddp {

class Vocabulary : public WrapperVocabulary,
                   public CollectiveVocabulary,
                   public RankVocabulary,
                   public TrainingVocabulary,
                   public LoaderVocabulary,
                   public DistributedVocabulary {
public:
  explicit Vocabulary(ClangTidyCheck::OptionsView &Options);
  /// Every concern's options, in the order of the base classes.
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  // --- Distributed context (VocabularyDistributed.cpp) -------------------
  /// A type only a distributed program holds: a communicator, a
  /// data-parallel wrapper, a distributed sampler or a data loader over one
  /// (also behind handles).
  bool isDistributedType(QualType T) const;

  /// Whether \p S on its own (its children left out) shows that the code
  /// around it runs in a distributed program: a declaration or use of a
  /// distributed type, a collective, a rank or world-size query, a name that
  /// holds the rank, a call that starts the runtime or of a
  /// `GradientSyncFunctions` entry.
  bool showsDistributed(const Stmt &S) const;

  /// Whether a function shows that it runs in a distributed program: a
  /// parameter, or a field of \p Class (its class), of a distributed type,
  /// or one of \p Stmts (its statements) that showsDistributed. Callers and
  /// enclosing functions are not looked at.
  bool isDistributedFunction(const FunctionDecl &FD, const CXXRecordDecl *Class,
                             llvm::ArrayRef<const Stmt *> Stmts) const;

  /// The same over every statement of \p FD's body, its lambdas included.
  bool isDistributedFunction(const FunctionDecl &FD) const;
};

} // namespace clang::tidy::ddp

// The matchers wrap the classifiers, so they follow the class's definition.
#include "vocabulary/VocabularyMatchers.h"

#endif // DDPLINT_CHECKS_VOCABULARY_H
