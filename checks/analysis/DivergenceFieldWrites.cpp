//===--- DivergenceFieldWrites.cpp - what a helper writes into a struct ---===//
//
// C-style setup code fills a struct through a pointer
// (`loader_init(&loader, path, B, T, rank, world)`). Taking every field of
// the struct as rank-dependent because the rank was one of the arguments
// makes the token count, the step count and every loop bound built from them
// look rank-dependent too. So a helper whose parameter points or refers to a
// struct is summarised field by field: each field it writes, with the
// divergence of what it writes there in terms of the helper's parameters
// (its own calls of other helpers with the same pointer included). The
// caller then updates only those fields of its local.
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"
#include "analysis/DivergenceInternal.h"

#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

namespace {

/// The record a parameter of type `T *` or `T &` (T not const) designates.
const RecordDecl *writableRecord(const ParmVarDecl &P) {
  QualType T = P.getType();
  QualType Pointee;
  if (T->isPointerType())
    Pointee = T->getPointeeType();
  else if (T->isLValueReferenceType())
    Pointee = T.getNonReferenceType();
  else
    return nullptr;
  if (Pointee.isConstQualified())
    return nullptr;
  const RecordDecl *RD = Pointee->getAsRecordDecl();
  return RD && RD->isCompleteDefinition() ? RD : nullptr;
}

const Stmt *parentPast(const ParentMap &Parents, const Stmt *S) {
  const Stmt *P = Parents.getParent(S);
  while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P)))
    P = Parents.getParent(P);
  return P;
}

/// The expression that designates the written field as a whole once
/// subscripts, nested members and casts around \p ME are stepped over:
/// `p->counts[i]`, `p->stats.n`.
const Expr *outermostAccess(const ParentMap &Parents, const Expr *ME) {
  const Expr *E = ME;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    const Stmt *P = Parents.getParent(E);
    if (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
              (isa<MemberExpr>(P) && !cast<MemberExpr>(P)->isArrow()) ||
              (isa<ArraySubscriptExpr>(P) &&
               cast<ArraySubscriptExpr>(P)->getBase()->IgnoreParenImpCasts() ==
                   E->IgnoreParenImpCasts()))) {
      E = cast<Expr>(P);
      continue;
    }
    break;
  }
  return E;
}

/// What one use of the pointer parameter does: writes a field (with a value),
/// reads, or escapes where the summary cannot follow it.
class FieldWriteCollector {
public:
  FieldWriteCollector(DivergenceAnalysis &Owner, FunctionDivergence &Facts,
                      const ParentMap &Parents)
      : Owner(Owner), Facts(Facts), Parents(Parents) {}

  /// Records what the use \p Ref of the parameter does; false when the
  /// parameter escapes (written whole, aliased, handed to code not seen).
  bool use(const DeclRefExpr &Ref);
  DivergenceAnalysis::FieldWrites take() { return std::move(Writes); }

private:
  void write(const FieldDecl *F, Divergence D, const Stmt &Where) {
    D.merge(Facts.implicitAt(&Where));
    for (auto &[Field, Value] : Writes)
      if (Field == F) {
        Value.merge(D);
        return;
      }
    Writes.push_back({F, D});
  }
  bool fieldUse(const MemberExpr &ME);
  bool handedOn(const CallExpr &Call, const Expr &Arg);

  DivergenceAnalysis &Owner;
  FunctionDivergence &Facts;
  const ParentMap &Parents;
  DivergenceAnalysis::FieldWrites Writes;
};

} // namespace

bool FieldWriteCollector::use(const DeclRefExpr &Ref) {
  const Stmt *P = parentPast(Parents, &Ref);
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
    return fieldUse(*ME);
  if (const auto *Call = dyn_cast_or_null<CallExpr>(P))
    return handedOn(*Call, Ref);
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P))
    return BO->isComparisonOp() || BO->isLogicalOp();
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P))
    return UO->getOpcode() == UO_LNot;
  return isa_and_nonnull<IfStmt>(P) || isa_and_nonnull<ConditionalOperator>(P);
}

bool FieldWriteCollector::fieldUse(const MemberExpr &ME) {
  const auto *F = dyn_cast<FieldDecl>(ME.getMemberDecl());
  if (!F)
    return false; // a method may change what it likes (a tensor's `mul_`)
  const Expr *Access = outermostAccess(Parents, &ME);
  const Stmt *P = parentPast(Parents, Access);
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P)) {
    if (BO->isAssignmentOp() && BO->getLHS()->IgnoreParenImpCasts() ==
                                    Access->IgnoreParenImpCasts())
      write(F, Facts.value(BO->getRHS()), *BO);
    return true;
  }
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P)) {
    if (UO->isIncrementDecrementOp())
      write(F, {}, *UO);
    else if (UO->getOpcode() == UO_AddrOf)
      if (const auto *Call =
              dyn_cast_or_null<CallExpr>(parentPast(Parents, UO))) {
        Divergence Arguments; // `glob(pattern, ..., &p->result)`
        for (const Expr *Arg : Call->arguments())
          Arguments.merge(Facts.value(Arg));
        write(F, Arguments, *Call);
      }
    return true;
  }
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2 &&
        Op->getArg(0)->IgnoreParenImpCasts() == Access->IgnoreParenImpCasts())
      write(F, Facts.value(Op->getArg(1)), *Op);
    return true;
  }
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(P))
    if (isContainerMutator(identifierName(Member->getMethodDecl())))
      write(F, Facts.value(Member), *Member);
  return true;
}

bool FieldWriteCollector::handedOn(const CallExpr &Call, const Expr &Arg) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return false;
  for (unsigned I = 0; I < Call.getNumArgs(); ++I) {
    if (Call.getArg(I)->IgnoreParenImpCasts() != &Arg)
      continue;
    if (I >= Callee->getNumParams())
      return false;
    const ParmVarDecl &P = *Callee->getParamDecl(I);
    if (!writableRecord(P))
      return !P.getType()->isPointerType() ||
             P.getType()->getPointeeType().isConstQualified();
    const FunctionDecl *Def = userDefinition(*Callee);
    if (!Def)
      return false; // `memset(p, ...)`, `fread(p, ...)`: not followed
    const auto *Inner = Owner.fieldWrites(*Def, I);
    if (!Inner)
      return false;
    for (const auto &[F, D] : *Inner)
      write(F, atCall(D, Call, [&](const Expr *A) { return Facts.value(A); }),
            Call);
    return true;
  }
  return false;
}

const DivergenceAnalysis::FieldWrites *
DivergenceAnalysis::fieldWrites(const FunctionDecl &FD, unsigned Index) {
  auto Key = std::make_pair(&FD, Index);
  auto It = FieldWriteSummaries.find(Key);
  if (It != FieldWriteSummaries.end())
    return It->second ? &*It->second : nullptr;
  FieldWriteSummaries[Key] = std::nullopt; // recursion: not followed
  if (Index >= FD.getNumParams() || !writableRecord(*FD.getParamDecl(Index)))
    return nullptr;
  FunctionDivergence *Facts = function(FD);
  if (!Facts)
    return nullptr;
  const ParmVarDecl *P = FD.getParamDecl(Index);
  FieldWriteCollector Collector(*this, *Facts, parents(FD));
  bool Followed = true;
  forEachStmt(FD.getBody(), [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (Ref->getDecl() == P && Followed)
        Followed = Collector.use(*Ref);
  });
  if (!Followed)
    return nullptr;
  FieldWriteSummaries[Key] = Collector.take();
  return &*FieldWriteSummaries[Key];
}

} // namespace clang::tidy::ddp
