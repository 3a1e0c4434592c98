//===--- VocabularyHelpers.h - small AST helpers shared by the checks -----===//
//
// Helpers on expressions and declarations that know no library names:
// wrappers stripped, callee names as spelled, calls kept as recovery
// expressions, handles seen through. Defined in Vocabulary.cpp and included
// by Vocabulary.h; checks include that.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARYHELPERS_H
#define DDPLINT_CHECKS_VOCABULARYHELPERS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace clang::tidy::ddp {

/// Strips parentheses, implicit casts, and no-op wrappers that do not change
/// which object an expression denotes (`std::move`, materialised
/// temporaries, cleanups, constructor copies).
const Expr *stripObjectWrappers(const Expr *E);
/// Whether \p D is declared in a system header (LibTorch, the standard
/// library, an SDK): not user code.
inline bool inSystemHeader(const Decl &D) {
  return D.getASTContext().getSourceManager().isInSystemHeader(
      D.getLocation());
}
/// A declaration's identifier, or "" for operators, constructors and the
/// like.
inline llvm::StringRef identifierName(const NamedDecl *D) {
  return D && D->getDeclName().isIdentifier() ? D->getName() : "";
}
/// The string literal \p E spells, also through `std::string`'s
/// constructor (`std::string("RANK")`); null otherwise.
const StringLiteral *spelledStringLiteral(const Expr *E);
/// The name a call's callee is spelled with, also for a call left
/// unresolved in a template (`sync_gradients(model)` with a dependent
/// argument, `grads.push_back(p.grad())`) or by a compile error; "" for
/// operators and callees that are expressions.
llvm::StringRef spelledCalleeName(const CallExpr &Call);
/// A call clang could not type-check and kept as a recovery expression
/// (`all_reduce(p.grad(), pg)` binding a const gradient to a `Tensor &`):
/// the functions its name lookup found that take as many arguments, in
/// lookup order, and the arguments.
struct RecoveredCall {
  llvm::StringRef Name;
  llvm::SmallVector<const FunctionDecl *, 2> Candidates;
  llvm::ArrayRef<const Expr *> Arguments;
};
/// Null when \p E's callee is no name lookup, or no candidate fits.
std::optional<RecoveredCall> recoveredCall(const RecoveryExpr &E);
/// Whether \p E is a constant that converts to false
/// (`requires_grad_(false)`, `find_unused_parameters = 0`).
inline bool isConstantFalse(const Expr *E, const ASTContext &Context) {
  bool Value = true;
  return E && !E->isValueDependent() &&
         E->EvaluateAsBooleanCondition(Value, Context) && !Value;
}
/// Whether \p Name, lowercased, contains one of \p Parts (lowercase): the
/// name heuristics for code the vocabulary cannot resolve.
bool nameContainsAny(llvm::StringRef Name,
                     llvm::ArrayRef<llvm::StringLiteral> Parts);
/// The record a (smart) pointer or reference type points to: strips
/// references, raw pointers and std::shared_ptr / std::unique_ptr /
/// c10::intrusive_ptr.
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

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARYHELPERS_H
