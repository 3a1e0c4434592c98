// A correct trainer without a wrapper: rank 0's parameters broadcast at the
// start, one parameter at a time in a loop, each gradient all-reduced and
// divided by the world size after backward. The ranks build the model
// without a common seed, so without the broadcast they really would start
// apart; the run shows they do not, and ddp-missing-initial-broadcast credits
// the loop. The one finding:
//  - ddp-per-parameter-allreduce: one collective per parameter is a
//    performance finding; no run-time verdict can show it.
//
// CORPUS-STATIC: ddp-per-parameter-allreduce
// CORPUS-RUNTIME: divergence consistent
// CORPUS-LIMIT: per-parameter all-reduce is static-only (latency, not correctness)
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

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
  Net model;
  {
    torch::NoGradGuard no_grad;
    for (auto &p : model->parameters()) {
      std::vector<torch::Tensor> t{p.data()};
      group.broadcast(t)->wait();
    }
  }
  torch::optim::SGD optimizer(model->parameters(), 0.1);

  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    torch::mse_loss(model->forward(x), y).backward();
    for (auto &p : model->parameters()) {
      std::vector<torch::Tensor> g{p.grad()};
      group.allreduce(g)->wait();
      p.grad().div_(group.getSize());
    }
    optimizer.step();
    probe.step(*model, step);
  }
}
