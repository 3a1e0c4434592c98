//===--- SamplerEpochCheck.h - ddp-sampler-epoch --------------------------===//
//
// Finds data loaders that replay one sample order every epoch, or that do
// not shard at all, because of how LibTorch's distributed samplers work:
// DistributedRandomSampler::reset seeds its shuffle with the epoch, and
// torch::data::make_data_loader takes the sampler by value.
//
// docs/checks/ddp-sampler-epoch.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_SAMPLEREPOCHCHECK_H
#define DDPLINT_CHECKS_SAMPLEREPOCHCHECK_H

#include "DdpCheck.h"

namespace clang::tidy::ddp {

class SamplerEpochCheck : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkDefaultConstructedSampler(const CallExpr &Factory);
  void checkLoaders(const FunctionDecl &Function, ASTContext &Context);
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_SAMPLEREPOCHCHECK_H
