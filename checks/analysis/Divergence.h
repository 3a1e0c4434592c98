//===--- Divergence.h - what can differ from one rank to another ----------===//
//
// A collective hangs the job when only some ranks issue it. Whether a rank
// issues it depends on the conditions that control it, so the ddp checks ask
// two questions of a function: which calls are collectives
// (analysis/CollectiveSites), and which values can differ between ranks: the
// rank itself, and data local to a rank (whether a gradient exists, a loss
// computed from this rank's batches and never reduced, a tensor's shape, a
// batch counter, a data loader running out). This file answers the second.
//
// It is a taint analysis on the function's CFG (FunctionDivergence). Seeds
// come from the vocabulary; taint flows through local variables
// (assignments, compound updates, container and in-place tensor mutations,
// output arguments), through helpers of the translation unit (what they
// return, in terms of their parameters; what their callers pass), through
// fields of user classes, and through control: a variable set on one side of
// a diverging branch differs once the sides meet again. The output of a
// collective (a tensor all-reduced or broadcast, the result of a helper that
// reduces) is the same on every rank and clears the taint.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_DIVERGENCE_H
#define DDPLINT_CHECKS_ANALYSIS_DIVERGENCE_H

#include "vocabulary/Vocabulary.h"
#include "analysis/CollectiveSites.h"
#include "analysis/ParameterWrites.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace clang::tidy::ddp {

/// Why a value can differ from one rank to another.
enum class DivergenceSource : uint8_t {
  Rank,             // a rank query, a rank variable, RANK from the environment
  GradientPresence, // whether this rank has a gradient (`grad().defined()`)
  LocalData,        // computed from this rank's batches and never reduced
  GradientValue,    // a gradient before it is reduced
  TensorShape,      // `numel()` / `size()` of a tensor that is no parameter
  LoaderExhaustion, // where this rank's data loader stands (`begin`/`end`)
  BatchCount,       // what a loop over this rank's data loader leaves behind
  ProcessEvent,     // what reaches each process on its own: a flag a signal
                    // handler sets, a clock
};
constexpr unsigned NumDivergenceSources = 8;

/// A value's divergence: the sources it depends on (each with one place
/// where it came in, for notes) and, inside a function summary, the
/// parameters it depends on.
class Divergence {
public:
  static Divergence seed(DivergenceSource S, const Stmt *Origin);
  static Divergence parameter(unsigned Index);
  /// What a field of the object held when the method was entered: a
  /// method follows its object's fields in order, like locals, starting
  /// from what the other methods leave in them.
  static Divergence onEntry();

  /// Whether the value can differ between ranks.
  bool diverges() const { return Sources != 0; }
  bool has(DivergenceSource S) const { return Sources & bit(S); }
  /// The source a diagnostic explains: the rank before the rest.
  DivergenceSource primary() const;
  const Stmt *origin(DivergenceSource S) const {
    return Origins[static_cast<unsigned>(S)];
  }
  uint64_t parameters() const { return Params; }
  /// Whether the only source is \p S.
  bool onlyFrom(DivergenceSource S) const { return Sources == bit(S); }
  /// Whether the value still holds what its field held on entry.
  bool heldOnEntry() const { return OnEntry; }
  void forgetEntry() { OnEntry = false; }

  /// Joins \p Other in; returns whether anything was added.
  bool merge(const Divergence &Other);
  /// Forgets source \p S.
  void drop(DivergenceSource S);
  /// The sources alone, without parameters (or the value held on entry).
  Divergence sourcesOnly() const;
  /// The same sources, all entering at \p Origin (a call of a helper).
  Divergence through(const Stmt *Origin) const;

private:
  static uint8_t bit(DivergenceSource S) {
    return uint8_t(1u << static_cast<unsigned>(S));
  }
  uint8_t Sources = 0;
  bool OnEntry = false;
  uint64_t Params = 0;
  std::array<const Stmt *, NumDivergenceSources> Origins{};
};

/// The parts of `for (i = lo; i < hi; ...)` (`<=`, `!=` too) stepped by
/// `++` or `+= s` (Step null for `++`).
struct CountedLoop {
  const VarDecl *Counter = nullptr;
  const Expr *Low = nullptr, *High = nullptr, *Step = nullptr;
  BinaryOperatorKind Compare = BO_LT;
};

/// \p For's parts, where it is of that shape (DivergenceTripCount.cpp).
std::optional<CountedLoop> countedLoop(const ForStmt &For);

class FunctionDivergence;

/// The analysis of one translation unit: collective sites, per-function
/// flow facts and the summaries that connect them (memoised).
class DivergenceAnalysis {
public:
  DivergenceAnalysis(const Vocabulary &Vocab, ASTContext &Context);
  ~DivergenceAnalysis();

  /// The collectives of this translation unit.
  CollectiveSites &sites() { return Sites; }
  /// Which reference parameters the unit's functions write.
  ParameterWrites &writes() { return Writes; }
  /// The flow facts of a function with a body; null when there is none or
  /// the CFG cannot be built.
  FunctionDivergence *function(const FunctionDecl &FD);

  const Vocabulary &vocabulary() const { return Vocab; }
  ASTContext &context() const { return Context; }
  /// The statements of \p FD's body by parent (lambda bodies included).
  /// ASTContext::getParents would map the whole translation unit, LibTorch's
  /// headers with it, on first use.
  const ParentMap &parents(const FunctionDecl &FD);

  // Summaries used while analysing a function.
  /// What \p FD returns, in terms of its parameters.
  Divergence returned(const FunctionDecl &FD);
  /// What \p FD leaves in what its reference or pointer parameter \p Index
  /// refers to when it returns, in terms of its parameters (the parameter's
  /// own incoming value where a path leaves it alone); none when \p FD has
  /// no body here or is being analysed.
  std::optional<Divergence> written(const FunctionDecl &FD, unsigned Index);
  /// Whether \p V is a variable a signal handler of this unit writes: each
  /// process receives its own signals, so what it holds differs between
  /// ranks.
  bool isSignalFlag(const VarDecl &V);
  /// For an object built by \p Ctor and iterated (begin/end) or sized: the
  /// constructor's parameters that reach the fields its class's begin(),
  /// end() or size() read (bit I: parameter I); none when a body is out of
  /// sight. `ProgressRange(n, show)` runs n times whatever `show` is.
  std::optional<uint64_t> extentParameters(const CXXConstructorDecl &Ctor);
  /// Of an expression that makes an object (a construction, a call of a
  /// function that returns one): the arguments that decide its extent;
  /// none when that is not known.
  std::optional<llvm::SmallVector<const Expr *, 4>>
  extentArguments(const Expr *E);
  /// For an object a function of the unit returns: the parameters that
  /// decide the extent of what it returns (`trange(n, show)` returns
  /// `tqdm(range(n), show)`); none when that is not known.
  std::optional<uint64_t> returnedExtentParameters(const FunctionDecl &FD);
  /// What a field of a user class holds: what each method of its class
  /// that assigns it leaves in it when it returns, and what constructors
  /// initialise it with.
  Divergence field(const FieldDecl &FD);
  /// \p D with its parameter dependences replaced by what the callers in
  /// this translation unit pass for those parameters (through their own
  /// callers in turn).
  Divergence fromCallers(const FunctionDecl &FD, const Divergence &D);
  /// The fields of the struct that \p FD's parameter \p Index points or
  /// refers to which \p FD writes, each with what it writes there (in terms
  /// of \p FD's parameters); null when \p FD writes the struct in a way this
  /// does not follow (whole, through an alias, through code out of sight).
  using FieldWrites =
      llvm::SmallVector<std::pair<const FieldDecl *, Divergence>, 8>;
  const FieldWrites *fieldWrites(const FunctionDecl &FD, unsigned Index);

  /// Whether the communicator \p Comm holds is made of some of the ranks
  /// only, chosen by what differs between them: a split by a colour that
  /// depends on the rank, the ranks of one node, a group. A parameter is
  /// one when every caller in the unit passes one.
  bool isSubgroupCommunicator(const ValueDecl &Comm, unsigned Depth = 0);
  /// Of a variable a rank query writes (`MPI_Comm_rank(sub, &r)`), the
  /// communicator asked (sub; null where no variable holds it, as
  /// MPI_COMM_WORLD); none for any other variable.
  std::optional<const ValueDecl *> rankCommunicator(const ValueDecl &Rank);

private:
  struct CallSite {
    const FunctionDecl *Caller;
    const CallExpr *Call;
  };
  /// What the unit's communicator splits and rank queries write.
  struct CommunicatorFacts {
    /// By the communicator written: whether every split that writes it
    /// picks some ranks by what differs between them.
    llvm::DenseMap<const ValueDecl *, bool> Subgroups;
    /// By the rank variable written: the communicator asked, or null.
    llvm::DenseMap<const ValueDecl *, const ValueDecl *> RankOf;
  };
  const CommunicatorFacts &communicatorFacts();
  Divergence passedFor(const FunctionDecl &FD, unsigned Index);
  /// The parameters of \p Def that decide the extent of the object \p E
  /// makes: of a construction or a call whose extent is known, those its
  /// deciding arguments mention; else every one \p E mentions.
  uint64_t extentParametersIn(const FunctionDecl &Def, const Expr *E);
  const std::vector<CallSite> &callersOf(const FunctionDecl &FD);

  const Vocabulary &Vocab;
  ASTContext &Context;
  CollectiveSites Sites;
  ParameterWrites Writes;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionDivergence>>
      Functions;
  llvm::DenseSet<const FunctionDecl *> InProgress;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<ParentMap>> Parents;
  llvm::DenseMap<const FieldDecl *, Divergence> Fields;
  llvm::DenseSet<const FieldDecl *> FieldsInProgress;
  /// Analyses made on the side while the same function was in progress.
  std::vector<std::unique_ptr<FunctionDivergence>> Scratch;
  /// Calls in user code by callee (canonical declaration); built on first
  /// use.
  std::optional<llvm::DenseMap<const FunctionDecl *, std::vector<CallSite>>>
      Callers;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, Divergence>
      Passed;
  std::optional<llvm::DenseSet<const VarDecl *>> SignalFlags;
  std::optional<CommunicatorFacts> Communicators;
  llvm::DenseMap<const CXXConstructorDecl *, std::optional<uint64_t>> Extents;
  llvm::DenseMap<const FunctionDecl *, std::optional<uint64_t>>
      ReturnedExtents;
  /// Node-based: callers keep pointers to summaries while others are made.
  std::map<std::pair<const FunctionDecl *, unsigned>,
           std::optional<FieldWrites>>
      FieldWriteSummaries;
};

/// Divergence facts of one function body, on its CFG.
class FunctionDivergence {
public:
  FunctionDivergence(DivergenceAnalysis &Owner, const FunctionDecl &FD);
  ~FunctionDivergence();

  bool valid() const { return Cfg != nullptr; }
  const CFG &cfg() const { return *Cfg; }
  const FunctionDecl &function() const { return Function; }

  /// The block whose elements evaluate \p S (or its closest enclosing
  /// statement); null when the CFG does not hold it.
  const CFGBlock *blockOf(const Stmt *S) const;
  /// The divergence of an expression of this function where it is
  /// evaluated (joined over every path).
  Divergence value(const Expr *E) const;
  /// What the function returns.
  const Divergence &returned() const { return Returned; }
  /// What parameter \p Index (a reference or pointer) refers to at the
  /// function's exit.
  Divergence writtenAtExit(unsigned Index) const;
  /// Whether this method follows its object's field \p F in order (it
  /// assigns it), and what it leaves there when it returns: its last
  /// writes, with the conditions that decide them; none when it does not.
  std::optional<Divergence> ownFieldAtExit(const FieldDecl &F) const;
  /// The divergence added by control at \p S: the conditions that decide
  /// whether it runs.
  Divergence implicitAt(const Stmt *S);

  /// The condition a branch block tests (for a range-for, its range);
  /// null for blocks that do not branch on a condition.
  const Expr *condition(const CFGBlock &Branch) const;
  Divergence conditionValue(const CFGBlock &Branch) const;
  /// What decides how often a counted loop `for (i = lo; i < hi; i += s)`
  /// runs: what is left of hi - lo once the terms both bounds share
  /// cancel, and s; none when the loop is not of that shape.
  std::optional<Divergence> tripCountValue(const ForStmt &For) const;
  /// A loop that runs once per batch of a data loader: its condition only
  /// asks whether the loader is exhausted (a range-for over a loader,
  /// `it != loader->end()`). Distributed samplers give every rank the same
  /// number of batches, so such a loop is taken as uniform.
  bool isLoaderLoop(const CFGBlock &Branch) const;
  /// The branch blocks that decide whether \p Block runs (transitive
  /// control dependence, leaving out sides that can only abort), nearest
  /// first.
  llvm::ArrayRef<const CFGBlock *> controllingBranches(const CFGBlock &Block);
  /// Whether a block \p Target accepts (the function's exit when null) can
  /// run after \p Start, itself included, on a path that runs no block
  /// \p Avoid accepts (paths that end the process do not count). With
  /// \p Together, neither do edges a process takes only when it is alone
  /// (isAloneEdge).
  bool reachesAvoiding(const CFGBlock &Start,
                       llvm::function_ref<bool(const CFGBlock &)> Target,
                       llvm::function_ref<bool(const CFGBlock &)> Avoid,
                       bool Together = false) const;
  /// The block where the paths out of \p Branch meet again; null when they
  /// only meet at the function's exit through different routes.
  const CFGBlock *joinOf(const CFGBlock &Branch) const;
  /// Where the paths out of \p Branch that go on meet again: a path that
  /// ends the process (a check macro's `exit()`, a call that does not
  /// return) does not count, so that a `CHECK(collective)` under a branch
  /// is not taken as meeting the one after it. Null when there is none.
  const CFGBlock *continuingJoinOf(const CFGBlock &Branch);
  /// Whether the edge from \p Branch to \p Succ is taken only where a
  /// communicator handle this function issues collectives through is null
  /// (`if (mpi_) mpi_->bcast(...)`): a process without one is alone, and
  /// nothing it computes can differ from another rank's.
  bool isAloneEdge(const CFGBlock &Branch, const CFGBlock &Succ) const;

private:
  class Transfer;

  void collectFacts();
  /// A range-for's variable: a batch of a data loader, or a parameter.
  void collectLoopVariable(const CXXForRangeStmt &For);
  /// A member call's communicator handle, and the storage a container
  /// insertion shares with the container.
  void collectMemberCall(const CXXMemberCallExpr &Member);
  /// Records that \p V shares the storage of what \p Shared designates.
  void addAliases(const VarDecl &V, const Expr *Shared);
  void run();
  void processBlock(const CFGBlock &B);
  Divergence evaluate(const Expr *E);
  /// The value this pass recorded for \p E, else \p E evaluated now.
  Divergence valueOf(const Expr *E);
  /// What the subexpressions of \p E hold together.
  Divergence childrenValue(const Expr &E);
  Divergence evaluateMember(const MemberExpr &ME);
  Divergence evaluateCall(const CallExpr &Call);
  /// The steps of evaluateCall for one kind of callee (\p Object: the
  /// object of a member call); none when the callee is not of that kind.
  /// A tensor's gradient, whether it has one, its shape.
  std::optional<Divergence> tensorQueryValue(const CallExpr &Call,
                                             const FunctionDecl &FD,
                                             const Expr *Object);
  /// How many elements a container holds, where it or a data loader
  /// begins and ends.
  std::optional<Divergence> extentValue(const CallExpr &Call,
                                        const FunctionDecl &FD,
                                        const Expr *Object);
  /// A function of user code: its summary, a rank getter, one handed the
  /// communicator.
  std::optional<Divergence> userCallValue(const CallExpr &Call,
                                          const FunctionDecl &FD,
                                          const Expr *Object);
  /// A local variable, or one field of a local struct (`stats.loss`): the
  /// places the flow keeps values in.
  using Slot = std::pair<const VarDecl *, const FieldDecl *>;
  /// The value of a whole variable: itself and its fields, but not a rank
  /// kept in a field (a context struct's `rank`, a `device` index picked
  /// from the rank): that is what the struct is, not data it carries, and
  /// reading its other fields (`world_size`) gives uniform values.
  Divergence read(const VarDecl *V) const;
  /// How many elements the container \p E holds, where it begins and ends:
  /// what its elements hold left out (`counts[rank] = n` changes a value,
  /// not the size). \p E is followed through references bound to it (a
  /// range-for's range).
  Divergence extentOf(const Expr *E);
  /// For an object built here (`ProgressRange(n, rank == 0)`): what the
  /// constructor arguments that decide its extent hold; none when that is
  /// not known.
  std::optional<Divergence> constructedExtent(const Expr *E);
  /// A module's `parameters()`, `named_parameters()`, `buffers()`: as many
  /// tensors as its class registers, whatever values (sizes, a device, an
  /// environment's settings) it was built from.
  static bool isModuleTensorList(const Expr *E);
  /// The slot of a container's elements, apart from the container itself:
  /// what `v[i] = x` writes.
  static const FieldDecl *elementsSlot() {
    return reinterpret_cast<const FieldDecl *>(uintptr_t(8));
  }
  /// The variable of the slots of the object's own fields that a method
  /// assigns (`this->f`): they are followed in order, as locals are.
  static const VarDecl *objectSlot() {
    return reinterpret_cast<const VarDecl *>(uintptr_t(16));
  }
  /// The value of `this->f` here: the slot's, and what the field held on
  /// entry where the method has not assigned it yet on some path.
  Divergence readOwnField(const FieldDecl &F, const MemberExpr &ME);
  Divergence readField(const VarDecl *V, const FieldDecl *F) const;
  bool isLocal(const VarDecl *V) const;
  /// The slot an assignment to \p E writes: `v` (exact), `v.f` (exact),
  /// `v.f.g`, `v[i]`, `v.f[i]` (updates), `this->f` and what is rooted in
  /// it when the method assigns `f` (objectSlot()); a null variable when
  /// \p E is rooted in neither.
  Slot rootLocal(const Expr *E, bool &Exact) const;
  /// The field of the object whose storage \p E designates (`&f`, `f`,
  /// `f[i]`, `f.data()`), when the method follows it in order.
  const FieldDecl *ownFieldRoot(const Expr *E) const;
  void storageRoots(const Expr *E, llvm::SmallVectorImpl<const VarDecl *> &Out,
                    unsigned Depth = 0) const;
  bool isGradient(const Expr *E, unsigned Depth = 0) const;
  /// A field a homegrown autograd keeps a gradient in (`meta->grad_`), by
  /// its name: testing it for null asks whether this rank has a gradient.
  bool isGradientStorage(const Expr *E) const;
  bool isParameterLike(const Expr *E, unsigned Depth = 0) const;
  bool isHookParameter(const ParmVarDecl &P) const;
  /// Records the value of \p S (an expression) and applies what it does to
  /// the flow state (FunctionDivergence::Transfer).
  void transfer(const Stmt *S, const CFGBlock &B);
  /// `optimizer.step([&] { ...; loss_value = loss.item<double>(); ... })`:
  /// the closure runs inside the step, so what it assigns to this
  /// function's locals through by-reference captures is assigned at the
  /// step.
  void closureAssignments(const CallExpr &Step, const CFGBlock &B);
  /// The value of an expression of such a closure, in this function's
  /// terms: its locals, its batches, and the closure's own locals followed
  /// to their initialisers.
  /// A closure's local handed to a collective in \p Body holds the same
  /// on every rank afterwards.
  Divergence closureValue(const Expr *E, const Stmt &Body, unsigned Depth);
  void define(Slot Where, Divergence D, bool Overwrite, const CFGBlock &B);
  void clear(const VarDecl *V);
  void sanitize(const CollectiveSite &Site, const CallExpr &Call);
  Divergence implicitIn(const CFGBlock &B);
  /// Whether a side of \p Branch can finish the function normally without
  /// running \p Block.
  bool bypasses(const CFGBlock &Branch, const CFGBlock &Block);

  DivergenceAnalysis &Owner;
  const Vocabulary &Vocab;
  const FunctionDecl &Function;
  std::unique_ptr<CFG> Cfg;
  std::unique_ptr<ControlDependencyCalculator> Control;
  std::unique_ptr<CFGPostDomTree> PostDom;
  /// Blocks that call backward(), and the dominators that say what runs
  /// after one on every path (built only where there is one).
  llvm::SmallVector<const CFGBlock *, 2> BackwardBlocks;
  std::unique_ptr<CFGDomTree> Dom;
  /// Whether every path to \p S runs a backward() first: each parameter
  /// the model's forward used then has a gradient, on every rank alike.
  bool afterBackward(const Stmt *S) const;

  using State = llvm::DenseMap<Slot, Divergence>;
  llvm::DenseMap<const Stmt *, const CFGBlock *> BlockOf;
  llvm::DenseMap<const Expr *, Divergence> Values;
  llvm::DenseMap<const CFGBlock *, State> Out;
  llvm::DenseMap<const CFGBlock *, llvm::SmallVector<const CFGBlock *, 8>>
      Controllers;
  llvm::DenseMap<std::pair<const CFGBlock *, const CFGBlock *>, bool>
      Bypasses;
  /// Range-for loop variables over data loaders, with the loop.
  llvm::DenseMap<const VarDecl *, const CXXForRangeStmt *> BatchVariables;
  /// Range-for loop variables over parameters (or containers named so).
  llvm::DenseSet<const VarDecl *> ParameterVariables;
  /// What decides how often each counted loop runs (the expressions left
  /// of hi - lo, and the step), worked out once per loop; none when the
  /// loop is not of that shape (DivergenceTripCount.cpp).
  mutable llvm::DenseMap<const ForStmt *,
                         std::optional<llvm::SmallVector<const Expr *, 8>>>
      TripCounts;
  /// Counters a `for` declares with a constant start (`for (int r = 0; r <
  /// world; ++r)`): every rank counts alike, whatever the name says.
  llvm::DenseSet<const VarDecl *> LoopCounters;
  /// Handles (locals, fields) whose member calls issue collectives, and
  /// those of a communicator type.
  llvm::DenseSet<const ValueDecl *> CommunicatorHandles;
  /// Containers and tensors whose elements or storage another variable
  /// shares (`std::vector<at::Tensor> tensors{grad}`): tensors -> grad.
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const VarDecl *, 2>>
      Aliases;
  /// Branch blocks by the block where their paths meet again.
  llvm::DenseMap<const CFGBlock *, llvm::SmallVector<const CFGBlock *, 2>>
      JoinsAt;
  /// Blocks that modify each slot.
  llvm::DenseMap<Slot, llvm::SmallVector<const CFGBlock *, 4>> Modified;
  /// The object's fields this method assigns, followed in order.
  llvm::DenseSet<const FieldDecl *> OwnFields;
  /// Loops that assign every element of arrays, by the loop: `for (i = 0;
  /// i < n; ++i) a[i] = ...;` at the top of the body, with no way out
  /// before the end of an iteration. Leaving such a loop with a trip count
  /// alike on every rank, the array holds what the assignment wrote, not
  /// what it held before.
  llvm::DenseMap<const Stmt *,
                 llvm::SmallVector<std::pair<Slot, const BinaryOperator *>, 2>>
      RewriteLoops;
  /// What each of those assignments wrote, at its last visit.
  llvm::DenseMap<const BinaryOperator *, Divergence> Rewritten;
  void collectRewriteLoop(const ForStmt &For);
  /// What leaving \p Loop (a branch) for \p Exit puts in the slots it
  /// rewrites; empty when the loop rewrites nothing or its trip count may
  /// differ between ranks.
  llvm::SmallVector<std::pair<Slot, Divergence>, 2>
  rewrittenOnExit(const CFGBlock &Loop, const CFGBlock &Exit) const;
  /// Adds what \p Pred leaves to \p B's incoming state (Current), with the
  /// slots a loop rewrites replaced on the edge that leaves it.
  void mergeEdge(const CFGBlock &Pred, const CFGBlock &B);
  State Current;
  Divergence Returned;
  bool Changed = false;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_DIVERGENCE_H
