//===--- Wrappers.h - data-parallel wrappers and forward passes -----------===//
//
// Data-parallel wrappers (`WrapperTypes`), the accessors of their inner
// module (`InnerModuleAccessors`), and the forward passes run on a module or
// a wrapper.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_WRAPPERS_H
#define DDPLINT_CHECKS_VOCABULARY_WRAPPERS_H

#include "vocabulary/NameList.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::ddp {

/// Wrappers and forward passes: `WrapperTypes`, `InnerModuleAccessors`.
class WrapperVocabulary {
public:
  explicit WrapperVocabulary(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  /// A forward pass: `m->forward(x)`, `m(x)`, `(*m)(x)`, `m.forward(x)` on a
  /// module handle or a wrapper. Returns the expression of the module or
  /// wrapper it runs on, or null.
  const Expr *forwardReceiver(const CallExpr &Call) const;

  bool isWrapperClass(const CXXRecordDecl &RD) const;

  /// The wrapper class of a wrapper handle (object, holder, smart pointer,
  /// reference or pointer), or null.
  const CXXRecordDecl *wrapperClassOfHandle(QualType T) const;

  /// `ddp->module()`, `ddp.module_`, ...: an inner-module accessor used on
  /// a wrapper. Returns the wrapper expression, or null.
  const Expr *innerModuleAccessBase(const Expr *E) const;

private:
  NameList WrapperTypes;
  NameList InnerModuleAccessors;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_WRAPPERS_H
