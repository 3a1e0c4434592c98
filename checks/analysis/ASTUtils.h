//===--- ASTUtils.h - small AST helpers shared by the checks --------------===//
//
// Walks over statements and their parents, and the line the flow analyses
// draw around user code: they follow calls into the translation unit's own
// functions (helpers, constructors, lambdas) but not into LibTorch or the
// standard library, whose headers are system headers.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_ANALYSIS_ASTUTILS_H
#define DDPLINT_CHECKS_ANALYSIS_ASTUTILS_H

#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <utility>

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

/// Whether \p S names a declaration (a `DeclRefExpr`) that \p Wanted
/// accepts.
template <typename Pred> bool mentionsWhere(const Stmt *S, Pred &&Wanted) {
  return containsWhere(S, [&](const Stmt *N) {
    const auto *Ref = dyn_cast<DeclRefExpr>(N);
    return Ref && Wanted(Ref->getDecl());
  });
}

/// Whether \p S names \p D.
inline bool mentions(const Stmt *S, const ValueDecl *D) {
  return mentionsWhere(S, [&](const ValueDecl *Named) { return Named == D; });
}

/// Whether a parameter of type \p T can hand a value back to the caller: a
/// reference or a pointer to something not const.
bool isOutputType(QualType T);

/// Whether \p D is declared inside the source range of \p Scope.
inline bool declaredWithin(const Decl &D, const Stmt &Scope) {
  SourceRange R = Scope.getSourceRange();
  SourceLocation L = D.getLocation();
  return R.isValid() && L.isValid() && !(L < R.getBegin()) &&
         !(R.getEnd() < L);
}

/// Whether \p Inner is \p Outer or lies inside it.
inline bool contains(const Stmt *Outer, const Stmt *Inner) {
  return Inner && containsWhere(Outer, [&](const Stmt *S) { return S == Inner; });
}

/// The statement directly above \p S, or null where a declaration is (the
/// initializer of a variable, the body of a function or a lambda).
inline const Stmt *parentStmt(const Stmt &S, ASTContext &Context) {
  DynTypedNodeList Parents = Context.getParents(S);
  return Parents.empty() ? nullptr : Parents[0].get<Stmt>();
}

/// The statement above \p S past the implicit casts between them: the
/// member expression of `v.size()` above the DeclRefExpr `v`.
inline const Stmt *parentPastImplicitCasts(const Stmt &S,
                                           ASTContext &Context) {
  const Stmt *Parent = parentStmt(S, Context);
  while (Parent && isa<ImplicitCastExpr>(Parent))
    Parent = parentStmt(*Parent, Context);
  return Parent;
}

/// The statement around \p S, climbing through a variable's declaration to
/// its DeclStmt, from a lambda's body to the LambdaExpr and from an OpenMP
/// region's statement to its directive.
const Stmt *parentStmtAcrossDecls(const Stmt &S, ASTContext &Context);

/// The first node above \p S, innermost first and up to (not past) the
/// function around it, for which \p Stop holds; \p Stop sees each node and
/// the child it was reached from. None where none does.
std::optional<DynTypedNode>
enclosingWhere(const Stmt &S, ASTContext &Context,
               llvm::function_ref<bool(const DynTypedNode &Node,
                                       const DynTypedNode &From)>
                   Stop);

/// The DeclStmt that declares \p Var, or null (parameters, globals).
inline const DeclStmt *declStmtOf(const VarDecl &Var, ASTContext &Context) {
  for (const DynTypedNode &Parent : Context.getParents(Var))
    if (const auto *DS = Parent.get<DeclStmt>())
      return DS;
  return nullptr;
}

// --- User code ----------------------------------------------------------

/// The definition of \p FD in this translation unit, when it has a body and
/// lies in user code; null otherwise.
inline const FunctionDecl *userDefinition(const FunctionDecl &FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD.hasBody(Def) || !Def || !Def->getBody() || inSystemHeader(*Def))
    return nullptr;
  return Def;
}

/// userDefinition of \p FD, or, for a member of a template specialization
/// whose body was not instantiated, of the template's member as written.
inline const FunctionDecl *definitionOrPattern(const FunctionDecl &FD) {
  if (const FunctionDecl *Body = userDefinition(FD))
    return Body;
  if (const FunctionDecl *Pattern = FD.getTemplateInstantiationPattern())
    return userDefinition(*Pattern);
  return nullptr;
}

/// Whether \p FD is a template pattern (or a member of one) whose body was
/// instantiated in the translation unit: the instantiations are analysed
/// instead, with every call resolved. A pattern nothing instantiates (a
/// class template in a header opened on its own, a member no instantiation
/// calls) is analysed as written.
bool isInstantiatedPattern(const FunctionDecl &FD);

/// A `for`, `while`, `do` or range-for statement.
inline bool isLoopStmt(const Stmt *S) {
  return S && (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
               isa<CXXForRangeStmt>(S));
}

/// Calls \p OnCall for every call in the unit's own code (not in system
/// headers) with the function or lambda that makes it; template patterns
/// are skipped for their instantiations.
void forEachUserCall(
    ASTContext &Context,
    llvm::function_ref<void(const FunctionDecl &Caller, const CallExpr &Call)>
        OnCall);

/// Visits the calls and constructions in \p S, in source order, outside the
/// bodies of lambdas \p S only defines.
template <typename Fn> void forEachCall(const Stmt *S, Fn &&Visit) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (isa<CallExpr, CXXConstructExpr, RecoveryExpr>(S))
    Visit(cast<Expr>(S));
  for (const Stmt *Child : S->children())
    forEachCall(Child, Visit);
}

/// Visits every statement in \p S, outside the bodies of lambdas.
template <typename Fn> void forEachStmt(const Stmt *S, Fn &&Visit) {
  if (!S || isa<LambdaExpr>(S))
    return;
  Visit(S);
  for (const Stmt *Child : S->children())
    forEachStmt(Child, Visit);
}

/// Visits every statement in \p S, the bodies of lambdas included (a worker
/// thread's lambda runs the object's code too).
template <typename Fn> void forEachStmtAndLambda(const Stmt *S, Fn &&Visit) {
  containsWhere(S, [&](const Stmt *N) {
    Visit(N);
    return false;
  });
}

/// The lambda an expression is: itself, through the std::function or
/// temporary it is converted to, or a local initialised with one (a hook
/// handed to register_hook, a task handed to a thread pool); null otherwise.
const LambdaExpr *lambdaOf(const Expr *E);

/// The container a subscript reads: `v` in `v[i]`, for built-in arrays and
/// overloaded `operator[]` alike; null for anything else.
const Expr *subscriptBase(const Expr *E);
/// The index a subscript reads: `i` in `v[i]`, built in or overloaded;
/// null for anything else.
const Expr *subscriptIndex(const Expr *E);

/// The two operands of \p E when it is `a op b`, built in or overloaded
/// (after stripObjectWrappers); \p Kind receives op. None otherwise.
std::optional<std::pair<const Expr *, const Expr *>>
binaryOperands(const Expr *E, BinaryOperatorKind &Kind);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_ANALYSIS_ASTUTILS_H
