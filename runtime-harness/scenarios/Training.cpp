//===- Training.cpp - The model and the data every scenario trains on -----===//

#include "Training.h"

using namespace ddpscenario;

Batch ddpscenario::shard_batch(int64_t Step, int Rank, torch::Device Device) {
  auto Grid = torch::arange(32, torch::kFloat32).view({8, 4});
  // Phase by step, offset by rank: another shard on every rank and step.
  auto X = torch::sin(Grid * 0.37 * static_cast<double>(Step + 1) +
                      1.3 * static_cast<double>(Rank));
  auto Y = torch::cos(X.sum(1, /*keepdim=*/true));
  return {X.to(Device), Y.to(Device)};
}

Net ddpscenario::make_model(torch::Device Device) {
  torch::manual_seed(0);
  Net Model;
  Model->to(Device);
  return Model;
}

void ddpscenario::average_gradients(Net &Model, c10d::ProcessGroup &Group) {
  for (auto &P : Model->parameters()) {
    std::vector<torch::Tensor> Grad{P.grad()};
    Group.allreduce(Grad)->wait();
    P.grad().div_(Group.getSize());
  }
}
