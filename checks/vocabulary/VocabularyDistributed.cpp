//===--- VocabularyDistributed.cpp - what shows a distributed program -----===//
//
// Whether code runs in a distributed program, as far as it shows itself:
// the types only such a program holds (communicators, data-parallel
// wrappers, distributed samplers and loaders over them), and the calls and
// names only it makes (collectives, rank and world-size queries, the
// runtime's initialisation, gradient sync helpers, the rank). Every check
// that asks "is this function distributed?" asks here.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

/// Every statement under \p S, \p S included, lambdas' bodies too.
void allStatements(const Stmt *S, llvm::SmallVectorImpl<const Stmt *> &Out) {
  if (!S)
    return;
  Out.push_back(S);
  for (const Stmt *Child : S->children())
    allStatements(Child, Out);
}

} // namespace

bool Vocabulary::isDistributedType(QualType T) const {
  if (T.isNull() || T->isDependentType())
    return false;
  if (collectives::isCommunicatorType(T) || wrapperClassOfHandle(T))
    return true;
  if (const CXXRecordDecl *RD = pointeeRecord(T);
      RD && loaders::isDistributedSampler(*RD))
    return true;
  const CXXRecordDecl *Sampler = loaders::samplerOfLoaderType(T);
  return Sampler && loaders::isDistributedSampler(*Sampler);
}

bool DistributedVocabulary::isDistributedRuntimeInit(
    const FunctionDecl &FD) const {
  return DistributedInitFunctions.matches(FD);
}

bool Vocabulary::showsDistributed(const Stmt &S) const {
  if (const auto *DS = dyn_cast<DeclStmt>(&S))
    return llvm::any_of(DS->decls(), [&](const Decl *D) {
      const auto *Var = dyn_cast<VarDecl>(D);
      return Var && isDistributedType(Var->getType());
    });
  if (isa<DeclRefExpr, MemberExpr, CXXConstructExpr>(&S) &&
      isDistributedType(cast<Expr>(&S)->getType()))
    return true;
  if (namesRank(S))
    return true;
  const auto *Call = dyn_cast<CallExpr>(&S);
  if (!Call)
    return false;
  if (classifyCollective(*Call) || rankOutputArgument(*Call) ||
      returnsWorldSize(*Call) || worldSizeOutputArgument(*Call))
    return true;
  const FunctionDecl *FD = Call->getDirectCallee();
  return FD && (isDistributedRuntimeInit(*FD) || isGradientSyncFunction(*FD));
}

bool Vocabulary::isDistributedFunction(
    const FunctionDecl &FD, const CXXRecordDecl *Class,
    llvm::ArrayRef<const Stmt *> Stmts) const {
  if (llvm::any_of(FD.parameters(), [&](const ParmVarDecl *P) {
        return isDistributedType(P->getType());
      }))
    return true;
  if (Class && Class->hasDefinition() &&
      llvm::any_of(Class->getDefinition()->fields(), [&](const FieldDecl *F) {
        return isDistributedType(F->getType());
      }))
    return true;
  return llvm::any_of(Stmts, [&](const Stmt *S) {
    return S && showsDistributed(*S);
  });
}

bool Vocabulary::isDistributedFunction(const FunctionDecl &FD) const {
  llvm::SmallVector<const Stmt *, 64> Stmts;
  allStatements(FD.getBody(), Stmts);
  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  return isDistributedFunction(FD, MD ? MD->getParent() : nullptr, Stmts);
}

} // namespace clang::tidy::ddp
