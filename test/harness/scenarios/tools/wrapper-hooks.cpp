//===- wrapper-hooks.cpp - The reference wrapper's hooks, counted ---------===//
//
// One rank (WORLD_SIZE=1, a real Gloo group of one) runs backward passes and
// prints how many of them the wrapper's reducer averaged, after each thing
// user code does to the model. The mechanisms the scenarios rely on, seen
// directly:
//   wrapped forward                  -> reduced
//   forward on the inner module      -> not reduced (hooks disarmed)
//   dtype round trip after wrapping  -> not reduced (accumulators replaced)
//   wrapping again after the move    -> reduced
//   a parameter without a gradient   -> an error at the end of backward
//
//===----------------------------------------------------------------------===//

#include "ddpharness/ddpharness.h"

#include <torch/torch.h>

#include <cstdio>

namespace {

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(3, 2))) {}
  torch::Tensor forward(torch::Tensor X) { return fc->forward(X); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

/// A head that is registered but never used in forward.
struct TwoHeadsImpl : torch::nn::Module {
  TwoHeadsImpl()
      : fc(register_module("fc", torch::nn::Linear(3, 2))),
        unused(register_module("unused", torch::nn::Linear(3, 2))) {}
  torch::Tensor forward(torch::Tensor X) { return fc->forward(X); }
  torch::nn::Linear fc, unused;
};
TORCH_MODULE(TwoHeads);

using DDP = ddpharness::DistributedDataParallel<Net>;

void report(const char *What, const DDP &Ddp, int64_t &Before) {
  int64_t Now = Ddp.reducer().reductions();
  std::printf("%-32s reduced: %s\n", What, Now > Before ? "yes" : "no");
  Before = Now;
}

} // namespace

int main() {
  auto Dist = ddpharness::init_process_group_from_env();
  torch::manual_seed(0);
  Net Model;
  auto Ddp = std::make_unique<DDP>(Model, Dist.process_group);
  std::printf("buckets: %zu\n", Ddp->reducer().bucket_count());
  auto X = torch::ones({4, 3});
  int64_t Count = 0;

  Ddp->forward(X).sum().backward();
  report("wrapped forward", *Ddp, Count);
  Model->forward(X).sum().backward();
  report("inner forward", *Ddp, Count);
  Ddp->module()->forward(X).sum().backward();
  report("module() forward", *Ddp, Count);

  Model->to(torch::kFloat64);
  Model->to(torch::kFloat32);
  Ddp->forward(X).sum().backward();
  report("wrapped forward after to()", *Ddp, Count);

  Ddp = std::make_unique<DDP>(Model, Dist.process_group);
  Count = 0;
  Ddp->forward(X).sum().backward();
  report("wrapped again after to()", *Ddp, Count);

  TwoHeads Partial;
  ddpharness::DistributedDataParallel<TwoHeads> Unused(Partial,
                                                       Dist.process_group);
  try {
    Unused(X).sum().backward();
    std::printf("unused parameter: no error\n");
  } catch (const std::exception &E) {
    std::printf("unused parameter: error: %s\n", E.what());
  }
  return 0;
}
