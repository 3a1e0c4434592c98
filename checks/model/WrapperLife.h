//===--- WrapperLife.h - a data-parallel wrapper's life in one function ---===//
//
// The model shared by the wrapper checks (ddp-unwrapped-forward,
// ddp-mutation-after-wrap, ddp-device-move-after-wrap):
//
// - a *wrap* is a recognised wrapper (Vocabulary::isWrapperClass) built from a
//   module handle: a local (`DDP ddp(model.ptr(), pg)`), an assignment or
//   `std::make_shared<DDP>(model, pg)`, a wrapper received as a parameter
//   (built by the caller), or a field initialised in a constructor (built
//   before any other member function runs);
// - the *aliases* of the wrapped module are the handle passed in, local copies
//   of it, whatever an inner accessor returns (`ddp->module()`, `ddp.module_`)
//   and member functions of the same class that return one of those;
// - a statement runs *under* a wrap when it is reachable from the wrap on the
//   CFG without the wrapper being reassigned or reset in between, and (for a
//   local wrapper) inside the wrapper's scope.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_WRAPPERLIFE_H
#define DDPLINT_CHECKS_WRAPPERLIFE_H

#include "vocabulary/Vocabulary.h"
#include "analysis/Reachability.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <vector>

namespace clang::tidy::ddp {

struct Wrap {
  /// The local, parameter or field that holds the wrapper.
  const ValueDecl *Wrapper = nullptr;
  /// The module handle passed to the wrapper, when visible.
  const ValueDecl *Module = nullptr;
  /// The statement of this function that builds the wrapper; null when it
  /// was built before the function runs (parameter, constructor-built field).
  const Stmt *Site = nullptr;
  /// Where to point the "wrapped here" note.
  SourceLocation Loc;
};

class WrapperLife {
public:
  WrapperLife(const FunctionDecl &Function, ASTContext &Context,
              const Vocabulary &Vocab);

  bool empty() const { return Wraps.empty(); }
  /// Every wrap this function knows of, in the order found.
  llvm::ArrayRef<Wrap> wraps() const { return Wraps; }

  /// The wrap whose wrapped module \p Handle denotes, if \p At runs under that
  /// wrap; null otherwise.
  const Wrap *wrappedModule(const Expr *Handle, const Stmt *At) const;
  /// Whether some wrapper in this function wraps \p Module (or a copy).
  bool isWrapped(const ValueDecl *Module) const;
  /// The wrap that \p Handle (an expression of wrapper type) holds, if \p At
  /// runs under it; null otherwise.
  const Wrap *wrapper(const Expr *Handle, const Stmt *At) const;

  /// The wrapped module as diagnostics name it, quoted.
  static std::string moduleName(const Wrap &W);

  const Reachability &flow() const { return Flow; }

private:
  bool isWrapperType(QualType T) const;
  /// Fields of \p Class that its constructors initialise with a wrapper.
  void addConstructorBuiltWraps(const CXXRecordDecl &Class);
  /// Wrapper locals, and the module aliases declared in \p Body.
  void addDeclaredWraps(const Stmt &Body);
  /// Wrappers assigned in \p Body: `ddp = std::make_shared<DDP>(model)`.
  void addAssignedWraps(const Stmt &Body);
  /// Smart pointers to a wrapper reset in \p Body: `ddp.reset(new DDP(m))`.
  void addResetWraps(const Stmt &Body);
  void addWrap(const ValueDecl *Wrapper, const Expr *Init, const Stmt *Site,
               SourceLocation Loc);
  bool live(const Wrap &W, const Stmt *At) const;
  const Wrap *wrapOfWrapperDecl(const ValueDecl *D, const Stmt *At) const;
  /// A member function of the same class returning an alias.
  const Wrap *wrapReturnedBy(const CallExpr &Call, const Stmt *At,
                             unsigned Depth) const;
  const Wrap *resolve(const Expr *Handle, const Stmt *At,
                      unsigned Depth) const;

  const FunctionDecl &Function;
  ASTContext &Context;
  const Vocabulary &Vocab;
  Reachability Flow;
  std::vector<Wrap> Wraps;
  /// Statements that rebuild or reset a wrapper variable.
  llvm::DenseMap<const ValueDecl *, std::vector<const Stmt *>> Rebuilds;
  /// Local copies of module handles: `auto m2 = model;`.
  llvm::DenseMap<const ValueDecl *, const ValueDecl *> CopyOf;
  /// Locals bound to a wrapper's inner module: `Net &inner = ddp->module();`
  /// maps to the wrapper expression (`ddp`).
  llvm::DenseMap<const ValueDecl *, const Expr *> InnerOf;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_WRAPPERLIFE_H
