//===- Training.h - The model and the data every scenario trains on -------===//
//
// A two-layer network and a per-rank shard of a synthetic regression task.
// The data is a closed formula of (step, rank): identical in every run, and
// different on every rank, as a sharded dataset is, so gradients that are
// never averaged really do differ between ranks.
//
//===----------------------------------------------------------------------===//

#ifndef DDPSCENARIO_TRAINING_H
#define DDPSCENARIO_TRAINING_H

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

namespace ddpscenario {

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(4, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor X) {
    return fc2->forward(torch::tanh(fc1->forward(X)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

struct Batch {
  torch::Tensor x, y;
};

/// Rank \p Rank's batch of step \p Step: 8 points, 4 features.
Batch shard_batch(int64_t Step, int Rank, torch::Device Device);

/// The model every rank builds: the same initial values on every rank
/// (seeded identically), on \p Device.
Net make_model(torch::Device Device);

/// The hand-written sync most programs without a wrapper use: each
/// parameter's gradient all-reduced (SUM), then divided by the world size.
void average_gradients(Net &Model, c10d::ProcessGroup &Group);

constexpr double kLearningRate = 0.1;

} // namespace ddpscenario

#endif
