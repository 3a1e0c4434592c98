//===--- DataFlow.h - how library calls move data -------------------------===//
//
// How calls of LibTorch, the standard library and boost move data between
// their objects, arguments and results: views, copies, in-place updates,
// scalings, raw copies, collective buffers (free functions in `flow`).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_DATAFLOW_H
#define DDPLINT_CHECKS_VOCABULARY_DATAFLOW_H

#include "vocabulary/VocabularyTypes.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace clang::tidy::ddp {

namespace flow {

/// A tensor or container method whose result is (a view, copy or pointer
/// of) the object's data: `view`, `clone`, `to`, `data_ptr`, `div`,
/// `front`, ... Reductions (`norm`, `sum`, `pow`) are not: a gradient's
/// norm is no gradient.
bool keepsObjectData(llvm::StringRef Method);

/// A tensor method whose result shares the object's storage: what is
/// written into the result lands in the object
/// (`bucket.narrow(0, off, n).copy_(g)`).
bool sharesObjectStorage(llvm::StringRef Method);

/// A tensor method that makes new storage from its object: `clone()`.
bool isTensorCopyMethod(llvm::StringRef Method);

/// A free function whose result is new storage holding copies of its
/// tensor arguments' data: `torch::cat`, `torch::stack`
/// (`flatten_dense_tensors` is not: it returns a view of a single tensor).
bool copiesIntoNewTensor(llvm::StringRef Function);

/// A free function whose result holds its arguments' data:
/// copiesIntoNewTensor, `flatten_dense_tensors`, `div`, `std::ref`,
/// `boost::mpi::inplace`, ...
bool combinesArgumentData(llvm::StringRef Function);

/// A container or tensor method that stores its arguments' data into the
/// object: `push_back`, `insert`, `copy_`, `index_put_`, ...
bool storesIntoObject(llvm::StringRef Method);

/// A tensor method that updates its object in place from its arguments:
/// `add_`, `sub_`, `addcdiv_`, `addcmul_`, `copy_`, `set_`.
bool updatesInPlace(llvm::StringRef Method);

/// `t.copy_(src)`, `t.set_data(src)`, `t.set_(src)` on a tensor: a call
/// that replaces the tensor's data with another's.
bool copiesIntoTensor(const CXXMemberCallExpr &Call);

/// A tensor method or function that scales a tensor (its object, or its
/// first argument) by its next argument: `div`, `div_`, `divide`,
/// `true_divide`, `_foreach_div_` divide; `mul`, `mul_`, `multiply`,
/// `_foreach_mul_` multiply. Nullopt for other names.
std::optional<TensorScaling> tensorScaling(llvm::StringRef Name);

/// A tensor method that writes its result into its object: LibTorch
/// spells those with a trailing underscore (`div_`, `mul_`).
bool isInPlaceMethodName(llvm::StringRef Method);

/// A function whose tensor holds the numbers it is given:
/// `torch::tensor(n)`, `scalar_tensor(n)`, `full(sizes, n)`.
bool isTensorOfNumbers(llvm::StringRef Function);

/// A type a collective moves data through: a pointer (not an MPI handle:
/// `MPI_Comm`, `MPI_Datatype`, `MPI_Op` are pointers in Open MPI), a tensor, a
/// `std::vector`, a `c10::ArrayRef`, `boost::mpi::inplace_t`.
bool isCollectiveBufferType(QualType T);

std::optional<RawCopy> rawDataCopy(const CallExpr &Call);

/// Whether \p Parent, the statement right above a use of a pointer,
/// releases the storage the pointer designates: `delete p`, `delete[] p`,
/// C's `free(p)`. What is released is handed to nobody.
bool releasesStorage(const Stmt &Parent);

/// `torch::autograd::grad`: returns the gradients it computes.
bool returnsGradients(const FunctionDecl &FD);

/// A field named as a homegrown layer names its gradient storage: a word
/// `grad...` (`grad_weight`, `sum_grad_`, `weightGrads`), `nabla...`, or
/// the derivative spellings `dw`, `db`, `dW`, `d_weight`, `dbias`.
bool namesGradientStorage(llvm::StringRef Name);

/// A function of LibTorch, the standard library or boost (never a
/// hand-written gradient sync).
bool isLibraryFunction(const FunctionDecl &FD);

/// A plain number: arithmetic, an enumeration, or the `c10::Scalar` that
/// `item()` reads a tensor down to.
bool isNumberType(QualType T);

} // namespace flow

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_DATAFLOW_H
