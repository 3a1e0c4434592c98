//===- Verdict.h - One word for what a run showed -------------------------===//
//
// A scenario declares what kind of failure it demonstrates (divergence, hang,
// data order, gradient scale); the verdict is measured the way that kind is
// measured. Process failures come first: a run that hung or crashed has that
// verdict whatever its kind.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_VERDICT_H
#define DDPHARNESS_LAUNCHER_VERDICT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ddpharness {

struct HarnessRecord;
struct RunAnalysis;

enum class ScenarioKind {
  Divergence,
  Hang,
  DataOrder,
  GradientScale,
  Progress,
  Unknown
};

ScenarioKind parseScenarioKind(llvm::StringRef Kind);
const char *scenarioKindName(ScenarioKind Kind);

/// "crash (rank 1: killed by SIGSEGV)", "hang", or "" when the processes
/// ended well.
std::string processFailure(const HarnessRecord &Process);

/// The replicas' verdict: "diverged at step 3", "consistent", "no probe
/// data".
std::string replicaVerdict(const RunAnalysis &A);

/// The data-order verdict: "same-order", "reshuffled", "same-order,
/// overlap", or "" without indices.
std::string dataOrderVerdict(const RunAnalysis &A);

/// "gradient 2.00x the average" from the grad_ratio metric (the gradient
/// the ranks stepped with against the true average of their local
/// gradients), or "" without it.
std::string gradientScale(const RunAnalysis &A);

/// "consistent, gradient 2.00x the average", or "" without grad_ratio.
std::string gradientScaleVerdict(const RunAnalysis &A);

/// The progress verdict: "frozen" when no rank's parameters changed between
/// its first and last recorded steps, "training" when some did, or "" with
/// fewer than two recorded steps.
std::string progressVerdict(const RunAnalysis &A);

/// The verdict for a scenario of \p Kind.
std::string measuredVerdict(ScenarioKind Kind, const HarnessRecord &Process,
                            const RunAnalysis &A);

/// "verdict: ..." for how the processes ended, with each one's end and
/// last line when they did not all exit 0 (the launcher's, when another
/// launcher started the ranks; "not recorded" when nothing says).
void printProcessVerdict(llvm::raw_ostream &OS, const HarnessRecord &Process);

} // namespace ddpharness

#endif
