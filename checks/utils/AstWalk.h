//===--- AstWalk.h - small walks over the AST shared by the checks --------===//

#ifndef DDPLINT_CHECKS_UTILS_ASTWALK_H
#define DDPLINT_CHECKS_UTILS_ASTWALK_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

namespace clang::tidy::ddp {

/// Whether \p S is, or contains, a statement satisfying \p P.
template <typename Pred> bool containsWhere(const Stmt *S, Pred &&P) {
  if (!S)
    return false;
  if (P(S))
    return true;
  for (const Stmt *Child : S->children())
    if (containsWhere(Child, P))
      return true;
  return false;
}

/// Whether \p Inner is \p Outer or lies inside it.
inline bool contains(const Stmt *Outer, const Stmt *Inner) {
  return Inner && containsWhere(Outer, [&](const Stmt *S) { return S == Inner; });
}

/// The DeclStmt that declares \p Var, or null (parameters, globals).
inline const DeclStmt *declStmtOf(const VarDecl &Var, ASTContext &Context) {
  for (const DynTypedNode &Parent : Context.getParents(Var))
    if (const auto *DS = Parent.get<DeclStmt>())
      return DS;
  return nullptr;
}

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UTILS_ASTWALK_H
