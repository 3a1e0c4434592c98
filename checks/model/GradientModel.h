//===--- GradientModel.h - how one translation unit syncs gradients -------===//
//
// What ddp-unsynced-gradients and ddp-unaveraged-allreduce both need to know
// about a translation unit, computed once per unit from every function
// defined outside system headers (lambdas are units of their own):
//
// - roles: which variables, fields and parameters hold gradients (`grad()`,
//   views, copies and flattenings of gradients, vectors filled with them,
//   their data pointers) or parameters, propagated through assignments,
//   `push_back`, range-for loops, calls and returns;
// - gradient syncs: a reducing collective on gradients, a wait on the Work of
//   one (not of a copy made for the collective alone and read down to
//   numbers), or a call of a function that does either (transitively), of a
//   function named in `GradientSyncFunctions`, or of a function whose body is
//   out of sight but is handed a communicator and the parameters;
// - gradient hooks: `register_hook` / `add_post_hook` callbacks that sync, so
//   that backward() itself syncs; and data-parallel wrappers, whose forward
//   arms their sync unless they expose a sync method that must be called;
// - the distributed context of each unit (a communicator, wrapper or
//   distributed sampler in scope, a rank or world-size query, a collective),
//   inherited by lambdas and by functions called from such a unit;
// - the call graph, and one CFG per unit (built on demand).
//
// The model is made of parts with one job each: the units and their calls
// (CodeUnits.h), the distributed context (DistributedContext.h), the code
// the AST does not show (HiddenCode.h). GradientModel.cpp answers the sync
// questions, GradientRoles.cpp computes the roles, GradientCopies.cpp finds
// the copies made for a collective alone and whether a value is kept.
//
// docs/checks/ddp-unsynced-gradients.md, docs/checks/ddp-unaveraged-allreduce.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_GRADIENTMODEL_H
#define DDPLINT_CHECKS_GRADIENTMODEL_H

#include "model/CodeUnits.h"
#include "model/DistributedContext.h"
#include "model/HiddenCode.h"
#include "vocabulary/Vocabulary.h"
#include "analysis/Reachability.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::ddp {

/// What a value holds, as far as gradient synchronisation is concerned.
enum TensorRole : unsigned {
  NoRole = 0,
  GradientRole = 1,  // gradients, or views, copies, buffers of them
  ParameterRole = 2, // parameters, or their data
};

/// What a statement does to a buffer (GradientModel::copyWrite).
enum class CopyWrite { None, FromOf, Other };

class GradientModel {
public:
  /// \p Skipped: the source ranges the preprocessor skipped (`#ifdef`-gated
  /// code), in any file.
  GradientModel(const Vocabulary &Vocab, ASTContext &Context,
                std::vector<SourceRange> Skipped = {});

  /// Adds a function definition (and the lambdas in it) to the model.
  void addFunction(const FunctionDecl &FD) { Graph.addFunction(FD); }
  /// Computes roles, syncs, hooks and contexts; call once, after every
  /// addFunction.
  void build();

  const std::vector<std::unique_ptr<CodeUnit>> &units() const {
    return Graph.units();
  }
  ASTContext &context() const { return Context; }
  const Vocabulary &vocabulary() const { return Vocab; }

  /// The units and their calls (see CodeUnitGraph for each query).
  const CodeUnitGraph &graph() const { return Graph; }
  const CodeUnit *unitOf(const FunctionDecl *FD) const {
    return Graph.unitOf(FD);
  }
  const CodeUnit *unitOf(const LambdaExpr *Lambda) const {
    return Graph.unitOf(Lambda);
  }
  const CodeUnit *calleeUnit(const CallExpr &Call) const {
    return Graph.calleeUnit(Call);
  }
  llvm::ArrayRef<CallSite> callers(const CodeUnit &U) const {
    return Graph.callers(U);
  }
  llvm::SmallVector<const CodeUnit *, 2> callableUnits(const Expr *Callable) const {
    return Graph.callableUnits(Callable);
  }
  const Reachability &flow(const CodeUnit &U) const { return Graph.flow(U); }
  /// The outermost statement around \p S (S itself at least) that contains
  /// none of \p Barriers and is not entered on a rank-dependent condition:
  /// what runs S as far as every rank is concerned. A gradient average in a
  /// loop over the parameters (which may run zero times), or a sync under
  /// `if (world_size > 1)`, widens to the loop or the `if`; one under
  /// `if (rank == 0)` stays where it is.
  const Stmt *widen(const CodeUnit &U, const Stmt *S,
                    llvm::ArrayRef<const Stmt *> Barriers) const;

  /// The roles of what an expression denotes in a unit.
  unsigned role(const CodeUnit &U, const Expr *E) const;
  /// The variable, parameter or field a tensor expression is rooted in:
  /// `flat` in `flat.slice(0, a, b)`, `bucket_` in `this->bucket_`.
  const ValueDecl *rootDecl(const Expr *E) const;

  /// What a reducing or gathering collective's buffers hold: a gradient
  /// (at least one buffer that is not a copy made for the collective
  /// alone), only such copies, or no gradient. A copy made for the
  /// collective alone is a local initialised with fresh tensors (`clone()`,
  /// `torch::cat`, `torch::stack`, or locals so initialised) whose every
  /// other use reads it down to a number (`copy[0].norm().item<double>()`
  /// for a log line) or changes it in place: reducing it changes neither
  /// the gradients nor what the optimizer steps with.
  enum class GradientBuffers { None, OnlyCopies, Gradients };
  /// The collective \p Call issues: the vocabulary's, or in a template
  /// nothing instantiates (a reported unit), an MPI or NCCL call its
  /// dependent arguments left unresolved.
  std::optional<CollectiveInfo> collectiveOf(const CodeUnit &U,
                                             const CallExpr &Call) const;
  GradientBuffers gradientBuffers(const CodeUnit &U, const CallExpr &Call) const;
  /// A reducing or gathering collective with a gradient among its buffers,
  /// other than a copy made for the collective alone.
  bool isGradientCollective(const CodeUnit &U, const CallExpr &Call) const {
    return gradientBuffers(U, Call) == GradientBuffers::Gradients;
  }
  /// For a collective that reduces only copies of the gradients (a flat
  /// `torch::cat` buffer) whose value is used again: the statements that use
  /// the reduced copy, where it is written back into the gradients. The
  /// gradients are synced only once one of them has run. Empty when a
  /// buffer is not such a copy.
  llvm::SmallVector<const Stmt *, 4> copyWriteBacks(const CodeUnit &U,
                                                    const CallExpr &Call) const;
  /// Whether the tensor value of \p E is kept: passed on, stored, returned,
  /// rather than only read down to a number (`(sum / ws).norm().item()`).
  /// Views, element accesses and locals initialised with the value are
  /// followed; a lambda capturing such a local keeps it.
  bool valueKept(const CodeUnit &U, const Expr *E) const {
    return valueKept(U, E, 0);
  }
  /// A sync of gradients in unit U (see the file comment). Without
  /// \p Guesses, a function out of sight counts only when named in
  /// `GradientSyncFunctions`.
  bool isGradientSync(const CodeUnit &U, const CallExpr &Call,
                      bool Guesses = true) const;
  /// A step: the optimizer's `step()`, or a hand-written update of a
  /// parameter by its gradient (`p.data().add_(p.grad(), -lr)`,
  /// `p -= lr * p.grad()`).
  bool isStep(const CodeUnit &U, const CallExpr &Call) const;
  /// An all-reduce or broadcast of the parameters themselves (model
  /// averaging), directly or through a helper.
  bool isParameterSync(const CodeUnit &U, const CallExpr &Call) const;
  /// A forward pass through a data-parallel wrapper whose hooks sync on
  /// their own (the wrapper exposes no sync method to call).
  bool armsSync(const CallExpr &Call) const;
  /// The units that install gradient hooks that sync during backward():
  /// a `register_hook` or `add_post_hook` whose callback syncs, a call of a
  /// hook installer defined elsewhere that syncs (`install_allreduce_hooks(
  /// model, pg)`), or an application of a custom autograd function whose
  /// backward syncs. Hooks registered by a data-parallel wrapper are armed
  /// by its forward instead (armsSync).
  const llvm::DenseSet<const CodeUnit *> &syncingHookInstallers() const {
    return HookInstallers;
  }
  /// Whether a unit runs in a distributed program.
  bool isDistributed(const CodeUnit &U) const {
    return Distributed.isDistributed(U);
  }
  static const CXXRecordDecl *memberOf(const CodeUnit &U) {
    return CodeUnitGraph::memberOf(U);
  }
  /// A class named like a framework's communicator (`Communicator`,
  /// `ProcessGroupWrapper`, `DistContext`, `MpiWorld`, ...).
  static bool looksLikeCommunicator(const CXXRecordDecl *RD);
  /// A function whose body is not in this translation unit and that is not
  /// LibTorch's, the standard library's or boost's.
  bool isOpaqueUserFunction(const FunctionDecl *FD) const;
  /// Whether a unit's source holds a token (a called name, or `/`, `/=`)
  /// accepted by \p Matches that the AST does not show: in code the
  /// preprocessor skipped (`#ifdef USE_DISTRIBUTED ... #endif`), or, after
  /// compile errors, in a statement clang dropped (a call into a missing
  /// header). Comments do not count.
  /// Only tokens inside \p Within (a statement of U; the body when null)
  /// count.
  bool hidesCode(const CodeUnit &U,
                 llvm::function_ref<bool(llvm::StringRef)> Matches,
                 const Stmt *Within = nullptr) const {
    return Hidden.hides(U, Matches, Within);
  }

  /// A name that says it syncs: reduce, sum, avg, average, mean, sync,
  /// gather, exchange, aggregate, broadcast, bcast.
  static bool looksLikeSync(llvm::StringRef Name);
  static llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 4>
  boundArguments(const CallExpr &Call, const CodeUnit &Callee) {
    return CodeUnitGraph::boundArguments(Call, Callee);
  }

private:
  bool valueKept(const CodeUnit &U, const Expr *E, unsigned Depth) const;
  /// What becomes of a value of \p E's when \p P holds it (valueKept).
  enum class Keeping { Kept, Dropped, Continue };
  Keeping keptThroughParent(const CodeUnit &U, const Expr *E,
                            const Stmt *Current, const Stmt *P,
                            unsigned Depth) const;
  /// Whether a use of the variable \p Decl declares from \p E keeps it.
  bool keptThroughDeclaration(const CodeUnit &U, const Expr *E,
                              const DeclStmt &Decl, unsigned Depth) const;
  /// Whether \p Buffer, an argument of \p Collective, is a copy made for
  /// it alone (see gradientBuffers).
  bool isDiscardedCopy(const CodeUnit &U, const CallExpr &Collective,
                       const Expr *Buffer) const;
  /// Whether \p Buffer is a local filled with fresh tensors (a copy made
  /// for a collective): \p Holders receives it and the locals it was
  /// filled with, which share its storage.
  bool copyHolders(const CodeUnit &U, const Expr *Buffer,
                   llvm::SmallVectorImpl<const VarDecl *> &Holders) const;
  /// The references to such a copy, outside \p Collective and its
  /// initialisation, that keep its value.
  llvm::SmallVector<const Expr *, 4>
  keptCopyUses(const CodeUnit &U, const CallExpr &Collective,
               const Expr *Buffer) const;
  /// The condition under which \p P runs its child, if P branches.
  static const Expr *branchCondition(const Stmt *P);
  /// Whether a branch condition picks some iterations of a loop: it counts
  /// (`++count == every`) or takes a remainder (`step % every == 0`).
  static bool countsIterations(const Stmt *Condition);
  /// The role of an expression that combines its operands' data, or
  /// nullopt when E is not one (role()'s phases).
  std::optional<unsigned> combinedRole(const CodeUnit &U, const Expr *E) const;
  /// The role of a call's result, or the expression whose role it has
  /// (in Next), or NoRole.
  unsigned callRole(const CodeUnit &U, const CallExpr &Call,
                    const Expr *&Next) const;
  /// The expression \p E passes its role on from unchanged (casts,
  /// temporaries, `*p`, `a = b`), or null.
  static const Expr *roleCarrier(const Expr *E);
  void seedRoles();
  bool propagateRoles(CodeUnit &U);
  /// The roles a statement of U stores (propagateRoles' phases): a
  /// declaration, a range-for, an assignment, a return; a call.
  void propagateStatement(CodeUnit &U, const Stmt *S, bool &Changed);
  /// What is added to or subtracted from parameters (`w -= lr * g`,
  /// `w = w + update`) is a gradient step: it holds the gradient role. A
  /// snapshot of the same parameters is not: `w -= w0` makes w what the
  /// steps since the snapshot did.
  void propagateUpdate(CodeUnit &U, const Stmt *S, bool &Changed);
  /// Whether \p Copy holds a snapshot of \p Of taken in U before \p Update:
  /// filled from it by a raw copy (`memcpy(w0, w, n)`), or initialised or
  /// assigned from it, whole or element by element (`w0 = w`,
  /// `w0[i] = w[i]`), and written nowhere else in U (no other assignment
  /// or copy into it, no collective on it, no function of the project
  /// handed it to write).
  bool isSnapshotOf(const CodeUnit &U, const ValueDecl *Copy,
                    const ValueDecl *Of, const Stmt &Update) const;
  /// What \p S does to \p Copy: fills it from \p Of, writes it otherwise,
  /// or neither.
  CopyWrite copyWrite(const CodeUnit &U, const Stmt *S,
                           const ValueDecl *Copy, const ValueDecl *Of) const;
  void propagateCall(CodeUnit &U, const CallExpr &Call, bool &Changed);
  bool orRole(llvm::DenseMap<const ValueDecl *, unsigned> &Map,
              const ValueDecl *D, unsigned Bits);
  /// Stores \p Bits into what \p Target is rooted in, and into the tensor
  /// a local view or reference of it was made from.
  void storeRole(CodeUnit &U, const Expr *Target, unsigned Bits, bool &Changed,
                 unsigned Depth = 0);
  /// The tensor a local is a view of (`bucket.narrow(...)`) or a reference
  /// to, or null.
  const Expr *viewedTensor(const VarDecl &Var) const;
  /// The unit a local variable is declared in.
  CodeUnit *ownerUnit(const VarDecl &Var) const;
  unsigned declRole(const CodeUnit &U, const ValueDecl *D) const;
  /// A field's role: what was stored into it, or its gradient name.
  unsigned fieldRole(const ValueDecl *Field) const;
  void findGradientWork();
  bool waitsOnGradientWork(const CallExpr &Call) const;
  bool isOpaqueSync(const CodeUnit &U, const CallExpr &Call) const;
  void findSyncingUnits();
  /// Whether U is (in) a member of a data-parallel wrapper class.
  bool inWrapper(const CodeUnit &U) const;
  void findHooks();
  bool needsExplicitSync(const CXXRecordDecl &Wrapper) const;

  const Vocabulary &Vocab;
  ASTContext &Context;
  CodeUnitGraph Graph;
  HiddenCode Hidden;
  DistributedContext Distributed;

  llvm::DenseMap<const ValueDecl *, unsigned> FieldRoles;
  llvm::DenseMap<const ValueDecl *, unsigned> ParamRoles;
  llvm::DenseMap<const ValueDecl *, unsigned> ReturnRoles; // by function
  /// Variables and fields holding the Work / MPI_Request of a gradient
  /// collective.
  llvm::DenseSet<const ValueDecl *> GradientWork;
  llvm::DenseSet<const CodeUnit *> Syncing;
  llvm::DenseSet<const CodeUnit *> ParameterSyncing;
  llvm::DenseSet<const CodeUnit *> HookInstallers;
  mutable llvm::DenseMap<const CXXRecordDecl *, bool> ExplicitSync;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_GRADIENTMODEL_H
