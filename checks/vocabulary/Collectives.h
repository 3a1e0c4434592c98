//===--- Collectives.h - collectives, reduce ops, pending work ------------===//
//
// Collectives of c10d 1.x and 2.x, MPI, NCCL and boost::mpi, process groups
// and communicators, wait calls and coalescing brackets (free functions in
// `collectives`), and what depends on `CollectiveFunctions`: the collective
// a call is, the reduce op it applies, the request it fills
// (CollectiveVocabulary).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_COLLECTIVES_H
#define DDPLINT_CHECKS_VOCABULARY_COLLECTIVES_H

#include "vocabulary/NameList.h"
#include "vocabulary/VocabularyTypes.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/ExprCXX.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::ddp {

namespace collectives {

/// A call clang leaves unresolved in a template because an argument
/// depends on a template parameter (`MPI_Allreduce(MPI_IN_PLACE,
/// grad->data(), ...)` with `grad` a `Tensor<T> *`), whose name finds one
/// C function of MPI or NCCL: that collective, and the function in
/// \p Callee.
std::optional<CollectiveInfo>
classifyUnresolvedCollective(const CallExpr &Call,
                      const FunctionDecl *&Callee);

/// The collective a function's name says it is, in any spelling
/// (`allReduce`, `all_reduce_tensor`, `Allgather`), outside system headers
/// and the SDKs: what a function defined out of sight is taken to do, and
/// what a transport of the project's own (sockets, shared memory) does.
std::optional<CollectiveKind>
collectiveKindOfName(const FunctionDecl &FD);

/// A type holding an asynchronous collective's handle: c10d `Work`
/// (`c10::intrusive_ptr<Work>`, `std::shared_ptr<ProcessGroup::Work>`),
/// or `MPI_Request`.
bool isWorkType(QualType T);

/// `work->wait()`, `MPI_Wait(&req, ...)`, `MPI_Waitall(...)`.
bool isWaitCall(const CallExpr &Call);

/// What an MPI call does with the requests it is handed: starts one (the
/// nonblocking `MPI_I*` calls, its last argument), completes them
/// (`MPI_Wait*`), completes them when its answer says so (`MPI_Test*`, see
/// mpiRequestTest), frees one without completing it (`MPI_Request_free`),
/// or anything else.
enum class RequestUse { Starts, Completes, Tests, Frees, Other };
RequestUse mpiRequestUse(const CallExpr &Call);

/// What an `MPI_Test*` call is handed: the requests it tests, and where it
/// says whether they completed (the flag of `MPI_Test(&req, &flag, ...)`
/// and `MPI_Testall(n, reqs, &flag, ...)`; the index and the flag of
/// `MPI_Testany(n, reqs, &i, &flag, ...)`; the count of
/// `MPI_Testsome(n, reqs, &count, ...)`). A test completes the requests
/// only where that answer says so.
struct RequestTest {
  const Expr *Requests = nullptr;
  llvm::SmallVector<const Expr *, 2> Outcomes;
};
std::optional<RequestTest> mpiRequestTest(const CallExpr &Call);

/// The buffers a nonblocking MPI call lends MPI until its request
/// completes: the one MPI writes (`buf` of `MPI_Irecv`, `recvbuf` of the
/// reductions, gathers, scatters and all-to-alls) and the one it only
/// reads (the send buffer, which may be `MPI_IN_PLACE`; the buffer of
/// `MPI_Ibcast`, which the root sends and the others receive, is taken as
/// read only).
/// Both null for any other call. In an in-place gather (`MPI_IN_PLACE` as
/// the send buffer of `MPI_Iallgather(v)` or `MPI_Igather(v)`) this rank's
/// input sits in its own slot of the written buffer, which MPI leaves as it
/// is (`OwnSlotKept`).
struct RequestBuffers {
  const Expr *Written = nullptr;
  const Expr *Read = nullptr;
  bool OwnSlotKept = false;
};
RequestBuffers requestBuffers(const CallExpr &Call);

/// The rank a reduction to one root leaves the sum on: the root argument
/// of `MPI_Reduce`, `MPI_Ireduce` and `ncclReduce`; null for any other
/// call. The other ranks hold no sum.
const Expr *reduceRoot(const CallExpr &Call);

/// c10d process groups and backends (1.x `ProcessGroup`, 2.x `Backend`).
bool isProcessGroupClass(const CXXRecordDecl &RD);

/// The process-group class behind a handle (object, reference, pointer,
/// `c10::intrusive_ptr`, `std::shared_ptr`), or null.
const CXXRecordDecl *processGroupOfHandle(QualType T);

/// A type that names a communicator: a c10d process group (any handle),
/// `MPI_Comm`, `ncclComm_t` or `boost::mpi::communicator`.
bool isCommunicatorType(QualType T);

/// A call that makes a communicator of some of its parent's ranks, and what
/// decides which: `MPI_Comm_split(parent, colour, key, &out)`,
/// `ncclCommSplit(parent, colour, key, &out, config)` (the colour);
/// `MPI_Comm_split_type(parent, type, key, info, &out)` (the node),
/// `MPI_Comm_create(parent, group, &out)`,
/// `MPI_Comm_create_group(parent, group, tag, &out)` (a group; Colour null).
struct CommunicatorSplit {
  const Expr *Colour;
  const Expr *Output;
};
std::optional<CommunicatorSplit> communicatorSplit(const CallExpr &Call);

/// Brackets that fuse the collectives issued between them into one:
/// `ncclGroupStart()` / `ncclGroupEnd()`, c10d's `startCoalescing()` /
/// `endCoalescing()`. True for an opening, false for a closing call.
std::optional<bool> coalescingBracket(const CallExpr &Call);

/// What a wait call waits on: the `Work` of `work->wait()`, the request
/// of `MPI_Wait(&req, ...)`, the request array of `MPI_Waitall(n, reqs,
/// ...)`, the stream of `cudaStreamSynchronize(s)`; null otherwise.
const Expr *waitedObject(const CallExpr &Call);

} // namespace collectives

/// The collectives that depend on `CollectiveFunctions` (`name[=kind]`).
class CollectiveVocabulary {
public:
  explicit CollectiveVocabulary(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  std::optional<CollectiveInfo> classifyCollective(const CallExpr &Call) const;

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

  /// Whether \p Call sends to or receives from one other rank: MPI's sends
  /// and receives (blocking or not, `MPI_Sendrecv`), `ncclSend`/`ncclRecv`,
  /// c10d's `send`/`recv`, boost::mpi's communicator's. No collective: one
  /// rank's call is matched by another's.
  bool isPointToPoint(const CallExpr &Call) const;

  /// For a nonblocking MPI call, collective or point-to-point
  /// (`MPI_Iallreduce(..., &req)`, `MPI_Isend(..., &req)`), and an
  /// asynchronous collective of the MPI family named in the options: the
  /// argument that receives its request; null otherwise.
  const Expr *requestArgument(const CallExpr &Call) const;

private:
  struct ConfiguredCollective {
    NameList Name;
    CollectiveKind Kind;
  };

  std::string CollectiveFunctionsSpec;
  std::vector<ConfiguredCollective> ConfiguredCollectives;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_COLLECTIVES_H
