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

#include "ddp/DdpCheck.h"
#include "analysis/Reachability.h"
#include "model/LoaderFacts.h"

namespace clang::tidy::ddp {

class SamplerEpochCheck : public DdpCheck {
public:
  using DdpCheck::DdpCheck;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Where one loader gets its value.
  struct LoaderHistory;

  void checkDefaultConstructedSampler(const CallExpr &Factory);
  void checkLoaders(const FunctionDecl &Function, ASTContext &Context);
  /// The phases of checkLoaders for one loader, each reporting its own
  /// finding (true when it did): set_epoch on a sampler the loader copied
  /// before; one loader iterated every epoch; a loader rebuilt every epoch
  /// from a sampler whose epoch never changes.
  bool checkEpochAfterCopy(const LoaderFacts &Facts, const LoaderHistory &H,
                           const Reachability &Flow);
  bool checkReplayedLoader(const LoaderFacts &Facts, const LoaderHistory &H,
                           const Reachability &Flow);
  /// A homegrown loader iterated every epoch whose sampler's epoch is
  /// never set.
  bool reportUnsetEpoch(const LoaderFacts &Facts, const LoaderDefinition &Def,
                        const LoaderUse &Pass);
  void checkRebuiltLoader(const LoaderFacts &Facts, const LoaderHistory &H,
                          const Reachability &Flow, ASTContext &Context);
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_SAMPLEREPOCHCHECK_H
