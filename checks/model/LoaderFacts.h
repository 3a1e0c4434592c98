//===--- LoaderFacts.h - data loaders and samplers of one function --*- C++ -*-===//
//
// What one function body does with data loaders over epoch-shuffled
// samplers: where each loader gets its value (a factory call, a
// construction, an assignment, a constructor's initialiser), where a pass
// over it starts, and which epoch calls its sampler gets. ddp-sampler-epoch
// asks these facts whether a loader replays the same order every epoch.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_MODEL_LOADERFACTS_H
#define DDPLINT_CHECKS_MODEL_LOADERFACTS_H

#include "vocabulary/Vocabulary.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace clang::tidy::ddp {

/// A place where a loader variable or field gets its value.
struct LoaderDefinition {
  const Stmt *Where;       // DeclStmt, assignment, or constructor initializer
  const ValueDecl *Loader; // the loader variable or field
  const CallExpr *Factory; // make_data_loader(...), when visible
  const ValueDecl *Sampler; // the sampler variable copied, if one was
  bool InThisFunction;
  /// A loader class of the project's own built from a homegrown
  /// distributed sampler (loaders::isIterableClass): whether it copies the
  /// sampler's order or shares the sampler is not known.
  bool Homegrown = false;
  /// The body of the function that holds the definition: where the fields
  /// its batch size reads are assigned.
  const Stmt *Body = nullptr;
};

/// A statement that starts a pass over a loader: a range-for over it, a call
/// of its begin(), or handing it to a function (which iterates it).
struct LoaderUse {
  const Stmt *Where;
  const ValueDecl *Loader;
};

/// `sampler.set_epoch(e)` or `sampler.reset()` on a distributed sampler,
/// `sampler->setEpoch(e)` on a homegrown one.
struct SamplerCall {
  const CXXMemberCallExpr *Call;
  const ValueDecl *Sampler;
  bool SetsEpoch;
};

/// The variable at the root of a dataset expression: `ds` in
/// `ds.map(Stack<>())`. Null for temporaries.
const VarDecl *rootVariable(const Expr *E);

/// The homegrown distributed sampler variable a homegrown loader variable
/// is built from (`auto loader = data::DataLoader(ds, 64, sampler);`), or
/// null.
const VarDecl *homegrownLoaderSampler(const VarDecl &Loader);

/// Whether a loader definition builds a full-batch loader: each batch its
/// rank's whole shard of the dataset (the order within it does not matter).
bool buildsFullBatches(const LoaderDefinition &D);

/// Everything about loaders and samplers in one function body.
class LoaderFacts {
public:
  explicit LoaderFacts(const Vocabulary &Vocab) : Vocab(Vocab) {}

  void collect(const FunctionDecl &Function, ASTContext &Context);

  std::vector<LoaderDefinition> Definitions;
  std::vector<LoaderUse> Uses;
  std::vector<SamplerCall> SamplerCalls;
  llvm::SmallVector<const ValueDecl *, 4> Loaders;

private:
  /// The body collect() is reading (LoaderDefinition::Body).
  const Stmt *CurrentBody = nullptr;
  void collectDefinitions(const Stmt &Body, ASTContext &Context);
  void collectPasses(const Stmt &Body, ASTContext &Context);
  void collectSamplerCalls(const Stmt &Body, ASTContext &Context);
  void collectFieldDefinitions(const FunctionDecl &Function);
  void addUse(const Stmt *Where, const ValueDecl *Loader) {
    Uses.push_back({Where, Loader});
    addLoader(Loader);
  }
  /// The loader over an epoch-shuffled sampler that E denotes, or null.
  const ValueDecl *loaderOf(const Expr *E) const {
    const ValueDecl *D = handleDecl(E);
    if (!D)
      return nullptr;
    if (llvm::is_contained(DependentLoaders, D) ||
        llvm::is_contained(HomegrownLoaders, D))
      return D;
    const CXXRecordDecl *Sampler = loaders::samplerOfLoaderType(D->getType());
    return Sampler && Vocab.isShufflingSampler(*Sampler) ? D : nullptr;
  }
  /// Loaders of dependent type (`auto loader = make_data_loader(*dataset_,
  /// sampler, options)` in a template), known by their factory call, and
  /// loaders of the project's own built from a homegrown sampler.
  llvm::SmallVector<const ValueDecl *, 2> DependentLoaders;
  llvm::SmallVector<const ValueDecl *, 2> HomegrownLoaders;
  void collectDeclaredDefinitions(const Stmt &Body, ASTContext &Context);
  void addDefinition(const Stmt *Where, const ValueDecl *Loader,
                     const Expr *Init, bool InThisFunction);
  void addLoader(const ValueDecl *D) {
    if (!llvm::is_contained(Loaders, D))
      Loaders.push_back(D);
  }

  const Vocabulary &Vocab;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_MODEL_LOADERFACTS_H
