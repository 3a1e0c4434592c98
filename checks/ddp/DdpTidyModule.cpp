//===--- DdpTidyModule.cpp - the ddp module of clang-tidy checks ----------===//
//
// Registers the ddp-* checks with clang-tidy's module registry. The same
// object code serves `clang-tidy-16 -load ddplint-plugin.so` and the ddplint
// driver.
//
//===----------------------------------------------------------------------===//

#include "ddp/CheckpointRaceCheck.h"
#include "ddp/DeviceMoveAfterWrapCheck.h"
#include "ddp/DivergentCollectiveCheck.h"
#include "ddp/MissingInitialBroadcastCheck.h"
#include "ddp/MutationAfterWrapCheck.h"
#include "ddp/OptimizerStaleParametersCheck.h"
#include "ddp/PerParameterAllreduceCheck.h"
#include "ddp/SamplerEpochCheck.h"
#include "ddp/UnaveragedAllreduceCheck.h"
#include "ddp/UnsyncedGradientsCheck.h"
#include "ddp/UnusedParametersCheck.h"
#include "ddp/UnwaitedWorkCheck.h"
#include "ddp/UnwrappedForwardCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace clang::tidy::ddp {

class DdpModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<CheckpointRaceCheck>(
        "ddp-checkpoint-race");
    Factories.registerCheck<DeviceMoveAfterWrapCheck>(
        "ddp-device-move-after-wrap");
    Factories.registerCheck<DivergentCollectiveCheck>(
        "ddp-divergent-collective");
    Factories.registerCheck<MissingInitialBroadcastCheck>(
        "ddp-missing-initial-broadcast");
    Factories.registerCheck<MutationAfterWrapCheck>(
        "ddp-mutation-after-wrap");
    Factories.registerCheck<OptimizerStaleParametersCheck>(
        "ddp-optimizer-stale-parameters");
    Factories.registerCheck<PerParameterAllreduceCheck>(
        "ddp-per-parameter-allreduce");
    Factories.registerCheck<SamplerEpochCheck>(
        "ddp-sampler-epoch");
    Factories.registerCheck<UnaveragedAllreduceCheck>(
        "ddp-unaveraged-allreduce");
    Factories.registerCheck<UnsyncedGradientsCheck>(
        "ddp-unsynced-gradients");
    Factories.registerCheck<UnusedParametersCheck>(
        "ddp-unused-parameters");
    Factories.registerCheck<UnwaitedWorkCheck>(
        "ddp-unwaited-work");
    Factories.registerCheck<UnwrappedForwardCheck>(
        "ddp-unwrapped-forward");
  }
};

// Registration happens when the plugin is loaded or the driver starts.
static ClangTidyModuleRegistry::Add<DdpModule>
    Registration("ddp-module", "Checks for data-parallel training bugs in "
                               "LibTorch code.");

} // namespace clang::tidy::ddp
