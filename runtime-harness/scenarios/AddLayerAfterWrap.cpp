//===- AddLayerAfterWrap.cpp - A layer registered on a wrapped module -----===//
//
// Seed 002, example 2: after wrapping, a layer is added to the inner module
// and initialized on rank 0. Without a collective the new layer holds rank
// 0's values on rank 0 only, and the replicas differ from the first step.
// The seed's own fix, a broadcast of the new layer's parameters, makes them
// equal once, but does not make them trained together: the wrapper hooked
// the gradient accumulators of the parameters it saw when it was built, so
// the new layer's gradients are never averaged, each rank steps it with the
// gradient of its own shard, and the replicas part again at the first step.
//
// The fix: build the wrapper again after changing the module (in PyTorch,
// wrap again). The new wrapper copies rank 0's values, the new layer's
// among them, and hooks every parameter.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

#include <memory>

using namespace ddpscenario;

namespace {

/// The scenarios' two layers, and room for a head added later.
struct HeadedNetImpl : torch::nn::Module {
  HeadedNetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(4, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor X) {
    torch::Tensor Y = fc2->forward(torch::tanh(fc1->forward(X)));
    return head.is_empty() ? Y : head->forward(Y);
  }
  torch::nn::Linear fc1, fc2, head{nullptr};
};
TORCH_MODULE(HeadedNet);

using DDP = ddpharness::DistributedDataParallel<HeadedNet>;

void run(Context &C) {
  auto &Group = *C.dist.process_group;
  torch::manual_seed(0);
  HeadedNet Model;
  Model->to(C.device);
  auto Ddp = std::make_unique<DDP>(Model, C.dist.process_group);

  // The seed's example: add the layer to the wrapped module, initialize it
  // on rank 0.
  HeadedNet &Inner = Ddp->module();
  Inner->head = Inner->register_module("head", torch::nn::Linear(1, 1));
  Inner->head->to(C.device);
  if (C.dist.rank == 0) {
    torch::NoGradGuard NoGrad;
    torch::nn::init::xavier_uniform_(Inner->head->weight);
    torch::nn::init::zeros_(Inner->head->bias);
  }
  if (C.variant == "buggy-broadcast" || C.variant == "fixed-rewrap") {
    std::vector<torch::Tensor> Weight{Inner->head->weight.detach()};
    std::vector<torch::Tensor> Bias{Inner->head->bias.detach()};
    Group.broadcast(Weight)->wait();
    Group.broadcast(Bias)->wait();
  }
  if (C.variant == "fixed-rewrap") {
    Ddp.reset();
    Ddp = std::make_unique<DDP>(Model, C.dist.process_group);
  }

  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);
  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss((*Ddp)(B.x), B.y).backward();
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario AddLayerAfterWrap = {
    "add-layer-after-wrap",
    "ddp-mutation-after-wrap",
    "divergence",
    {"buggy", "fixed-rewrap", "buggy-broadcast"},
    "a layer added to the wrapped module is never synced, even broadcast",
    run};
} // namespace ddpscenario
