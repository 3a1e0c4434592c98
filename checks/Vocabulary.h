//===--- Vocabulary.h - LibTorch and c10d as the ddp checks see them ------===//
//
// The one place that knows LibTorch and its neighbours: module handles,
// parameter collections, collectives (c10d 1.x and 2.x, MPI, NCCL,
// boost::mpi, configured extras), rank sources, data-parallel wrappers and
// samplers. Every check asks this class instead of spelling names itself.
//
// Each classifier is a plain function on the AST, so flow analyses can call
// it; the AST matchers at the bottom wrap the same functions, so a matcher and
// a classifier can never disagree.
//
// The option names are shared by every check and read with
// getLocalOrGlobal: one top-level CheckOptions entry (`WrapperTypes`,
// `CollectiveFunctions`, ...) configures all checks at once.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_H
#define DDPLINT_CHECKS_VOCABULARY_H

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/GlobPattern.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::ddp {

/// A `;`-separated list of declaration names. An entry containing `::` is
/// matched against the fully qualified name (a leading `::` is optional),
/// any other entry against the unqualified name; both may use glob
/// wildcards (`*DDP*`).
class NameList {
public:
  NameList() = default;
  explicit NameList(llvm::StringRef Spec);

  bool matches(const NamedDecl &D) const;
  bool matchesName(llvm::StringRef Unqualified,
                   llvm::StringRef Qualified) const;
  const std::string &spec() const { return Spec; }

private:
  struct Entry {
    llvm::GlobPattern Pattern;
    bool Qualified;
  };
  std::string Spec;
  std::vector<Entry> Entries;
};

enum class CollectiveKind {
  AllReduce,
  Broadcast,
  AllGather,
  Gather,
  Scatter,
  Reduce,
  ReduceScatter,
  AllToAll,
  Barrier,
};

enum class CollectiveApi { C10d, Mpi, Nccl, BoostMpi, Configured };

struct CollectiveInfo {
  CollectiveKind Kind;
  CollectiveApi Api;
  /// Completes later: a c10d `Work`, an `MPI_Request`, an NCCL stream.
  bool Asynchronous;
};

llvm::StringRef collectiveKindName(CollectiveKind K);
llvm::StringRef collectiveApiName(CollectiveApi A);

enum class ParameterCollection { Parameters, NamedParameters };

class Vocabulary {
public:
  explicit Vocabulary(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  // --- Modules -----------------------------------------------------------
  /// `torch::nn::Module` or a class derived from it.
  static bool isModuleClass(const CXXRecordDecl &RD);
  /// The module class a handle refers to: `XImpl` for a `TORCH_MODULE`
  /// holder `X` (a `ModuleHolder<XImpl>`), `std::shared_ptr<XImpl>`,
  /// `XImpl&`, `XImpl*`; null if the type is no module handle.
  static const CXXRecordDecl *moduleClassOfHandle(QualType T);
  /// A forward pass: `m->forward(x)`, `m(x)`, `(*m)(x)`, `m.forward(x)` on a
  /// module handle or a wrapper. Returns the expression of the module or
  /// wrapper it runs on, or null.
  const Expr *forwardReceiver(const CallExpr &Call) const;

  // --- Module lifecycle -------------------------------------------------
  /// `m->to(device)`, `m->to(dtype)`, `m->to(device, dtype)` on a module:
  /// the module expression, or null. \p Method receives the `to` called (a
  /// wrapper may override it).
  static const Expr *moduleMoveReceiver(const CallExpr &Call,
                                        const CXXMethodDecl **Method = nullptr);
  /// `register_module`, `register_parameter`, `register_buffer`,
  /// `replace_module` on a module: the module expression, or null.
  static const Expr *structuralChangeReceiver(const CallExpr &Call);
  /// `loss.backward()`, `torch::autograd::backward(...)`.
  static bool isBackwardCall(const CallExpr &Call);
  /// One `at::Tensor` (also behind a reference), not a container of them.
  static bool isTensor(QualType T);
  /// A tensor changed in place: `t.add_(...)`, `copy_`, `fill_`, `mul_`,
  /// `set_data`, `normal_`, ..., `torch::nn::init::*(t, ...)`, and
  /// `t.data() = ...`. Returns the tensor expression, or null.
  static const Expr *inPlaceChangeTarget(const Expr &E);
  /// `torch::manual_seed(s)` and its CUDA relatives: the seed argument, or
  /// null.
  static const Expr *seedArgument(const CallExpr &Call);
  /// `torch::load(module, path)`: the module loaded into, or null.
  static const Expr *moduleLoadTarget(const CallExpr &Call);
  /// A value that differs between ranks by construction: `torch::rand*`,
  /// `randn*`, `randint`, `randperm`, `bernoulli`, in-place `normal_`,
  /// `uniform_`, and the random `torch::nn::init` functions.
  static bool isRandomSource(const CallExpr &Call);
  /// A handle used with `->`: a pointer, `std::shared_ptr`,
  /// `std::unique_ptr`, `c10::intrusive_ptr` or a `TORCH_MODULE` holder.
  static bool isPointerLikeHandle(QualType T);

  // --- Parameters and gradients -----------------------------------------
  static std::optional<ParameterCollection>
  parameterCollection(const CallExpr &Call);
  /// `t.grad()` or `t.mutable_grad()` on a tensor.
  static bool isGradAccess(const CallExpr &Call);
  /// The loop variable of `for (auto &p : m->parameters())` or of a
  /// `named_parameters()` loop; null for other loops.
  static const VarDecl *parameterLoopVariable(const CXXForRangeStmt &Loop);
  /// The parameter tensor an expression denotes inside such a loop:
  /// `p` or `p.value()` (named_parameters items).
  static const VarDecl *parameterTensorVariable(const Expr *E);

  // --- Collectives and process groups -----------------------------------
  std::optional<CollectiveInfo> classifyCollective(const CallExpr &Call) const;
  /// A type holding an asynchronous collective's handle: c10d `Work`
  /// (`c10::intrusive_ptr<Work>`, `std::shared_ptr<ProcessGroup::Work>`),
  /// or `MPI_Request`.
  static bool isWorkType(QualType T);
  /// `work->wait()`, `MPI_Wait(&req, ...)`, `MPI_Waitall(...)`.
  static bool isWaitCall(const CallExpr &Call);
  /// c10d process groups and backends (1.x `ProcessGroup`, 2.x `Backend`).
  static bool isProcessGroupClass(const CXXRecordDecl &RD);
  /// The process-group class behind a handle (object, reference, pointer,
  /// `c10::intrusive_ptr`, `std::shared_ptr`), or null.
  static const CXXRecordDecl *processGroupOfHandle(QualType T);

  // --- Rank sources -----------------------------------------------------
  /// A call whose value is the rank (`pg->getRank()`,
  /// `std::getenv("RANK")`, `comm.rank()`).
  bool returnsRank(const CallExpr &Call) const;
  /// For rank queries that write through a pointer (`MPI_Comm_rank(c,
  /// &rank)`), the argument written; null otherwise.
  const Expr *rankOutputArgument(const CallExpr &Call) const;
  /// A variable, field, parameter or function whose name says it holds the
  /// rank: `rank`, `rank_`, `local_rank`, `myRank`, `getRank` (the last word,
  /// after a leading `get`, is "rank", and no word names another process:
  /// `root_rank`, `src_rank` and `dst_rank` are not this process's rank), a
  /// `bool` named like `is_main` / `isMaster` / `is_root_process`, or a name
  /// in `RankVariables`.
  bool isRankName(const NamedDecl &D) const;
  /// A call of a function that reads an environment variable named in
  /// `RankEnvironmentVariables`, when the variable name is passed as a string
  /// literal to a helper (`env_int("RANK", 0)`): the helper is `getenv`
  /// itself or a function named like an environment accessor (`*env*`).
  bool readsRankEnvironment(const CallExpr &Call) const;
  /// A type that names a communicator: a c10d process group (any handle),
  /// `MPI_Comm`, `ncclComm_t` or `boost::mpi::communicator`.
  static bool isCommunicatorType(QualType T);
  /// Whether \p S mentions the rank: a rank query, a rank environment
  /// variable, a rank-named variable, field or function, or a local
  /// initialised from one of those.
  bool mentionsRank(const Stmt *S) const;

  // --- Data-parallel wrappers -------------------------------------------
  bool isWrapperClass(const CXXRecordDecl &RD) const;
  /// The wrapper class of a wrapper handle (object, holder, smart pointer,
  /// reference or pointer), or null.
  const CXXRecordDecl *wrapperClassOfHandle(QualType T) const;
  /// `ddp->module()`, `ddp.module_`, ...: an inner-module accessor used on
  /// a wrapper. Returns the wrapper expression, or null.
  const Expr *innerModuleAccessBase(const Expr *E) const;

  // --- Tensors ----------------------------------------------------------
  /// `at::Tensor` / `at::TensorBase` (and so `torch::Tensor`).
  static bool isTensorClass(const CXXRecordDecl &RD);
  /// A call of a tensor method that reports its shape: `numel()`,
  /// `size(d)`, `sizes()`, `dim()`.
  static bool isTensorShapeQuery(const CallExpr &Call);

  // --- Samplers and data loaders ----------------------------------------
  /// `torch::data::DataLoaderBase` and the loaders derived from it
  /// (`StatelessDataLoader`, `StatefulDataLoader`).
  static bool isDataLoaderClass(const CXXRecordDecl &RD);
  /// The data-loader class behind a handle (object, reference, pointer,
  /// `std::unique_ptr`), or null.
  static const CXXRecordDecl *dataLoaderOfHandle(QualType T);
  /// `DistributedSampler<>` or a class derived from it.
  static bool isDistributedSampler(const CXXRecordDecl &RD);
  /// A distributed sampler whose order depends on its epoch
  /// (`ShufflingSamplers`, by default `DistributedRandomSampler`).
  bool isShufflingSampler(const CXXRecordDecl &RD) const;
  /// `torch::data::make_data_loader`.
  static bool isDataLoaderFactory(const FunctionDecl &FD);
  /// For `make_data_loader(dataset, sampler, options)`: the sampler argument
  /// (copied into the loader). Null for other calls.
  static const Expr *copiedSamplerArgument(const CallExpr &Call);
  /// For `make_data_loader<S>(dataset, options)`: the sampler class `S` the
  /// factory default-constructs from the dataset size. Null otherwise.
  static const CXXRecordDecl *
  defaultConstructedSampler(const CallExpr &Call);
  /// The sampler class of a data-loader type: `S` in
  /// `StatelessDataLoader<D, S>` (also through `std::unique_ptr`,
  /// references and pointers); null for other types.
  static const CXXRecordDecl *samplerOfLoaderType(QualType T);

  // --- Steps, pending work and gradient hooks ---------------------------
  /// `optimizer.step()` on a `torch::optim::Optimizer` (or a subclass).
  static bool isOptimizerStep(const CallExpr &Call);
  /// For `t.register_hook(fn)` on a tensor: the hook, which runs with the
  /// tensor's gradient; null otherwise.
  static const Expr *gradientHook(const CallExpr &Call);
  /// Brackets that fuse the collectives issued between them into one:
  /// `ncclGroupStart()` / `ncclGroupEnd()`, c10d's `startCoalescing()` /
  /// `endCoalescing()`. True for an opening, false for a closing call.
  static std::optional<bool> coalescingBracket(const CallExpr &Call);
  /// A tensor (`at::Tensor`, `at::TensorBase`), or a container of them.
  static bool isTensorType(QualType T);
  /// What a wait call waits on: the `Work` of `work->wait()`, the request
  /// of `MPI_Wait(&req, ...)`, the request array of `MPI_Waitall(n, reqs,
  /// ...)`, the stream of `cudaStreamSynchronize(s)`; null otherwise.
  static const Expr *waitedObject(const CallExpr &Call);
  /// For a non-blocking MPI collective (`MPI_Iallreduce(..., &req)`): the
  /// argument that receives its request; null otherwise.
  const Expr *requestArgument(const CallExpr &Call) const;

private:
  struct ConfiguredCollective {
    NameList Name;
    CollectiveKind Kind;
  };
  struct RankFunction {
    NameList Name;
    int OutputArgument; // -1: the rank is the return value
  };

  NameList WrapperTypes;
  NameList InnerModuleAccessors;
  std::string CollectiveFunctionsSpec;
  std::vector<ConfiguredCollective> ConfiguredCollectives;
  std::string RankFunctionsSpec;
  std::vector<RankFunction> RankFunctions;
  std::string RankEnvironmentVariablesSpec;
  std::vector<std::string> RankEnvironmentVariables;
  NameList RankVariables;
  NameList ShufflingSamplers;
};

// --- Small AST helpers shared by the checks ------------------------------

/// Strips parentheses, implicit casts, and no-op wrappers that do not change
/// which object an expression denotes (`std::move`, materialised
/// temporaries, cleanups, constructor copies).
const Expr *stripObjectWrappers(const Expr *E);
/// The record a type holds: by value, through a reference, a raw pointer,
/// `std::shared_ptr`, `std::unique_ptr` or `c10::intrusive_ptr`; or null.
const CXXRecordDecl *pointeeRecord(QualType T);
/// The variable or field an expression names after stripObjectWrappers
/// (`x`, `this->x_`, `x_`), or null.
const ValueDecl *referencedDecl(const Expr *E);
/// The variable or field a handle expression names, seeing through `.ptr()`,
/// `.get()`, `*h`, `&h` and `h.operator->()` as well: the module behind
/// `model.ptr()`, the loader behind `*loader`, the sampler behind `s->`.
const ValueDecl *handleDecl(const Expr *E);
/// The expression a handle expression is reached through, with `.ptr()`,
/// `.get()`, `*h`, `&h` and `h.operator->()` peeled off: `ddp.module()` for
/// `ddp.module()->` and `*ddp.module()`.
const Expr *peelHandle(const Expr *E);

// --- Matchers over the same classifiers ----------------------------------
namespace matchers {
using namespace clang::ast_matchers;

AST_MATCHER_P(CallExpr, isCollective, const Vocabulary *, Vocab) {
  return Vocab->classifyCollective(Node).has_value();
}
AST_MATCHER_P(CallExpr, isRankQuery, const Vocabulary *, Vocab) {
  return Vocab->returnsRank(Node) || Vocab->rankOutputArgument(Node);
}
AST_MATCHER_P(CallExpr, isForwardPass, const Vocabulary *, Vocab) {
  return Vocab->forwardReceiver(Node) != nullptr;
}
AST_MATCHER(CallExpr, isParameterCollection) {
  return Vocabulary::parameterCollection(Node).has_value();
}
AST_MATCHER(CallExpr, isGradAccess) { return Vocabulary::isGradAccess(Node); }
AST_MATCHER_P(CXXRecordDecl, isWrapper, const Vocabulary *, Vocab) {
  return Vocab->isWrapperClass(Node);
}
AST_MATCHER(CXXRecordDecl, isDistributedSampler) {
  return Vocabulary::isDistributedSampler(Node);
}
AST_MATCHER_P(CXXRecordDecl, isShufflingSampler, const Vocabulary *, Vocab) {
  return Vocab->isShufflingSampler(Node);
}
AST_MATCHER(FunctionDecl, isDataLoaderFactory) {
  return Vocabulary::isDataLoaderFactory(Node);
}
/// A type whose values are data loaders over a sampler matching InnerMatcher.
AST_MATCHER_P(QualType, isDataLoaderOver,
              ast_matchers::internal::Matcher<CXXRecordDecl>, InnerMatcher) {
  const CXXRecordDecl *Sampler = Vocabulary::samplerOfLoaderType(Node);
  return Sampler && InnerMatcher.matches(*Sampler, Finder, Builder);
}

} // namespace matchers
} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_H
