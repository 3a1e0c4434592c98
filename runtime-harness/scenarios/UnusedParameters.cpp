//===- UnusedParameters.cpp - A registered layer forward() never uses -----===//
//
// The model registers an auxiliary head that its forward() never calls (a
// leftover of an experiment). The wrapper hooks every parameter that
// requires a gradient and reduces a bucket only once all of its gradients
// are ready; the head's gradients never come, so its bucket is never
// reduced. PyTorch's reducer then fails the next iteration (or hangs when
// ranks differ); the reference wrapper fails at the end of the backward
// pass, on every rank. The fixes: remove the head, or freeze it with
// requires_grad(false) before wrapping, so that the wrapper does not wait
// for it.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

#include <cstdio>

using namespace ddpscenario;

namespace {

struct HeadedNetImpl : torch::nn::Module {
  explicit HeadedNetImpl(bool WithAux)
      : fc1(register_module("fc1", torch::nn::Linear(4, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 1))) {
    if (WithAux)
      aux = register_module("aux", torch::nn::Linear(8, 1));
  }
  torch::Tensor forward(torch::Tensor X) {
    return fc2->forward(torch::tanh(fc1->forward(X)));
  }
  torch::nn::Linear fc1, fc2, aux{nullptr};
};
TORCH_MODULE(HeadedNet);

void run(Context &C) {
  torch::manual_seed(0);
  HeadedNet Model(/*WithAux=*/C.variant != "fixed-removed");
  Model->to(C.device);
  if (C.variant == "fixed-frozen")
    for (auto &P : Model->aux->parameters())
      P.requires_grad_(false);
  ddpharness::DistributedDataParallel<HeadedNet> Ddp(Model,
                                                     C.dist.process_group);
  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);

  for (int64_t Step = 0; Step < C.steps; ++Step) {
    std::printf("rank %d step %lld: backward\n", C.dist.rank,
                static_cast<long long>(Step));
    std::fflush(stdout);
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss(Ddp(B.x), B.y).backward();
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario UnusedParameters = {
    "unused-parameters",
    "ddp-unused-parameters",
    "hang",
    {"buggy", "fixed-removed", "fixed-frozen"},
    "a registered head that forward() never uses: its bucket never fills",
    run};
} // namespace ddpscenario
