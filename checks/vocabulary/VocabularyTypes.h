//===--- VocabularyTypes.h - what the vocabulary's classifiers return ----===//
//
// The value types and enumerations the shared vocabulary answers with:
// collective kinds and APIs, parameter collections and loops, what a call
// binds to a helper's parameters, reduce operations, module state, tensor
// scalings, raw copies, fixed devices and registrations. Included by the
// concern headers whose classifiers return them.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARYTYPES_H
#define DDPLINT_CHECKS_VOCABULARYTYPES_H

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace clang::tidy::ddp {

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

/// Where a collective comes from. Named: a function of the project's own,
/// defined out of sight, whose name says what it does (`allReduce`,
/// `all_reduce_tensor`); its reduce operation is not known.
enum class CollectiveApi { C10d, Mpi, Nccl, BoostMpi, Configured, Named };

struct CollectiveInfo {
  CollectiveKind Kind;
  CollectiveApi Api;
  /// Completes later: a c10d `Work`, an `MPI_Request`, an NCCL stream.
  bool Asynchronous;
};

llvm::StringRef collectiveKindName(CollectiveKind K);
llvm::StringRef collectiveApiName(CollectiveApi A);

enum class ParameterCollection { Parameters, NamedParameters };

/// What a call on a module reads of its state (moduleStateAccess).
enum class ModuleState { Buffers, Parameters };

/// How a tensor operation scales a tensor by a factor (tensorScaling).
enum class TensorScaling { Division, Product };

/// A raw copy of data (rawDataCopy).
struct RawCopy {
  const Expr *Destination;
  const Expr *Source;
};

/// A CUDA device named with a constant index (checkpointLoadDevice).
struct FixedDevice {
  const Expr *Where; // the device expression (or the local's initialiser)
  int64_t Index;
};

/// A file a program opens with C stdio or a stream (checkpoints::fileAccess).
struct FileAccess {
  const Expr *Path = nullptr; ///< The file name argument.
  bool Write = false;         ///< Opened for writing (or appending).
};

/// What a module registers (registration).
enum class RegistrationKind { Module, Parameter, Buffer };
struct Registration {
  RegistrationKind Kind;
  /// The module or tensor registered (the call's second argument).
  const Expr *Registered = nullptr;
  /// False for `register_parameter(name, t, /*requires_grad=*/false)`.
  bool RequiresGrad = true;
};

/// What one call passes for a function's parameters.
using ParameterBindings = llvm::DenseMap<const ParmVarDecl *, const Expr *>;

/// A loop over a module's parameters: the loop statement and the expression
/// naming the collection it walks (`m->parameters()`, or `params` in
/// `for (size_t i = 0; i < params.size(); ++i)`).
struct ParameterLoop {
  const Stmt *Loop = nullptr;
  const Expr *Collection = nullptr;
  const Stmt *Body = nullptr;
};

/// The operation of a reducing collective.
enum class ReduceOpKind {
  Sum,              // SUM / MPI_SUM / ncclSum / std::plus: the default
  Average,          // ReduceOp::AVG / ncclAvg
  PreMultipliedSum, // PREMUL_SUM: each input scaled first (by 1/N for a mean)
  Other,            // MAX, MIN, PRODUCT, bitwise ...
  Unknown,          // not visible here (an options parameter, a user functor)
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARYTYPES_H
