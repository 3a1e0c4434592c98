// The summed all-reduce of unaveraged_allreduce.cpp, plus a log line of the
// mean gradient norm over the ranks, computed from the summed gradients
// divided by the world size into a new tensor. The gradients the optimizer
// steps with are still the sum (2x the average on two ranks), and
// ddp-unaveraged-allreduce sees that the quotient is only read down to a
// number, and that the measurement's own all-reduce of a copy of the local
// gradients, read down to a number too, never reaches the optimizer.
//
// CORPUS-STATIC: ddp-unaveraged-allreduce
// CORPUS-RUNTIME: gradient-scale 2.00
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(4, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) {
    return fc2->forward(torch::tanh(fc1->forward(x)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

int main() {
  auto dist = ddpharness::init_process_group_from_env();
  auto &group = *dist.process_group;
  ddpharness::Probe probe;
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  double ratio_sum = 0;
  const int64_t steps = 4;

  for (int64_t step = 0; step < steps; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    torch::mse_loss(model->forward(x), y).backward();

    std::vector<torch::Tensor> grads;
    for (auto &p : model->parameters())
      grads.push_back(p.grad().reshape(-1));
    auto local = torch::cat(grads);
    std::vector<torch::Tensor> flat{local.clone()};
    group.allreduce(flat)->wait();
    int64_t offset = 0;
    for (auto &p : model->parameters()) {
      auto n = p.grad().numel();
      p.grad().copy_(flat[0].slice(0, offset, offset + n).view_as(p.grad()));
      offset += n;
    }

    // Measurement only: stepped / true average = stepped * N / sum. (A
    // division of the sum by N here would itself be an average of the
    // gradients and, rightly, count as the fix.)
    std::vector<torch::Tensor> truth{local.clone()};
    group.allreduce(truth)->wait();
    ratio_sum += flat[0].norm().item<double>() * dist.world_size /
                 truth[0].norm().item<double>();

    auto mean_grad = flat[0] / dist.world_size;
    if (dist.rank == 0)
      std::printf("step %lld: mean gradient norm %f\n",
                  static_cast<long long>(step), mean_grad.norm().item<double>());

    optimizer.step();
    probe.step(*model, step);
  }
  probe.result({{"grad_ratio", ratio_sum / steps}});
}
