//===--- GradientCheckBase.h - checks over a unit's gradient sync ---------===//
//
// ddp-unsynced-gradients and ddp-unaveraged-allreduce reason about a whole
// translation unit: a sync helper, the hook that calls it, the wrapper that
// averages in another method. Both collect every function defined outside
// system headers while the matchers run, then build one GradientModel at the
// end of the translation unit and analyse it.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_GRADIENTCHECKBASE_H
#define DDPLINT_CHECKS_GRADIENTCHECKBASE_H

#include "ddp/DdpCheck.h"
#include "model/GradientModel.h"

#include <string>
#include <vector>

namespace clang::tidy::ddp {

class GradientCheckBase : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) final;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) final;
  void onStartOfTranslationUnit() final;
  void onEndOfTranslationUnit() final;
  /// Also records the code the preprocessor skips (an `#ifdef` branch this
  /// configuration does not build), so that the model can tell it from
  /// statements dropped by compile errors: skipped code runs nothing, and
  /// counts neither as a sync nor as an average.
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) final;

protected:
  virtual void analyze(const GradientModel &Model) = 0;
  /// The quoted name of a called function, for diagnostics.
  static std::string calleeName(const CallExpr &Call);

private:
  ASTContext *Context = nullptr;
  std::vector<const FunctionDecl *> Functions;
  std::vector<SourceRange> Skipped;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_GRADIENTCHECKBASE_H
