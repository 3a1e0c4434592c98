// A hand-written flat sync that never writes back: the gradients are
// flattened into one buffer, all-reduced and averaged there, and only a log
// line reads the average. torch::cat copied them, so the optimizer steps
// with each rank's own gradients and the replicas drift apart.
// ddp-unsynced-gradients reports the step, with a note at the all-reduce of
// the copy; ddp-unaveraged-allreduce has nothing to say (the copy is
// divided, and reaches no step anyway).
//
// CORPUS-STATIC: ddp-unsynced-gradients
// CORPUS-RUNTIME: divergence diverged
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

  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    torch::mse_loss(model->forward(x), y).backward();

    std::vector<torch::Tensor> grads;
    for (auto &p : model->parameters())
      grads.push_back(p.grad().reshape(-1));
    std::vector<torch::Tensor> flat{torch::cat(grads)};
    group.allreduce(flat)->wait();
    flat[0].div_(dist.world_size);
    if (dist.rank == 0)
      std::printf("step %lld: mean gradient norm %f\n",
                  static_cast<long long>(step), flat[0].norm().item<double>());

    optimizer.step();
    probe.step(*model, step);
  }
}
