// A model and the helpers that keep its replicas alike, declared here and
// defined in replicas.cpp.
#pragma once
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void broadcast_parameters(c10d::ProcessGroup &pg, Net &model);
void average_gradients(c10d::ProcessGroup &pg, Net &model);
