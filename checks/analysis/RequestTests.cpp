//===--- RequestTests.cpp - Whether an MPI test completes anything --------===//

#include "analysis/RequestTests.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/Collectives.h"
#include "vocabulary/VocabularyHelpers.h"

#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

/// The plain local variable whose address \p Outcome passes (`&flag`), or
/// null when the answer goes anywhere else.
const VarDecl *localAnswer(const Expr *Outcome) {
  const auto *Address = dyn_cast<UnaryOperator>(Outcome->IgnoreParenImpCasts());
  if (!Address || Address->getOpcode() != UO_AddrOf)
    return nullptr;
  const auto *Answer = dyn_cast_or_null<VarDecl>(
      referencedDecl(Address->getSubExpr()->IgnoreParenImpCasts()));
  if (!Answer || !Answer->hasLocalStorage() || isa<ParmVarDecl>(Answer) ||
      Answer->getType()->isReferenceType())
    return nullptr;
  return Answer;
}

/// The test calls in \p Scope: a flag handed to the next test is not read
/// by it.
llvm::SmallVector<const CallExpr *, 4> testsIn(const Stmt &Scope) {
  llvm::SmallVector<const CallExpr *, 4> Tests;
  forEachStmt(&Scope, [&](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && collectives::mpiRequestTest(*Call))
      Tests.push_back(Call);
  });
  return Tests;
}

} // namespace

bool testAnswerRead(const CallExpr &Test, const Stmt &Scope) {
  std::optional<collectives::RequestTest> T = collectives::mpiRequestTest(Test);
  if (!T)
    return false;
  llvm::SmallVector<const CallExpr *, 4> Tests = testsIn(Scope);
  return llvm::any_of(T->Outcomes, [&](const Expr *Outcome) {
    const VarDecl *Answer = localAnswer(Outcome);
    if (!Answer)
      return true;
    return containsWhere(&Scope, [&](const Stmt *S) {
      const auto *Ref = dyn_cast<DeclRefExpr>(S);
      return Ref && Ref->getDecl() == Answer &&
             llvm::none_of(Tests, [&](const CallExpr *Other) { return contains(Other, Ref); });
    });
  });
}

} // namespace clang::tidy::ddp
