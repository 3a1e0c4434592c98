//===--- WrapperCheckBase.h - base of the wrapper-lifecycle checks ------------===//
//
// Checks about a wrapped module's life (ddp-unwrapped-forward,
// ddp-mutation-after-wrap, ddp-device-move-after-wrap) share one
// WrapperLife per function, built on first use.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_WRAPPERCHECKBASE_H
#define DDPLINT_CHECKS_WRAPPERCHECKBASE_H

#include "ddp/DdpCheck.h"
#include "model/WrapperLife.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>

namespace clang::tidy::ddp {

class WrapperCheckBase : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void onEndOfTranslationUnit() override { Lives.clear(); }

protected:
  /// The wrapper model of \p Function.
  const WrapperLife &lifeOf(const FunctionDecl &Function, ASTContext &Context);
  /// Reports the "wrapped here" note of \p W.
  void noteWrap(const Wrap &W);
  /// Whether \p S issues a collective, directly or through a function of
  /// this translation unit (a `broadcast_parameters(model)` helper).
  bool issuesCollective(const Stmt &S, ASTContext &Context,
                        unsigned Depth = 0) const;

private:
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<WrapperLife>> Lives;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_WRAPPERCHECKBASE_H
