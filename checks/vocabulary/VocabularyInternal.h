//===--- VocabularyInternal.h - helpers of the vocabulary's files ---------===//
//
// Small helpers the Vocabulary<Concern>.cpp files share: class names and
// hierarchies, template arguments, and calls left dependent in templates.
// Only the vocabulary's own files include this header; checks ask the
// concern headers instead.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARYINTERNAL_H
#define DDPLINT_CHECKS_VOCABULARYINTERNAL_H

#include "vocabulary/Vocabulary.h"

#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace clang::tidy::ddp {

std::string qualifiedName(const NamedDecl &D);

/// A C function at file scope (not a method, not in a namespace): the shape
/// of the MPI, NCCL and CUDA APIs.
bool isGlobalCFunction(const FunctionDecl &FD);

/// Whether RD is the class named QualName (no leading `::`; for templates,
/// any specialization) or derives from it.
bool isSameOrDerivedFrom(const CXXRecordDecl &RD, llvm::StringRef QualName);

/// The specialization of class template QualName that RD is or derives from.
const ClassTemplateSpecializationDecl *
findSpecialization(const CXXRecordDecl *RD, llvm::StringRef QualName);

/// Whether Names matches RD or one of its bases.
bool matchesSelfOrBase(const NameList &Names, const CXXRecordDecl &RD);

/// The class a specialization's type argument \p Index names, or null.
const CXXRecordDecl *
templateArgumentRecord(const ClassTemplateSpecializationDecl &Spec,
                       unsigned Index);

/// The member a call left dependent in a template names (`x.backward()` on
/// an `auto x` computed from a `Model`), or "".
llvm::StringRef dependentMemberName(const CallExpr &Call);
/// `TensorBase<D, T>::backward(out)` left dependent in a template: a
/// homegrown tensor class's static backward; its argument, else null.
const Expr *dependentStaticBackward(const CallExpr &Call);

/// Whether a variable of dependent type is named like an optimizer: the
/// name, without underscores around it, is `opt` or contains `optim`
/// (`optimizer_`, `optim`).
bool isOptimizerName(llvm::StringRef Name);

/// The words of an identifier, lowercased: `sum_grad_` -> sum, grad;
/// `saveCheckpoint` -> save, checkpoint; `dW` -> d, w.
llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARYINTERNAL_H
