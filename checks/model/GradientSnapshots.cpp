//===--- GradientSnapshots.cpp - copies of the weights --------------------===//
//
// The part of GradientModel's roles that tells a snapshot of the weights
// from a gradient: what is subtracted from the weights is a gradient step,
// unless it is a copy of those same weights taken before (local steps
// turned into the update they made, `w -= w0`).
//
//===----------------------------------------------------------------------===//

#include "model/GradientModel.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>

namespace clang::tidy::ddp {

namespace {

/// The index of an element access (`w[i]`, `v[i]` through `operator[]`),
/// as the variable it names; the whole object for other expressions.
struct Element {
  bool Subscripted = false;
  const Decl *Index = nullptr;
};
Element elementOf(const Expr *E) {
  const Expr *Index = subscriptIndex(E);
  if (!Index)
    return {};
  const auto *Ref = dyn_cast<DeclRefExpr>(Index->IgnoreParenImpCasts());
  return {true, Ref ? Ref->getDecl() : nullptr};
}
bool sameElement(const Expr *A, const Expr *B) {
  Element EA = elementOf(A), EB = elementOf(B);
  return EA.Subscripted == EB.Subscripted &&
         (!EA.Subscripted || (EA.Index && EA.Index == EB.Index));
}

/// A call that may change what its argument \p Arg points at: a function of
/// the project taking it through a non-const pointer or reference.
bool mayWriteThrough(const CallExpr &Call, unsigned Arg) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || Arg >= FD->getNumParams() || inSystemHeader(*FD))
    return false;
  return isOutputType(FD->getParamDecl(Arg)->getType());
}

} // namespace

CopyWrite GradientModel::copyWrite(const CodeUnit &U, const Stmt *S,
                                   const ValueDecl *Copy,
                                   const ValueDecl *Of) const {
  auto Filled = [&](const Expr *Destination, const Expr *Source) {
    if (rootDecl(Destination) != Copy)
      return CopyWrite::None;
    return rootDecl(Source) == Of && sameElement(Destination, Source)
               ? CopyWrite::FromOf
               : CopyWrite::Other;
  };
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    const auto *Var = dyn_cast<VarDecl>(Copy);
    return Var && Var->getInit() && llvm::is_contained(DS->decls(), Var) &&
                   rootDecl(Var->getInit()) == Of
               ? CopyWrite::FromOf
               : CopyWrite::None;
  }
  BinaryOperatorKind Kind = BO_Comma;
  if (auto Assigned = binaryOperands(dyn_cast<Expr>(S), Kind);
      Assigned && BinaryOperator::isAssignmentOp(Kind))
    return Kind == BO_Assign ? Filled(Assigned->first, Assigned->second)
           : rootDecl(Assigned->first) == Copy ? CopyWrite::Other
                                               : CopyWrite::None;
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return CopyWrite::None;
  if (std::optional<RawCopy> Raw = flow::rawDataCopy(*Call))
    return Filled(Raw->Destination, Raw->Source);
  bool Collective = collectiveOf(U, *Call).has_value();
  for (unsigned I = 0; I < Call->getNumArgs(); ++I)
    if (rootDecl(Call->getArg(I)) == Copy &&
        (Collective || mayWriteThrough(*Call, I)))
      return CopyWrite::Other;
  return CopyWrite::None;
}

bool GradientModel::isSnapshotOf(const CodeUnit &U, const ValueDecl *Copy,
                                 const ValueDecl *Of,
                                 const Stmt &Update) const {
  if (!Copy || !Of)
    return false;
  const SourceManager &SM = context().getSourceManager();
  bool Snapshot = false;
  for (const Stmt *S : U.Stmts)
    switch (copyWrite(U, S, Copy, Of)) {
    case CopyWrite::None:
      break;
    case CopyWrite::FromOf:
      Snapshot |= SM.isBeforeInTranslationUnit(S->getBeginLoc(),
                                               Update.getBeginLoc());
      break;
    case CopyWrite::Other:
      return false; // filled with something else somewhere
    }
  return Snapshot;
}

} // namespace clang::tidy::ddp
