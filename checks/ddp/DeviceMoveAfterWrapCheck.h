//===--- DeviceMoveAfterWrapCheck.h - ddp-device-move-after-wrap ----------===//
//
// Finds a wrapped module moved to another device or dtype while the wrapper
// lives: Module::to replaces the parameters' data, autograd drops the
// gradient accumulators the wrapper hooked, and gradients stop syncing.
//
// docs/checks/ddp-device-move-after-wrap.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_DEVICEMOVEAFTERWRAPCHECK_H
#define DDPLINT_CHECKS_DEVICEMOVEAFTERWRAPCHECK_H

#include "ddp/WrapperCheckBase.h"

namespace clang::tidy::ddp {

class DeviceMoveAfterWrapCheck : public WrapperCheckBase {
public:
  using WrapperCheckBase::WrapperCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_DEVICEMOVEAFTERWRAPCHECK_H
