//===--- TensorMethods.h - LibTorch's tensor and module methods by name ---===//
//
// The methods of LibTorch's tensors and modules that the flow analyses
// follow by name, on an object of any type (a template's dependent one
// included): what hands back the same storage or the same value, a
// module's tensor collections, a gradient's accessors, the calls that ask
// whether a tensor exists. The analyses ask these instead of spelling
// LibTorch's names; each answer is a name test only, so its caller decides
// what the object is. Last, the tests by type: a tensor, a tensor class, a
// container of tensors, a shape query.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_TENSORMETHODS_H
#define DDPLINT_CHECKS_VOCABULARY_TENSORMETHODS_H

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::ddp::tensors {

/// `parameters()`, `named_parameters()`, `buffers()`, `named_buffers()`: a
/// module's tensors.
bool isModuleTensorCollection(llvm::StringRef Method);

/// `keys()`, `values()`, `items()`: a view of an ordered dictionary (a
/// module's `named_parameters()`), as many elements as the dictionary.
bool isCollectionView(llvm::StringRef Method);

/// `grad()`, `mutable_grad()`.
bool isGradientAccessor(llvm::StringRef Method);

/// `data()`, `detach()`, `value()` (a named_parameters item's tensor): the
/// same tensor's values, so a gradient stays a gradient through them.
bool yieldsSameTensor(llvm::StringRef Method);

/// Methods whose result has the shape of their object's (`to()`, views,
/// `contiguous()`, `clone()`, an element by `at()`), so a parameter's
/// shape carries through them.
bool keepsShape(llvm::StringRef Method);

/// Methods whose result shares its object's storage (`data_ptr()`,
/// `detach()`, views and slices, `contiguous()`, a container's element):
/// writing through the result writes the object.
bool sharesStorage(llvm::StringRef Method);

/// `defined()`: whether a tensor (an optional gradient) exists.
bool isDefinedQuery(llvm::StringRef Method);

/// `numel()`: a tensor's element count.
bool isElementCount(llvm::StringRef Method);

/// Methods that read no element of their object: a tensor's metadata
/// (`size()`, `numel()`, `sizes()`, `dim()`, `device()`, `dtype()`,
/// `options()`, `defined()`, `scalar_type()`) and a container's (`size()`,
/// `empty()`, `reserve()`, `capacity()`, and appending with `push_back()` or
/// `emplace_back()`, which leaves the elements already there alone).
bool readsNoElements(llvm::StringRef Method);

/// `register_hook()`: a function autograd runs when a gradient is computed.
bool isHookRegistration(llvm::StringRef Function);

/// `Tensor::backward()` (a method of a tensor class) or the free function
/// `torch::autograd::backward`: a backward pass.
bool isBackwardPass(const FunctionDecl &Callee);

/// `std::make_shared`, `std::make_unique` and c10's `make_intrusive`: a
/// factory that runs the constructor of the object it returns.
bool isObjectFactory(llvm::StringRef Function);

/// LibTorch's devices and tensor options and every c10d type (by qualified
/// name): values the same on every rank or the rank's own communicator.
bool isDeviceOptionsOrC10dType(llvm::StringRef QualifiedName);

// Tensors by type (VocabularyModules.cpp).

/// One `at::Tensor` (also behind a reference), not a container of them.
bool isTensor(QualType T);

/// `at::Tensor` / `at::TensorBase` (and so `torch::Tensor`).
bool isTensorClass(const CXXRecordDecl &RD);

/// A call of a tensor method that reports its shape: `numel()`,
/// `size(d)`, `sizes()`, `dim()`.
bool isTensorShapeQuery(const CallExpr &Call);

/// A tensor (`at::Tensor`, `at::TensorBase`), or a container of them.
bool isTensorType(QualType T);

} // namespace clang::tidy::ddp::tensors

#endif // DDPLINT_CHECKS_VOCABULARY_TENSORMETHODS_H
