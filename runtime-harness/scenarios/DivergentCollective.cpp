//===- DivergentCollective.cpp - Uneven shards: one rank stops early ------===//
//
// Each rank trains on its own shard until the shard runs out. When the
// shards are uneven (a dataset that does not split evenly), the last rank
// has one batch fewer: it leaves the loop and waits at the end-of-training
// barrier while the others wait in the all-reduce of their extra backward.
// The collectives no longer match: the job hangs (PyTorch's Join exists for
// this). The fix agrees on the number of steps first, with an all-reduce of
// the local batch counts (MIN), so every rank issues the same collectives.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

#include <cstdio>

using namespace ddpscenario;

namespace {

void run(Context &C) {
  Net Model = make_model(C.device);
  ddpharness::DistributedDataParallel<Net> Ddp(Model, C.dist.process_group);
  auto &Group = *C.dist.process_group;
  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);

  // The last rank's shard is one batch short.
  int64_t Batches =
      C.steps - (C.dist.rank == C.dist.world_size - 1 ? 1 : 0);
  if (C.variant == "fixed") {
    // On the device the backend serves: NCCL has no CPU tensors.
    std::vector<torch::Tensor> Count{torch::tensor({Batches}).to(C.device)};
    c10d::AllreduceOptions Min;
    Min.reduceOp = c10d::ReduceOp::MIN;
    Group.allreduce(Count, Min)->wait();
    Batches = Count[0].item<int64_t>();
  }

  for (int64_t Step = 0; Step < Batches; ++Step) {
    std::printf("rank %d step %lld: backward (all-reduce)\n", C.dist.rank,
                static_cast<long long>(Step));
    std::fflush(stdout);
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss(Ddp(B.x), B.y).backward();
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
  std::printf("rank %d: shard done, waiting at the barrier\n", C.dist.rank);
  std::fflush(stdout);
  // Rank 0 saves the model once every rank has finished.
  Group.barrier()->wait();
}

} // namespace

namespace ddpscenario {
extern const Scenario DivergentCollective = {
    "divergent-collective",
    "ddp-divergent-collective",
    "hang",
    {"buggy", "fixed"},
    "uneven shards: the last rank skips the all-reduce of the final step",
    run};
} // namespace ddpscenario
