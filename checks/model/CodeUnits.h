//===--- CodeUnits.h - the bodies of one translation unit and their calls -===//
//
// The code the gradient model reasons about, in units: every function
// defined outside system headers, and every lambda's body (a unit of its
// own, run later than the statement that writes it). The graph knows which
// unit a function or a lambda is, who calls a unit, which units a callable
// expression denotes, the overrides of a virtual method, and builds one CFG
// per unit on demand.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_CODEUNITS_H
#define DDPLINT_CHECKS_CODEUNITS_H

#include "analysis/Reachability.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <utility>
#include <vector>

namespace clang::tidy::ddp {

/// One body of code: a function definition or a lambda's body.
struct CodeUnit {
  const FunctionDecl *Function = nullptr; // a lambda's call operator for lambdas
  const Stmt *Body = nullptr;
  const CodeUnit *Enclosing = nullptr; // the unit a lambda is written in
  /// False for a template pattern whose instantiations are analysed instead.
  bool Reported = true;
  /// Every statement of the body, nested lambdas' bodies excluded.
  std::vector<const Stmt *> Stmts;
  std::vector<const CallExpr *> Calls;
  /// The parent of each statement in Stmts (the body has none).
  llvm::DenseMap<const Stmt *, const Stmt *> Parent;
  /// Roles of this unit's local variables and parameters (GradientModel).
  llvm::DenseMap<const ValueDecl *, unsigned> Roles;
  /// The outermost expressions clang could not build (a call into a missing
  /// header): they may do anything, a sync or an average included.
  std::vector<const Stmt *> Broken;

  /// Whether \p Inner is \p Outer or lies inside it.
  bool contains(const Stmt *Outer, const Stmt *Inner) const;
  /// The innermost statement holding both \p A and \p B (the body at most).
  const Stmt *commonAncestor(const Stmt *A, const Stmt *B) const;
};

/// A call of a unit from another.
struct CallSite {
  const CodeUnit *Caller;
  const CallExpr *Call;
};

class CodeUnitGraph {
public:
  explicit CodeUnitGraph(ASTContext &Context) : Context(Context) {}

  /// Adds a function definition (and the lambdas in it).
  void addFunction(const FunctionDecl &FD);
  /// Records the callers of each unit and the overrides of virtual methods;
  /// call once, after every addFunction.
  void link();

  const std::vector<std::unique_ptr<CodeUnit>> &units() const { return Units; }

  /// The unit of a function's (or its template pattern's) definition.
  const CodeUnit *unitOf(const FunctionDecl *FD) const;
  const CodeUnit *unitOf(const LambdaExpr *Lambda) const;
  /// The unit whose function is exactly \p FD (a definition), to be changed.
  CodeUnit *definedUnit(const FunctionDecl *FD) const {
    return ByFunction.lookup(FD);
  }
  /// The unit a call runs, when its body is in this translation unit.
  const CodeUnit *calleeUnit(const CallExpr &Call) const {
    return unitOf(Call.getDirectCallee());
  }
  llvm::ArrayRef<CallSite> callers(const CodeUnit &U) const;
  /// The units of the methods overriding a virtual method.
  llvm::ArrayRef<const CodeUnit *> overriders(const FunctionDecl &FD) const;
  /// The units a callable expression denotes: a lambda (also through a local
  /// variable), a hook object's `operator()` (`std::make_unique<Hook>(...)`,
  /// `new Hook`), a function.
  llvm::SmallVector<const CodeUnit *, 2> callableUnits(const Expr *Callable) const;
  /// The CFG of a unit.
  const Reachability &flow(const CodeUnit &U) const;

  /// The class a unit's function is a member of (for lambdas, of the
  /// function they are written in), or null.
  static const CXXRecordDecl *memberOf(const CodeUnit &U);
  /// The arguments of a call of a unit, with the parameters they bind
  /// (an operator call's object excluded).
  static llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 4>
  boundArguments(const CallExpr &Call, const CodeUnit &Callee);

private:
  void collect(CodeUnit &U, const Stmt *S, const Stmt *Parent);
  void addLambda(CodeUnit &Enclosing, const LambdaExpr &Lambda);
  /// The units of the hook classes a callable expression builds.
  void hookObjectUnits(const Expr *E,
                       llvm::SmallVectorImpl<const CodeUnit *> &Out) const;

  ASTContext &Context;
  std::vector<std::unique_ptr<CodeUnit>> Units;
  llvm::DenseMap<const FunctionDecl *, CodeUnit *> ByFunction;
  llvm::DenseMap<const LambdaExpr *, CodeUnit *> ByLambda;
  llvm::DenseMap<const CodeUnit *, llvm::SmallVector<CallSite, 2>> Callers;
  /// The units of the methods overriding a virtual method (canonical).
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CodeUnit *, 2>>
      Overriders;
  mutable llvm::DenseMap<const CodeUnit *, std::unique_ptr<Reachability>> Flows;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_CODEUNITS_H
