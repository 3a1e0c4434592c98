//===- Table.cpp - Every scenario, in the order --list prints them --------===//
//
// Adding a scenario: one file defining a Scenario, and one line here. A
// scenario of CUDA streams is listed only where LibTorch has CUDA (the
// NCCL process group compiles in with it).
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"

namespace ddpscenario {

extern const Scenario MoveAfterWrap;
extern const Scenario UnwrappedForward;
extern const Scenario SamplerEpoch;
extern const Scenario DivergentCollective;
extern const Scenario UnaveragedAllreduce;
extern const Scenario MissingBroadcast;
extern const Scenario MutationAfterWrap;
extern const Scenario AddLayerAfterWrap;
extern const Scenario SyncAfterStep;
extern const Scenario CheckpointRace;
extern const Scenario OptimizerStaleParameters;
extern const Scenario UnusedParameters;
#ifdef USE_C10D_NCCL
extern const Scenario SideStreamAllreduce;
#endif

const std::vector<const Scenario *> &scenarios() {
  static const std::vector<const Scenario *> Table = {
      &MoveAfterWrap,       &UnwrappedForward,    &SamplerEpoch,
      &DivergentCollective, &UnaveragedAllreduce, &MissingBroadcast,
      &MutationAfterWrap,   &AddLayerAfterWrap,   &SyncAfterStep,
      &CheckpointRace,
      &OptimizerStaleParameters,
      &UnusedParameters,
#ifdef USE_C10D_NCCL
      &SideStreamAllreduce,
#endif
  };
  return Table;
}

} // namespace ddpscenario
