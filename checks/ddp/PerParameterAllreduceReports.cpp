//===--- PerParameterAllreduceReports.cpp - ddp-per-parameter-allreduce ---===//
//
// The findings of ddp-per-parameter-allreduce: a sync of each parameter or
// its gradient, or a start handed out tensor by tensor again and again,
// with notes at the loop or hook and inside the helper that issues the
// collective.
//
//===----------------------------------------------------------------------===//

#include "ddp/PerParameterAllreduceCheck.h"

namespace clang::tidy::ddp {

bool PerParameterAllreduceCheck::handsOut(CollectiveKind K) {
  return K == CollectiveKind::Broadcast || K == CollectiveKind::Scatter;
}

void PerParameterAllreduceCheck::report(const Expr &Call,
                                        const FunctionDecl *Helper,
                                        CollectiveKind Kind, bool Blocking,
                                        const PerParameterSite &Site) {
  if (handsOut(Kind)) {
    reportHandedOut(Call, Helper, Kind, Blocking, Site);
    return;
  }
  diag(Call.getBeginLoc(),
       "%select{|%3 issues }2one %select{%0 per parameter: each tensor is a "
       "separate collective with its own launch and latency, even when the "
       "results are waited for later; flatten the gradients into one bucket, "
       "use allreduce_coalesced, or a data-parallel wrapper that buckets "
       "gradients|blocking %0 per parameter: every tensor waits out a full "
       "collective round trip, so gradient synchronisation is latency-bound; "
       "flatten the gradients into one bucket (torch::cat, one %0, copy "
       "back), use allreduce_coalesced, or a data-parallel wrapper that "
       "buckets gradients}1")
      << collectiveKindName(Kind) << Blocking << (Helper != nullptr) << Helper;
  reportPlaces(Helper, Site);
}

void PerParameterAllreduceCheck::reportHandedOut(
    const Expr &Call, const FunctionDecl *Helper, CollectiveKind Kind,
    bool Blocking, const PerParameterSite &Site) {
  diag(Call.getBeginLoc(),
       "%select{|%2 issues }1one %select{|blocking }3%0 per parameter in a "
       "loop that runs again and again: every round hands out one tensor "
       "with its own launch and latency; flatten the tensors into one "
       "buffer (torch::cat, one %0, copy back)%select{, use "
       "broadcast_coalesced|}4, or hand them out once")
      << collectiveKindName(Kind) << (Helper != nullptr) << Helper << Blocking
      << (Kind == CollectiveKind::Scatter);
  reportPlaces(Helper, Site);
}

/// The notes of a finding: the loop or hook, and where a helper issues the
/// collective.
void PerParameterAllreduceCheck::reportPlaces(const FunctionDecl *Helper,
                                              const PerParameterSite &Site) {
  diag(Site.Origin->getBeginLoc(),
       Site.IsHook ? "hook registered on each parameter here"
                   : "loop over the parameters here",
       DiagnosticIDs::Note);
  if (Helper)
    if (const Expr *Inside = Sites->firstIssued(*Helper))
      diag(Inside->getBeginLoc(), "the collective is issued here, inside %0",
           DiagnosticIDs::Note)
          << Helper;
}

} // namespace clang::tidy::ddp
