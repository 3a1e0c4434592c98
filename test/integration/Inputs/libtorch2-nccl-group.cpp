// Gradients reduced one parameter at a time over an NCCL process group
// (test/integration/libtorch2-nccl.test).
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include <vector>

void sync_gradients(torch::nn::Module &model, c10d::ProcessGroupNCCL &group) {
  for (auto &parameter : model.parameters()) {
    std::vector<at::Tensor> one{parameter.grad()};
    group.allreduce(one)->wait();
    parameter.mutable_grad().div_(group.getSize());
  }
}

void train(torch::nn::Module &model, c10d::ProcessGroupNCCL &group, int steps) {
  for (int step = 0; step < steps; ++step)
    sync_gradients(model, group);
}
