//===--- CollectiveSites.h - calls that issue a collective ----------------===//
//
// Which calls make every rank of a process group meet: the vocabulary's
// collectives, and what issues them out of sight: a helper of the
// translation unit (at any depth), a constructor (a wrapper that broadcasts
// when built), a function defined elsewhere that is handed a communicator,
// and backward() after a forward through a data-parallel wrapper whose
// gradient hooks all-reduce, or after hooks that all-reduce were put on the
// gradients by a class or function of the project's own.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_COLLECTIVESITES_H
#define DDPLINT_CHECKS_ANALYSIS_COLLECTIVESITES_H

#include "vocabulary/Vocabulary.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace clang::tidy::ddp {

/// A call that issues a collective.
struct CollectiveSite {
  enum class Via {
    Api,          // the collective itself (c10d, MPI, NCCL, boost::mpi, ...)
    Helper,       // a function of this translation unit that issues one
    Communicator, // a function defined elsewhere that is handed a communicator
    Backward,     // backward() after a forward through a data-parallel
                  // wrapper whose gradient hooks all-reduce, or where such
                  // hooks were installed
  };
  Via How;
  /// The function called (for a construction, the constructor).
  const FunctionDecl *Callee;
  /// The collective API call it ends in (itself for Via::Api); null when
  /// that is out of sight.
  const FunctionDecl *Api;
  std::optional<CollectiveKind> Kind;
  /// For Via::Backward: the wrapper the forward went through, the object
  /// whose class installed the hooks, or the function that installed them.
  const ValueDecl *Wrapper = nullptr;

  /// Sites with equal keys are the matching collective on two branches:
  /// the same kind of collective, or the same function.
  const void *key() const;
};

/// Classifies calls of one translation unit (memoised).
class CollectiveSites {
public:
  CollectiveSites(const Vocabulary &Vocab, ASTContext &Context)
      : Vocab(Vocab), Context(Context) {}

  /// The collective \p E issues, if it is a call or construction that does.
  std::optional<CollectiveSite> collective(const Expr &E);
  /// The first collective the body of \p FD issues (not counting lambdas it
  /// only defines), if any.
  std::optional<CollectiveSite> issues(const FunctionDecl &FD);
  /// The call or construction in \p FD's body where that first collective
  /// is issued (the collective, or the helper that issues it); null when
  /// \p FD issues none.
  const Expr *firstIssued(const FunctionDecl &FD);
  ASTContext &context() const { return Context; }
  /// \p Call as a collective when it is a backward() in \p FD and \p FD runs
  /// a forward through a data-parallel wrapper whose gradient hooks
  /// all-reduce: the forward arms them for the next backward, as PyTorch's
  /// reducer does.
  std::optional<CollectiveSite> backward(const FunctionDecl &FD,
                                         const CallExpr &Call);

  /// Whether \p Call is handed a communicator; with \p InStructs, also one
  /// held by a user struct it is handed (`dist::Context` holding the
  /// process group).
  static bool handsCommunicator(const CallExpr &Call, bool InStructs);

private:
  std::optional<CollectiveSite> classify(const Expr &E);
  std::optional<CollectiveSite> classifyCall(const CallExpr &Call);
  /// classifyCall for a direct call the vocabulary does not name: by the
  /// callee's definition, its overriders, what it is handed, its name.
  std::optional<CollectiveSite> classifyByCallee(const CallExpr &Call,
                                                 const FunctionDecl &Callee);
  std::optional<CollectiveSite> constructs(const CXXRecordDecl &RD);
  /// The wrapper variable \p FD forwards through, when that wrapper's hooks
  /// all-reduce; null otherwise.
  const ValueDecl *syncingWrapperIn(const FunctionDecl &FD);
  bool wrapperSyncs(const CXXRecordDecl &Wrapper);

  // Homegrown wrappers known by what they do (CollectiveSitesHooks.cpp).
  /// What in \p FD installs gradient hooks that issue a collective: an
  /// object \p FD declares or names whose class registers such hooks, or a
  /// function \p FD calls that does; null when nothing does.
  const ValueDecl *syncingHooksIn(const FunctionDecl &FD);
  /// Whether a method of \p RD registers such hooks.
  bool classHooksSync(const CXXRecordDecl &RD);
  /// Whether \p FD's body, or a function it calls, registers a hook on a
  /// gradient whose callback issues an all-reduce (or a collective of
  /// unknown kind).
  bool installsSyncingHooks(const FunctionDecl &FD);

  // Collectives that run where the call hands them over
  // (CollectiveSitesDeferred.cpp).
  /// A lambda handed to a thread, a thread pool's queue, std::async, or any
  /// call that is not a registration of a hook or callback: the call
  /// issues what the lambda issues.
  std::optional<CollectiveSite> handedOver(const CallExpr &Call);
  std::optional<CollectiveSite> handedOver(const CXXConstructExpr &Construct);
  /// A call of a std::function variable or field: what every lambda this
  /// unit stores in it issues.
  std::optional<CollectiveSite> storedFunction(const CallExpr &Call);
  /// A call of a virtual method: what every overrider this unit defines
  /// issues, when there is one and they all issue a collective.
  std::optional<CollectiveSite> overriders(const CXXMethodDecl &Method);
  /// What the lambdas among \p Args issue, for a call of \p Callee.
  std::optional<CollectiveSite>
  lambdasIssue(llvm::ArrayRef<const Expr *> Args, const FunctionDecl *Callee);
  /// Indexes the declarations outside system headers once: the lambdas
  /// stored in each std::function, the overriders of each virtual method.
  void indexUserCode();
  bool Indexed = false;
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const LambdaExpr *, 2>>
      StoredLambdas;
  llvm::DenseMap<const CXXMethodDecl *,
                 llvm::SmallVector<const CXXMethodDecl *, 2>>
      Overriders;

  const Vocabulary &Vocab;
  ASTContext &Context;
  llvm::DenseMap<const Expr *, std::optional<CollectiveSite>> Sites;
  llvm::DenseMap<const FunctionDecl *, std::optional<CollectiveSite>> Issues;
  llvm::DenseMap<const FunctionDecl *, const Expr *> IssuedAt;
  llvm::DenseMap<const FunctionDecl *, const ValueDecl *> SyncingWrappers;
  llvm::DenseMap<const CXXRecordDecl *, bool> WrapperSyncs;
  llvm::DenseMap<const FunctionDecl *, const ValueDecl *> SyncingHooks;
  llvm::DenseMap<const CXXRecordDecl *, bool> ClassHooks;
  llvm::DenseMap<const FunctionDecl *, bool> InstallsHooks;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_COLLECTIVESITES_H
