//===--- Vocabulary.h - LibTorch and c10d as the ddp checks see them ------===//
//
// The one place that knows LibTorch and its neighbours: module handles,
// parameter collections, collectives (c10d 1.x and 2.x, MPI, NCCL,
// boost::mpi, configured extras), rank sources, data-parallel wrappers and
// samplers. Every check asks this class instead of spelling names itself.
//
// Each classifier is a plain function on the AST, so flow analyses can call
// it; the AST matchers in VocabularyMatchers.h wrap the same functions, so a
// matcher and a classifier can never disagree. The value types the
// classifiers return are in VocabularyTypes.h, the small AST helpers the
// checks share in VocabularyHelpers.h; this header includes all three.
//
// The option names are shared by every check and read with
// getLocalOrGlobal: one top-level CheckOptions entry (`WrapperTypes`,
// `CollectiveFunctions`, ...) configures all checks at once.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_H
#define DDPLINT_CHECKS_VOCABULARY_H

#include "vocabulary/VocabularyHelpers.h"
#include "vocabulary/VocabularySdk.h"
#include "vocabulary/VocabularyStreams.h"
#include "vocabulary/VocabularyTypes.h"
#include "vocabulary/NameList.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::ddp {

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
  /// LibTorch's own modules without parameters (losses, activations,
  /// pooling, dropout): building one per rank starts nothing apart.
  static bool holdsNoParameters(const CXXRecordDecl &ModuleClass);
  /// Names for gradients where `grad()` is not spelled (`grad_weight`,
  /// `nabla_w`, `dw_`; no bucket); namesSyncedTensor adds parameters.
  static bool namesGradients(llvm::StringRef Name);
  static bool namesSyncedTensor(llvm::StringRef Name);
  /// A forward pass: `m->forward(x)`, `m(x)`, `(*m)(x)`, `m.forward(x)` on a
  /// module handle or a wrapper. Returns the expression of the module or
  /// wrapper it runs on, or null.
  const Expr *forwardReceiver(const CallExpr &Call) const;
  /// The name of the method a module's (or a wrapper's) call runs:
  /// `forward`.
  static bool isForwardMethodName(llvm::StringRef Name);

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
  /// The callee of a member call left dependent in a template nothing
  /// instantiates (`loss.backward()` on an `auto loss` computed from a
  /// `Model`), or null. The classifiers below accept such calls by the
  /// member's name where the name alone is LibTorch's: `backward`,
  /// `parameters`, `named_parameters`, `grad`, `mutable_grad`, and `step` on
  /// an object named like an optimizer.
  static const CXXDependentScopeMemberExpr *
  dependentMemberCall(const CallExpr &Call);
  /// The object of a member call, resolved or left dependent; null for
  /// other calls.
  static const Expr *memberCallObject(const CallExpr &Call);
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
  /// What a member call on a module reads of its state: `buffers()` and
  /// `named_buffers()` its buffers; `parameters()`, `named_parameters()`
  /// and `state_dict()` (which holds them) its parameters; nullopt for
  /// other calls.
  static std::optional<ModuleState>
  moduleStateAccess(const CXXMemberCallExpr &Call);
  /// `t.grad()` or `t.mutable_grad()` on a tensor.
  static bool isGradAccess(const CallExpr &Call);
  /// The loop variable of `for (auto &p : m->parameters())` or of a
  /// `named_parameters()` loop; null for other loops.
  static const VarDecl *parameterLoopVariable(const CXXForRangeStmt &Loop);
  /// The parameter tensor an expression denotes inside such a loop:
  /// `p` or `p.value()` (named_parameters items).
  static const VarDecl *parameterTensorVariable(const Expr *E);

  // --- Training steps ----------------------------------------------------
  /// For `loss.backward()` (Tensor::backward) and
  /// `torch::autograd::backward({loss})`: the tensor (or tensor list)
  /// back-propagated. Null for other calls.
  static const Expr *backwardRoot(const CallExpr &Call);
  /// A class named in `OptimizerTypes` (by default torch::optim::Optimizer)
  /// or derived from one.
  bool isOptimizerClass(const CXXRecordDecl &RD) const;
  /// `opt.parameters()`, `opt.params()` on an optimizer: what it updates.
  bool isOptimizerParameterList(const CXXMemberCallExpr &Call) const;
  /// `optimizer.step()` / `optimizer->step(closure)` on an optimizer.
  bool isOptimizerStep(const CallExpr &Call) const;
  /// The closure handed to an optimizer step (`step([&] { ...; return loss;
  /// })`, or a variable holding one), null when it is absent or nullptr.
  const Expr *optimizerStepClosure(const CallExpr &Call) const;
  /// The options of a `torch::optim` optimizer (`SGDOptions`,
  /// `AdamOptions`, `OptimizerOptions`, ...) or a class derived from one.
  static bool isOptimizerOptionsClass(const CXXRecordDecl &RD);
  /// A method of optimizer options that sets the learning rate:
  /// `options.lr(x)`, `options.set_lr(x)` (not the getter `lr()`).
  static bool isLearningRateSetter(const CXXMethodDecl &MD);

  // --- Collectives and process groups -----------------------------------
  std::optional<CollectiveInfo> classifyCollective(const CallExpr &Call) const;
  /// A call clang leaves unresolved in a template because an argument
  /// depends on a template parameter (`MPI_Allreduce(MPI_IN_PLACE,
  /// grad->data(), ...)` with `grad` a `Tensor<T> *`), whose name finds one
  /// C function of MPI or NCCL: that collective, and the function in
  /// \p Callee.
  static std::optional<CollectiveInfo>
  classifyUnresolvedCollective(const CallExpr &Call,
                               const FunctionDecl *&Callee);
  /// The collective a function's name says it is, in any spelling
  /// (`allReduce`, `all_reduce_tensor`, `Allgather`), outside system headers
  /// and the SDKs: what a function defined out of sight is taken to do, and
  /// what a transport of the project's own (sockets, shared memory) does.
  static std::optional<CollectiveKind>
  collectiveKindOfName(const FunctionDecl &FD);
  /// A type holding an asynchronous collective's handle: c10d `Work`
  /// (`c10::intrusive_ptr<Work>`, `std::shared_ptr<ProcessGroup::Work>`),
  /// or `MPI_Request`.
  static bool isWorkType(QualType T);
  /// `work->wait()`, `MPI_Wait(&req, ...)`, `MPI_Waitall(...)`.
  static bool isWaitCall(const CallExpr &Call);
  /// The operation a reducing collective applies (AllReduce, Reduce,
  /// ReduceScatter); nullopt for the other collectives. \p Scope is the
  /// function body searched for the options variable's assignments
  /// (`opts.reduceOp = ReduceOp::AVG`) and for an NCCL pre-multiplied sum
  /// op created by `ncclRedOpCreatePreMulSum(&op, ...)`. With \p Bindings
  /// (what one caller passes for the parameters of the helper the
  /// collective is in), an op taken from a parameter (`opts.reduceOp = op`,
  /// `op == Op::Sum ? ReduceOp::SUM : ReduceOp::MAX`) is the caller's.
  std::optional<ReduceOpKind>
  reduceOp(const CallExpr &Call, const Stmt *Scope, const ASTContext &Context,
           const ParameterBindings *Bindings = nullptr) const;
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
  /// The same test on one statement, its children left out: a rank query,
  /// a rank environment variable, a rank-named variable, field or function.
  bool namesRank(const Stmt &S) const;

  // --- World-size sources -----------------------------------------------
  /// A call whose value is the world size (`pg->getSize()`, `comm.size()`,
  /// `std::getenv("WORLD_SIZE")`, or a configuration reader given that
  /// variable's name: `env_int("WORLD_SIZE", 1)`).
  bool returnsWorldSize(const CallExpr &Call) const;
  /// For world-size queries that write through a pointer
  /// (`MPI_Comm_size(c, &size)`), the argument written; null otherwise.
  const Expr *worldSizeOutputArgument(const CallExpr &Call) const;
  /// A name programs give the number of ranks: `world`, `world_size`,
  /// `kWorldSize`, `ws`, `num_ranks`, `nprocs`, `num_gpus`, ... (not
  /// `world_rank`).
  static bool isWorldSizeName(llvm::StringRef Name);
  /// A method name that asks a communicator for its size: `size`,
  /// `getSize`, `get_size`, `nranks`, `num_ranks`.
  static bool isSizeMethodName(llvm::StringRef Name);
  /// A name (or the operator `/`, `/=`) that looks like averaging by the
  /// world size: `div`, `mul_`, `avg`, `average`, `world`, `getsize`,
  /// `comm_size` in any case. What `#ifdef`-gated code, or a call into a
  /// missing header, may be.
  static bool looksLikeAveraging(llvm::StringRef Name);

  // --- Distributed context (VocabularyDistributed.cpp) -------------------
  /// A type only a distributed program holds: a communicator, a
  /// data-parallel wrapper, a distributed sampler or a data loader over one
  /// (also behind handles).
  bool isDistributedType(QualType T) const;
  /// A function that starts the distributed runtime
  /// (`DistributedInitFunctions`, by default `MPI_Init*`).
  bool isDistributedRuntimeInit(const FunctionDecl &FD) const;
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

  // --- How library calls move data (VocabularyDataFlow.cpp) --------------
  /// A tensor or container method whose result is (a view, copy or pointer
  /// of) the object's data: `view`, `clone`, `to`, `data_ptr`, `div`,
  /// `front`, ... Reductions (`norm`, `sum`, `pow`) are not: a gradient's
  /// norm is no gradient.
  static bool keepsObjectData(llvm::StringRef Method);
  /// A tensor method whose result shares the object's storage: what is
  /// written into the result lands in the object
  /// (`bucket.narrow(0, off, n).copy_(g)`).
  static bool sharesObjectStorage(llvm::StringRef Method);
  /// A tensor method that makes new storage from its object: `clone()`.
  static bool isTensorCopyMethod(llvm::StringRef Method);
  /// A free function whose result is new storage holding copies of its
  /// tensor arguments' data: `torch::cat`, `torch::stack`
  /// (`flatten_dense_tensors` is not: it returns a view of a single tensor).
  static bool copiesIntoNewTensor(llvm::StringRef Function);
  /// A free function whose result holds its arguments' data:
  /// copiesIntoNewTensor, `flatten_dense_tensors`, `div`, `std::ref`,
  /// `boost::mpi::inplace`, ...
  static bool combinesArgumentData(llvm::StringRef Function);
  /// A container or tensor method that stores its arguments' data into the
  /// object: `push_back`, `insert`, `copy_`, `index_put_`, ...
  static bool storesIntoObject(llvm::StringRef Method);
  /// A tensor method that updates its object in place from its arguments:
  /// `add_`, `sub_`, `addcdiv_`, `addcmul_`, `copy_`, `set_`.
  static bool updatesInPlace(llvm::StringRef Method);
  /// `t.copy_(src)`, `t.set_data(src)`, `t.set_(src)` on a tensor: a call
  /// that replaces the tensor's data with another's.
  static bool copiesIntoTensor(const CXXMemberCallExpr &Call);
  /// A tensor method or function that scales a tensor (its object, or its
  /// first argument) by its next argument: `div`, `div_`, `divide`,
  /// `true_divide`, `_foreach_div_` divide; `mul`, `mul_`, `multiply`,
  /// `_foreach_mul_` multiply. Nullopt for other names.
  static std::optional<TensorScaling> tensorScaling(llvm::StringRef Name);
  /// A tensor method that writes its result into its object: LibTorch
  /// spells those with a trailing underscore (`div_`, `mul_`).
  static bool isInPlaceMethodName(llvm::StringRef Method);
  /// A function whose tensor holds the numbers it is given:
  /// `torch::tensor(n)`, `scalar_tensor(n)`, `full(sizes, n)`.
  static bool isTensorOfNumbers(llvm::StringRef Function);
  /// A type a collective moves data through: a pointer, a tensor, a
  /// `std::vector`, a `c10::ArrayRef`, `boost::mpi::inplace_t`.
  static bool isCollectiveBufferType(QualType T);
  /// A raw copy of data: `memcpy(dst, src, n)`, `memmove`,
  /// `std::copy(first, last, out)`, `std::copy_n(first, n, out)`.
  using RawCopy = ddp::RawCopy;
  static std::optional<RawCopy> rawDataCopy(const CallExpr &Call);
  /// `torch::autograd::grad`: returns the gradients it computes.
  static bool returnsGradients(const FunctionDecl &FD);
  /// A field named as a homegrown layer names its gradient storage: a word
  /// `grad...` (`grad_weight`, `sum_grad_`, `weightGrads`), `nabla...`, or
  /// the derivative spellings `dw`, `db`, `dW`, `d_weight`, `dbias`.
  static bool namesGradientStorage(llvm::StringRef Name);
  /// A function of LibTorch, the standard library or boost (never a
  /// hand-written gradient sync).
  static bool isLibraryFunction(const FunctionDecl &FD);
  /// A plain number: arithmetic, an enumeration, or the `c10::Scalar` that
  /// `item()` reads a tensor down to.
  static bool isNumberType(QualType T);

  // --- Gradient sync helpers --------------------------------------------
  /// A function named in `GradientSyncFunctions`: it synchronises the
  /// gradients (all-reduces and averages them), wherever its body is.
  bool isGradientSyncFunction(const FunctionDecl &FD) const {
    return GradientSyncFunctions.matches(FD);
  }
  /// The same test on a name alone, for calls left unresolved in templates.
  bool isGradientSyncName(llvm::StringRef Name) const {
    return GradientSyncFunctions.matchesName(Name, Name);
  }

  // --- Communicators and gradient hooks ---------------------------------
  /// For `t.register_hook(fn)` and `grad_accumulator(p)->add_post_hook(h)`
  /// (or add_pre_hook): the callable registered, which autograd runs during
  /// backward(). Null for other calls.
  static const Expr *gradientHookCallback(const CallExpr &Call);
  /// The static `backward` of a custom autograd function
  /// (`struct F : torch::autograd::Function<F>`): autograd runs it during
  /// backward(), with the gradients flowing back.
  static bool isCustomFunctionBackward(const FunctionDecl &FD);

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
  /// A range that yields batches: a data loader handle, or in a template
  /// nothing instantiates, an expression of dependent type named like one
  /// (`loader`, `*train_loader_`, `data_loader()`).
  static bool isLoaderRange(const Expr &Range);
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
  /// `make_data_loader(*dataset_, sampler, options)` left unresolved in a
  /// template by a dependent dataset.
  static bool isUnresolvedDataLoaderFactory(const CallExpr &Call);
  /// For `make_data_loader<S>(dataset, options)`: the sampler class `S` the
  /// factory default-constructs from the dataset size. Null otherwise.
  static const CXXRecordDecl *
  defaultConstructedSampler(const CallExpr &Call);
  /// The sampler class of a data-loader type: `S` in
  /// `StatelessDataLoader<D, S>` (also through `std::unique_ptr`,
  /// references and pointers); null for other types.
  static const CXXRecordDecl *samplerOfLoaderType(QualType T);
  /// `loader->begin()`: a call that starts a pass over its object (when the
  /// object is a loader).
  static bool startsLoaderPass(const CXXMemberCallExpr &Call);
  /// On a distributed sampler, `set_epoch(e)` (true) or `reset()` (false);
  /// nullopt for other calls.
  static std::optional<bool> samplerEpochCall(const CXXMemberCallExpr &Call);

  // --- Pending work and coalescing --------------------------------------
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

  // --- Checkpoints (VocabularyCheckpoints.cpp) --------------------------
  /// For `torch::save(value, path)`: the path argument (a string or
  /// character array); null for other calls and for saves into a stream or
  /// a writer function.
  static const Expr *checkpointSavePath(const CallExpr &Call);
  /// For `torch::load(value, path, ...)`: the path argument; null for other
  /// calls and for loads from a stream or a buffer.
  static const Expr *checkpointLoadPath(const CallExpr &Call);
  using FixedDevice = ddp::FixedDevice;
  /// For `torch::load(value, path, device)`: the device when it is CUDA
  /// with a constant index, `torch::Device("cuda:0")` or
  /// `torch::Device(torch::kCUDA, 0)`, also through a local initialised
  /// with one. Nullopt without a device argument, for another device type,
  /// for an index that is not a constant, and for a device without an index
  /// (`torch::kCUDA`: the current device, which each rank sets to its own).
  static std::optional<FixedDevice> checkpointLoadDevice(const CallExpr &Call);
  using FileAccess = ddp::FileAccess;
  /// A file opened outside torch::save/load: `fopen(path, mode)` (a write
  /// for a mode with 'w' or 'a'), `std::ofstream f(path)`,
  /// `std::ifstream f(path)`, `f.open(path)` on either. Nullopt otherwise.
  static std::optional<FileAccess> fileAccess(const Expr &E);

  // --- Registrations and gradient requirements (VocabularyRegistrations.cpp)
  using RegistrationKind = ddp::RegistrationKind;
  using Registration = ddp::Registration;
  /// `register_module(name, m)`, `replace_module(name, m)`,
  /// `register_parameter(name, t[, requires_grad])` and
  /// `register_buffer(name, t)` on a module; nullopt for other calls.
  static std::optional<Registration> registration(const CallExpr &Call,
                                                  const ASTContext &Context);
  /// `forward` of a module class: what a module's call runs.
  static bool isForwardMethod(const CXXMethodDecl &MD);
  /// `t.requires_grad_(false)`, `t.set_requires_grad(false)`: the tensor
  /// that stops taking gradients; null for other calls, and when the value
  /// is not a constant false.
  static const Expr *gradientDisabledTarget(const CallExpr &Call,
                                            const ASTContext &Context);
  /// `t.defined()` on a tensor (also left dependent in a template): the
  /// tensor; null for other calls.
  static const Expr *definedQueryObject(const CallExpr &Call);
  /// A walk over a module's submodules or parameters that reaches members
  /// without naming them: `children()`, `named_children()`, `modules()`,
  /// `named_modules()`, `apply(fn)`, `parameters()`, `named_parameters()`.
  /// Returns the module expression, or null.
  static const Expr *memberWalkReceiver(const CallExpr &Call);

  // --- Optimizer parameters and module copies ---------------------------
  // (VocabularyOptimizerParameters.cpp)
  /// Whether \p D holds an optimizer: an object, reference, pointer or
  /// smart pointer of an `OptimizerTypes` class, or, where its type is
  /// still dependent (`auto opt = std::make_shared<Optim>(...)` in a
  /// template nothing instantiates), a variable named like one (`opt`,
  /// `optimizer_`, `*optim*`).
  bool holdsOptimizer(const ValueDecl &D) const;
  /// `opt.add_param_group(group)`, `opt->add_parameters(params)`: the
  /// optimizer expression the parameters are added to, or null. Left
  /// dependent, by the member's name on an object named like an optimizer.
  const Expr *optimizerParameterAddition(const CallExpr &Call) const;
  /// `m->clone()` on a module: a deep copy with parameters of its own. The
  /// module expression copied, or null. Left dependent, by the member's
  /// name alone (tensors have a `clone()` too: callers check that the
  /// object is a module they know).
  static const Expr *moduleCopySource(const CallExpr &Call);

private:
  struct ConfiguredCollective {
    NameList Name;
    CollectiveKind Kind;
  };
  /// A function returning a rank or the world size, or writing it through
  /// an argument (`name@N`).
  struct QueryFunction {
    NameList Name;
    int OutputArgument; // -1: the value is returned
  };

  NameList WrapperTypes;
  NameList InnerModuleAccessors;
  std::string CollectiveFunctionsSpec;
  std::vector<ConfiguredCollective> ConfiguredCollectives;
  std::string RankFunctionsSpec;
  std::vector<QueryFunction> RankFunctions;
  std::string RankEnvironmentVariablesSpec;
  std::vector<std::string> RankEnvironmentVariables;
  NameList RankVariables;
  std::string WorldSizeFunctionsSpec;
  std::vector<QueryFunction> WorldSizeFunctions;
  std::string WorldSizeEnvironmentVariablesSpec;
  std::vector<std::string> WorldSizeEnvironmentVariables;
  NameList OptimizerTypes;
  NameList GradientSyncFunctions;
  NameList ShufflingSamplers;
  NameList DistributedInitFunctions;
};

} // namespace clang::tidy::ddp

// The matchers wrap the class's classifiers, so they follow its definition.
#include "vocabulary/VocabularyMatchers.h"

#endif // DDPLINT_CHECKS_VOCABULARY_H
